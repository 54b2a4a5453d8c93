""""Sessions valid after" stamps: which tokens a password change ends, and what checking costs."""

from __future__ import annotations

import secrets

import pytest
import redis

from paiju.common.auth import Caller, Role
from paiju.rpc.sessions import LocalStamps, RedisStamps, SessionStamps, session_stamps

FAR = 10**10


def player(issued_at_ms: int | None, account: str = "7") -> Caller:
    return Caller(account, "lihua", Role.PLAYER, FAR, issued_at_ms)


class CountingStamps(LocalStamps):
    """Stamps in a dictionary that count the reads (each would be a Redis GET)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.failing = False

    def read(self, account_id: str) -> int | None:
        self.reads += 1
        if self.failing:
            raise redis.ConnectionError("Redis is down")
        return super().read(account_id)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_tokens_issued_before_the_stamp_are_refused_and_those_from_it_on_accepted() -> None:
    sessions = SessionStamps(LocalStamps())
    sessions.end_sessions_before("7", 5_000, lifetime_seconds=60)
    assert [sessions.is_current(player(at)) for at in (4_999, 5_000, 5_001)] == [False, True, True]
    assert sessions.is_current(player(1, account="8"))  # another account's sessions go on


def test_a_token_without_iat_lives_until_its_account_gets_a_stamp() -> None:
    sessions = SessionStamps(LocalStamps())
    assert sessions.is_current(player(None))
    sessions.end_sessions_before("7", 5_000, lifetime_seconds=60)
    assert not sessions.is_current(player(None))


def test_service_tokens_are_never_stamped() -> None:
    stamps = CountingStamps()
    sessions = SessionStamps(stamps)
    assert sessions.is_current(Caller("service:lobby", "lobby", Role.SERVICE, FAR, None))
    assert stamps.reads == 0


def test_a_process_reads_an_accounts_stamp_once_per_remembered_period() -> None:
    stamps, clock = CountingStamps(), Clock()
    checking = SessionStamps(stamps, clock=clock, remembered_seconds=5.0)
    for _ in range(100):
        assert checking.is_current(player(1_000))
    assert stamps.reads == 1
    # Another process changes the password: this one sees it once what it remembers is stale.
    SessionStamps(stamps).end_sessions_before("7", 2_000, lifetime_seconds=60)
    assert checking.is_current(player(1_000))
    clock.now += 5.0
    assert not checking.is_current(player(1_000))
    assert stamps.reads == 2


def test_the_process_that_changed_the_password_refuses_the_old_tokens_at_once() -> None:
    sessions = SessionStamps(CountingStamps(), clock=Clock())
    assert sessions.is_current(player(1_000))
    sessions.end_sessions_before("7", 2_000, lifetime_seconds=60)
    assert not sessions.is_current(player(1_000))


def test_a_stamp_that_cannot_be_read_lets_the_call_through() -> None:
    stamps = CountingStamps()
    stamps.write("7", 2_000, 60)
    stamps.failing = True
    assert SessionStamps(stamps).is_current(player(1_000))


def test_stamps_in_redis_are_shared_and_expire_with_the_last_session_they_end(redis_url: str) -> None:
    prefix = f"test-sessions-{secrets.token_hex(4)}"
    client = redis.Redis.from_url(redis_url)
    try:
        writer = SessionStamps(RedisStamps(client, prefix))
        reader = session_stamps(redis_url, prefix)
        writer.end_sessions_before("7", 2_000, lifetime_seconds=90)
        assert not reader.is_current(player(1_000))
        assert 0 < client.ttl(f"{prefix}:sessions-after:7") <= 90
    finally:
        client.delete(f"{prefix}:sessions-after:7")


def test_without_redis_the_stamps_are_one_per_deployment_in_the_process() -> None:
    assert session_stamps(None, "a", scope="sqlite:///one") is session_stamps(None, "a", scope="sqlite:///one")
    assert session_stamps(None, "a", scope="sqlite:///one") is not session_stamps(None, "a", scope="sqlite:///two")


@pytest.mark.parametrize("prefix", ["b", "c"])
def test_separate_prefixes_share_no_stamps(prefix: str) -> None:
    session_stamps(None, "b", scope="x").end_sessions_before("7", 2_000, lifetime_seconds=60)
    assert session_stamps(None, prefix, scope="x").is_current(player(1_000)) == (prefix != "b")


@pytest.mark.parametrize("backend", ["local", "redis"])
def test_stamps_a_store_lost_are_given_back_for_what_is_left_of_their_life_and_newer_ones_kept(
        backend: str, redis_url: str) -> None:
    prefix = f"test-restore-{secrets.token_hex(4)}"
    client = redis.Redis.from_url(redis_url)
    store = LocalStamps() if backend == "local" else RedisStamps(client, prefix)
    try:
        sessions = SessionStamps(store)
        sessions.end_sessions_before("8", 9_000, lifetime_seconds=90)  # newer than the ledger's
        ledger = [(7, 2_000), (8, 5_000), (9, 1_000)]
        now_ms = 80_000  # 7 has 12 s of its 90 left, 9 has 11 s
        assert sessions.restore(ledger, lifetime_seconds=90, now_ms=now_ms) == 2
        fresh = SessionStamps(store)  # another process: nothing remembered
        assert not fresh.is_current(player(1_500, "7")) and fresh.is_current(player(2_000, "7"))
        assert fresh.is_current(player(5_000, "8")) is False, "the newer stamp stayed"
        assert not fresh.is_current(player(500, "9"))
        assert sessions.restore(ledger, lifetime_seconds=90, now_ms=now_ms) == 0  # nothing lost now
        assert sessions.restore([(10, 1_000)], lifetime_seconds=90, now_ms=91_000) == 0  # ran out: not given back
        assert fresh.is_current(player(0, "10"))
        if backend == "redis":
            assert 0 < client.ttl(f"{prefix}:sessions-after:7") <= 12
    finally:
        for account in ("7", "8", "9", "10"):
            client.delete(f"{prefix}:sessions-after:{account}")

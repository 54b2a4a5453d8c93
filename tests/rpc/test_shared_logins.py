"""The login budget per client address that every replica shares, on the real Redis."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
import redis

from paiju.common.auth import TokenSigner
from paiju.rpc.limits import TOO_MANY_LOGINS, Admission, FakeClock, Limits, Refused
from paiju.rpc.shared_logins import SharedLoginBudget, shared_login_budget

SECRET = b"the shared login test secret, 32 bytes"
LOGIN = "/paiju.v1.WalletService/Login"
BURST = 5
SLOW_REFILL = 0.001
"""Logins a second once the burst is spent: one more every 1,000 s, so none refills during a test."""


@pytest.fixture
def prefix(redis_url: str) -> Iterator[str]:
    run = f"test-logins-{secrets.token_hex(4)}"
    yield run
    client = redis.Redis.from_url(redis_url)
    stale = list(client.scan_iter(match=f"{run}:*"))
    if stale:
        client.delete(*stale)


def replica(redis_url: str, prefix: str) -> Admission:
    """One server process's admission: its own budget generous, the shared one the deployment's."""
    limits = Limits(logins_per_peer=100, logins_in_flight=100, login_rate_per_peer=SLOW_REFILL,
                    login_burst_per_peer=BURST)
    shared = shared_login_budget(redis_url, prefix, SLOW_REFILL, BURST)
    return Admission(limits, TokenSigner(SECRET), FakeClock(), shared_logins=shared)


def logins_admitted(admission: Admission, address: str, tries: int) -> int:
    admitted = 0
    for _ in range(tries):
        try:
            admission.admit(LOGIN, (), f"ipv4:{address}:4000", streaming=False)()
        except Refused as refused:
            assert refused.error_code == TOO_MANY_LOGINS
        else:
            admitted += 1
    return admitted


def test_two_replicas_together_admit_one_burst_per_address_not_two(redis_url: str, prefix: str) -> None:
    first, second = replica(redis_url, prefix), replica(redis_url, prefix)
    admitted = logins_admitted(first, "198.51.100.1", 3) + logins_admitted(second, "198.51.100.1", BURST)
    assert admitted == BURST
    # Another address has a budget of its own.
    assert logins_admitted(second, "198.51.100.2", BURST) == BURST


def test_deployments_sharing_a_redis_do_not_share_a_budget(redis_url: str, prefix: str) -> None:
    assert logins_admitted(replica(redis_url, prefix), "198.51.100.3", BURST + 1) == BURST
    assert logins_admitted(replica(redis_url, f"{prefix}:other"), "198.51.100.3", BURST) == BURST


def test_the_budgets_key_expires_once_it_would_be_full_again(redis_url: str, prefix: str) -> None:
    budget = shared_login_budget(redis_url, prefix, 2.0, 10)
    assert budget is not None and budget.take("198.51.100.4")
    ttl_ms = redis.Redis.from_url(redis_url).pttl(budget.key("198.51.100.4"))
    assert 0 < ttl_ms <= 6_000  # 10 logins at 2 a second: full after 5 s, plus a second's margin


class BrokenRedis:
    """A Redis client whose every script call fails, counting the calls."""

    def __init__(self) -> None:
        self.calls = 0

    def evalsha(self, *_: object) -> int:
        self.calls += 1
        raise redis.ConnectionError("Redis is down")


def test_redis_failing_lets_logins_through_and_is_not_asked_again_for_a_while() -> None:
    clock, broken = FakeClock(), BrokenRedis()
    budget = SharedLoginBudget(broken, "down", rate=1.0, burst=1, clock=clock)
    assert [budget.take("198.51.100.5") for _ in range(3)] == [True, True, True]
    assert broken.calls == 1
    clock.now += 5.0
    assert budget.take("198.51.100.5") and broken.calls == 2


def test_without_redis_there_is_no_shared_budget() -> None:
    assert shared_login_budget(None, "paiju", 2.0, 60) is None

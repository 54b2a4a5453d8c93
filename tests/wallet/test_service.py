"""The wallet's gRPC services on a real loopback server over SQLite: sessions, balances, holds,
history pages, leaderboards and levels, and the status code of every documented refusal."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fakeredis
import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paiju.common.auth import TokenSigner
from paiju.common.config import Settings
from paiju.games.engine import IllegalAction
from paiju.games.zhajinhua import level_for
from paiju.platform import game_levels
from paiju.proto.v1 import wallet_pb2, wallet_pb2_grpc
from paiju.rpc.channels import authorized_channel
from paiju.rpc.errors import ERROR_CODE_KEY, trailer
from paiju.rpc.interceptor import bearer_metadata
from paiju.rpc.server import RunningServer, start_server
from paiju.table.ports import CoinsChanged
from paiju.wallet import PasswordHasher, Wallet
from paiju.wallet.leaderboard import Leaderboard
from paiju.wallet.relay import SettlementOrder, Settler
from paiju.wallet.service import wallet_bindings
from paiju.wallet.table_port import RemoteWallet
from tests.patience import PATIENCE_SECONDS

SECRET = "the wallet service test secret .."
STARTING_GRANT = 5_000
TIMEOUT = PATIENCE_SECONDS
Code = grpc.StatusCode


@dataclass
class Harness:
    """A running wallet server, its ledger and leaderboards, and stubs to call it."""

    wallet: Wallet
    board: Leaderboard
    running: RunningServer
    channel: grpc.Channel
    signer: TokenSigner

    @property
    def public(self) -> wallet_pb2_grpc.WalletServiceStub:
        return wallet_pb2_grpc.WalletServiceStub(self.channel)

    @property
    def internal(self) -> wallet_pb2_grpc.WalletInternalServiceStub:
        return wallet_pb2_grpc.WalletInternalServiceStub(self.channel)

    def as_service(self) -> tuple[tuple[str, str]]:
        return bearer_metadata(self.signer.issue_service_token("table", ttl=3600))

    def register(self, username: str, password: str = "password-123") -> wallet_pb2.RegisterResponse:
        request = wallet_pb2.RegisterRequest(username=username, password=password)
        return self.public.Register(request, timeout=TIMEOUT)

    def settle(self, hand_id: str, loser: int, winner: int, stake: int, fee: int = 0) -> None:
        """Hold and settle a two-player hand as the table and the relay would."""
        self.wallet.hold_hand(hand_id, {loser: stake, winner: stake})
        lines = [(loser, -stake, "stake"), (winner, -stake, "stake"), (winner, 2 * stake, "pot")]
        if fee:
            lines.append((winner, -fee, "fee"))
        order = SettlementOrder(hand_id, "t1", "zhajinhua", tuple(lines), fee)
        Settler(self.wallet, self.board)(order)


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    env = {
        "PAIJU_SECRET": SECRET,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'wallet.db'}",
        "PAIJU_STARTING_GRANT": str(STARTING_GRANT),
        "PAIJU_SESSION_TTL_SECONDS": "600",
    }
    settings_ = Settings.from_env(env)
    wallet = Wallet(
        settings_.database_url,
        starting_grant=settings_.starting_grant,
        password_hasher=PasswordHasher(n=2**4),
    )
    wallet.migrate()
    board = Leaderboard(fakeredis.FakeRedis(), "service-test:leaderboard")
    signer = TokenSigner(settings_.secret)
    running = start_server(wallet_bindings(settings_, wallet, board, levels=game_levels()), signer=signer, port=0)
    channel = grpc.insecure_channel(running.address)
    try:
        yield Harness(wallet, board, running, channel, signer)
    finally:
        channel.close()
        running.stop(grace=None)
        wallet.close()


def refusal(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str, str | None]:
    """The status code, message and error word of a call that must fail."""
    with pytest.raises(grpc.RpcError) as failed:
        call()
    error: Any = failed.value
    return error.code(), error.details(), trailer(error, ERROR_CODE_KEY)


# -- sessions ---------------------------------------------------------------------------------


def test_register_grants_the_starting_coins_and_opens_a_session(harness: Harness) -> None:
    before = time.time()
    session = harness.register("小明")
    caller = harness.signer.verify(session.token)
    assert (caller.account_id, caller.username) == (session.account_id, "小明")
    assert session.username == "小明"
    assert before + 600 - 2 <= session.expires_at.seconds <= time.time() + 600
    balance = harness.public.GetBalance(
        wallet_pb2.GetBalanceRequest(), metadata=bearer_metadata(session.token), timeout=TIMEOUT
    )
    assert (balance.account_id, balance.total, balance.available, balance.held) == (
        session.account_id, STARTING_GRANT, STARTING_GRANT, 0
    )


@pytest.mark.parametrize(
    ("username", "password", "code"),
    [
        ("", "password-123", Code.INVALID_ARGUMENT),
        ("x" * 33, "password-123", Code.INVALID_ARGUMENT),
        ("tab\there", "password-123", Code.INVALID_ARGUMENT),
        ("shorty", "1234567", Code.INVALID_ARGUMENT),
        ("ALICE", "password-123", Code.ALREADY_EXISTS),
    ],
)
def test_register_refusals(harness: Harness, username: str, password: str, code: Any) -> None:
    harness.register("alice")
    got, message, _ = refusal(lambda: harness.register(username, password))
    assert got == code and message
    assert harness.wallet.total_coins() == STARTING_GRANT  # only alice was granted


def test_login_opens_a_session_and_does_not_tell_which_part_was_wrong(harness: Harness) -> None:
    registered = harness.register("Alice", "correct horse")
    session = harness.public.Login(
        wallet_pb2.LoginRequest(username="alice", password="correct horse"), timeout=TIMEOUT
    )
    assert (session.account_id, session.username) == (registered.account_id, "Alice")
    assert harness.signer.verify(session.token).account_id == registered.account_id
    wrong_password = refusal(lambda: harness.public.Login(
        wallet_pb2.LoginRequest(username="alice", password="Correct horse"), timeout=TIMEOUT))
    no_user = refusal(lambda: harness.public.Login(
        wallet_pb2.LoginRequest(username="bob", password="correct horse"), timeout=TIMEOUT))
    assert wrong_password == no_user and wrong_password[0] == Code.UNAUTHENTICATED
    empty = refusal(lambda: harness.public.Login(
        wallet_pb2.LoginRequest(username="alice"), timeout=TIMEOUT))
    assert empty[0] == Code.INVALID_ARGUMENT


def test_player_calls_need_a_player_session(harness: Harness) -> None:
    no_token = refusal(lambda: harness.public.GetBalance(
        wallet_pb2.GetBalanceRequest(), timeout=TIMEOUT))
    assert no_token[0] == Code.UNAUTHENTICATED
    as_service = refusal(lambda: harness.public.GetBalance(
        wallet_pb2.GetBalanceRequest(), metadata=harness.as_service(), timeout=TIMEOUT))
    assert as_service[0] == Code.UNAUTHENTICATED and as_service[2] == "no_account"
    ghost = bearer_metadata(harness.signer.issue("999", "ghost", ttl=3600))
    vanished = refusal(lambda: harness.public.GetBalance(
        wallet_pb2.GetBalanceRequest(), metadata=ghost, timeout=TIMEOUT))
    assert vanished[0] == Code.UNAUTHENTICATED


# -- holds ------------------------------------------------------------------------------------


def holds_request(hand_id: str, *holds: tuple[str, int]) -> wallet_pb2.HoldForHandRequest:
    return wallet_pb2.HoldForHandRequest(
        hand_id=hand_id,
        game="zhajinhua",
        holds=[wallet_pb2.Hold(account_id=a, amount=n) for a, n in holds],
    )


def test_holds_are_placed_all_or_nothing_and_idempotently(harness: Harness) -> None:
    alice, bob = harness.register("alice").account_id, harness.register("bob").account_id
    internal, service = harness.internal, harness.as_service()
    placed = internal.HoldForHand(holds_request("h1", (alice, 1_000), (bob, 0)),
                                  metadata=service, timeout=TIMEOUT)
    assert [(h.account_id, h.amount) for h in placed.holds] == [(alice, 1_000), (bob, 0)]
    assert [(b.account_id, b.available, b.held, b.total) for b in placed.balances] == [
        (alice, 4_000, 1_000, 5_000), (bob, 5_000, 0, 5_000)
    ]
    again = internal.HoldForHand(holds_request("h1", (alice, 1_000), (bob, 0)),
                                 metadata=service, timeout=TIMEOUT)
    assert again.balances[0].held == 1_000  # the same holds: nothing more held

    short = refusal(lambda: internal.HoldForHand(
        holds_request("h2", (bob, 10), (alice, 4_001)), metadata=service, timeout=TIMEOUT))
    assert short[0] == Code.FAILED_PRECONDITION and alice in short[1]
    assert short[2] == "insufficient_funds"
    assert harness.wallet.held(int(bob)) == 0  # all or nothing

    other = refusal(lambda: internal.HoldForHand(
        holds_request("h1", (alice, 999)), metadata=service, timeout=TIMEOUT))
    assert other[0] == Code.ALREADY_EXISTS


def test_holds_dealt_from_the_board_are_refused_when_the_coins_changed(harness: Harness) -> None:
    alice, bob = harness.register("alice").account_id, harness.register("bob").account_id
    internal, service = harness.internal, harness.as_service()
    harness.wallet.hold("elsewhere", int(alice), 1_000)  # the board may not have heard of it yet

    def dealt_from(alice_coins: int, hand_id: str) -> wallet_pb2.HoldForHandRequest:
        return wallet_pb2.HoldForHandRequest(hand_id=hand_id, game="zhajinhua", holds=[
            wallet_pb2.Hold(account_id=alice, amount=500, expected_available=alice_coins),
            wallet_pb2.Hold(account_id=bob, amount=500, expected_available=5_000),
        ])

    stale = refusal(lambda: internal.HoldForHand(dealt_from(5_000, "h1"), metadata=service, timeout=TIMEOUT))
    assert stale[0] == Code.FAILED_PRECONDITION and stale[2] == "coins_changed"
    assert "4,000 coins available" in stale[1]
    assert harness.wallet.holds("h1") == {}  # nothing held, bob's matching coins included
    placed = internal.HoldForHand(dealt_from(4_000, "h1"), metadata=service, timeout=TIMEOUT)
    assert [(b.account_id, b.available, b.held, b.total) for b in placed.balances] == [
        (alice, 3_500, 1_500, 5_000), (bob, 4_500, 500, 5_000)
    ]


def test_the_tables_remote_wallet_tells_coins_changed_from_coins_short(harness: Harness) -> None:
    alice, bob = harness.register("alice").account_id, harness.register("bob").account_id
    token = harness.signer.issue_service_token("table", ttl=3600)
    with authorized_channel(harness.running.address, lambda: token) as channel:
        remote = RemoteWallet(channel)
        with pytest.raises(CoinsChanged, match="not the 4,999 the hand was dealt from"):
            remote.hold_hand("h1", {alice: 500, bob: 0}, expected={alice: 4_999, bob: 5_000})
        with pytest.raises(IllegalAction) as short:
            remote.hold_hand("h1", {alice: 5_001})
        assert short.value.code == "cannot_hold"
        assert harness.wallet.holds("h1") == {}
        remote.hold_hand("h1", {alice: 500, bob: 0}, expected={alice: 5_000, bob: 5_000})
        assert harness.wallet.holds("h1") == {int(alice): 500}


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        (holds_request("", ("1", 10)), Code.INVALID_ARGUMENT),
        (holds_request("h9"), Code.INVALID_ARGUMENT),
        (holds_request("h9", ("1", -1)), Code.INVALID_ARGUMENT),
        (holds_request("h9", ("1", 5), ("1", 5)), Code.INVALID_ARGUMENT),
        (holds_request("h9", ("12345", 5)), Code.NOT_FOUND),
        (holds_request("h9", ("nobody", 5)), Code.NOT_FOUND),
    ],
)
def test_hold_refusals(harness: Harness, request_: Any, code: Any) -> None:
    harness.register("alice")
    got = refusal(lambda: harness.internal.HoldForHand(
        request_, metadata=harness.as_service(), timeout=TIMEOUT))
    assert got[0] == code


def test_internal_calls_need_a_service_token(harness: Harness) -> None:
    player = bearer_metadata(harness.register("alice").token)
    denied = refusal(lambda: harness.internal.ReleaseHand(
        wallet_pb2.ReleaseHandRequest(hand_id="h1"), metadata=player, timeout=TIMEOUT))
    assert denied[0] == Code.PERMISSION_DENIED
    anonymous = refusal(lambda: harness.internal.ReleaseHand(
        wallet_pb2.ReleaseHandRequest(hand_id="h1"), timeout=TIMEOUT))
    assert anonymous[0] == Code.UNAUTHENTICATED


def test_release_returns_the_coins_once_and_not_after_settlement(harness: Harness) -> None:
    alice, bob = harness.register("alice").account_id, harness.register("bob").account_id
    service = harness.as_service()
    harness.internal.HoldForHand(holds_request("h1", (alice, 700), (bob, 300)),
                                 metadata=service, timeout=TIMEOUT)

    def release(hand_id: str) -> wallet_pb2.ReleaseHandResponse:
        return harness.internal.ReleaseHand(
            wallet_pb2.ReleaseHandRequest(hand_id=hand_id), metadata=service, timeout=TIMEOUT)

    assert release("h1").released == 1_000
    assert release("h1").released == 0 and release("never-held").released == 0
    assert harness.wallet.available(int(alice)) == 5_000
    harness.settle("h2", int(alice), int(bob), 100)
    settled = refusal(lambda: release("h2"))
    assert settled[0] == Code.FAILED_PRECONDITION and settled[2] == "hand_settled"
    assert refusal(lambda: release(""))[0] == Code.INVALID_ARGUMENT


# -- history ----------------------------------------------------------------------------------


def test_history_shows_grants_hands_and_fees(harness: Harness) -> None:
    started = time.time()
    alice = harness.register("alice")
    bob = harness.register("bob")
    harness.settle("h1", int(alice.account_id), int(bob.account_id), 200, fee=8)
    entries = harness.public.History(
        wallet_pb2.HistoryRequest(), metadata=bearer_metadata(bob.token), timeout=TIMEOUT
    ).entries
    seen = [(e.amount, e.reason, e.detail, e.hand_id, e.balance_after) for e in reversed(entries)]
    settlement = wallet_pb2.ENTRY_REASON_HAND_SETTLEMENT
    assert seen == [
        (5_000, wallet_pb2.ENTRY_REASON_GRANT, "", "", 5_000),
        (-200, settlement, "stake", "h1", 4_800),
        (400, settlement, "pot", "h1", 5_200),
        (-8, settlement, "fee", "h1", 5_192),
    ]
    assert all(e.game == "zhajinhua" for e in entries[:3]) and entries[-1].game == ""
    assert all(started - 1 <= e.created_at.seconds <= time.time() + 1 for e in entries)
    only_hands = harness.public.History(
        wallet_pb2.HistoryRequest(game="hunzhan"), metadata=bearer_metadata(bob.token),
        timeout=TIMEOUT)
    assert list(only_hands.entries) == []


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(limit=st.integers(1, 7))
def test_history_pages_cover_every_entry_once(harness: Harness, limit: int) -> None:
    name = f"pager{limit}-{time.monotonic_ns()}"[:32]
    player = harness.register(name)
    rival = harness.register(name[:-1] + "r")
    for number in range(9):
        loser, winner = (player, rival) if number % 2 else (rival, player)
        harness.settle(f"{name}-h{number}", int(loser.account_id), int(winner.account_id), 10)
    metadata = bearer_metadata(player.token)
    everything = harness.wallet.history(int(player.account_id), limit=1_000)
    pages, token = [], ""
    while True:
        page = harness.public.History(wallet_pb2.HistoryRequest(limit=limit, page_token=token),
                                      metadata=metadata, timeout=TIMEOUT)
        assert 0 < len(page.entries) <= limit
        pages += [int(e.entry_id) for e in page.entries]
        token = page.next_page_token
        if not token:
            break
    assert pages == [entry.id for entry in everything]


def test_history_refusals(harness: Harness) -> None:
    alice, bob = harness.register("alice"), harness.register("bob")
    harness.settle("h1", int(alice.account_id), int(bob.account_id), 10)
    first = harness.public.History(wallet_pb2.HistoryRequest(limit=1),
                                   metadata=bearer_metadata(alice.token), timeout=TIMEOUT)
    assert first.next_page_token

    def history(token: str, **fields: Any) -> Any:
        return lambda: harness.public.History(wallet_pb2.HistoryRequest(**fields),
                                              metadata=bearer_metadata(token), timeout=TIMEOUT)

    for fields in ({"limit": 201}, {"limit": -1}, {"page_token": "12.forged"},
                   {"page_token": first.next_page_token, "game": "zhajinhua"}):
        assert refusal(history(alice.token, **fields))[0] == Code.INVALID_ARGUMENT, fields
    stolen = refusal(history(bob.token, page_token=first.next_page_token))
    assert stolen[0] == Code.INVALID_ARGUMENT and stolen[2] == "bad_page_token"
    assert refusal(lambda: harness.public.History(wallet_pb2.HistoryRequest(),
                                                  timeout=TIMEOUT))[0] == Code.UNAUTHENTICATED


# -- leaderboards and levels ------------------------------------------------------------------


def test_the_leaderboard_ranks_net_winnings_with_the_callers_row(harness: Harness) -> None:
    sessions = [harness.register(name) for name in ("ann", "ben", "cai", "dan", "eve")]
    ids = [int(s.account_id) for s in sessions]
    harness.board.mark_built("zhajinhua")  # nobody has played yet
    ann, ben, cai, dan, _ = ids
    harness.settle("h1", ben, ann, 300, fee=6)
    harness.settle("h2", dan, cai, 294)
    harness.settle("h3", cai, dan, 50)

    def leaderboard(session: Any, **fields: Any) -> wallet_pb2.LeaderboardResponse:
        return harness.public.Leaderboard(
            wallet_pb2.LeaderboardRequest(game="zhajinhua", **fields),
            metadata=bearer_metadata(session.token), timeout=TIMEOUT)

    board = leaderboard(sessions[1])
    rows = [(r.rank, r.username, r.value) for r in board.rows]
    assert rows == [(1, "ann", 294), (2, "cai", 244), (3, "dan", -244), (4, "ben", -300)]
    assert (board.own.rank, board.own.username, board.own.value) == (4, "ben", -300)
    assert not leaderboard(sessions[4]).HasField("own")  # eve has not played
    assert [r.username for r in leaderboard(sessions[0], limit=1).rows] == ["ann"]
    # The board is repaired from the ledger when Redis lost it.
    harness.board.drop("zhajinhua")
    again = leaderboard(sessions[1])
    assert [(r.rank, r.username, r.value) for r in again.rows] == rows


def test_equal_winnings_share_a_rank_on_the_wire(harness: Harness) -> None:
    sessions = [harness.register(name) for name in ("ann", "ben", "cai", "dan")]
    ann, ben, cai, dan = (int(s.account_id) for s in sessions)
    harness.settle("h1", ben, ann, 100)
    harness.settle("h2", dan, cai, 100)
    reply = harness.public.Leaderboard(
        wallet_pb2.LeaderboardRequest(game="zhajinhua"),
        metadata=bearer_metadata(sessions[3].token), timeout=TIMEOUT)
    assert [(r.rank, r.value) for r in reply.rows] == [(1, 100), (1, 100), (3, -100), (3, -100)]
    assert (reply.own.rank, reply.own.value) == (3, -100)


def test_leaderboard_refusals(harness: Harness) -> None:
    token = bearer_metadata(harness.register("alice").token)

    def ask(**fields: Any) -> Any:
        return lambda: harness.public.Leaderboard(wallet_pb2.LeaderboardRequest(**fields),
                                                  metadata=token, timeout=TIMEOUT)

    assert refusal(ask(game="poker"))[0] == Code.NOT_FOUND
    assert refusal(ask(game="zhajinhua", limit=101))[0] == Code.INVALID_ARGUMENT
    assert list(harness.public.Leaderboard(wallet_pb2.LeaderboardRequest(game="hunzhan"),
                                           metadata=token, timeout=TIMEOUT).rows) == []


def test_levels_follow_the_balance(harness: Harness) -> None:
    alice, bob = harness.register("alice"), harness.register("bob")
    harness.settle("h1", int(alice.account_id), int(bob.account_id), 2_000)

    def level(session: Any, **fields: Any) -> wallet_pb2.LevelResponse:
        return harness.public.Level(wallet_pb2.LevelRequest(game="zhajinhua", **fields),
                                    metadata=bearer_metadata(session.token), timeout=TIMEOUT)

    own = level(bob)
    assert (own.account_id, own.value, own.max_level) == (bob.account_id, 7_000, 27)
    assert (own.level, own.title) == level_for(7_000)
    assert own.next_level_at > own.value and level_for(own.next_level_at)[0] == own.level + 1
    assert level_for(own.next_level_at - 1)[0] == own.level
    theirs = level(bob, account_id=alice.account_id)
    assert (theirs.account_id, theirs.value, theirs.level) == (
        alice.account_id, 3_000, level_for(3_000)[0])
    token = bearer_metadata(bob.token)
    for fields, code in (({"game": "zhajinhua", "account_id": "424242"}, Code.NOT_FOUND),
                         ({"game": "zhajinhua", "account_id": "nobody"}, Code.NOT_FOUND),
                         ({"game": "hunzhan"}, Code.NOT_FOUND),
                         ({"game": "poker"}, Code.NOT_FOUND)):
        got = refusal(lambda f=fields: harness.public.Level(  # type: ignore[misc]
            wallet_pb2.LevelRequest(**f), metadata=token, timeout=TIMEOUT))
        assert got[0] == code, fields


def test_chaodipi_levels_are_the_fortune_medals_of_the_balance(harness: Harness) -> None:
    from paiju.games.chaodipi import medal_for, medal_threshold

    alice, bob = harness.register("medal-alice"), harness.register("medal-bob")
    harness.settle("medal-h1", int(alice.account_id), int(bob.account_id), 2_000)
    medal = harness.public.Level(wallet_pb2.LevelRequest(game="chaodipi"),
                                 metadata=bearer_metadata(bob.token), timeout=TIMEOUT)
    assert (medal.value, medal.level, medal.max_level) == (7_000, medal_for(7_000), 100)
    assert medal_threshold(medal.level) <= 7_000 < medal.next_level_at == medal_threshold(medal.level + 1)


def test_a_score_board_ranks_the_score_channels_points(harness: Harness) -> None:
    alice, bob = harness.register("score-alice"), harness.register("score-bob")
    harness.wallet.record_scores("score-h1", "chaodipi", {int(alice.account_id): -3, int(bob.account_id): 3})
    board = harness.public.Leaderboard(wallet_pb2.LeaderboardRequest(game="chaodipi:score"),
                                       metadata=bearer_metadata(alice.token), timeout=TIMEOUT)
    assert [(row.rank, row.account_id, row.value) for row in board.rows] == [
        (1, bob.account_id, 3), (2, alice.account_id, -3)]
    assert board.own.account_id == alice.account_id and board.own.value == -3


def test_get_balances_answers_in_the_order_asked_and_refuses_an_unknown_account(harness: Harness) -> None:
    alice, bob = harness.register("alice").account_id, harness.register("bob").account_id
    internal, service = harness.internal, harness.as_service()
    internal.HoldForHand(holds_request("h1", (bob, 700)), metadata=service, timeout=TIMEOUT)
    answer = internal.GetBalances(wallet_pb2.GetBalancesRequest(account_ids=[bob, alice, bob]),
                                  metadata=service, timeout=TIMEOUT)
    assert [(b.account_id, b.available, b.held, b.total) for b in answer.balances] == [
        (bob, 4_300, 700, 5_000), (alice, 5_000, 0, 5_000), (bob, 4_300, 700, 5_000)]
    unknown = refusal(lambda: internal.GetBalances(
        wallet_pb2.GetBalancesRequest(account_ids=[alice, "999999"]), metadata=service, timeout=TIMEOUT))
    assert unknown[0] == Code.NOT_FOUND and "999999" in unknown[1]

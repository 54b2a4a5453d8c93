"""Leaderboards in Redis (the emulation and the real server): each hand counted once, ranks,
a board that is not built takes no increments, and a rebuild from the ledger equals the sum of
the increments."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import fakeredis
import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paiju.wallet import Line, PasswordHasher, Reason, Settlement, Wallet
from paiju.wallet.leaderboard import Counted, Leaderboard
from paiju.wallet.relay import SettlementOrder, Settler
from tests.volume import volume

GAME = "zhajinhua"


@pytest.fixture(params=["fakeredis", "redis"])
def client(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "fakeredis":
        yield fakeredis.FakeRedis()
        return
    yield redis.Redis.from_url(request.getfixturevalue("redis_url"))


@pytest.fixture
def board(client: Any) -> Iterator[Leaderboard]:
    prefix = f"paiju-test-{uuid.uuid4().hex[:12]}:leaderboard"
    yield Leaderboard(client, prefix, marker_seconds=3600)  # no marker expires during a test
    stale = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if stale:
        client.delete(*stale)


def hand(hand_id: str, *lines: tuple[int, int, str], game: str = GAME) -> Settlement:
    return Settlement(
        hand_id, game, tuple(Line(a, n, Reason(r)) for a, n, r in lines), replayed=False
    )


def test_each_hand_is_counted_once(board: Leaderboard) -> None:
    board.mark_built(GAME)
    first = hand("h1", (1, -100, "stake"), (2, 95, "pot"), (9, 5, "fee"))
    assert board.record(first, house=9) is Counted.NOW
    assert board.record(first, house=9) is Counted.BEFORE
    assert board.record(hand("h2", (2, -40, "stake"), (3, 40, "pot")), house=9) is Counted.NOW
    assert board.nets(GAME) == {1: -100, 2: 55, 3: 40}
    assert board.top(GAME, 2) == [(2, 55), (3, 40)]
    assert board.top(GAME, 0) == []


def test_games_have_separate_boards(board: Leaderboard) -> None:
    board.mark_built(GAME)
    board.mark_built("hunzhan")
    board.record(hand("h1", (1, -10, "stake"), (2, 10, "pot")), house=9)
    board.record(hand("h1", (1, 30, "pot"), (2, -30, "stake"), game="hunzhan"), house=9)
    assert board.nets(GAME) == {1: -10, 2: 10}
    assert board.nets("hunzhan") == {1: 30, 2: -30}


def test_equal_nets_share_a_rank(board: Leaderboard) -> None:
    board.replace(GAME, [(1, 50), (2, 80), (3, 50), (4, -5)])
    assert [board.standing(GAME, account) for account in (2, 1, 3, 4)] == [
        (1, 80), (2, 50), (2, 50), (4, -5)
    ]
    assert board.standing(GAME, 99) is None


def test_a_board_that_is_not_built_takes_no_increments(board: Leaderboard) -> None:
    first = hand("h1", (1, -10, "stake"), (2, 10, "pot"))
    assert board.record(first, house=9) is Counted.NOT_BUILT
    assert board.nets(GAME) == {} and not board.is_built(GAME)
    board.replace(GAME, [(1, -10), (2, 10)])  # what a rebuild reads from the ledger
    assert board.record(first, house=9) is Counted.BEFORE  # not counted a second time
    assert board.nets(GAME) == {1: -10, 2: 10}


def test_a_lost_board_is_rebuilt_from_the_ledger(board: Leaderboard) -> None:
    wallet = Wallet("sqlite://", password_hasher=PasswordHasher(n=2**4))
    wallet.migrate()
    alice, bob = wallet.register("alice", "password-1"), wallet.register("bob", "password-2")
    board.mark_built(GAME)
    settler = Settler(wallet, board)
    for number in range(3):
        wallet.hold_hand(f"h{number}", {alice: 100, bob: 100})
        settler(_order(f"h{number}", alice, bob, 100, fee=2))
    counted = board.nets(GAME)
    board.drop(GAME)
    assert board.nets(GAME) == {} and board.ensure(GAME, wallet) is True
    assert board.nets(GAME) == counted == {alice: -300, bob: 294}
    assert board.ensure(GAME, wallet) is False
    wallet.close()


def test_bad_names_are_refused(client: Any) -> None:
    with pytest.raises(ValueError, match="prefix"):
        Leaderboard(client, "a{b}")
    with pytest.raises(ValueError, match="marker_seconds"):
        Leaderboard(client, marker_seconds=0)
    with pytest.raises(ValueError, match="game name"):
        Leaderboard(client).key("zha:jinhua")


def _order(hand_id: str, loser: int, winner: int, stake: int, fee: int = 0) -> SettlementOrder:
    lines = [(loser, -stake, "stake"), (winner, -stake, "stake"), (winner, 2 * stake, "pot")]
    if fee:
        lines.append((winner, -fee, "fee"))
    return SettlementOrder(hand_id, "t1", GAME, tuple(lines), fee)


hands_strategy = st.lists(
    st.tuples(
        st.integers(0, 4),  # loser
        st.integers(0, 4),  # winner
        st.integers(1, 2_000),  # stake
        st.integers(0, 5),  # fee, per cent of the winnings
        st.booleans(),  # delivered twice
    ).filter(lambda h: h[0] != h[1]),
    min_size=1,
    max_size=25,
)


@settings(max_examples=volume(suite=8, soak=25), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(hands=hands_strategy)
def test_a_rebuild_equals_the_increments(
    board: Leaderboard, hands: list[tuple[int, int, int, int, bool]]
) -> None:
    wallet = Wallet("sqlite://", password_hasher=PasswordHasher(n=2**4))
    wallet.migrate()
    players = [wallet.register(f"p{n}", "password-1") for n in range(5)]
    game_board = f"{GAME}-{uuid.uuid4().hex[:6]}"  # one board per example on the shared Redis
    board.mark_built(game_board)
    settler = Settler(wallet, board)
    for number, (loser, winner, stake, fee_percent, twice) in enumerate(hands):
        hand_id = f"h{number}"
        wallet.hold_hand(hand_id, {players[loser]: stake, players[winner]: stake})
        order = _order(hand_id, players[loser], players[winner], stake, stake * fee_percent // 100)
        order = SettlementOrder(order.hand_id, order.table_id, game_board, order.lines, order.fee)
        for _ in range(2 if twice else 1):
            settler(order)
    incremental = board.nets(game_board)
    board.rebuild(game_board, wallet)
    assert board.nets(game_board) == incremental
    assert sum(incremental.values()) == -wallet.balance(wallet.house)
    assert wallet.total_coins() == wallet.grants_total()
    board.drop(game_board)
    wallet.close()

"""The watchdog with an injected clock: turn timers, the ready kick, presence, the reconnect
window and escapes; and several replicas sharing the deadlines, each fired exactly once."""

from __future__ import annotations

import logging
import threading

import grpc
import pytest

from paiju.games.chaodipi import Phase as ChaodipiPhase
from paiju.games.zhajinhua import Game
from paiju.table.deadline_names import RECONNECT_PREFIX, TURN_DEADLINE
from paiju.table.record import TableRecord
from paiju.watchdog.owners import LocalTables
from paiju.watchdog.presence import QUIET_AFTER_MS
from paiju.watchdog.replica import Replica


def seat_players(tables, wallet, count, table_id="t1", ready=True):
    tables.open(table_id, "zhajinhua", "free")
    accounts = [str(wallet.register(f"{table_id}p{i}", "secret password")) for i in range(count)]
    for account in accounts:
        tables.sit(table_id, account, account)
    if ready:
        for account in accounts:
            tables.ready(table_id, account)
    return accounts


def observe_for(replica, clock, ms, step=1_000):
    """Passes every ``step`` ms for ``ms``, as a running replica makes them; the players it
    disconnected meanwhile."""
    disconnected = replica.run_once().disconnected
    for _ in range(ms // step):
        clock.now += step
        disconnected += replica.run_once().disconnected
    return disconnected


def hand_of(tables, table_id="t1"):
    _, record = tables.load(table_id)
    return None if record.hand is None else Game.load(record.hand.blob)


def test_nothing_fires_before_its_time_and_a_turn_times_out_after(world):
    tables, _, replica, clock, wallet = world
    seat_players(tables, wallet, 3)
    assert replica.run_once().fired == 0
    clock.now += 20_000
    assert replica.run_once().fired == 1
    assert hand_of(tables).history == [(1, "timeout")]
    assert replica.run_once().fired == 0  # fired once, and the next turn's timer is not due yet


def test_the_unready_player_is_stood_up_after_the_ready_kick(world):
    tables, _, replica, clock, wallet = world
    accounts = seat_players(tables, wallet, 3, ready=False)
    tables.ready("t1", accounts[0])
    tables.ready("t1", accounts[1])
    clock.now += 19_999
    assert replica.run_once().fired == 0
    clock.now += 1
    assert replica.run_once().fired == 1
    assert tables.view("t1", accounts[0])["table"]["seats"][2] is None


def test_a_quiet_player_is_disconnected_and_coming_back_in_time_restores_the_seat(world):
    tables, board, replica, clock, wallet = world
    accounts = seat_players(tables, wallet, 2, ready=False)
    board.beat("t1", accounts[0], clock.now)
    assert observe_for(replica, clock, QUIET_AFTER_MS) == 1
    seat = tables.view("t1", accounts[0])["seat"]
    assert tables.view("t1", accounts[1])["table"]["seats"][seat]["connected"] is False
    window = tables.deadline("t1", f"{RECONNECT_PREFIX}{seat}")
    assert window.due_ms == clock.now + 90_000
    clock.now += 89_000
    assert tables.reconnect("t1", accounts[0]) is not None
    assert tables.deadline("t1", f"{RECONNECT_PREFIX}{seat}") is None
    clock.now += 5_000
    assert replica.run_once().fired == 0
    assert tables.view("t1", accounts[0])["seat"] == seat


def test_not_back_in_time_is_an_escape_that_folds_the_hand_and_frees_the_seat(world):
    tables, board, replica, clock, wallet = world
    accounts = seat_players(tables, wallet, 3)
    hand = hand_of(tables)
    quitter = accounts[hand.to_act]  # table seats equal hand seats here
    board.beat("t1", quitter, clock.now)
    board.closed("t1", quitter, clock.now)  # the stream closed: noticed at the next sweep
    assert replica.run_once().disconnected == 1
    clock.now += 20_000  # 炸金花's turn timer runs on for a disconnected player: a fold
    assert replica.run_once().fired == 1
    assert hand_of(tables).history[-1] == (accounts.index(quitter), "timeout")
    clock.now += 70_000  # the reconnect window closes (and the next turn's timer is due too)
    replica.run_once()
    _, record = tables.load("t1")
    seat = accounts.index(quitter)
    assert record.hand is None or record.seats[seat].leaving
    while hand_of(tables) is not None:  # the others play on; the escaper's seat goes at the end
        clock.now += 20_000
        replica.run_once()
    assert tables.view("t1", accounts[0])["table"]["seats"][seat] is None
    stood = [e for e in tables.store.read_events("t1", seat="all", count=1000) if e.type == "stood"]
    assert [b'"reason":"escaped"' in e.payload for e in stood] == [True]


def test_two_replicas_over_many_deadlines_fire_each_exactly_once(world):
    tables, board, _, clock, wallet = world
    table_ids = [f"m{i}" for i in range(30)]
    for table_id in table_ids:
        seat_players(tables, wallet, 2, table_id=table_id)
    clock.now += 20_000
    replicas = [Replica(tables.store, board, LocalTables(tables), clock_ms=clock) for _ in range(3)]
    reports = []
    barrier = threading.Barrier(len(replicas))

    def run(replica):
        barrier.wait()
        reports.append(replica.run_once())

    threads = [threading.Thread(target=run, args=(r,)) for r in replicas]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(r.fired for r in reports) == len(table_ids)
    assert all(r.failed == 0 for r in reports)
    for table_id in table_ids:
        # Each two-player hand ended by exactly one timeout (a fold).
        last = tables.view(table_id, None)["last_hand"]
        assert last is not None and last["state"]["result"]["details"]["how"] == "last_player"
        assert tables.deadline(table_id, TURN_DEADLINE) is None


def test_a_stale_deadline_fired_late_changes_nothing(world):
    tables, _, _, _clock, wallet = world
    accounts = seat_players(tables, wallet, 3)
    deadline = tables.deadline("t1", TURN_DEADLINE)
    view = tables.view("t1", accounts[1])
    tables.act("t1", accounts[1], view["version"], "call")
    before = tables.store.load("t1")
    assert tables.expire("t1", TURN_DEADLINE, deadline.version_set_for) is None
    assert tables.store.load("t1") == before
    record = TableRecord.from_bytes(before.state)
    assert record.turn_stamp != deadline.version_set_for


# --- a trick-like game: default moves, strikes, escapes, a timer that waits ----------------------

@pytest.fixture
def countdown_tables(world):
    from tests.watchdog.countdown import register

    register()
    return world


def seat_countdown(tables, wallet, count=3, table_id="c1"):
    tables.open(table_id, "countdown", "free")
    accounts = [str(wallet.register(f"{table_id}c{i}", "secret password")) for i in range(count)]
    for account in accounts:
        tables.sit(table_id, account, account)
    for account in accounts:
        tables.ready(table_id, account)
    return accounts


def countdown_of(tables, table_id="c1"):
    from tests.watchdog.countdown import Countdown

    _, record = tables.load(table_id)
    return None if record.hand is None else Countdown.from_bytes(record.hand.blob)


def test_a_timeout_plays_the_default_move_and_counts_a_strike(countdown_tables):
    tables, _, replica, clock, wallet = countdown_tables
    accounts = seat_countdown(tables, wallet)
    clock.now += 20_000
    assert replica.run_once().fired == 1
    game = countdown_of(tables)
    assert game.moves == [(1, "tick")]
    _, record = tables.load("c1")
    assert record.seats[1].strikes == 1
    # Acting in person ends the run of strikes.
    tables.act("c1", accounts[2], tables.view("c1", accounts[2])["version"], "tock")
    clock.now += 20_000
    replica.run_once()  # seat 0 times out
    view = tables.view("c1", accounts[1])
    tables.act("c1", accounts[1], view["version"], "tock")
    assert tables.load("c1")[1].seats[1].strikes == 0


def test_the_fourth_consecutive_strike_is_an_escape(countdown_tables):
    tables, _, replica, clock, wallet = countdown_tables
    accounts = seat_countdown(tables, wallet, count=2)
    for _ in range(7):  # seat 1 times out on its turns 1, 3, 5, 7; seat 0 plays in person
        state = countdown_of(tables)
        if state is None:
            break
        if state.to_act == 0:
            tables.act("c1", accounts[0], tables.view("c1", accounts[0])["version"], "tock")
        else:
            clock.now += 20_000
            replica.run_once()
    assert countdown_of(tables) is None
    last = tables.view("c1", accounts[0])["last_hand"]
    assert last["state"]["result"]["details"]["how"] == "escape"
    assert tables.view("c1", accounts[0])["table"]["seats"][1] is None  # the escaper is stood up


def test_a_disconnected_players_turn_waits_and_resumes_with_the_time_left(countdown_tables):
    tables, _board, replica, clock, wallet = countdown_tables
    accounts = seat_countdown(tables, wallet)
    clock.now += 5_000
    tables.disconnect("c1", accounts[1], clock.now)  # seat 1 is to act, 15 s left
    assert tables.deadline("c1", TURN_DEADLINE) is None
    clock.now += 60_000
    assert replica.run_once().fired == 0  # the table waits: no timeout, no strike
    tables.reconnect("c1", accounts[1])
    resumed = tables.deadline("c1", TURN_DEADLINE)
    assert resumed.due_ms == clock.now + 15_000


# --- 混战 on the table's clock: the paced deal, the declaring window, timeouts and escapes --------

def hunzhan_table(tables, wallet, table_id="h1", game="hunzhan", tier="stake10"):
    tables.open(table_id, game, tier, rules={"deal_interval": 0.25, "declare_window": 5.0})
    accounts = [str(wallet.register(f"{table_id}h{i}", "secret password")) for i in range(4)]
    for account in accounts:
        tables.sit(table_id, account, account)
    for account in accounts:
        tables.ready(table_id, account)
    return accounts


def hunzhan_of(tables, table_id="h1"):
    from paiju.games.hunzhan import Game as Hunzhan

    _, record = tables.load(table_id)
    return None if record.hand is None else Hunzhan.load(record.hand.blob)


def test_hunzhan_deals_on_the_clock_then_timeouts_play_the_default_move_and_four_are_an_escape(world):
    tables, _, replica, clock, wallet = world
    accounts = hunzhan_table(tables, wallet)
    assert hunzhan_of(tables).dealt == 0
    clock.now += 250
    replica.run_once()
    assert hunzhan_of(tables).dealt == 1  # one card per 0.25 s, fired by the watchdog
    for _ in range(200):  # deal the rest, a quarter second at a time, declaring when possible
        hand = hunzhan_of(tables)
        if hand.to_act is not None:
            break
        for seat, account in enumerate(accounts):
            declarations = [str(a) for a in hand.legal_actions(seat) if str(a).startswith("declare")]
            if declarations:
                tables.act("h1", account, tables.view("h1", account)["version"], declarations[0])
                break
        clock.now += 5_000 if hand.dealt == 84 else 250
        replica.run_once()
    hand = hunzhan_of(tables)
    assert hand.to_act is not None, "declaring never closed"
    sleeper = hand.to_act
    for strike in range(1, 4):  # the sleeper times out on each of its turns; the others play
        while (hand := hunzhan_of(tables)).to_act != sleeper:
            seat = hand.to_act
            play = str(hand.legal_actions(seat)[0])
            tables.act("h1", accounts[seat], tables.view("h1", accounts[seat])["version"], play)
        clock.now += 20_000
        replica.run_once()
        assert hunzhan_of(tables).strikes[sleeper] == strike  # a default move was played for it
    while (hand := hunzhan_of(tables)).to_act != sleeper:
        seat = hand.to_act
        tables.act("h1", accounts[seat], tables.view("h1", accounts[seat])["version"], str(hand.legal_actions(seat)[0]))
    clock.now += 20_000
    replica.run_once()  # the fourth: an escape, which ends the hand by the game's rules
    assert hunzhan_of(tables) is None
    last = tables.view("h1", accounts[0])["last_hand"]["state"]
    assert last["result"]["details"]["how"] == "escape" and last["result"]["details"]["escaper"] == sleeper
    assert tables.view("h1", accounts[0])["table"]["seats"][sleeper] is None  # stood up


# --- 炒地皮's declaring window: only a dealt card or a declaration that took effect restarts it ----

def chaodipi_of(tables, table_id="c1"):
    from paiju.games.chaodipi import Game as Chaodipi

    _, record = tables.load(table_id)
    return None if record.hand is None else Chaodipi.load(record.hand.blob)


def act_now(tables, account, action, table_id="c1"):
    return tables.act(table_id, account, tables.view(table_id, account)["version"], action)


def test_stake_multiples_do_not_hold_the_declaring_window_open(world):
    tables, _, replica, clock, wallet = world
    tables.seeds = lambda: b"declaring window"  # a fixed deal
    accounts = hunzhan_table(tables, wallet, "c1", "chaodipi", "yancheng-fortune10")
    while chaodipi_of(tables).phase is ChaodipiPhase.DEALING:
        clock.now += 250
        replica.run_once()
    hand = chaodipi_of(tables)
    declarer, first = next(
        (seat, str(action))
        for seat in range(4)
        for action in hand.legal_actions(seat)
        if str(action).startswith("declare")
    )
    act_now(tables, accounts[declarer], first)  # the first declaration stands: the window restarts
    opened = clock.now
    for step in range(1, 13):  # a multiple toggled every half second, for longer than the window
        clock.now = opened + 500 * step
        act_now(tables, accounts[(declarer + 1) % 4], f"multiple {2 if step % 2 else 1}")
        replica.run_once()
        if clock.now < opened + 5_000:  # the declare_window
            assert chaodipi_of(tables).phase is ChaodipiPhase.DECLARING
    assert chaodipi_of(tables).phase is ChaodipiPhase.BURYING, "a stake multiple held the declaring window open"


class _Unreachable(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE


class _FailingOwner(LocalTables):
    def __init__(self, tables, error: Exception) -> None:
        super().__init__(tables)
        self.error = error

    def expire(self, table_id, name, stamp):  # type: ignore[no-untyped-def]
        raise self.error


@pytest.mark.parametrize(("error", "level", "traceback"), [(_Unreachable(), logging.WARNING, False),
                                                            (KeyError("seat"), logging.ERROR, True)])
def test_a_deadline_that_waits_for_a_service_out_of_reach_is_one_line_of_log_and_a_bug_a_traceback(
    world, caplog, error, level, traceback
):
    tables, board, _, clock, wallet = world
    seat_players(tables, wallet, 3)
    clock.now += 20_000
    replica = Replica(tables.store, board, _FailingOwner(tables, error), clock_ms=clock)
    with caplog.at_level(logging.WARNING, logger="paiju.watchdog.firing"):
        report = replica.run_once()
    assert report.failed == 1 and report.fired == 0
    (record,) = [r for r in caplog.records if r.name == "paiju.watchdog.firing"]
    assert record.levelno == level
    assert (record.exc_info is not None) is traceback
    clock.now += 20_000  # the lease ran out: the deadline falls due again
    assert Replica(tables.store, board, LocalTables(tables), clock_ms=clock).run_once().fired == 1

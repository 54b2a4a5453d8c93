"""The table domain on a real ledger (SQLite) and both Redis backends: seats, hands, settlement."""

from __future__ import annotations

import concurrent.futures
import json
import random
import threading
import uuid

import fakeredis
import pytest
import redis

from paiju.games.engine import IllegalAction
from paiju.games.zhajinhua import Game
from paiju.lobby.rooms import Lobby
from paiju.table.commits import LedgerNeeded, NotSeated
from paiju.table.deadline_names import READY_KICK_DEADLINE, START_DEADLINE, TURN_DEADLINE, Timers
from paiju.table.record import TableRecord
from paiju.table.store import StaleVersion, TableStore
from paiju.table.tables import Tables
from paiju.wallet.coins_board import AvailableCoinsBoard
from paiju.wallet.table_port import DirectWallet
from tests.games.zhajinhua_playouts import Knowledge, cards_in


@pytest.fixture(params=["fakeredis", "redis"])
def store(request):
    if request.param == "fakeredis":
        client = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    else:
        client = redis.Redis.from_url(request.getfixturevalue("redis_url"))
    prefix = f"test-{uuid.uuid4().hex[:8]}"
    yield TableStore(client, prefix=prefix)
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)


def players(wallet, count):
    return [str(wallet.register(f"p{i}", "secret password")) for i in range(count)]


def seated_table(tables, wallet, count=3, table_id="t1"):
    tables.open(table_id, "zhajinhua", "free")
    accounts = players(wallet, count)
    for account in accounts:
        tables.sit(table_id, account, f"name-{account}")
    return accounts


def test_bug_pressing_start_again_committed_again_and_told_every_watcher(tables, store, wallet):
    # A double click, or a client pressing in a loop, made a commit and a "ready" event for every
    # watcher each time, though nothing had changed.
    accounts = seated_table(tables, wallet)
    first = tables.ready("t1", accounts[0])
    events = store.read_events("t1", seat="all")
    again = tables.ready("t1", accounts[0], ask_ledger=False)  # on the loop: not even the board is asked
    assert again.version == first.version and again.events == []
    assert again.record is not None and again.record.seats[0].ready
    assert store.read_events("t1", seat="all") == events
    tables.ready("t1", accounts[1])
    outcome = tables.ready("t1", accounts[2])  # the last press still starts the hand
    assert any(event.type == "hand_seats" for event in outcome.events)


def test_a_hand_starts_when_everyone_is_ready_and_holds_each_players_worst_loss(tables, wallet):
    accounts = seated_table(tables, wallet)
    tables.ready("t1", accounts[0])
    tables.ready("t1", accounts[1])
    assert tables.view("t1", accounts[0])["hand"] is None
    outcome = tables.ready("t1", accounts[2])
    assert [e.type for e in outcome.events][:3] == ["ready", "hand_seats", "hand_started"]
    view = tables.view("t1", accounts[0])
    assert view["table"]["state"] == "playing"
    hand_id = view["hand"]["hand_id"]
    holds = wallet.holds(hand_id)
    assert set(holds) == {int(a) for a in accounts} and all(amount > 0 for amount in holds.values())
    assert tables.deadline("t1", TURN_DEADLINE) is not None


def play_to_the_end(tables, accounts, rng):
    while True:
        view = tables.view("t1", accounts[0])
        if view["hand"] is None:
            return view
        hand = view["hand"]
        actor = accounts[hand["seats"][hand["state"]["to_act"]]]
        mine = tables.view("t1", actor)
        legal = [a for a in mine["hand"]["state"]["legal_actions"] if a != "look"] or ["look"]
        tables.act("t1", actor, mine["version"], rng.choice(legal))


def test_a_finished_hand_goes_to_the_outbox_and_settles_on_the_ledger(tables, wallet, store):
    accounts = seated_table(tables, wallet)
    for account in accounts:
        tables.ready("t1", account)
    view = play_to_the_end(tables, accounts, random.Random(1))
    (entry,) = store.outbox_pending()
    settlement = json.loads(entry.payload)
    assert entry.key == "settle:" + settlement["hand_id"]
    lines = [(int(a), amount, reason) for a, amount, reason in settlement["lines"]]
    wallet.settle(settlement["hand_id"], settlement["game"], lines)
    balances = [wallet.balance(int(a)) for a in accounts]
    assert sum(balances) == 3 * 20_000
    assert [seat["coins"] for seat in view["table"]["seats"] if seat] == balances
    assert view["last_hand"]["state"]["result"] is not None
    assert tables.deadline("t1", TURN_DEADLINE) is None


def test_an_illegal_or_stale_or_foreign_action_changes_nothing(tables, wallet, store):
    accounts = seated_table(tables, wallet)
    for account in accounts:
        tables.ready("t1", account)
    before = store.load("t1")
    view = tables.view("t1", accounts[0])
    to_act = accounts[view["hand"]["seats"][view["hand"]["state"]["to_act"]]]
    other = next(a for a in accounts if a != to_act)
    with pytest.raises(IllegalAction) as refused:
        tables.act("t1", other, before.version, "call")
    assert refused.value.code == "not_your_turn"
    with pytest.raises(IllegalAction):
        tables.act("t1", to_act, before.version, "raise 999999")
    with pytest.raises(StaleVersion):
        tables.act("t1", to_act, before.version - 1, "call")
    with pytest.raises(NotSeated):
        tables.act("t1", "424242", before.version, "call")
    assert store.load("t1") == before


def test_views_and_streams_never_show_a_seat_what_it_may_not_see(tables, wallet, store):
    accounts = seated_table(tables, wallet, count=4)
    for account in accounts:
        tables.ready("t1", account)
    rng = random.Random(7)
    seats = tables.view("t1", accounts[0])["hand"]["seats"]  # table seat of each hand seat
    knowledge = Knowledge(current_hand(store))
    cursors = {seat: store.load("t1").last_event_id for seat in range(len(accounts))}
    spectator = store.load("t1").last_event_id
    while tables.view("t1", accounts[0])["hand"] is not None:
        state = tables.view("t1", accounts[0])["hand"]["state"]
        actor_hand_seat = state["to_act"]
        actor = accounts[seats[actor_hand_seat]]
        mine = tables.view("t1", actor)
        action = rng.choice(mine["hand"]["state"]["legal_actions"])
        knowledge.note(actor_hand_seat, action)
        tables.act("t1", actor, mine["version"], action)
        hand = current_hand(store)
        if hand is None:
            break
        knowledge.hand = hand
        for hand_seat, table_seat in enumerate(seats):
            allowed = knowledge.allowed(hand_seat)
            view = tables.view("t1", accounts[table_seat])
            assert cards_in(view["hand"]) <= allowed
            for event in store.read_events("t1", after_id=cursors[table_seat], seat=table_seat):
                cursors[table_seat] = event.id
                assert cards_in(json.loads(event.payload)) <= allowed, event
        for event in store.read_events("t1", after_id=spectator, seat=None):
            spectator = event.id
            assert not cards_in(json.loads(event.payload)), event  # spectators: public only


def current_hand(store):
    record = TableRecord.from_bytes(store.load("t1").state)
    return None if record.hand is None else Game.load(record.hand.blob)


def test_ready_kick_is_set_for_the_one_unready_player_and_stands_them_up(tables, wallet, store, clock):
    accounts = seated_table(tables, wallet)
    tables.ready("t1", accounts[0])
    assert tables.deadline("t1", READY_KICK_DEADLINE) is None
    tables.ready("t1", accounts[1])
    deadline = tables.deadline("t1", READY_KICK_DEADLINE)
    assert deadline is not None and deadline.due_ms == clock.now + 20_000
    assert tables.expire("t1", READY_KICK_DEADLINE, deadline.version_set_for - 1) is None  # stale
    outcome = tables.expire("t1", READY_KICK_DEADLINE, deadline.version_set_for)
    assert outcome.events[0].data == {"seat": 2, "account": accounts[2], "reason": "not_ready"}
    assert tables.view("t1", accounts[0])["table"]["seats"][2] is None


def test_bug_a_ready_player_pressing_again_put_off_the_ready_kick_of_the_one_who_is_not(tables, wallet, clock):
    # platform.md: the one player not ready has 20 s from when the others are. Each repeated
    # press of a ready player was a commit that set the ready kick again, 20 s from then.
    accounts = seated_table(tables, wallet)
    tables.ready("t1", accounts[0])
    tables.ready("t1", accounts[1])
    due = tables.deadline("t1", READY_KICK_DEADLINE).due_ms
    clock.now += 15_000
    tables.ready("t1", accounts[0])
    assert tables.deadline("t1", READY_KICK_DEADLINE).due_ms == due


def test_turn_timeout_folds_the_player(tables, wallet):
    accounts = seated_table(tables, wallet, count=2)
    for account in accounts:
        tables.ready("t1", account)
    deadline = tables.deadline("t1", TURN_DEADLINE)
    outcome = tables.expire("t1", TURN_DEADLINE, deadline.version_set_for)
    assert any(e.type == "folded" and e.data["reason"] == "timeout" for e in outcome.events)
    assert tables.view("t1", accounts[0])["hand"] is None  # two players: the fold ends the hand


def test_a_player_sits_in_one_room_at_a_time(tables, wallet):
    accounts = seated_table(tables, wallet, count=1)
    tables.open("t2", "zhajinhua", "free")
    with pytest.raises(IllegalAction) as refused:
        tables.sit("t2", accounts[0], "again")
    assert refused.value.code == "seated_elsewhere"
    tables.stand("t1", accounts[0])
    tables.sit("t2", accounts[0], "again")


def test_sitting_needs_the_tiers_coins_and_a_free_seat(tables, wallet):
    tables.open("t1", "zhajinhua", "expert")
    poor, rich = players(wallet, 2)
    wallet.transfer(int(poor), int(rich), 15_000, "test:make-poor")
    with pytest.raises(IllegalAction) as refused:
        tables.sit("t1", poor, "poor")
    assert refused.value.code == "not_enough_coins" and "10,100" in refused.value.reason
    tables.open("t3", "zhajinhua", "free")
    many = [str(wallet.register(f"q{i}", "secret password")) for i in range(6)]
    for account in many[:5]:
        tables.sit("t3", account, "x")
    with pytest.raises(IllegalAction) as full:
        tables.sit("t3", many[5], "x")
    assert full.value.code == "table_full"


def test_a_look_out_of_turn_does_not_restart_the_turn_timer(tables, wallet, clock):
    accounts = seated_table(tables, wallet, count=3)
    for account in accounts:
        tables.ready("t1", account)
    first = tables.deadline("t1", TURN_DEADLINE)
    clock.now += 15_000
    view = tables.view("t1", accounts[0])
    to_act = view["hand"]["seats"][view["hand"]["state"]["to_act"]]
    looker = next(a for a in accounts if tables.view("t1", a)["seat"] != to_act)
    tables.act("t1", looker, view["version"], "look")
    assert tables.deadline("t1", TURN_DEADLINE) == first  # the same timer, still running
    assert tables.expire("t1", TURN_DEADLINE, first.version_set_for) is not None  # and it fires


def test_another_players_look_no_longer_aborts_a_move_made_on_the_pushed_view(tables, wallet):
    accounts = seated_table(tables, wallet, count=3)
    for account in accounts:
        tables.ready("t1", account)
    seat_of = {a: tables.view("t1", a)["seat"] for a in accounts}
    pushed = tables.view("t1", accounts[0])
    hand = pushed["hand"]
    actor = next(a for a in accounts if seat_of[a] == hand["seats"][hand["state"]["to_act"]])
    looker = next(a for a in accounts if a != actor)
    tables.act("t1", looker, pushed["version"], "look")  # moves the version, not the actor's options
    called = tables.act("t1", actor, pushed["version"], "call")  # on the view it was pushed: accepted
    assert called.version == pushed["version"] + 2
    # What does change a seat's options still makes an older view stale: the actor's turn ended
    # (a resent "call" cannot act twice), and the next seat's turn began after its view.
    with pytest.raises(StaleVersion):
        tables.act("t1", actor, pushed["version"], "call")
    after = tables.view("t1", actor)["hand"]
    following = next(a for a in accounts if seat_of[a] == after["seats"][after["state"]["to_act"]])
    with pytest.raises(StaleVersion):
        tables.act("t1", following, pushed["version"] + 1, "call")
    tables.act("t1", following, called.version, "call")


class RivalBeforeFirstHold:
    """A wallet port that lets a rival start the table in the instant between this starter's
    read of the table and its holds, once."""

    def __init__(self, wallet_port, rival) -> None:  # type: ignore[no-untyped-def]
        self.port, self.rival = wallet_port, rival

    def __getattr__(self, name):  # type: ignore[no-untyped-def]
        return getattr(self.port, name)

    def hold_hand(self, hand_id, amounts, expected=None) -> None:  # type: ignore[no-untyped-def]
        rival, self.rival = self.rival, None
        if rival is not None:
            rival()
        self.port.hold_hand(hand_id, amounts, expected)


def test_bug_two_starters_racing_for_one_table_made_the_loser_fail_with_coins_already_held(store, wallet, clock):
    # The relay starts a table right after its settlement, and so do the start timer and the relay
    # of another process. The starter whose holds came second was refused ("account 2 has 5,401
    # coins available, 14,599 are needed") and the relay skipped its other tables' starts.
    rival = Tables(store, DirectWallet(wallet), Timers(turn_ms=20_000, ready_kick_ms=20_000), clock_ms=clock,
                   randbelow=lambda n: 0, coins_board=AvailableCoinsBoard(store.client, store.prefix))
    accounts = seated_table(rival, wallet)
    for account in accounts:
        rival.ready("t1", account)
    play_to_the_end(rival, accounts, random.Random(1))
    for account in accounts:
        rival.ready("t1", account)  # everyone ready, but the start waits for the settlement
    (entry,) = store.outbox_pending()
    settlement = json.loads(entry.payload)
    wallet.settle(settlement["hand_id"], settlement["game"],
                  [(int(a), amount, reason) for a, amount, reason in settlement["lines"]])
    store.outbox_ack("t1", entry.key)
    loser = Tables(store, RivalBeforeFirstHold(DirectWallet(wallet), lambda: rival.start_if_ready("t1")),
                   Timers(turn_ms=20_000, ready_kick_ms=20_000), clock_ms=clock, randbelow=lambda n: 0)

    assert loser.start_if_ready("t1") is None  # the rival's hand is under way: nothing to start

    view = rival.view("t1", accounts[0])
    assert view["hand"] is not None and view["hand"]["number"] == 2
    held = wallet.holds(view["hand"]["hand_id"])
    assert set(held) == {int(a) for a in accounts}
    # The loser's failed attempt holds nothing: every coin not held by the started hand is free.
    assert all(wallet.available(int(a)) == wallet.balance(int(a)) - held[int(a)] for a in accounts)


def test_listing_rooms_without_a_tier_lists_every_tier_of_the_game(tables):
    lobby = Lobby(tables, rooms_per_tier=2, games=["hunzhan"])
    lobby.ensure_rooms()
    every = [entry.record.table_id for entry in lobby.rooms("hunzhan", "")]
    assert every == [f"hunzhan-stake{stake}-0{n}" for stake in (10, 100, 1000) for n in (1, 2)]
    assert [e.record.table_id for e in lobby.rooms("hunzhan", "stake100")] == ["hunzhan-stake100-01", "hunzhan-stake100-02"]
    with pytest.raises(ValueError):
        lobby.rooms("hunzhan", "stake7")


def test_two_processes_taking_turns_at_one_table_each_go_on_from_what_the_other_committed(store, wallet, clock):
    # Each process acts on the state it last committed, without reading it back: when the other
    # process moved the table on meanwhile, its compare-and-set refuses and it reloads.
    here, there = two_processes(store, wallet, clock)
    accounts = seated_table(here, wallet)
    for account in accounts:
        here.ready("t1", account)
    rng, moves, process = random.Random(3), 0, [here, there]
    while (view := here.view("t1", accounts[0]))["hand"] is not None:
        hand = view["hand"]
        actor = accounts[hand["seats"][hand["state"]["to_act"]]]
        mine = here.view("t1", actor)
        legal = [a for a in mine["hand"]["state"]["legal_actions"] if a not in ("look", "open")] or ["look"]
        outcome = process[moves % 2].act("t1", actor, mine["version"], rng.choice(legal))
        assert outcome.version == mine["version"] + 1
        moves += 1
    assert moves >= 3
    assert store.load("t1").version == there.store.load("t1").version


def settle_what_is_owed(store, wallet):
    for entry in store.outbox_pending():
        settlement = json.loads(entry.payload)
        wallet.settle(settlement["hand_id"], settlement["game"],
                      [(int(a), amount, reason) for a, amount, reason in settlement["lines"]])
        store.outbox_ack(entry.table_id, entry.key)


def test_a_process_that_last_saw_no_settlement_owed_still_waits_for_one_another_process_queued(
    store, wallet, clock
):
    # A process remembers that a table owed nothing, to spare a read at every press of start.
    # A hand another process ended meanwhile must not be started over, nor its players stood up
    # as short of coins while its settlement is on its way.
    here, there = two_processes(store, wallet, clock)
    accounts = seated_table(here, wallet)
    for account in accounts:
        here.ready("t1", account)
    play_to_the_end(here, accounts, random.Random(1))
    settle_what_is_owed(store, wallet)
    here.ready("t1", accounts[0])  # this process now knows the table owes nothing
    for account in accounts[1:]:
        there.ready("t1", account)
    play_to_the_end(there, accounts, random.Random(2))  # hand 2, wholly on the other process
    assert store.outbox_pending(), "hand 2's settlement is owed"
    for account in accounts[:-1]:
        there.ready("t1", account)
    here.ready("t1", accounts[-1])  # the last press, on the process that has not seen hand 2
    view = here.view("t1", accounts[0])
    assert view["hand"] is None and view["last_hand"]["hand_id"].startswith("t1-2-")
    assert [seat["account"] for seat in view["table"]["seats"] if seat] == accounts  # nobody stood up
    settle_what_is_owed(store, wallet)
    assert here.start_if_ready("t1") is not None
    assert here.view("t1", accounts[0])["hand"]["number"] == 3


def test_presses_of_start_after_another_process_settled_read_no_outbox_and_start_the_hand(
        store, wallet, clock, monkeypatch):
    # This process queued the settlement, so it knows it is owed without asking Redis at every
    # press of start; another process's relay acknowledged it, and the first press's own commit
    # says the outbox is empty now: no press reads it, and the last one starts the hand.
    here, there, accounts = a_hand_played_on_one_of_two_processes(store, wallet, clock, seed=3)
    settle_what_is_owed(there.store, wallet)
    reads = counted_outbox_reads(here, monkeypatch)
    for account in accounts:
        here.ready("t1", account)
    assert reads == []
    assert here.view("t1", accounts[0])["hand"]["number"] == 2


def test_the_last_press_while_the_settlement_is_owed_reads_no_outbox_and_leaves_the_start_to_its_landing(
        store, wallet, clock, monkeypatch):
    # Players press start the instant a hand ends, before its settlement lands. The last press
    # used to read the outbox to confirm what this process knew: a round trip a hand for a
    # "still owed" its commit now answers itself.
    here, _, accounts = a_hand_played_on_one_of_two_processes(store, wallet, clock, seed=4)
    reads = counted_outbox_reads(here, monkeypatch)
    for account in accounts:
        here.ready("t1", account)
    assert reads == []
    view = here.view("t1", accounts[0])
    assert view["hand"] is None and all(seat["ready"] for seat in view["table"]["seats"] if seat)
    assert START_DEADLINE in [deadline.name for deadline in store.deadlines("t1")]
    settle_what_is_owed(store, wallet)
    assert here.start_if_ready("t1") is not None
    assert here.view("t1", accounts[0])["hand"]["number"] == 2


@pytest.mark.parametrize("on_the_loop", [False, True])
def test_a_settlement_acknowledged_between_the_last_press_and_its_commit_starts_the_hand_at_once(
        store, wallet, clock, monkeypatch, on_the_loop):
    # The press found the settlement owed; another process acknowledged it before the press
    # committed, and this process had not heard its notice yet: the hand used to wait for the
    # start timer. The commit tells that the outbox is empty, and the hand starts now (on the
    # event loop, the press is made again off it, where holds may be placed).
    here, there, accounts = a_hand_played_on_one_of_two_processes(store, wallet, clock, seed=5)
    for account in accounts[:-1]:
        here.ready("t1", account)
    commit = here.store.commit_change

    def settled_elsewhere_first(*args, **kwargs):
        monkeypatch.setattr(here.store, "commit_change", commit)
        settle_what_is_owed(there.store, wallet)
        return commit(*args, **kwargs)

    monkeypatch.setattr(here.store, "commit_change", settled_elsewhere_first)
    if on_the_loop:
        with pytest.raises(LedgerNeeded):
            here.ready("t1", accounts[-1], ask_ledger=False)
        assert here.view("t1", accounts[0])["hand"] is None, "the press is committed, the start is not"
    outcome = here.ready("t1", accounts[-1])
    assert any(event.type == "hand_seats" for event in outcome.events)
    assert here.view("t1", accounts[0])["hand"]["number"] == 2


def a_hand_played_on_one_of_two_processes(store, wallet, clock, seed: int) -> tuple[Tables, Tables, list[str]]:
    """Two processes' tables on one Redis; a hand played to its end through the first (its
    settlement owed)."""
    here, there = two_processes(store, wallet, clock)
    accounts = seated_table(here, wallet)
    for account in accounts:
        here.ready("t1", account)
    play_to_the_end(here, accounts, random.Random(seed))
    return here, there, accounts


def counted_outbox_reads(tables, monkeypatch) -> list[str]:
    reads: list[str] = []
    read = tables.store.outbox_keys
    monkeypatch.setattr(tables.store, "outbox_keys", lambda table_id: reads.append(table_id) or read(table_id))
    return reads


def test_players_pressing_start_at_once_on_one_process_take_turns_instead_of_refusing_each_others_commits(
        tables, wallet, monkeypatch):
    accounts = seated_table(tables, wallet, count=5)
    refused = []
    commit = tables.store.commit_change

    def counted(*args, **kwargs):
        try:
            return commit(*args, **kwargs)
        except StaleVersion:
            refused.append(args[0])
            raise

    monkeypatch.setattr(tables.store, "commit_change", counted)
    everyone_there = threading.Barrier(len(accounts))

    def press(account: str) -> None:
        everyone_there.wait()
        tables.ready("t1", account)

    with concurrent.futures.ThreadPoolExecutor(len(accounts)) as pool:
        list(pool.map(press, accounts))
    assert refused == []
    assert tables.view("t1", accounts[0])["hand"]["number"] == 1


def two_processes(store, wallet, clock) -> tuple[Tables, Tables]:
    """Tables of two server processes on one Redis: each store remembers what it last committed."""
    elsewhere = TableStore(store.client, prefix=store.prefix)
    return tuple(Tables(on, DirectWallet(wallet), Timers(turn_ms=20_000, ready_kick_ms=20_000), clock_ms=clock,
                        randbelow=lambda n: 0, coins_board=AvailableCoinsBoard(on.client, on.prefix)) for on in (store, elsewhere))  # type: ignore[return-value]


def ready_for_a_second_hand_that_there_remembers_before_the_first(here, there, store, wallet) -> list[str]:
    """A hand played through ``here``, its settlement applied, everyone ready for the next: while
    ``there`` last committed when the first player sat, and remembers the table so."""
    here.open("t1", "zhajinhua", "free")
    accounts = players(wallet, 3)
    there.sit("t1", accounts[0], "first")
    for account in accounts[1:]:
        here.sit("t1", account, f"name-{account}")
    for account in accounts:
        here.ready("t1", account)
    play_to_the_end(here, accounts, random.Random(2))
    for account in accounts:
        here.ready("t1", account)  # the start waits for the settlement
    assert here.view("t1", accounts[0])["hand"] is None
    settle_what_is_owed(store, wallet)
    return accounts


def test_bug_a_process_remembering_the_table_from_before_another_moved_it_on_dropped_its_due_start(
        store, wallet, clock):
    # Found by the takeover test: with two server processes, tables stopped for good with every
    # player ready (and 混战 mid-deal). The watchdog or relay of the process that had last
    # committed long ago judged the start on what it remembered, found nothing to do, committed
    # nothing (so no compare-and-set could refuse it) and the deadline was dropped as stale.
    here, there = two_processes(store, wallet, clock)
    accounts = ready_for_a_second_hand_that_there_remembers_before_the_first(here, there, store, wallet)
    start = here.deadline("t1", START_DEADLINE)
    assert start is not None

    assert there.expire("t1", START_DEADLINE, start.version_set_for) is not None

    view = here.view("t1", accounts[0])
    assert view["hand"] is not None and view["hand"]["number"] == 2


def test_bug_a_relay_remembering_the_table_from_before_another_process_moved_it_on_did_not_start_it(
        store, wallet, clock):
    here, there = two_processes(store, wallet, clock)
    ready_for_a_second_hand_that_there_remembers_before_the_first(here, there, store, wallet)

    assert there.start_if_ready("t1") is not None  # the relay, right after settling


def test_bug_a_player_seated_through_one_process_was_refused_start_by_another_remembering_the_table_from_before(
        store, wallet, clock):
    here, there = two_processes(store, wallet, clock)
    here.open("t1", "zhajinhua", "free")
    first, second = players(wallet, 2)
    there.sit("t1", first, "first")  # `there` remembers the table with one player
    here.sit("t1", second, "second")

    there.ready("t1", second)  # was refused: "you are not seated at this table"

    assert here.view("t1", second)["table"]["seats"][1]["ready"]


class CountedWallet(DirectWallet):
    """The ledger, counting how often the table asks it for players' coins."""

    def __init__(self, wallet) -> None:  # type: ignore[no-untyped-def]
        super().__init__(wallet)
        self.asked = 0

    def available(self, account: str) -> int:
        self.asked += 1
        return super().available(account)

    def available_many(self, accounts: list[str]) -> list[int]:
        self.asked += 1
        return super().available_many(accounts)


def test_the_press_that_starts_a_hand_asks_the_ledger_for_coins_once(store, wallet, clock):
    ledger = CountedWallet(wallet)
    tables = Tables(store, ledger, Timers(turn_ms=20_000, ready_kick_ms=20_000), clock_ms=clock,
                    randbelow=lambda n: 0, coins_board=AvailableCoinsBoard(store.client, store.prefix))
    accounts = seated_table(tables, wallet, count=3)
    for account in accounts[:-1]:
        tables.ready("t1", account)
    ledger.asked = 0
    tables.ready("t1", accounts[-1])
    assert tables.view("t1", accounts[0])["hand"] is not None
    assert ledger.asked == 1  # it asked for the presser's coins, then again for everyone's


def test_a_last_press_by_a_player_short_of_coins_is_refused_and_keeps_the_seat(tables, wallet):
    tables.open("t1", "zhajinhua", "expert")
    poor, rich = players(wallet, 2)
    for account in (poor, rich):
        tables.sit("t1", account, f"name-{account}")
    wallet.transfer(int(poor), int(rich), 15_000, "test:make-poor")
    tables.ready("t1", rich)
    with pytest.raises(IllegalAction) as refused:
        tables.ready("t1", poor)
    assert refused.value.code == "not_enough_coins" and "10,100" in refused.value.reason
    view = tables.view("t1", poor)
    assert view["seat"] is not None and view["hand"] is None
    assert not view["table"]["seats"][view["seat"]]["ready"]


def test_only_a_remembered_table_with_everyone_ready_waits_for_its_settlement_to_start(tables, wallet, store):
    """A settlement's notice claims the table's start, and tries it, only where it can start: most
    land before the last press, and each such try cost a claim and a read to confirm it."""
    accounts = seated_table(tables, wallet)
    assert not tables.remembered_ready_to_start("t1"), "nobody pressed start"
    for account in accounts:
        tables.ready("t1", account)
    assert not tables.remembered_ready_to_start("t1"), "a hand is on"
    play_to_the_end(tables, accounts, random.Random(1))
    tables.ready("t1", accounts[0])
    tables.ready("t1", accounts[1])
    assert not tables.remembered_ready_to_start("t1"), "one has not pressed"
    tables.ready("t1", accounts[2])
    assert store.outbox_keys("t1") and tables.view("t1", None)["hand"] is None, "the settlement is on its way"
    assert tables.remembered_ready_to_start("t1")
    elsewhere = Tables(TableStore(store.client, prefix=store.prefix), DirectWallet(wallet), Timers(), clock_ms=lambda: 0)
    assert not elsewhere.remembered_ready_to_start("t1"), "a process that does not play the table"


def test_bug_every_view_of_a_hand_carried_the_whole_end_of_the_hand_before(tables, wallet, store):
    # The contract shows the last hand "until the next starts"; every view of the next hand still
    # carried its settlement and reveal, which no client shows while a hand is on (a typed view
    # paid a copy of it each time, and a JSON view its bytes).
    accounts = seated_table(tables, wallet)
    for account in accounts:
        tables.ready("t1", account)
    first = play_to_the_end(tables, accounts, random.Random(1))["last_hand"]["hand_id"]
    settle_what_is_owed(store, wallet)
    for account in accounts:
        assert tables.view("t1", account)["last_hand"]["hand_id"] == first
        tables.ready("t1", account)
    view = tables.view("t1", accounts[0])
    assert view["hand"] is not None and view["last_hand"] is None
    assert play_to_the_end(tables, accounts, random.Random(2))["last_hand"]["hand_id"] not in (None, first)

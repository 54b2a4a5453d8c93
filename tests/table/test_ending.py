"""An operator's end of a stuck table (``Tables.end_table``), on a real ledger (SQLite) and both
Redis backends: the hand in play voided with every hold given back, the seats cleared, the
deadlines gone, watchers told; a settlement already queued left alone; the table playable after."""

from __future__ import annotations

import json

import pytest

from paiju.table.commits import TableNotFound
from paiju.table.deadline_names import STARTING_PREFIX
from paiju.table.ending import TABLE_ENDED
from paiju.table.store import StoredEvent
from paiju.wallet.relay import Settler, relay_outbox
from paiju.wallet.table_port import DirectWallet
from tests.table.test_crashed_start import HoldsNoted, Killed, new_tables
from tests.table.test_tables import seated_table, settle_what_is_owed


def events_since(store, table_id: str, after: str) -> list[StoredEvent]:
    return store.read_events(table_id, after_id=after, seat="all")


def last_event_id(store, table_id: str) -> str:
    return store.load(table_id).last_event_id


def test_a_hand_in_play_is_voided_its_holds_given_back_and_every_seat_cleared(tables, store, wallet):
    accounts = seated_table(tables, wallet)
    before = {account: wallet.available(int(account)) for account in accounts}
    for account in accounts:
        tables.ready("t1", account)
    hand_id = tables.view("t1", None)["hand"]["hand_id"]
    held = sum(wallet.holds(hand_id).values())
    assert held > 0 and store.deadlines("t1"), "a hand with holds and a turn timer"
    heard_from = last_event_id(store, "t1")

    ended = tables.end_table("t1", "the hand hung")

    assert (ended.voided_hand, ended.released, ended.stood) == (hand_id, held, tuple(accounts))
    assert not ended.nothing_to_end and ended.outbox_left == ()
    assert wallet.holds(hand_id) == {} and wallet.settlement(hand_id) is None
    assert {account: wallet.available(int(account)) for account in accounts} == before
    view = tables.view("t1", None)
    assert view["hand"] is None and view["table"]["state"] == "idle"
    assert store.deadlines("t1") == [] and store.outbox_keys("t1") == []
    told = [(event.type, json.loads(event.payload)) for event in events_since(store, "t1", heard_from)]
    assert told[0] == ("hand_voided", {"hand_id": hand_id, "reason": TABLE_ENDED})
    assert [(kind, data["account"], data["reason"]) for kind, data in told[1:]] == [
        ("stood", account, TABLE_ENDED) for account in accounts]
    assert all(tables.directory.table_of(account) is None for account in accounts)


def test_the_table_is_sat_at_and_plays_a_new_hand_after_its_end(tables, store, wallet):
    accounts = seated_table(tables, wallet)
    for account in accounts:
        tables.ready("t1", account)
    voided = tables.view("t1", None)["hand"]
    tables.end_table("t1", "the hand hung")

    for account in accounts:
        tables.sit("t1", account, f"back-{account}")
    for account in accounts:
        tables.ready("t1", account)
    hand = tables.view("t1", None)["hand"]
    assert hand is not None and hand["hand_id"] != voided["hand_id"]
    assert hand["number"] == voided["number"] + 1, "a voided hand's number is not dealt again"
    assert set(wallet.holds(hand["hand_id"])) == {int(account) for account in accounts}


def test_an_idle_table_has_nothing_to_end_and_is_left_unchanged(tables, store):
    tables.open("t1", "zhajinhua", "free")
    version = store.load("t1").version

    ended = tables.end_table("t1", "just in case")

    assert ended.nothing_to_end and ended.summary().startswith("nothing to end")
    assert store.load("t1").version == version
    with pytest.raises(TableNotFound):
        tables.end_table("no-such-table", "typo")


def test_a_settlement_already_queued_is_left_for_the_relay_and_named(tables, store, wallet):
    accounts = seated_table(tables, wallet, count=2)
    for account in accounts:
        tables.ready("t1", account)
    hand_id = tables.view("t1", None)["hand"]["hand_id"]
    to_act = tables.view("t1", None)["hand"]["state"]["to_act"]
    folder = accounts[tables.view("t1", None)["hand"]["seats"][to_act]]
    tables.act("t1", folder, tables.view("t1", folder)["version"], "fold")  # two players: the hand ends
    assert store.outbox_keys("t1") == [f"settle:{hand_id}"]

    ended = tables.end_table("t1", "players stuck waiting")

    assert ended.voided_hand is None and ended.released == 0 and ended.stood == tuple(accounts)
    assert ended.outbox_left == (f"settle:{hand_id}",) and f"settle:{hand_id}" in ended.summary()
    assert set(wallet.holds(hand_id)) == {int(account) for account in accounts}, "the ended hand keeps its holds"
    settle_what_is_owed(store, wallet)
    assert wallet.settlement(hand_id) is not None and wallet.holds(hand_id) == {}
    assert wallet.total_coins() == wallet.grants_total()


def test_a_start_that_held_and_never_dealt_has_its_holds_given_back_and_its_mark_cleared(store, wallet, clock):
    def die() -> None:
        raise Killed

    crashing_port = HoldsNoted(DirectWallet(wallet), after_hold=die)
    crashing = new_tables(store, crashing_port, clock)
    accounts = seated_table(crashing, wallet)
    before = {account: wallet.available(int(account)) for account in accounts}
    for account in accounts[:-1]:
        crashing.ready("t1", account)
    with pytest.raises(Killed):
        crashing.ready("t1", accounts[-1])
    (lost_hand,) = crashing_port.held
    assert wallet.holds(lost_hand)

    survivor = new_tables(store.__class__(store.client, prefix=store.prefix), DirectWallet(wallet), clock)
    ended = survivor.end_table("t1", "the start died")

    assert ended.abandoned_starts == (lost_hand,) and ended.voided_hand is None
    assert ended.released > 0 and wallet.holds(lost_hand) == {}
    assert {account: wallet.available(int(account)) for account in accounts} == before
    assert not [d for d in store.deadlines("t1") if d.name.startswith(STARTING_PREFIX)]


class ReleaseDies:
    """A wallet port whose process dies when it is about to give holds back."""

    def __init__(self, port: DirectWallet) -> None:
        self.port = port

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.port, name)

    def release(self, hand_id: str) -> int:
        raise Killed


def test_bug_an_end_that_died_between_its_commit_and_the_release_left_the_holds_to_the_sweep_of_orphans(
        store, wallet, clock):
    # The holds of the voided hand went back only by the end's own call after its commit: a
    # process killed in between left the players' coins held until the wallet's sweep of holds
    # no table owes (a minute or more). The commit now queues their release for the relay.
    tables = new_tables(store, DirectWallet(wallet), clock)
    accounts = seated_table(tables, wallet)
    before = {account: wallet.available(int(account)) for account in accounts}
    for account in accounts:
        tables.ready("t1", account)
    hand_id = tables.view("t1", None)["hand"]["hand_id"]
    assert wallet.holds(hand_id)

    dying = new_tables(store.__class__(store.client, prefix=store.prefix), ReleaseDies(DirectWallet(wallet)), clock)
    with pytest.raises(Killed):
        dying.end_table("t1", "the hand hung")
    assert wallet.holds(hand_id) and store.outbox_keys("t1") == [f"release:{hand_id}"]

    settler = Settler(wallet)
    report = relay_outbox(store, settler, release=settler.release)
    assert report.released == 1 and report.settled_tables == ["t1"]
    assert wallet.holds(hand_id) == {} and store.outbox_keys("t1") == []
    assert {account: wallet.available(int(account)) for account in accounts} == before
    assert wallet.total_coins() == wallet.grants_total()


def test_an_end_that_released_the_holds_itself_leaves_no_release_for_the_relay(tables, store, wallet):
    accounts = seated_table(tables, wallet)
    for account in accounts:
        tables.ready("t1", account)
    hand_id = tables.view("t1", None)["hand"]["hand_id"]
    ended = tables.end_table("t1", "the hand hung")
    assert ended.released > 0 and store.outbox_keys("t1") == [] and ended.outbox_left == ()
    settler = Settler(wallet)
    assert relay_outbox(store, settler, release=settler.release).released == 0
    assert wallet.holds(hand_id) == {}

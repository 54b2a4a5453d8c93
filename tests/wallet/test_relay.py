"""The settlement outbox relay without Celery: payloads, exactly-once application, acks only after
the ledger has the hand, refusals left pending, and the background loop."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Collection, Iterator
from typing import Any

import fakeredis
import pytest

from paiju.table.store import OutboxEntry, TableStore
from paiju.wallet import PasswordHasher, Reason, Settlement, Wallet
from paiju.wallet.coins_board import AvailableCoinsBoard
from paiju.wallet.leaderboard import Leaderboard
from paiju.wallet.relay import (
    MalformedSettlement,
    RelayLoop,
    SettlementOrder,
    Settler,
    relay_outbox,
)
from tests.patience import wait_until


def hand_payload(
    hand_id: str, table_id: str, loser: int, winner: int, stake: int, fee: int = 0
) -> bytes:
    """The outbox payload of a two-player hand: each staked ``stake``, ``winner`` took the pot
    and paid ``fee`` of it to the house."""
    lines: list[list[Any]] = [
        [str(loser), -stake, "stake"],
        [str(winner), -stake, "stake"],
        [str(winner), 2 * stake, "pot"],
    ]
    if fee:
        lines.append([str(winner), -fee, "fee"])
    document = {"hand_id": hand_id, "table_id": table_id, "game": "zhajinhua",
                "lines": lines, "fee": fee}
    return json.dumps(document).encode()


@pytest.fixture
def wallet() -> Iterator[Wallet]:
    opened = Wallet("sqlite://", password_hasher=PasswordHasher(n=2**4))
    opened.migrate()
    yield opened
    opened.close()


@pytest.fixture
def store() -> TableStore:
    return TableStore(fakeredis.FakeRedis(), prefix=f"relay-{uuid.uuid4().hex[:8]}")


def queue(store: TableStore, table_id: str, *entries: tuple[str, bytes]) -> None:
    """Queue outbox entries the way a table does: in a commit of the table's state."""
    snapshot = store.load(table_id)
    version = store.create(table_id, b"state") if snapshot is None else snapshot.version
    store.commit(table_id, version, b"state", outbox=list(entries))


def test_a_payload_becomes_ledger_lines_with_the_house_fee() -> None:
    order = SettlementOrder.from_json(hand_payload("t1-1-aa", "t1", loser=12, winner=13,
                                                   stake=300, fee=6))
    assert order.outbox_key == "settle:t1-1-aa"
    lines = order.ledger_lines(house=1)
    assert sum(line.amount for line in lines) == 0
    assert [line for line in lines if line.reason is Reason.FEE] == [
        lines[-1]
    ] and (lines[-1].account, lines[-1].amount) == (1, 6)
    paid = [line for line in lines if line.detail == "fee"]
    assert [(line.account, line.amount, line.reason) for line in paid] == [(13, -6, Reason.STAKE)]


@pytest.mark.parametrize(
    ("payload", "complaint"),
    [
        (b"not json", "JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"table_id": "t", "game": "g", "lines": [["1", 1, "pot"]]}', "hand_id"),
        (b'{"hand_id": "h", "table_id": "t", "game": "g", "lines": []}', "lines"),
        (b'{"hand_id": "h", "table_id": "t", "game": "g", "lines": [["x1", 1, "pot"]]}',
         "wallet id"),
        (b'{"hand_id": "h", "table_id": "t", "game": "g", "lines": [["1", 1.5, "pot"]]}',
         "whole number"),
        (b'{"hand_id": "h", "table_id": "t", "game": "g", "lines": [["1", 1]]}',
         "[account, amount, reason]"),
        (b'{"hand_id": "h", "table_id": "t", "game": "g", "lines": [["1", 1, "pot"]], "fee": -1}',
         "fee"),
    ],
)
def test_malformed_payloads_are_refused_with_a_reason(payload: bytes, complaint: str) -> None:
    with pytest.raises(MalformedSettlement, match=complaint):
        SettlementOrder.from_json(payload)


def test_a_player_paid_a_fee_or_an_unknown_reason_is_refused() -> None:
    paid = SettlementOrder("h", "t", "zhajinhua", ((2, 5, "fee"), (3, -5, "stake")), 0)
    with pytest.raises(MalformedSettlement, match="only the house"):
        paid.ledger_lines(house=1)
    odd = SettlementOrder("h", "t", "zhajinhua", ((2, 5, "tip"), (3, -5, "stake")), 0)
    with pytest.raises(MalformedSettlement, match="not a ledger reason"):
        odd.ledger_lines(house=1)


def test_the_relay_applies_each_settlement_once_and_acks_only_after(
    wallet: Wallet, store: TableStore
) -> None:
    alice, bob = wallet.register("alice", "password-1"), wallet.register("bob", "password-2")
    wallet.hold_hand("t1-1", {alice: 300, bob: 300})
    queue(store, "t1", ("settle:t1-1", hand_payload("t1-1", "t1", alice, bob, 300, fee=6)))
    settler = Settler(wallet)
    seen_pending_while_applying: list[bool] = []

    def settle_and_look(order: SettlementOrder) -> Settlement:
        pending = {(e.table_id, e.key) for e in store.outbox_pending()}
        seen_pending_while_applying.append(("t1", order.outbox_key) in pending)
        return settler(order)

    report = relay_outbox(store, settle_and_look)
    assert (report.applied, report.replayed, report.refused) == (1, 0, [])
    assert seen_pending_while_applying == [True]
    assert store.outbox_pending() == []
    assert (wallet.balance(alice), wallet.balance(bob)) == (19_700, 20_294)
    assert wallet.balance(wallet.house) == 6
    assert wallet.total_coins() == wallet.grants_total()
    # The table submits again (a restart): the ledger does not change, the entry is acked.
    queue(store, "t2", ("settle:t1-1", hand_payload("t1-1", "t2", alice, bob, 300, fee=6)))
    assert [entry.table_id for entry in store.outbox_pending()] == ["t2"]
    again = relay_outbox(store, settler)
    assert (again.applied, again.replayed) == (0, 1)
    assert store.outbox_pending() == []
    assert (wallet.balance(alice), wallet.balance(bob)) == (19_700, 20_294)


def test_a_repeated_entry_is_acked_without_a_second_application(
    wallet: Wallet, store: TableStore
) -> None:
    alice, bob = wallet.register("alice", "password-1"), wallet.register("bob", "password-2")
    wallet.hold_hand("t1-1", {alice: 100, bob: 100})
    payload = hand_payload("t1-1", "t1", alice, bob, 100)
    Settler(wallet)(SettlementOrder.from_json(payload))  # delivered once by a task already
    queue(store, "t1", ("settle:t1-1", payload))
    report = relay_outbox(store, Settler(wallet))
    assert (report.applied, report.replayed) == (0, 1)
    assert store.outbox_pending() == []
    assert (wallet.balance(alice), wallet.balance(bob)) == (19_900, 20_100)
    assert len(wallet.history(alice, game="zhajinhua")) == 1


def test_bug_the_relays_of_two_processes_both_reported_one_settled_hand_and_both_started_the_next(
    wallet: Wallet, store: TableStore
) -> None:
    # Each server process relays in-process, and one hand's end wakes every relay. Both
    # delivered the hand (one applied it, one replayed it) and both said its table was settled,
    # so both started the next hand: the loser dealt and held for nothing (about a hand in four
    # at three bot tables served by two processes).
    alice, bob = wallet.register("alice", "password-1"), wallet.register("bob", "password-2")
    wallet.hold_hand("t1-1", {alice: 100, bob: 100})
    queue(store, "t1", ("settle:t1-1", hand_payload("t1-1", "t1", alice, bob, 100)))
    settler = Settler(wallet)
    other_relay: list[Any] = []

    def settle_while_the_other_relays(order: SettlementOrder) -> Settlement:
        if not other_relay:
            other_relay.append(relay_outbox(store, settler))  # the other process, meanwhile
        return settler(order)

    this_relay = relay_outbox(store, settle_while_the_other_relays)
    assert (other_relay[0].applied, this_relay.replayed) == (1, 1)
    assert other_relay[0].settled_tables == ["t1"]
    assert this_relay.settled_tables == []
    assert (wallet.balance(alice), wallet.balance(bob)) == (19_900, 20_100)


def test_a_failed_application_leaves_the_entry_pending(wallet: Wallet, store: TableStore) -> None:
    alice, bob = wallet.register("alice", "password-1"), wallet.register("bob", "password-2")
    queue(store, "t1", ("settle:t1-1", hand_payload("t1-1", "t1", alice, bob, 100)))

    def database_down(order: SettlementOrder) -> Settlement:
        raise OSError("the database went away")

    with pytest.raises(OSError):
        relay_outbox(store, database_down)
    assert [entry.key for entry in store.outbox_pending()] == ["settle:t1-1"]
    # Nothing was held for the hand: the wallet refuses it, the entry stays for an operator.
    report = relay_outbox(store, Settler(wallet))
    assert report.applied == 0
    assert [(table, key) for table, key, _ in report.refused] == [("t1", "settle:t1-1")]
    assert "held" in report.refused[0][2]
    assert [entry.key for entry in store.outbox_pending()] == ["settle:t1-1"]
    assert wallet.balance(alice) == wallet.balance(bob) == 20_000
    wallet.hold_hand("t1-1", {alice: 100, bob: 100})
    assert relay_outbox(store, Settler(wallet)).applied == 1
    assert store.outbox_pending() == []


def test_refusals_do_not_block_the_other_entries(wallet: Wallet, store: TableStore) -> None:
    alice, bob = wallet.register("alice", "password-1"), wallet.register("bob", "password-2")
    wallet.hold_hand("t1-2", {alice: 50, bob: 50})
    unbalanced = json.loads(hand_payload("t1-1", "t1", alice, bob, 10))
    unbalanced["lines"][0][1] = -11
    queue(
        store,
        "t1",
        ("settle:t1-1", json.dumps(unbalanced).encode()),
        ("settle:t1-2", hand_payload("t1-2", "t1", alice, bob, 50)),
        ("settle:t1-3", hand_payload("t1-99", "t1", alice, bob, 50)),  # key and hand disagree
        ("chat:hello", b"not a settlement"),
    )
    report = relay_outbox(store, Settler(wallet))
    assert (report.applied, report.skipped) == (1, 1)
    assert sorted(key for _, key, _ in report.refused) == ["settle:t1-1", "settle:t1-3"]
    pending = sorted(entry.key for entry in store.outbox_pending())
    assert pending == ["chat:hello", "settle:t1-1", "settle:t1-3"]
    assert wallet.balance(bob) == 20_050 and wallet.total_coins() == wallet.grants_total()


def test_the_leaderboard_counts_a_relayed_hand_once(wallet: Wallet, store: TableStore) -> None:
    alice, bob = wallet.register("alice", "password-1"), wallet.register("bob", "password-2")
    board = Leaderboard(fakeredis.FakeRedis(), prefix="relay-test:leaderboard")
    board.mark_built("zhajinhua")
    wallet.hold_hand("t1-1", {alice: 300, bob: 300})
    settler = Settler(wallet, board)
    order = SettlementOrder.from_json(hand_payload("t1-1", "t1", alice, bob, 300, fee=6))
    assert settler(order).replayed is False
    assert settler(order).replayed is True
    assert board.nets("zhajinhua") == {alice: -300, bob: 294}


class RoundTrips:
    """Counts a client's round trips to Redis: its commands, and its pipelines as one each."""

    def __init__(self, client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        command, pipeline = client.execute_command, client.pipeline

        def counted_command(*args: Any, **options: Any) -> Any:
            self.count += 1
            return command(*args, **options)

        def counted_pipeline(*args: Any, **options: Any) -> Any:
            pipe = pipeline(*args, **options)
            execute = pipe.execute

            def counted_execute(*execute_args: Any, **execute_options: Any) -> Any:
                self.count += 1
                return execute(*execute_args, **execute_options)

            pipe.execute = counted_execute
            return pipe

        monkeypatch.setattr(client, "execute_command", counted_command)
        monkeypatch.setattr(client, "pipeline", counted_pipeline)


@pytest.mark.parametrize("script_lost", [False, True])
def test_a_settlement_tells_the_board_of_coins_and_the_leaderboard_in_one_round_trip(
        wallet: Wallet, monkeypatch: pytest.MonkeyPatch, script_lost: bool) -> None:
    # They were a round trip each for every hand. A Redis that lost the leaderboard's script
    # (a restart) still counts the hand, as a script call on its own does (its try, the script
    # sent, the count).
    client = fakeredis.FakeRedis()
    coins, board = AvailableCoinsBoard(client, "relay-test"), Leaderboard(client, prefix="relay-test:leaderboard")
    wallet.on_available = coins.publish
    alice, bob = wallet.register("alice", "password-1"), wallet.register("bob", "password-2")
    board.mark_built("zhajinhua")
    wallet.hold_hand("t1-1", {alice: 300, bob: 300})
    board.record(Settlement("warm-up", "zhajinhua", (), replayed=True), wallet.house)  # the script loaded
    if script_lost:
        client.script_flush()
    trips = RoundTrips(client, monkeypatch)
    settled = Settler(wallet, board, coins)(SettlementOrder.from_json(hand_payload("t1-1", "t1", alice, bob, 300, fee=6)))
    assert not settled.replayed
    assert trips.count == (1 + 3 if script_lost else 1)
    assert board.nets("zhajinhua") == {alice: -300, bob: 294}
    assert coins.available_many([str(alice), str(bob)]) == [20_000 - 300, 20_000 + 294]


@pytest.mark.parametrize("scripts_lost", [False, True])
def test_a_relayed_settlement_is_read_then_told_to_the_board_the_leaderboard_and_the_outbox_in_two_round_trips(
        wallet: Wallet, monkeypatch: pytest.MonkeyPatch, scripts_lost: bool) -> None:
    # A hand's end cost the relay five round trips: the index, the outbox, the board of coins,
    # the leaderboard, the acknowledgement. A Redis that lost the scripts (a restart) runs each
    # on its own, as a script call does (its try, the script sent, the call).
    client = fakeredis.FakeRedis()
    store = TableStore(client, prefix="relay-trips")
    coins, board = AvailableCoinsBoard(client, "relay-trips"), Leaderboard(client, prefix="relay-trips:leaderboard")
    wallet.on_available = coins.publish
    alice, bob = wallet.register("alice", "password-1"), wallet.register("bob", "password-2")
    board.mark_built("zhajinhua")
    wallet.hold_hand("t1-1", {alice: 300, bob: 300})
    queue(store, "t1", ("settle:t1-1", hand_payload("t1-1", "t1", alice, bob, 300, fee=6)))
    settler = Settler(wallet, board, coins)
    settler(SettlementOrder.from_json(hand_payload("warm-up", "t0", alice, bob, 0)))  # the scripts loaded
    store.outbox_ack("t0", "settle:warm-up")
    if scripts_lost:
        client.script_flush()
    trips = RoundTrips(client, monkeypatch)
    report = relay_outbox(store, settler, table_ids={"t1"})
    assert (report.applied, report.settled_tables) == (1, ["t1"])
    assert trips.count == (2 + 3 + 3 if scripts_lost else 2)
    assert store.outbox_pending() == []
    assert board.nets("zhajinhua") == {alice: -300, bob: 294}
    assert coins.available_many([str(alice), str(bob)]) == [20_000 - 300, 20_000 + 294]


def test_a_pass_woken_by_notices_reads_only_the_tables_they_name_in_one_round_trip(
        wallet: Wallet, store: TableStore, monkeypatch: pytest.MonkeyPatch) -> None:
    # It read the index of every table with entries, then their outboxes: two round trips for
    # each hand's end, though the notice that woke it named the table.
    alice, bob = wallet.register("alice", "password-1"), wallet.register("bob", "password-2")
    for table in ("t1", "t2"):
        wallet.hold_hand(f"{table}-1", {alice: 100, bob: 100})
        queue(store, table, (f"settle:{table}-1", hand_payload(f"{table}-1", table, alice, bob, 100)))
    trips = RoundTrips(store.client, monkeypatch)
    pending = store.outbox_pending(table_ids={"t2"})
    assert [(entry.table_id, entry.key) for entry in pending] == [("t2", "settle:t2-1")]
    assert trips.count == 1
    report = relay_outbox(store, Settler(wallet), table_ids={"t2"})
    assert report.settled_tables == ["t2"]
    assert [entry.table_id for entry in store.outbox_pending()] == ["t1"], "left to the next pass"
    assert relay_outbox(store, Settler(wallet)).settled_tables == ["t1"]


def test_the_loop_relays_in_the_background_until_stopped(
    wallet: Wallet, store: TableStore
) -> None:
    alice, bob = wallet.register("alice", "password-1"), wallet.register("bob", "password-2")
    loop = RelayLoop.over(store, Settler(wallet), interval=0.02).start()
    try:
        for number in range(1, 6):
            hand = f"t1-{number}"
            wallet.hold_hand(hand, {alice: 10, bob: 10})
            queue(store, "t1", (f"settle:{hand}", hand_payload(hand, "t1", alice, bob, 10)))
        wait_until("the outbox to drain", lambda: not store.outbox_pending())
    finally:
        loop.stop()
    assert store.outbox_pending() == []
    assert wallet.balance(bob) == 20_050 and wallet.balance(alice) == 19_950
    passes = loop.passes
    time.sleep(0.1)
    assert loop.passes == passes  # stopped for good


def test_a_pass_that_fails_does_not_stop_the_loop() -> None:
    calls: list[int] = []

    def flaky() -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise ConnectionError("Redis restarting")
        return relay_outbox(_EmptyOutbox(), lambda order: pytest.fail("nothing to settle"))

    loop = RelayLoop(flaky, interval=0.01).start()
    try:
        wait_until("two passes after the failed one", lambda: len(calls) >= 3)
    finally:
        loop.stop()
    assert loop.last_report is not None


class _EmptyOutbox:
    def outbox_pending(self, limit: int = 100, table_ids: Collection[str] | None = None) -> list[OutboxEntry]:
        return []

    def outbox_ack(self, table_id: str, key: str) -> bool:
        raise AssertionError("nothing to acknowledge")


def score_world(tmp_path) -> tuple[Wallet, TableStore, int, int]:
    """A wallet with two players, ann and bo, and a table store with table t1."""
    wallet = Wallet(f"sqlite:///{tmp_path}/scores.sqlite3", password_hasher=PasswordHasher(n=2**4))
    wallet.migrate()
    ann, bo = wallet.register("ann", "password1"), wallet.register("bo", "password1")
    store = TableStore(fakeredis.FakeRedis(server=fakeredis.FakeServer()))
    store.create("t1", b"s")
    return wallet, store, ann, bo


def test_score_channel_points_are_recorded_once_and_acknowledged(tmp_path) -> None:
    wallet, store, ann, bo = score_world(tmp_path)
    payload = json.dumps({"hand_id": "t1-1", "table_id": "t1", "game": "chaodipi",
                          "scores": {str(ann): 4, str(bo): -4}}).encode()
    store.commit("t1", 1, b"s", outbox=[("score:t1-1", payload)])
    settler = Settler(wallet)
    for _ in range(2):  # a second pass finds nothing pending and records nothing again
        relay_outbox(store, settler, record_scores=settler.record_scores)
    assert store.outbox_pending() == []
    assert (wallet.score(ann, "chaodipi"), wallet.score(bo, "chaodipi")) == (4, -4)
    assert wallet.record_scores("t1-1", "chaodipi", {ann: 4, bo: -4}) is False  # redelivered
    with pytest.raises(ValueError):
        wallet.record_scores("t1-1", "chaodipi", {ann: 5, bo: -5})
    assert [row.account for row in wallet.score_top("chaodipi")] == [ann, bo]
    assert wallet.balance(ann) == wallet.balance(bo) == 20_000  # no coins moved
    wallet.close()


def test_a_release_is_applied_once_and_one_naming_another_hand_is_refused(wallet: Wallet, store: TableStore) -> None:
    alice = wallet.register("alice", "password-1")
    wallet.hold_hand("t1-1", {alice: 900})
    wallet.hold_hand("t1-2", {alice: 100})
    queue(store, "t1", ("release:t1-1", json.dumps({"hand_id": "t1-1", "table_id": "t1"}).encode()),
          ("release:t1-2", json.dumps({"hand_id": "t1-1", "table_id": "t1"}).encode()))
    settler = Settler(wallet)
    report = relay_outbox(store, settler, release=settler.release)
    assert report.released == 1 and [key for _table, key, _reason in report.refused] == ["release:t1-2"]
    assert wallet.holds("t1-1") == {} and wallet.holds("t1-2") == {alice: 100}
    assert [entry.key for entry in store.outbox_pending()] == ["release:t1-2"]
    assert relay_outbox(store, settler).skipped == 1  # a relay that releases nothing leaves it be

def test_bug_a_score_channel_hand_was_missing_from_its_players_history(tmp_path) -> None:
    wallet, store, ann, bo = score_world(tmp_path)
    record = {"tier": "yancheng-score", "accounts": [ann, bo], "names": ["ann", "bo"], "start": {"moves": []}}
    payload = json.dumps({"hand_id": "t1-1", "table_id": "t1", "game": "chaodipi", "ended_ms": 1_700_000_000_000,
                          "scores": {str(ann): 4, str(bo): -4}, "record": record}).encode()
    store.commit("t1", 1, b"s", outbox=[("score:t1-1", payload)])
    settler = Settler(wallet)
    relay_outbox(store, settler, record_scores=settler.record_scores)
    kept = wallet.hand_record("t1-1")
    assert kept is not None and kept.record == record and kept.table_id == "t1"
    assert kept.nets == {ann: 0, bo: 0}  # points, not coins
    assert [(hand.hand_id, hand.seat) for hand in wallet.hands_of(bo)] == [("t1-1", 1)]
    wallet.close()

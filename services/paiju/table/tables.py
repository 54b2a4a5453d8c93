"""The table domain: seats, hands and actions on records in the :class:`TableStore`.

Every change is load → change a copy → one compare-and-set carrying the new record, the events
(cut per seat), the turn deadline and any settlement for the outbox. The servicers of the lobby
and table services are thin layers over :class:`Tables`; it holds no game rules — it drives
games only through :mod:`paiju.games.registry` and the engine shape.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from paiju.games.engine import Event, IllegalAction, require
from paiju.table.record import HandRecord, TableRecord
from paiju.table.seating import SeatDirectory
from paiju.table.store import Deadline, Snapshot, StaleVersion, TableExists, TableStore

TURN_DEADLINE = "turn"
READY_KICK_DEADLINE = "ready_kick"
START_DEADLINE = "start"
START_RETRY_MS = 250
SETTLEMENT_PREFIX = "settle:"


class WalletPort(Protocol):
    """What the table needs of the wallet: balances and holds for a hand."""

    def available(self, account: str) -> int: ...

    def hold_hand(self, hand_id: str, amounts: dict[str, int]) -> None:
        """Hold each account's amount for the hand, all or none (raises when one cannot)."""
        ...

    def release(self, hand_id: str) -> None: ...


class TableNotFound(LookupError):
    def __init__(self, table_id: str) -> None:
        super().__init__(f"there is no table {table_id!r}")
        self.table_id = table_id


class NotSeated(PermissionError):
    """The caller has no seat here, so it may not act for one."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one committed change produced: the new version and the events it wrote."""

    version: int
    events: list[Event]


@dataclass(frozen=True, slots=True)
class Timers:
    turn_ms: int = 20_000
    ready_kick_ms: int = 20_000


def _payload(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


class Tables:
    """Tables on one store. ``wallet`` places holds; ``clock_ms`` and ``seeds`` are injectable."""

    def __init__(
        self,
        store: TableStore,
        wallet: WalletPort,
        timers: Timers = Timers(),
        clock_ms: Callable[[], int] = lambda: int(time.time() * 1000),
        seeds: Callable[[], bytes] = lambda: secrets.token_bytes(32),
        randbelow: Callable[[int], int] = secrets.randbelow,
    ) -> None:
        self.store = store
        self.wallet = wallet
        self.timers = timers
        self.clock_ms = clock_ms
        self.seeds = seeds
        self.randbelow = randbelow
        self.directory = SeatDirectory(store.client, store.prefix)

    # --- reading ----------------------------------------------------------------------------

    def load(self, table_id: str) -> tuple[Snapshot, TableRecord]:
        snapshot = self.store.load(table_id)
        if snapshot is None:
            raise TableNotFound(table_id)
        return snapshot, TableRecord.from_bytes(snapshot.state)

    def open(self, table_id: str, game: str, tier: str, rules: dict[str, Any] | None = None) -> TableRecord:
        """Create the table if it does not exist yet; its record either way."""
        record = TableRecord.open(table_id, game, tier, rules)
        if self.store.load(table_id) is None:
            try:
                self.store.create(table_id, record.to_bytes(), meta={"game": game, "tier": tier})
            except TableExists:
                pass  # another replica created it first
        return self.load(table_id)[1]

    def view(self, table_id: str, account: str | None) -> dict[str, Any]:
        """What ``account`` (``None``: a spectator) may see of the table and its hand."""
        snapshot, record = self.load(table_id)
        return self._view(snapshot.version, snapshot.last_event_id, record, account)

    def _view(self, version: int, last_event_id: str, record: TableRecord, account: str | None) -> dict[str, Any]:
        seat = None if account is None else record.seat_of(account)
        view: dict[str, Any] = {
            "version": version,
            "last_event_id": last_event_id,
            "table": record.summary(),
            "seat": seat,
            "hand": None,
            "last_hand": record.last_hand,
        }
        if record.hand is not None:
            hand = record.spec.load_hand(record.hand.blob)
            hand_seat = None if seat is None else record.hand.hand_seat(seat)
            view["hand"] = {
                "hand_id": record.hand.hand_id,
                "number": record.hand.number,
                "seats": record.hand.seats,
                "my_hand_seat": hand_seat,
                "state": hand.view(hand_seat),
            }
        return view

    def deadline(self, table_id: str, name: str) -> Deadline | None:
        """The table's pending deadline called ``name`` (e.g. the turn timer), if any."""
        return next((d for d in self.store.deadlines(table_id) if d.name == name), None)

    def events(
        self, table_id: str, account: str | None, after_id: str = "0-0", block_ms: int | None = None
    ) -> list[Any]:
        """The stored events after ``after_id`` that ``account``'s seat may see."""
        _, record = self.load(table_id)
        seat = None if account is None else record.seat_of(account)
        return self.store.read_events(table_id, after_id=after_id, seat=seat, block_ms=block_ms)

    # --- changing, with compare-and-set -----------------------------------------------------

    def _commit(
        self,
        table_id: str,
        version: int,
        record: TableRecord,
        events: list[Event],
        deadlines_set: list[tuple[str, int, int]] = (),  # type: ignore[assignment]
        deadlines_clear: list[str] = (),  # type: ignore[assignment]
        outbox: list[tuple[str, bytes]] = (),  # type: ignore[assignment]
    ) -> Outcome:
        stored = [(event.visible_to, event.type, _payload(event.data)) for event in events]
        new_version = self.store.commit(
            table_id, version, record.to_bytes(), stored, deadlines_set, deadlines_clear, outbox
        )
        return Outcome(new_version, events)

    def _retrying(self, table_id: str, change: Callable[[int, TableRecord], Outcome]) -> Outcome:
        """Apply a server-side change, reloading and retrying when another writer got in first."""
        for _ in range(20):
            snapshot, record = self.load(table_id)
            try:
                return change(snapshot.version, record)
            except StaleVersion:
                continue
        raise RuntimeError(f"table {table_id}: too much contention, gave up after 20 tries")

    def _seats(self, account: str) -> Callable[[str], bool]:
        def seats_account(table_id: str) -> bool:
            snapshot = self.store.load(table_id)
            return snapshot is not None and TableRecord.from_bytes(snapshot.state).seat_of(account) is not None

        return seats_account

    def sit(self, table_id: str, account: str, name: str, seat: int | None = None) -> Outcome:
        """Take a seat (the first free one when ``seat`` is None)."""
        coins = self.wallet.available(account)
        self.load(table_id)  # an unknown table is refused before anything is claimed
        self.directory.claim(account, table_id, self._seats(account))

        def change(version: int, record: TableRecord) -> Outcome:
            taken = record.sit(account, name, coins, seat)
            event = Event("sat", {"seat": taken, "account": account, "name": name, "coins": coins})
            return self._commit(table_id, version, record, [event], *self._ready_kick(record, version))

        try:
            return self._retrying(table_id, change)
        except Exception:
            if not self._seats(account)(table_id):
                self.directory.release(account, table_id)
            raise

    def stand(self, table_id: str, account: str) -> Outcome:
        def change(version: int, record: TableRecord) -> Outcome:
            seat = record.stand(account)
            event = Event("stood", {"seat": seat, "account": account, "reason": "left"})
            return self._commit(table_id, version, record, [event], *self._ready_kick(record, version))

        outcome = self._retrying(table_id, change)
        self.directory.release(account, table_id)
        return outcome

    def ready(self, table_id: str, account: str) -> Outcome:
        """Press start; the hand starts when every seated player has (and enough are seated)."""

        def change(version: int, record: TableRecord) -> Outcome:
            seat = record.seat_of(account)
            starts = record.ready(account)
            events = [Event("ready", {"seat": seat})]
            if starts and not self._settling(table_id):
                return self._start_hand(table_id, version, record, events)
            if starts:
                return self._commit(table_id, version, record, events, *self._start_later(version))
            return self._commit(table_id, version, record, events, *self._ready_kick(record, version))

        return self._retrying(table_id, change)

    def _settling(self, table_id: str) -> bool:
        """Whether the last hand's settlement is still on its way to the ledger.

        The next hand waits for it: its holds and stakes must come from settled balances.
        """
        return any(key.startswith(SETTLEMENT_PREFIX) for key in self.store.outbox_keys(table_id))

    def _start_later(self, version: int) -> tuple[list[tuple[str, int, int]], list[str]]:
        return [(START_DEADLINE, self.clock_ms() + START_RETRY_MS, version + 1)], [READY_KICK_DEADLINE]

    def _ready_kick(self, record: TableRecord, version: int) -> tuple[list[tuple[str, int, int]], list[str]]:
        """The ready-kick deadline as the seats now stand: set, moved or cleared."""
        if record.ready_kick_candidate() is None:
            return [], [READY_KICK_DEADLINE]
        return [(READY_KICK_DEADLINE, self.clock_ms() + self.timers.ready_kick_ms, version + 1)], []

    def _start_hand(self, table_id: str, version: int, record: TableRecord, events: list[Event]) -> Outcome:
        spec = record.spec
        seats = record.seated()
        accounts = [record.seats[s].account for s in seats]  # type: ignore[union-attr]
        number = record.hands_played + 1
        hand_id = f"{table_id}-{number}-{secrets.token_hex(4)}"
        coins = [self.wallet.available(account) for account in accounts]
        winner = record.last_winner
        dealer = accounts.index(winner) if winner in accounts else self.randbelow(len(seats))
        hand = spec.start_hand(record.rules, coins, dealer, self.seeds())
        self.wallet.hold_hand(hand_id, {account: hand.max_loss(seat) for seat, account in enumerate(accounts)})
        for seat, coin in zip(seats, coins):
            record.seats[seat].coins = coin  # type: ignore[union-attr]
        record.hand = HandRecord(hand_id, seats, hand.to_bytes(), number)
        started = Event("hand_seats", {"hand_id": hand_id, "number": number, "seats": seats, "accounts": accounts})
        events = [*events, started, *self._table_events(record, hand.opening_events)]  # type: ignore[attr-defined]
        try:
            return self._commit(
                table_id, version, record, events, *self._turn_deadline(hand, version), outbox=[]
            )
        except StaleVersion:
            self.wallet.release(hand_id)
            raise

    def _turn_deadline(
        self, hand: Any, version: int, kept_from: str | None = None
    ) -> tuple[list[tuple[str, int, int]], list[str]]:
        """The turn timer for the new version: a fresh one for a new turn; when the same seat is
        still to act (someone only looked), the running one, set again for the new version."""
        clear = [READY_KICK_DEADLINE, START_DEADLINE]
        if hand.to_act is None:
            return [], [TURN_DEADLINE, *clear]
        running = None if kept_from is None else self.deadline(kept_from, TURN_DEADLINE)
        due = running.due_ms if running is not None else self.clock_ms() + self.timers.turn_ms
        return [(TURN_DEADLINE, due, version + 1)], clear

    @staticmethod
    def _table_events(record: TableRecord, events: list[Event]) -> list[Event]:
        """Engine events with their visibility moved from hand seats to table seats."""
        seats = record.hand.seats  # type: ignore[union-attr]
        return [
            Event(e.type, e.data, None if e.visible_to is None else tuple(seats[s] for s in e.visible_to))
            for e in events
        ]

    def act(self, table_id: str, account: str, expected_version: int, action: str) -> Outcome:
        """A player's move. IllegalAction (the rule's reason) or StaleVersion leave all as it was."""
        snapshot, record = self.load(table_id)
        if snapshot.version != expected_version:
            raise StaleVersion(table_id, expected_version, snapshot.version)
        seat = record.seat_of(account)
        if seat is None:
            raise NotSeated(f"you have no seat at table {table_id}")
        require(record.hand is not None, "no hand is being played at this table", "no_hand")
        hand_seat = record.hand.hand_seat(seat)  # type: ignore[union-attr]
        require(hand_seat is not None, "you are not in the hand being played", "not_in_hand")
        hand = record.spec.load_hand(record.hand.blob)  # type: ignore[union-attr]
        before = hand.to_act
        events = hand.apply(hand_seat, action)
        return self._after_move(table_id, expected_version, record, hand, events, same_turn=hand.to_act == before)

    def expire(self, table_id: str, name: str, version_set_for: int) -> Outcome | None:
        """A deadline fell due: the move it stands for, or None when the table moved on."""
        snapshot, record = self.load(table_id)
        if snapshot.version != version_set_for:
            return None  # a stale deadline: the table changed since it was set
        if name == TURN_DEADLINE and record.hand is not None:
            hand = record.spec.load_hand(record.hand.blob)
            if hand.to_act is None:
                return None
            return self._after_move(table_id, snapshot.version, record, hand, hand.timeout())
        if name == START_DEADLINE:
            if not record.can_start():
                return None
            if self._settling(table_id):
                return self._commit(table_id, snapshot.version, record, [], *self._start_later(snapshot.version))
            return self._start_hand(table_id, snapshot.version, record, [])
        if name == READY_KICK_DEADLINE:
            seat = record.ready_kick_candidate()
            if seat is None:
                return None
            account = record.seats[seat].account  # type: ignore[union-attr]
            record.stand(account)
            event = Event("stood", {"seat": seat, "account": account, "reason": "not_ready"})
            outcome = self._commit(table_id, snapshot.version, record, [event], *self._ready_kick(record, snapshot.version))
            self.directory.release(account, table_id)
            return outcome
        return None

    def _after_move(
        self, table_id: str, version: int, record: TableRecord, hand: Any, events: list[Event], same_turn: bool = False
    ) -> Outcome:
        hand_record = record.hand
        assert hand_record is not None
        hand_record.blob = hand.to_bytes()
        table_events = self._table_events(record, events)
        if hand.result is None:
            deadlines = self._turn_deadline(hand, version, kept_from=table_id if same_turn else None)
            return self._commit(table_id, version, record, table_events, *deadlines)
        outbox, ended = self._settle(record, hand)
        outcome = self._commit(
            table_id, version, record, table_events + ended, [], [TURN_DEADLINE, READY_KICK_DEADLINE], outbox
        )
        for event in ended:
            if event.type == "stood":
                self.directory.release(event.data["account"], table_id)
        return outcome

    def _settle(self, record: TableRecord, hand: Any) -> tuple[list[tuple[str, bytes]], list[Event]]:
        """Close the hand: the settlement into the outbox, the seats ready for the next one."""
        hand_record = record.hand
        assert hand_record is not None
        result = hand.result
        accounts = [record.seats[s].account for s in hand_record.seats]  # type: ignore[union-attr]
        settlement = {
            "hand_id": hand_record.hand_id,
            "table_id": record.table_id,
            "game": record.game,
            "lines": [[accounts[line.seat], line.amount, line.reason] for line in result.lines],
            "fee": result.fee,
        }
        events = [Event("hand_settled", {"hand_id": hand_record.hand_id, "coins": dict(zip(accounts, result.coins))})]
        for hand_seat, table_seat in enumerate(hand_record.seats):
            taken = record.seats[table_seat]
            assert taken is not None
            taken.coins += result.coins[hand_seat]
        record.last_winner = accounts[result.winners[0]] if result.winners else None
        # The settlement table and the reveal stay on view until the next hand starts.
        record.last_hand = {"hand_id": hand_record.hand_id, "seats": hand_record.seats, "state": hand.view(None)}
        record.hand = None
        record.hands_played += 1
        minimum = record.spec.tier(record.tier).min_coins
        for seat in record.seated():
            taken = record.seats[seat]
            assert taken is not None
            taken.ready = False
            if taken.coins < minimum:
                record.seats[seat] = None
                events.append(Event("stood", {"seat": seat, "account": taken.account, "reason": "not_enough_coins"}))
        return [(SETTLEMENT_PREFIX + hand_record.hand_id, _payload(settlement))], events

__all__ = [
    "READY_KICK_DEADLINE",
    "SETTLEMENT_PREFIX",
    "START_DEADLINE",
    "TURN_DEADLINE",
    "IllegalAction",
    "NotSeated",
    "Outcome",
    "TableNotFound",
    "Tables",
    "Timers",
    "WalletPort",
]

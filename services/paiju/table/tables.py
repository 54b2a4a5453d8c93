"""The table domain: seats, hands, moves, timers and presence on records in the TableStore.

Every change is load → change the record → one compare-and-set carrying the new record, the
events (cut per seat), the deadline changes and any settlement for the outbox. The servicers of
the lobby and table services are thin layers over :class:`Tables`; it holds no game rules — it
drives games only through :mod:`paiju.games.registry` and the engine shape.

Deadlines carry a *stamp* of the state they were set for (in the store's ``version_set_for``):
the turn timer the record's ``turn_stamp`` (a new one whenever the seat to act changes, so a
look by another player leaves the timer running), the ready kick and a delayed start its
``seating_stamp``, a reconnect window the seat's ``away_stamp``. An expiry whose stamp no longer
matches is a no-op, so a deadline fired twice, or late, changes nothing.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from paiju.common.logs import log_context
from paiju.common.metrics import METRICS
from paiju.games.engine import Event, HandState, IllegalAction, require
from paiju.table.in_turn import TableTurns
from paiju.table.outbox_keys import OWED_PREFIXES, RELEASE_PREFIX, SCORE_PREFIX, SETTLEMENT_PREFIX
from paiju.table.ports import CoinsBoard, CoinsChanged, NoCoinsBoard, WalletPort
from paiju.table.record import HandRecord, RecordCodec, SeatRecord, TableRecord, new_hand_id
from paiju.table.seating import SeatDirectory
from paiju.table.store import (
    CommitReceipt,
    Deadline,
    Snapshot,
    StaleVersion,
    TableExists,
    TableStore,
)
from paiju.table.store.store import STATES_REMEMBERED

log = logging.getLogger(__name__)

TURN_DEADLINE = "turn"
READY_KICK_DEADLINE = "ready_kick"
START_DEADLINE = "start"
SYSTEM_DEADLINE = "system"
RECONNECT_PREFIX = "reconnect:"
STARTING_PREFIX = "starting:"
"""A mark set before a hand's holds, cleared by the commit that deals it: if the starter dies
between the two, the mark falls due and any replica releases the holds and deals again."""
MAX_MARK_LENGTH = 128
"""The longest deadline name the store takes."""
START_RECOVERY_MS = 3_000
"""How long a start may take from its holds to its deal's commit before it counts as crashed
(a start that is merely slow loses its compare-and-set to the recovery and gives its holds back)."""
START_RETRY_MS = 250
LOST_RACE_PAUSES = (0.0, 0.01, 0.05, 0.2)
"""Seconds between looks at whether a start whose holds failed lost a race to another starter."""


class LedgerNeeded(Exception):
    """A change made without the ledger (``ask_ledger=False``) found that only the ledger can
    answer it. Nothing was changed: make it again where the ledger may be asked."""


class TableNotFound(LookupError):
    def __init__(self, table_id: str) -> None:
        super().__init__(f"there is no table {table_id!r}")
        self.table_id = table_id


class NotSeated(PermissionError):
    """The caller has no seat here, so it may not act for one."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one committed change produced: the new version, the events it wrote, the record
    as committed, and the turn timer's due time after it (None between hands or without one).
    A change that found nothing to do (a second press of start) is the table as it stands, with
    no events."""

    version: int
    events: list[Event]
    record: TableRecord | None = None
    turn_due_ms: int | None = None
    hand: HandState | None = None
    """The record's hand as committed, already loaded (None when no hand is on, or unknown)."""
    receipt: CommitReceipt | None = None
    """What the store wrote: the events with their stream ids, the deadlines after the commit."""
    actor: ActorsView | None = None
    """For a player's own move (:meth:`Tables.act`): who made it, and the view its reply gave."""


class ActorsView:
    """The player whose move a commit was, and the key (``view_key``) of the view the reply to
    that move carried, once the reply is made: a stream of that player that leaves out its own
    moves goes on from that view instead of building and sending it again."""

    __slots__ = ("account", "view_key")

    def __init__(self, account: str) -> None:
        self.account = account
        self.view_key: tuple[Any, ...] | None = None


@dataclass(frozen=True, slots=True)
class Timers:
    turn_ms: int = 20_000
    ready_kick_ms: int = 20_000
    reconnect_ms: int = 90_000


@dataclass
class DeadlinePlan:
    """The deadline changes one commit makes."""

    set: list[tuple[str, int, int]] = field(default_factory=list)
    clear: list[str] = field(default_factory=list)

    def put(self, name: str, due_ms: int, stamp: int) -> None:
        self.set.append((name, due_ms, stamp))

    def drop(self, *names: str) -> None:
        self.clear.extend(names)


def _named(deadlines: list[Deadline], name: str) -> Deadline | None:
    return next((deadline for deadline in deadlines if deadline.name == name), None)


def _payload(data: dict[str, Any]) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)


TABLE_EVENTS = frozenset({"sat", "stood", "ready", "disconnected", "reconnected"})
"""Events of the table itself, which belong to no hand even while one is played."""


def hand_of_commit(record: TableRecord, events: list[Event]) -> tuple[int, str]:
    """The number and id of the hand a commit's events (other than :data:`TABLE_EVENTS`)
    belong to: the hand being played, or the one the commit ended; ``(0, "")`` for none."""
    if record.hand is not None:
        return record.hand.number, record.hand.hand_id
    if record.last_hand is not None and any(event.type == "hand_settled" for event in events):
        return record.hands_played, record.last_hand["hand_id"]
    return 0, ""


def hand_seat_of(record: TableRecord, table_seat: int) -> int:
    return record.hand.hand_seat(table_seat)  # type: ignore[union-attr,return-value]


def note_options(record: TableRecord, hand: HandState, version: int) -> None:
    """Before committing ``version`` with ``hand``: each dealt-in seat's key of what it may do,
    and since when it has held (a new key holds from this version on)."""
    assert record.hand is not None
    for hand_seat, table_seat in enumerate(record.hand.seats):
        taken = record.seats[table_seat]
        if taken is None:
            continue
        key = hand.options_key(hand_seat)
        if key != taken.options_key or taken.options_since is None:
            taken.options_key, taken.options_since = key, version


def options_unchanged(record: TableRecord, seat: int | None, seen_version: int, current_version: int) -> bool:
    """Whether what ``seat`` may do is the same at ``current_version`` as on the view of
    ``seen_version`` (an older version of this hand): then a move made on that view is no
    stale one."""
    if seat is None or record.hand is None or not 0 < seen_version < current_version:
        return False
    taken = record.seats[seat]
    return taken is not None and taken.options_since is not None and taken.options_since <= seen_version


def starting_mark(table_id: str, hand_id: str, accounts: list[str]) -> str:
    """The name of the deadline that guards the start of ``hand_id`` dealing ``accounts`` in (see
    :data:`STARTING_PREFIX`); the accounts are left out when they would make it too long.

    >>> starting_mark("zhajinhua-free-03", "zhajinhua-free-03-7-5c0ffee5", ["1001", "1002"])
    'starting:7-5c0ffee5:1001,1002'
    """
    mark = f"{STARTING_PREFIX}{hand_id[len(table_id) + 1:]}"
    with_accounts = f"{mark}:{','.join(accounts)}"
    return with_accounts if len(with_accounts) <= MAX_MARK_LENGTH else mark


def reconnect_deadline(seat: int) -> str:
    return f"{RECONNECT_PREFIX}{seat}"


class Tables:
    """Tables on one store. ``wallet`` places holds; ``coins_board`` lets presses of start through
    without the ledger (without one, each asks it); ``clock_ms`` and ``seeds`` are injectable."""

    def __init__(
        self,
        store: TableStore,
        wallet: WalletPort,
        timers: Timers = Timers(),
        clock_ms: Callable[[], int] = lambda: int(time.time() * 1000),
        seeds: Callable[[], bytes] = lambda: secrets.token_bytes(32),
        randbelow: Callable[[int], int] = secrets.randbelow,
        coins_board: CoinsBoard | None = None,
    ) -> None:
        self.store = store
        self.wallet = wallet
        self.timers = timers
        self.clock_ms = clock_ms
        self.seeds = seeds
        self.randbelow = randbelow
        self.records = RecordCodec(STATES_REMEMBERED)
        """Records to stored bytes and back: what this process wrote is read back uninflated."""
        self.directory = SeatDirectory(store.client, store.prefix)
        self.coins: CoinsBoard = coins_board or NoCoinsBoard()
        """The ledger's last word on players' available coins: a press answered on the event
        loop trusts it to let a player through, never to refuse one, and a hand's start deals
        from it with holds that the ledger refuses unless the coins are exactly its own."""
        self._turns = TableTurns()
        self.commit_starting: list[Callable[[str], None]] = []
        """Called with the table's id before each commit this process makes."""
        self.commit_listeners: list[Callable[[str, Outcome | None], None]] = []
        """Called with the table's id and the outcome after each commit this process makes, or
        None when it failed (the stream hub hands the outcome to the table's watchers here
        without reading it back)."""

    # --- reading ----------------------------------------------------------------------------

    def load(self, table_id: str) -> tuple[Snapshot, TableRecord]:
        snapshot = self.store.load(table_id)
        if snapshot is None:
            raise TableNotFound(table_id)
        return snapshot, self.records.decode(table_id, snapshot.state)

    def _load_for_change(self, table_id: str, newer_than: int = 0) -> tuple[Snapshot, TableRecord]:
        """The table as this process last committed or read it (no round trip), to change it:
        when another process got in first, the commit's compare-and-set refuses and the caller
        reloads. ``newer_than``: a version the caller knows exists (a player's view), so what
        is remembered is too old if not past it."""
        snapshot = self.store.latest_known(table_id)
        if snapshot is not None and snapshot.version < newer_than:
            snapshot = self.store.load(table_id)
        if snapshot is None:
            raise TableNotFound(table_id)
        return snapshot, self.records.decode(table_id, snapshot.state)

    def open(self, table_id: str, game: str, tier: str, rules: dict[str, Any] | None = None) -> TableRecord:
        """Create the table if it does not exist yet; its record either way."""
        record = TableRecord.open(table_id, game, tier, rules)
        if self.store.load(table_id) is None:
            try:
                self.store.create(table_id, record.to_bytes(), meta={"game": game, "tier": tier})
            except TableExists:
                pass  # another replica created it first
        return self.load(table_id)[1]

    def deadline(self, table_id: str, name: str) -> Deadline | None:
        """The table's pending deadline called ``name`` (e.g. the turn timer), if any."""
        return _named(self.store.deadlines(table_id), name)

    def load_with_turn_due(self, table_id: str) -> tuple[Snapshot, TableRecord, int | None]:
        """:meth:`load`, and when the turn now being played runs out (``None`` between hands or
        without a timer), in one round trip."""
        snapshot, deadlines = self.store.load_with_deadlines(table_id)
        if snapshot is None:
            raise TableNotFound(table_id)
        record = self.records.decode(table_id, snapshot.state)
        turn = _named(deadlines, TURN_DEADLINE)
        return snapshot, record, None if record.hand is None or turn is None else turn.due_ms

    def view(self, table_id: str, account: str | None) -> dict[str, Any]:
        """What ``account`` (``None``: a spectator) may see of the table and its hand."""
        snapshot, record = self.load(table_id)
        return self.view_of(snapshot.version, snapshot.last_event_id, record, account)

    @staticmethod
    def view_of(
        version: int, last_event_id: str, record: TableRecord, account: str | None, hand: HandState | None = None
    ) -> dict[str, Any]:
        """The view of a record already in hand (no reading); ``hand``, the record's hand
        already loaded, spares loading it again."""
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
            if hand is None:
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

    # --- committing -------------------------------------------------------------------------

    def _commit(
        self,
        table_id: str,
        version: int,
        record: TableRecord,
        events: list[Event],
        plan: DeadlinePlan | None = None,
        outbox: list[tuple[str, bytes]] = (),  # type: ignore[assignment]
        hand: HandState | None = None,
        actor: str | None = None,
    ) -> Outcome:
        plan = plan or DeadlinePlan()
        hand_number, _ = hand_of_commit(record, events)
        stored = [(event.visible_to, event.type, _payload(event.data), 0 if event.type in TABLE_EVENTS else hand_number)
                  for event in events]
        for starting in self.commit_starting:
            starting(table_id)
        try:
            receipt = self.store.commit_receipt(
                table_id, version, self.records.encode(table_id, record), stored, plan.set, plan.clear, outbox
            )
        except BaseException:
            self._tell_listeners(table_id, None)
            raise
        for event in events:
            if event.type == "stood":
                self.directory.release(event.data["account"], table_id)
        turn = _named(list(receipt.deadlines), TURN_DEADLINE)
        turn_due = None if record.hand is None or turn is None else turn.due_ms
        outcome = Outcome(receipt.version, events, record, turn_due, hand if record.hand is not None else None, receipt,
                          None if actor is None else ActorsView(actor))
        self._tell_listeners(table_id, outcome)
        return outcome

    def _tell_listeners(self, table_id: str, outcome: Outcome | None) -> None:
        for listener in self.commit_listeners:
            try:
                listener(table_id, outcome)
            except Exception:  # the commit stands; its watchers get it from Redis instead
                log.exception("table %s: telling of a commit failed", table_id)

    def _retrying(self, table_id: str, change: Callable[[int, TableRecord], Outcome | None]) -> Outcome | None:
        """Apply a server-side change, reloading and retrying when another writer got in first.

        The change is judged on the table as this process last committed or read it. A commit
        made on an outdated state is refused by its compare-and-set; but a change that finds
        nothing to do (a deadline whose stamp moved on, a start not due) or refuses (not
        seated) commits nothing, and so nothing would catch that another process moved the
        table on meanwhile. Such an answer stands only once judged on the table as it is: read
        (one round trip), or as a refused commit answered it."""
        with self._turns.turn(table_id):  # see in_turn: no refused commits between our own changes
            return self._retrying_in_turn(table_id, change)

    def _retrying_in_turn(self, table_id: str, change: Callable[[int, TableRecord], Outcome | None]) -> Outcome | None:
        snapshot, record = self._load_for_change(table_id)
        as_it_is = False
        for _ in range(20):
            try:
                outcome = change(snapshot.version, record)
            except StaleVersion:
                METRICS.cas_retried("table")
            except (IllegalAction, NotSeated):
                if as_it_is or not self._moved_on(table_id, snapshot.version):
                    raise
            else:
                if outcome is not None or as_it_is or not self._moved_on(table_id, snapshot.version):
                    return outcome
            snapshot, record = self._load_for_change(table_id)  # what the refusal or the read left
            as_it_is = True
        raise RuntimeError(f"table {table_id}: too much contention, gave up after 20 tries")

    def _moved_on(self, table_id: str, version: int) -> bool:
        """Whether the table is past ``version`` now (read, and remembered for the next change)."""
        snapshot = self.store.load(table_id)
        return snapshot is not None and snapshot.version != version

    # --- seats and readiness ----------------------------------------------------------------

    def _seats(self, account: str) -> Callable[[str], bool]:
        def seats_account(table_id: str) -> bool:
            snapshot = self.store.load(table_id)
            return snapshot is not None and self.records.decode(table_id, snapshot.state).seat_of(account) is not None

        return seats_account

    def _seating_changed(self, table_id: str, record: TableRecord, plan: DeadlinePlan) -> None:
        """Who sits and who is ready changed: the ready kick and a waiting start follow."""
        record.seating_stamp = record.next_stamp()
        if record.ready_kick_candidate() is None:
            plan.drop(READY_KICK_DEADLINE)
        else:
            plan.put(READY_KICK_DEADLINE, self.clock_ms() + self.timers.ready_kick_ms, record.seating_stamp)
        if record.can_start():
            plan.put(START_DEADLINE, self.clock_ms() + START_RETRY_MS, record.seating_stamp)
        else:
            plan.drop(START_DEADLINE)

    def sit(self, table_id: str, account: str, name: str, seat: int | None = None) -> Outcome:
        """Take a seat (the first free one when ``seat`` is None)."""
        coins = self.wallet.available(account)
        self.load(table_id)  # an unknown table is refused before anything is claimed
        token = self.directory.claim(account, table_id, self._seats(account), self.clock_ms())

        def change(version: int, record: TableRecord) -> Outcome:
            taken = record.sit(account, name, coins, seat)
            plan = DeadlinePlan()
            self._seating_changed(table_id, record, plan)
            event = Event("sat", {"seat": taken, "account": account, "name": name, "coins": coins})
            return self._commit(table_id, version, record, [event], plan)

        try:
            outcome = self._retrying(table_id, change)
        except Exception:
            if self._seats(account)(table_id):  # already seated here: the claim stays true
                self.directory.confirm(account, table_id, token)
            else:
                self.directory.release(account, table_id, token)
            raise
        if not self.directory.confirm(account, table_id, token):
            # A Sit at another table took the claim while this one committed: this one yields.
            self.stand(table_id, account)
            raise IllegalAction(f"you are seated at table {self.directory.table_of(account)}: stand up there first",
                                "seated_elsewhere")
        return outcome  # type: ignore[return-value]

    def stand(self, table_id: str, account: str, accept_escape: bool = False) -> Outcome:
        """Leave the seat. During a hand the player is in, leaving is an escape (settled by the
        game's own rules, the seat given up when the hand ends): refused unless ``accept_escape``."""

        def change(version: int, record: TableRecord) -> Outcome:
            seat = record.seat_of(account)
            if accept_escape and seat is not None and record.hand is not None and record.hand.hand_seat(seat) is not None:
                return self._escape(table_id, version, record, seat)
            seat = record.stand(account)
            plan = DeadlinePlan()
            plan.drop(reconnect_deadline(seat))
            self._seating_changed(table_id, record, plan)
            return self._commit(table_id, version, record, [Event("stood", {"seat": seat, "account": account, "reason": "left"})], plan)

        return self._retrying(table_id, change)  # type: ignore[return-value]

    def ready(self, table_id: str, account: str, ask_ledger: bool = True) -> Outcome:
        """Press start; the hand starts when every seated player has (and enough are seated).

        A player whose coins fell below the tier's minimum is refused (``not_enough_coins``);
        while the last hand's settlement is on its way their coins are not known yet, and the
        hand's holds decide: a start stands up the players whose available coins fell below the
        minimum, and when the caller is one, it is told so after the change.

        With ``ask_ledger`` off (a caller that must not wait on SQL: the event loop), the press
        takes the player's coins from the ledger's board (:mod:`paiju.wallet.coins_board`)
        and raises :class:`LedgerNeeded`, having changed nothing, when only the ledger can
        answer: the board does not know the player or says too few, or the press starts the
        hand (whose holds the ledger places).

        A player who pressed before commits nothing (the answer is the table as it stands),
        unless everyone is ready: then the press starts the hand, as the last one would."""
        settling = self._settling(table_id)

        def change(version: int, record: TableRecord) -> Outcome | None:
            seat = record.seat_of(account)
            if seat is not None and record.hand is None and record.seats[seat].ready and not record.can_start():  # type: ignore[union-attr]
                return None  # pressed before, and it starts nothing: no commit, nobody to tell
            starts = record.ready(account)
            events = [Event("ready", {"seat": seat})]
            if starts and not self._settling(table_id, before_a_start=True):
                if not ask_ledger:
                    raise LedgerNeeded("this press starts the hand: its holds are placed in the ledger")
                # The coins the hand is dealt from decide the press as well.
                index = record.seated_accounts().index(account)
                vet = None if settling else lambda coins: record.verify_coins(coins[index], "play")
                return self._start_hand(table_id, version, record, events, vet=vet)
            if not settling:
                if ask_ledger:
                    record.verify_coins(self.wallet.available(account), "play")
                else:
                    self._verify_on_the_board(record, account)
            plan = DeadlinePlan()
            self._seating_changed(table_id, record, plan)  # a start waits for the last settlement
            return self._commit(table_id, version, record, events, plan)

        outcome = self._retrying(table_id, change)
        if outcome is None:
            snapshot, record = self._load_for_change(table_id)  # as the press above confirmed it
            return Outcome(snapshot.version, [], record)
        if any(event.type == "stood" and event.data["account"] == account for event in outcome.events):
            raise IllegalAction("your available coins fell below this room's minimum: you were stood up",
                                "not_enough_coins")
        return outcome

    def _verify_on_the_board(self, record: TableRecord, account: str) -> None:
        """Raise :class:`LedgerNeeded` unless the board says ``account`` may play here. Only
        the ledger refuses a press: the board may be behind a grant."""
        available = self.coins.available(account)
        if available is None:
            raise LedgerNeeded("the board does not know this player's coins")
        if not record.can_afford(available):
            raise LedgerNeeded("the board says too few coins: the ledger decides")

    def start_if_ready(self, table_id: str) -> Outcome | None:
        """Start the hand now if everyone is ready and the last settlement has landed (the
        relay calls this right after settling, so a table does not wait for its start timer)."""

        def change(version: int, record: TableRecord) -> Outcome | None:
            if not record.can_start() or self._settling(table_id, before_a_start=True):
                return None
            return self._start_hand(table_id, version, record, [])

        return self._retrying(table_id, change)

    def _settling(self, table_id: str, before_a_start: bool = False) -> bool:
        """Whether the last hand's settlement (or the release of its holds) is still on its way
        to the ledger.

        The next hand waits for it: its holds and stakes must come from settled balances. The
        store answers from what it knows when it can; a settlement it knows of may have been
        acknowledged by another process since, so ``before_a_start`` (a "yes" would hold the
        hand back) confirms a "yes" by a read.
        """
        owed = any(key.startswith(OWED_PREFIXES) for key in self.store.outbox_keys_known(table_id))
        if owed and before_a_start:
            owed = any(key.startswith(OWED_PREFIXES) for key in self.store.outbox_keys(table_id))
        return owed

    # --- hands --------------------------------------------------------------------------------

    def _start_hand(self, table_id: str, version: int, record: TableRecord, events: list[Event],
                    vet: Callable[[list[int]], None] | None = None) -> Outcome:
        """Deal the next hand and hold its stakes.

        ``vet``: a check of the seated players' available coins the hand is dealt from, which
        raises to refuse the start (the press that starts it checks its player's).

        The coins come from the board when it knows every player and lets each one play: the
        holds then carry them, and the ledger holds nothing unless they are exactly its own, so
        a start asks the ledger one question, not two. Otherwise, or when the ledger refuses
        them, they come from the ledger (a board that says too few stands nobody up).
        """
        accounts = record.seated_accounts()
        board = [coins for coins in self.coins.available_many(accounts) if coins is not None]
        if len(board) == len(accounts) and all(record.can_afford(coins) for coins in board):
            if vet is not None:
                vet(board)
            try:
                return self._deal(table_id, version, record, events, board, confirm=True)
            except CoinsChanged:
                log.info("table %s: the board of coins was behind the ledger; dealing from the ledger's", table_id)
        coins = self.wallet.available_many(accounts)
        if vet is not None:
            vet(coins)
        return self._deal(table_id, version, record, events, coins, confirm=False)

    def _deal(self, table_id: str, version: int, record: TableRecord, events: list[Event], coins: list[int],
              confirm: bool) -> Outcome:
        """Deal the next hand from the seated players' available ``coins`` and hold its stakes;
        ``confirm``: the coins came from the board, and the holds must find them exact."""
        spec = record.spec
        seats = record.seated()
        accounts = record.seated_accounts()
        number = record.hands_played + 1
        hand_id = new_hand_id(table_id, number, secrets.token_hex(4))
        minimum = spec.tier(record.tier).min_coins
        short = [seat for seat, coin in zip(seats, coins) if coin < minimum]
        if short:
            return self._stand_the_short(table_id, version, record, events, short)
        winner = record.last_winner
        dealer = accounts.index(winner) if winner in accounts else self.randbelow(len(seats))
        carry = record.carry if record.carry and record.carry.get("accounts") == accounts else None
        hand = spec.start_hand(record.rules, coins, dealer, self.seeds(), carry)
        amounts = {account: hand.max_loss(seat) for seat, account in enumerate(accounts)}
        held = {account: amount for account, amount in amounts.items() if amount}
        plan = DeadlinePlan()
        if held or confirm:
            # Coins from the board: every player goes to the ledger, 0 coins or more, to confirm them.
            to_hold, expected = (amounts, dict(zip(accounts, coins, strict=True))) if confirm else (held, None)
            mark = starting_mark(table_id, hand_id, accounts)
            self.store.set_deadline(table_id, mark, self.clock_ms() + START_RECOVERY_MS, version)
            plan.drop(mark)
            try:
                self.wallet.hold_hand(hand_id, to_hold, expected)
            except IllegalAction:
                self._lost_race_to_start(table_id, version)
                raise
        for seat, coin in zip(seats, coins):
            record.seats[seat].coins = coin  # type: ignore[union-attr]
            record.seats[seat].options_key = None  # type: ignore[union-attr]  # no view of an earlier hand holds
        record.hand = HandRecord(hand_id, seats, hand.to_bytes(), number, held=bool(held))
        plan.drop(READY_KICK_DEADLINE, START_DEADLINE)
        self._turn_changed(record, hand, plan)
        self._system_step_timer(record, hand, plan)
        note_options(record, hand, version + 1)
        started = Event("hand_seats", {"hand_id": hand_id, "number": number, "seats": seats, "accounts": accounts})
        events = [*events, started, *self._table_events(record, hand.opening_events)]
        try:
            return self._commit(table_id, version, record, events, plan)
        except StaleVersion:
            # Certainly not committed: give the coins back now. (After any other failure the
            # commit may have landed; the wallet's sweep of holds asks the table.)
            if held:
                self.wallet.release(hand_id)
            raise

    def _stand_the_short(
        self, table_id: str, version: int, record: TableRecord, events: list[Event], short: list[int]
    ) -> Outcome:
        """Stand up the seats whose available coins fall below the tier's minimum (another hand
        holds them, or a start that crashed does until the wallet's sweep): they are not dealt
        in, with 0 coins or any other. The hand starts without them if it still can."""
        self._lost_race_to_start(table_id, version)  # another starter's holds are not a shortage
        stood = []
        for seat in short:
            taken = record.seats[seat]
            assert taken is not None
            record.seats[seat] = None  # a reconnect deadline of the seat finds it empty: a no-op
            stood.append(Event("stood", {"seat": seat, "account": taken.account, "reason": "not_enough_coins"}))
        if record.can_start():
            return self._start_hand(table_id, version, record, [*events, *stood])
        plan = DeadlinePlan()
        self._seating_changed(table_id, record, plan)
        return self._commit(table_id, version, record, [*events, *stood], plan)

    def _lost_race_to_start(self, table_id: str, version: int) -> None:
        """Raise ``StaleVersion`` if the holds failed because another starter got there first.

        Starters race (the relay right after a settlement, the start timer, the relay of another
        process): the one whose holds come second finds the coins already held. That is a lost
        race, not a player short of coins. The winner holds, then commits: give it that long.
        """
        for pause in LOST_RACE_PAUSES:
            time.sleep(pause)
            snapshot = self.store.load(table_id)
            if snapshot is None or snapshot.version != version:
                raise StaleVersion(table_id, version, snapshot.version if snapshot else version)

    def _turn_changed(self, record: TableRecord, hand: HandState, plan: DeadlinePlan) -> None:
        """A new seat is to act (or nobody): a fresh turn timer, suspended for a disconnected
        player in games that wait for one."""
        record.turn_stamp = record.next_stamp()
        if hand.to_act is None:
            plan.drop(TURN_DEADLINE)
            return
        taken = record.seats[record.hand.seats[hand.to_act]]  # type: ignore[union-attr]
        turn_ms = self._turn_ms(record)
        if record.spec.waits_for_disconnected and taken is not None and not taken.connected:
            taken.turn_left_ms = turn_ms
            plan.drop(TURN_DEADLINE)
            return
        plan.put(TURN_DEADLINE, self.clock_ms() + turn_ms, record.turn_stamp)

    def _turn_ms(self, record: TableRecord) -> int:
        return record.turn_ms if record.turn_ms is not None else self.timers.turn_ms

    @staticmethod
    def _table_events(record: TableRecord, events: list[Event]) -> list[Event]:
        """Engine events with their visibility moved from hand seats to table seats."""
        seats = record.hand.seats  # type: ignore[union-attr]
        return [
            Event(e.type, e.data, None if e.visible_to is None else tuple(seats[s] for s in e.visible_to))
            for e in events
        ]

    @staticmethod
    def _players_hand(table_id: str, record: TableRecord, account: str) -> tuple[int, int, Any]:
        """The account's table seat, its seat in the hand and the hand; NotSeated or
        IllegalAction (no hand, not in it) otherwise."""
        seat = record.seat_of(account)
        if seat is None:
            raise NotSeated(f"you have no seat at table {table_id}")
        require(record.hand is not None, "no hand is being played at this table", "no_hand")
        hand_seat = record.hand.hand_seat(seat)  # type: ignore[union-attr]
        require(hand_seat is not None, "you are not in the hand being played", "not_in_hand")
        return seat, hand_seat, record.spec.load_hand(record.hand.blob)  # type: ignore[union-attr,return-value]

    def check(self, table_id: str, account: str, action: str) -> None:
        """Whether ``account`` may take ``action`` now, judged as :meth:`act` would judge it on
        the current version: IllegalAction with the rule's reason if not. Nothing changes."""
        _, record = self.load(table_id)
        _, hand_seat, hand = self._players_hand(table_id, record, account)
        hand.verify_action(hand_seat, action)

    def act(self, table_id: str, account: str, expected_version: int, action: str) -> Outcome:
        """A player's move, made on the view of ``expected_version``. IllegalAction (the rule's
        reason) or StaleVersion leave all as it was.

        The view is stale only if what the player's seat may do changed since that version
        (:func:`options_unchanged`): another player's look, a card dealt to someone else or a
        reconnect moves the version but not the decision, so the move goes ahead on the table
        as it is now (and a lost race with such a change is simply tried again)."""
        for _ in range(20):
            snapshot, record = self._load_for_change(table_id, newer_than=expected_version)
            if snapshot.version != expected_version and not options_unchanged(
                record, record.seat_of(account), expected_version, snapshot.version
            ):
                raise StaleVersion(table_id, expected_version, snapshot.version)
            seat, hand_seat, hand = self._players_hand(table_id, record, account)
            before = hand.turn_number
            waited_for = hand.system_wait_key
            events = hand.apply(hand_seat, action)
            record.seats[seat].strikes = 0  # type: ignore[union-attr]  # acting in person ends a run of timeouts
            try:
                return self._after_move(
                    table_id, snapshot.version, record, hand, events, turn_changed=hand.turn_number != before,
                    wait_restarted=waited_for is None or hand.system_wait_key != waited_for,
                    actor=account,
                )
            except StaleVersion:
                METRICS.cas_retried("table")
        raise RuntimeError(f"table {table_id}: too much contention, gave up after 20 tries")

    def _after_move(
        self, table_id: str, version: int, record: TableRecord, hand: HandState, events: list[Event], turn_changed: bool,
        wait_restarted: bool = True, actor: str | None = None,
    ) -> Outcome:
        """Commit a move's effects. ``wait_restarted``: whether the wait for the engine's next
        system step begins again (a player's move restarts it only when the engine says so,
        so that no move can hold the deal or the declaring window open)."""
        hand_record = record.hand
        assert hand_record is not None
        hand_record.blob = hand.to_bytes()
        table_events = self._table_events(record, events)
        plan = DeadlinePlan()
        self._note_escapes(record, events)
        if hand.result is None:
            if turn_changed:
                self._turn_changed(record, hand, plan)
            if wait_restarted or hand.pending_system_step is None:
                self._system_step_timer(record, hand, plan)
            note_options(record, hand, version + 1)
            return self._commit(table_id, version, record, table_events, plan, hand=hand, actor=actor)
        outbox, ended = self._settle(record, hand, plan)
        return self._commit(table_id, version, record, table_events + ended, plan, outbox, actor=actor)

    @staticmethod
    def _note_escapes(record: TableRecord, events: list[Event]) -> None:
        """A player the engine reports escaped (e.g. its own strike count) leaves at the end."""
        for event in events:
            if event.type == "escaped" and record.hand is not None:
                taken = record.seats[record.hand.seats[event.data["seat"]]]
                if taken is not None:
                    taken.leaving = True

    def _system_step_timer(self, record: TableRecord, hand: HandState, plan: DeadlinePlan) -> None:
        """What the engine waits for from the clock (混战: the paced deal, the declaring window)."""
        pending = hand.pending_system_step
        if pending is None or hand.result is not None:
            plan.drop(SYSTEM_DEADLINE)
            return
        _, seconds = pending
        record.system_stamp = record.next_stamp()
        plan.put(SYSTEM_DEADLINE, self.clock_ms() + int(seconds * 1000), record.system_stamp)

    def _system_step(self, table_id: str, version: int, record: TableRecord, stamp: int) -> Outcome | None:
        if record.hand is None or record.system_stamp != stamp:
            return None
        hand = record.spec.load_hand(record.hand.blob)
        if hand.pending_system_step is None:
            return None
        before = hand.turn_number
        events = hand.system_step()
        return self._after_move(table_id, version, record, hand, events, turn_changed=hand.turn_number != before)

    def _settle(
        self, record: TableRecord, hand: HandState, plan: DeadlinePlan
    ) -> tuple[list[tuple[str, bytes]], list[Event]]:
        """Close the hand: the settlement into the outbox, the seats ready for the next one."""
        hand_record = record.hand
        assert hand_record is not None
        result = hand.result
        accounts = [record.seats[s].account for s in hand_record.seats]  # type: ignore[union-attr]
        match = result.details.get("match")
        record.carry = None if match is None else {"accounts": accounts, "match": match}
        settlement = {
            "ended_ms": self.clock_ms(),
            "hand_id": hand_record.hand_id,
            "table_id": record.table_id,
            "game": record.game,
            "lines": [[accounts[line.seat], line.amount, line.reason] for line in result.lines],
            "fee": result.fee,
        }
        start = hand.start_record()
        kept = None
        if start is not None:
            # The hand's start and move log, for its players' hand history (replayed from them).
            kept = settlement["record"] = {
                "tier": record.tier,
                "accounts": accounts,
                "names": [record.seats[s].name for s in hand_record.seats],  # type: ignore[union-attr]
                "start": start,
            }
        events = [Event("hand_settled", {"hand_id": hand_record.hand_id, "coins": dict(zip(accounts, result.coins))})]
        for hand_seat, table_seat in enumerate(hand_record.seats):
            taken = record.seats[table_seat]
            assert taken is not None
            taken.coins += result.coins[hand_seat]
        # The next hand's dealer (炸金花: the winner; 混战: who won the last trick deals first).
        next_dealer = result.details.get("next_first_receiver", result.winners[0] if result.winners else None)
        record.last_winner = None if next_dealer is None else accounts[next_dealer]
        # The settlement table and the reveal stay on view until the next hand starts.
        record.last_hand = {"hand_id": hand_record.hand_id, "seats": hand_record.seats, "state": hand.view(None)}
        record.hand = None
        record.hands_played += 1
        METRICS.hand_completed(record.game)
        with log_context(table_id=record.table_id, hand_id=hand_record.hand_id):
            log.info("hand %d ended (%s); coins %s", hand_record.number, result.details.get("how"), list(result.coins))
        record.turn_stamp = record.next_stamp()
        plan.drop(TURN_DEADLINE, SYSTEM_DEADLINE)
        minimum = record.spec.tier(record.tier).min_coins
        for seat in record.seated():
            taken = record.seats[seat]
            assert taken is not None
            taken.ready = False
            reason = "escaped" if taken.leaving else "not_enough_coins" if taken.coins < minimum else None
            if reason is not None:
                record.seats[seat] = None
                plan.drop(reconnect_deadline(seat))
                events.append(Event("stood", {"seat": seat, "account": taken.account, "reason": reason}))
        self._seating_changed(record.table_id, record, plan)
        outbox = []
        if settlement["lines"]:
            outbox.append((SETTLEMENT_PREFIX + hand_record.hand_id, _payload(settlement)))
        elif hand_record.held:
            # Nothing to settle (炒地皮: void before the first card): the holds go back, once.
            release = {"hand_id": hand_record.hand_id, "table_id": record.table_id}
            outbox.append((RELEASE_PREFIX + hand_record.hand_id, _payload(release)))
        if not settlement["lines"] and result.scores is not None and any(result.scores):
            # A score channel: no coins move; its points (积分) are kept per account instead.
            points = {"hand_id": hand_record.hand_id, "table_id": record.table_id, "game": record.game,
                      "scores": dict(zip(accounts, result.scores)), "ended_ms": settlement["ended_ms"]}
            if kept is not None:
                points["record"] = kept
            outbox.append((SCORE_PREFIX + hand_record.hand_id, _payload(points)))
        return outbox, events

    # --- deadlines ----------------------------------------------------------------------------

    def expire(self, table_id: str, name: str, stamp: int) -> Outcome | None:
        """A deadline fell due: the move it stands for, or None when its state has moved on."""
        if name.startswith(STARTING_PREFIX):
            return self._recover_start(table_id, name, stamp)

        def change(version: int, record: TableRecord) -> Outcome | None:
            if name == TURN_DEADLINE:
                return self._turn_timeout(table_id, version, record, stamp)
            if name == START_DEADLINE:
                return self._delayed_start(table_id, version, record, stamp)
            if name == SYSTEM_DEADLINE:
                return self._system_step(table_id, version, record, stamp)
            if name == READY_KICK_DEADLINE:
                return self._ready_kick(table_id, version, record, stamp)
            if name.startswith(RECONNECT_PREFIX):
                return self._reconnect_window_closed(table_id, version, record, int(name[len(RECONNECT_PREFIX):]), stamp)
            return None

        return self._retrying(table_id, change)

    def _turn_timeout(self, table_id: str, version: int, record: TableRecord, stamp: int) -> Outcome | None:
        if record.hand is None or record.turn_stamp != stamp:
            return None
        hand = record.spec.load_hand(record.hand.blob)
        if hand.to_act is None:
            return None
        before = hand.turn_number
        table_seat = record.hand.seats[hand.to_act]
        taken = record.seats[table_seat]
        events = hand.timeout()
        limit = record.spec.strikes_to_escape
        if taken is not None and limit is not None:
            taken.strikes += 1
            events.append(Event("strike", {"seat": hand_seat_of(record, table_seat), "strikes": taken.strikes}))
            if taken.strikes >= limit and hand.result is None:
                # The last strike of a run is an escape, settled by the game's own rules.
                taken.leaving = True
                events += [Event("escaped", {"seat": hand_seat_of(record, table_seat)}), *self._leave(hand, table_seat, record)]
        return self._after_move(table_id, version, record, hand, events, turn_changed=hand.turn_number != before)

    @staticmethod
    def _leave(hand: HandState, table_seat: int, record: TableRecord) -> list[Event]:
        try:
            return hand.leave(record.hand.hand_seat(table_seat))  # type: ignore[union-attr]
        except IllegalAction:
            return []  # already out of the hand (folded, lost): only the seat is given up

    def _recover_start(self, table_id: str, mark: str, stamp: int) -> Outcome | None:
        """A start's mark fell due: unless its hand is in play, the table moves on (so the start,
        if it is only slow, can no longer commit), the hand's holds go back, and the table deals
        again if its players are ready."""
        hand_part, _, dealt = mark[len(STARTING_PREFIX):].partition(":")
        hand_id = f"{table_id}-{hand_part}"

        def fence(version: int, record: TableRecord) -> Outcome | None:
            if record.hand is not None and record.hand.hand_id == hand_id:
                return None  # it committed (its commit would have cleared the mark: a late firing)
            # Whoever the start dealt in had pressed start, the last of them in the press that died
            # with it: they are ready still, so the table deals again without asking them twice.
            events = []
            for account in filter(None, dealt.split(",")):
                seat = record.seat_of(account)
                if record.hand is None and seat is not None and not record.seats[seat].ready:  # type: ignore[union-attr]
                    record.ready(account)
                    events.append(Event("ready", {"seat": seat}))
            plan = DeadlinePlan()
            plan.drop(mark)
            if events:
                self._seating_changed(table_id, record, plan)
            return self._commit(table_id, version, record, events, plan)

        outcome = self._retrying(table_id, fence)
        if outcome is None:
            return None
        self.wallet.release(hand_id)
        log.warning("table %s: hand %s was held but never dealt (its starter stopped); its holds are released",
                    table_id, hand_id)
        try:
            return self.start_if_ready(table_id) or outcome
        except IllegalAction as refusal:  # e.g. a player now short: the table waits as after any failed start
            log.info("table %s: the start after a crashed one was refused: %s", table_id, refusal.reason)
            return outcome

    def _delayed_start(self, table_id: str, version: int, record: TableRecord, stamp: int) -> Outcome | None:
        if record.seating_stamp != stamp or not record.can_start():
            return None
        if self._settling(table_id, before_a_start=True):
            plan = DeadlinePlan()
            plan.put(START_DEADLINE, self.clock_ms() + START_RETRY_MS, stamp)
            return self._commit(table_id, version, record, [], plan)
        return self._start_hand(table_id, version, record, [])

    def _ready_kick(self, table_id: str, version: int, record: TableRecord, stamp: int) -> Outcome | None:
        seat = record.ready_kick_candidate()
        if record.seating_stamp != stamp or seat is None:
            return None
        account = record.seats[seat].account  # type: ignore[union-attr]
        record.stand(account)
        plan = DeadlinePlan()
        plan.drop(reconnect_deadline(seat))
        self._seating_changed(table_id, record, plan)
        return self._commit(table_id, version, record, [Event("stood", {"seat": seat, "account": account, "reason": "not_ready"})], plan)

    # --- presence -----------------------------------------------------------------------------

    def disconnect(self, table_id: str, account: str, since_ms: int) -> Outcome | None:
        """The player's last connection closed at ``since_ms``: the seat is held for the
        reconnect window; if the player is not back by then, they escape."""

        def change(version: int, record: TableRecord) -> Outcome | None:
            seat = record.seat_of(account)
            taken = None if seat is None else record.seats[seat]
            if taken is None or not taken.connected:
                return None
            taken.connected = False
            taken.away_stamp = record.next_stamp()
            reconnect_by = since_ms + self.timers.reconnect_ms
            plan = DeadlinePlan()
            plan.put(reconnect_deadline(seat), reconnect_by, taken.away_stamp)  # type: ignore[arg-type]
            self._suspend_turn(table_id, record, seat, plan)  # type: ignore[arg-type]
            if record.hand is None:
                # An away player is not dealt in: the start they pressed is withdrawn, and the
                # ready rules (the kick) apply to them as to anyone who has not pressed it.
                taken.ready = False
                self._seating_changed(table_id, record, plan)
            event = Event("disconnected", {"seat": seat, "reconnect_by_ms": reconnect_by})
            return self._commit(table_id, version, record, [event], plan)

        return self._retrying(table_id, change)

    def reconnect(self, table_id: str, account: str) -> Outcome | None:
        """The player is back within the window: the seat plays on (None if it never left)."""

        def change(version: int, record: TableRecord) -> Outcome | None:
            seat = record.seat_of(account)
            taken = None if seat is None else record.seats[seat]
            if taken is None or taken.connected:
                return None
            taken.connected = True
            taken.away_stamp = None
            plan = DeadlinePlan()
            plan.drop(reconnect_deadline(seat))  # type: ignore[arg-type]
            if taken.turn_left_ms is not None and record.hand is not None:
                plan.put(TURN_DEADLINE, self.clock_ms() + taken.turn_left_ms, record.turn_stamp)
            taken.turn_left_ms = None
            if record.hand is None:
                self._seating_changed(table_id, record, plan)  # back: the start may go ahead
            return self._commit(table_id, version, record, [Event("reconnected", {"seat": seat})], plan)

        return self._retrying(table_id, change)

    def _suspend_turn(self, table_id: str, record: TableRecord, seat: int, plan: DeadlinePlan) -> None:
        """Games that wait for a disconnected player stop its turn timer, keeping the time left."""
        if not record.spec.waits_for_disconnected or record.hand is None:
            return
        hand = record.spec.load_hand(record.hand.blob)
        if hand.to_act is None or record.hand.seats[hand.to_act] != seat:
            return
        running = self.deadline(table_id, TURN_DEADLINE)
        left = self._turn_ms(record) if running is None else max(0, running.due_ms - self.clock_ms())
        record.seats[seat].turn_left_ms = left  # type: ignore[union-attr]
        plan.drop(TURN_DEADLINE)

    def _reconnect_window_closed(
        self, table_id: str, version: int, record: TableRecord, seat: int, stamp: int
    ) -> Outcome | None:
        taken: SeatRecord | None = record.seats[seat] if 0 <= seat < len(record.seats) else None
        if taken is None or taken.connected or taken.away_stamp != stamp:
            return None
        hand_seat = None if record.hand is None else record.hand.hand_seat(seat)
        if hand_seat is None:
            record.seats[seat] = None
            plan = DeadlinePlan()
            self._seating_changed(table_id, record, plan)
            return self._commit(table_id, version, record, [Event("stood", {"seat": seat, "account": taken.account, "reason": "escaped"})], plan)
        if taken.leaving:
            return None  # already escaped from this hand: the seat goes when it ends
        return self._escape(table_id, version, record, seat)  # not back in time during a hand

    def _escape(self, table_id: str, version: int, record: TableRecord, seat: int) -> Outcome:
        """The player at ``seat`` escapes the hand in play, settled by the game's own rules; the
        seat is given up when the hand ends."""
        taken = record.seats[seat]
        assert taken is not None and record.hand is not None
        require(not taken.leaving, "you have already left this hand: your seat is given up when it ends", "already_left")
        taken.leaving = True
        hand = record.spec.load_hand(record.hand.blob)
        before = hand.turn_number
        left = self._leave(hand, seat, record)
        escaped = Event("escaped", {"seat": record.hand.hand_seat(seat)})
        events = left if any(e.type == "escaped" for e in left) else [escaped, *left]
        return self._after_move(table_id, version, record, hand, events, turn_changed=hand.turn_number != before)

__all__ = [
    "READY_KICK_DEADLINE",
    "RECONNECT_PREFIX",
    "RELEASE_PREFIX",
    "SETTLEMENT_PREFIX",
    "START_DEADLINE",
    "SYSTEM_DEADLINE",
    "TURN_DEADLINE",
    "IllegalAction",
    "NotSeated",
    "Outcome",
    "TableNotFound",
    "Tables",
    "Timers",
    "WalletPort",
]

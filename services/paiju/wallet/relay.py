"""The settlement outbox relay: table outbox -> ledger (and leaderboard) -> acknowledgement.

A table service that ends a hand writes, in the same compare-and-set as the hand's last state,
an outbox entry ``settle:<hand_id>`` whose payload is JSON::

    {"hand_id": "t1-7-ab12cd34", "table_id": "t1", "game": "zhajinhua",
     "lines": [["12", -300, "stake"], ["13", 600, "pot"], ["13", -6, "fee"], ...], "fee": 6}

Account ids are the wallet's integer ids as text. ``fee`` goes to the house; the players' lines
already carry the winner's negative ``fee`` line, so lines and the house's fee add up to zero.

:func:`relay_outbox` takes the pending entries, applies each through a :class:`Settler`
(:meth:`Wallet.settle` is exactly-once, so a repeat changes nothing) and acknowledges an entry
only after its settlement is applied. It needs no Celery: the all-in-one server runs it in a
thread (:class:`RelayLoop`); a Celery beat runs the same function in a worker
(:mod:`paiju.wallet.tasks`).

>>> order = SettlementOrder.from_json(
...     '{"hand_id": "h1", "table_id": "t1", "game": "zhajinhua", "fee": 5,'
...     ' "lines": [["1", -100, "stake"], ["2", 105, "pot"], ["2", -5, "fee"]]}')
>>> [(line.account, line.amount, line.reason.value, line.detail)
...  for line in order.ledger_lines(house=9)]  # doctest: +NORMALIZE_WHITESPACE
[(1, -100, 'stake', ''), (2, 105, 'pot', ''), (2, -5, 'stake', 'fee'), (9, 5, 'fee', '')]
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Collection, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from redis.cluster import RedisCluster

from paiju.common.metrics import METRICS
from paiju.table.outbox_contract import RELEASE_PREFIX, SCORE_PREFIX, SETTLEMENT_PREFIX
from paiju.wallet.coins_board import AvailableCoinsBoard
from paiju.wallet.errors import HandAlreadySettled, WalletError
from paiju.wallet.leaderboard import Leaderboard
from paiju.wallet.model import Line, Reason, Settlement
from paiju.wallet.store import Wallet

DEFAULT_BATCH = 100
DEFAULT_INTERVAL_SECONDS = 5.0

log = logging.getLogger(__name__)


class MalformedSettlement(ValueError):
    """An outbox payload that is not a settlement this relay can read; the message says why."""


@dataclass(frozen=True, slots=True)
class SettlementOrder:
    """A hand's settlement as the table service queued it (the outbox payload, parsed)."""

    hand_id: str
    table_id: str
    game: str
    lines: tuple[tuple[int, int, str], ...]
    """``(account, amount, reason)`` as the rules wrote them, the winner's fee line included."""
    fee: int
    ended_ms: int | None = None
    """When the hand ended (epoch ms), for the settlement-lag metric; absent in old payloads."""
    record: dict[str, Any] | None = field(default=None, compare=False)
    """The hand as it ended, for its players' hand history (``tier``, ``accounts``, ``names``,
    ``start``: what it started from and its move log); absent in old payloads."""

    @property
    def outbox_key(self) -> str:
        """The key of this settlement in its table's outbox."""
        return SETTLEMENT_PREFIX + self.hand_id

    @classmethod
    def from_json(cls, payload: bytes | str) -> SettlementOrder:
        """Parse an outbox payload; :class:`MalformedSettlement` says what is wrong with it."""
        try:
            document = json.loads(payload)
        except (ValueError, UnicodeDecodeError) as error:
            raise MalformedSettlement(f"a settlement payload is JSON: {error}") from None
        if not isinstance(document, dict):
            raise MalformedSettlement("a settlement payload is a JSON object")
        hand_id = _text_field(document, "hand_id")
        table_id = _text_field(document, "table_id")
        game = _text_field(document, "game")
        fee = document.get("fee", 0)
        if not _is_int(fee) or fee < 0:
            raise MalformedSettlement(f"the fee is a whole number of zero or more, got {fee!r}")
        raw_lines = document.get("lines")
        if not isinstance(raw_lines, list) or not raw_lines:
            raise MalformedSettlement("a settlement has a non-empty list of lines")
        lines = tuple(_line(raw, number) for number, raw in enumerate(raw_lines, start=1))
        ended = document.get("ended_ms")
        record = document.get("record")
        return cls(hand_id, table_id, game, lines, fee, ended if _is_int(ended) else None,
                   record if isinstance(record, dict) else None)

    def ledger_lines(self, house: int) -> list[Line]:
        """The lines to give :meth:`Wallet.settle`: the players' lines, then the house's fee.

        The ledger books fees only as the house's income; what a player pays as a fee is booked
        as a stake with the detail ``fee``, so the player's history still names it.
        """
        lines: list[Line] = []
        for account, amount, reason in self.lines:
            if reason == Reason.FEE.value and account != house:
                if amount > 0:
                    raise MalformedSettlement(
                        f"account {account} is paid a fee of {amount}: only the house receives fees"
                    )
                lines.append(Line(account, amount, Reason.STAKE, Reason.FEE.value))
            else:
                lines.append(Line(account, amount, _reason(reason)))
        if self.fee:
            lines.append(Line(house, self.fee, Reason.FEE))
        return lines


def _text_field(document: dict[str, Any], name: str) -> str:
    value = document.get(name)
    if not isinstance(value, str) or not value:
        raise MalformedSettlement(f"a settlement names its {name} as non-empty text, got {value!r}")
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _line(raw: object, number: int) -> tuple[int, int, str]:
    if not isinstance(raw, list) or len(raw) != 3:
        raise MalformedSettlement(f"line {number} is [account, amount, reason], got {raw!r}")
    account, amount, reason = raw
    if isinstance(account, str) and account.isascii() and account.isdigit():
        account = int(account)
    if not _is_int(account):
        raise MalformedSettlement(f"the account of line {number} is a wallet id, got {raw[0]!r}")
    if not _is_int(amount):
        raise MalformedSettlement(f"the amount of line {number} is a whole number, got {amount!r}")
    if not isinstance(reason, str):
        raise MalformedSettlement(f"the reason of line {number} is text, got {reason!r}")
    return account, amount, reason


def _reason(reason: str) -> Reason:
    try:
        return Reason(reason)
    except ValueError:
        raise MalformedSettlement(f"{reason!r} is not a ledger reason") from None




@dataclass(frozen=True, slots=True)
class ScoreOrder:
    """A score-channel hand's points (积分) as the table queued them: ``{account: points}``."""

    hand_id: str
    game: str
    points: dict[int, int]
    table_id: str = ""
    ended_ms: int | None = None
    record: dict[str, Any] | None = field(default=None, compare=False)
    """The hand for its players' history, as a settlement carries it; absent in old payloads."""

    lines: tuple[tuple[int, int, str], ...] = ()
    """No coins move in a score-channel hand (its history shows a net of 0 coins)."""

    @classmethod
    def from_json(cls, payload: bytes | str) -> ScoreOrder:
        try:
            document = json.loads(payload)
            points = {int(account): int(value) for account, value in document["scores"].items()}
            ended, record = document.get("ended_ms"), document.get("record")
            return cls(str(document["hand_id"]), str(document["game"]), points, str(document.get("table_id", "")),
                       ended if _is_int(ended) else None, record if isinstance(record, dict) else None)
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise MalformedSettlement(f"a score payload names hand_id, game and scores: {error}") from None




@dataclass(frozen=True, slots=True)
class ReleaseOrder:
    """A hand that ended without a settlement (炒地皮: void before the first card): its holds
    go back as they were. The table queues it in the same commit that ends the hand."""

    hand_id: str
    table_id: str

    @classmethod
    def from_json(cls, payload: bytes | str) -> ReleaseOrder:
        try:
            document = json.loads(payload)
            return cls(_text_field(document, "hand_id"), _text_field(document, "table_id"))
        except (ValueError, UnicodeDecodeError, TypeError, AttributeError) as error:
            raise MalformedSettlement(f"a release payload names hand_id and table_id: {error}") from None


class Settler:
    """Applies settlement orders to the ledger and counts them on the leaderboard.

    With ``board`` (the tables' board of available coins) on the leaderboard's Redis, what the
    ledger tells the board of a settlement and the hand's count on the leaderboard go in one
    round trip: they were two for every hand.
    """

    def __init__(self, wallet: Wallet, leaderboard: Leaderboard | None = None,
                 board: AvailableCoinsBoard | None = None) -> None:
        self.wallet = wallet
        self.leaderboard = leaderboard
        self.board = board

    def __call__(self, order: SettlementOrder) -> Settlement:
        """Apply ``order`` once (a repeat returns the applied settlement, ``replayed=True``).

        The leaderboard counts each hand once too, so a delivery that crashed between the
        ledger and the board is completed by the next one.
        """
        return self._settle([order])[0][0]

    def settle_many(self, orders: list[SettlementOrder]) -> list[Settlement]:
        """Apply ``orders`` in one ledger transaction, all or none (see
        :meth:`Wallet.settle_many`); each is then counted as :meth:`__call__` counts one."""
        return self._settle(orders)[0]

    def settle_and_acknowledge(self, orders: list[SettlementOrder], outbox: Outbox,
                               entries: list[tuple[str, str]]) -> tuple[list[Settlement], list[bool]]:
        """:meth:`settle_many`, then acknowledge ``entries`` (``(table_id, key)``) on ``outbox``:
        each True if it was pending. On an outbox that takes acknowledgements in pipelines,
        on the board's Redis, they go in the round trip that tells the board and the leaderboard,
        after them (a table's next start, which the acknowledgement's notice sets off, reads the
        board)."""
        return self._settle(orders, outbox, entries)

    def _settle(self, orders: list[SettlementOrder], outbox: Outbox | None = None,
                entries: Sequence[tuple[str, str]] = ()) -> tuple[list[Settlement], list[bool]]:
        house = self.wallet.house
        lines = [order.ledger_lines(house) for order in orders]
        client = self._one_round_trip_client(outbox if entries else None)
        with self.wallet.announcements_held() if client is not None else nullcontext({}) as coins:
            settlements = self.wallet.settle_many(
                (order.hand_id, order.game, hand_lines) for order, hand_lines in zip(orders, lines)
            )
        for order, hand_lines, settlement in zip(orders, lines, settlements, strict=True):
            self._count(order, settlement, len(hand_lines))
        # Before the acknowledgement, which sets off the next hand's start: its holds lock these
        # players' accounts, and the records' writes then stay out of their way.
        self._keep_records(orders)
        if client is None:
            if self.leaderboard is not None:
                for settlement in settlements:
                    self.leaderboard.record(settlement, house)
            return settlements, [outbox.outbox_ack(table_id, key) for table_id, key in entries]  # type: ignore[union-attr]
        return settlements, self._tell_in_one_round_trip(client, coins, settlements, outbox, entries)

    def _one_round_trip_client(self, outbox: Outbox | None) -> Any | None:
        """The Redis client that takes a settlement's writes in one round trip, or None: the
        board's, when the wallet tells this board, the leaderboard is on the same Redis, and so
        is ``outbox`` (when there are acknowledgements) and it takes them in pipelines. Not on a
        Redis Cluster: its pipelines go to each node apart anyway, and redis-py before 8.2 refuses
        a script in one (the leaderboard's count and the acknowledgement are scripts)."""
        board, leaderboard = self.board, self.leaderboard
        if (board is None or leaderboard is None or self.wallet.on_available != board.publish
                or leaderboard.client is not board.client or isinstance(board.client, RedisCluster)):
            return None
        if outbox is not None and not (isinstance(outbox, AcknowledgesInPipelines) and outbox.client is board.client):
            return None
        return board.client

    def _tell_in_one_round_trip(self, client: Any, coins: dict[int, int], settlements: list[Settlement],
                                outbox: Outbox | None, entries: Sequence[tuple[str, str]]) -> list[bool]:
        """The board's coins (held back from the ledger's writes), the leaderboard's counts,
        then the acknowledgements: what each acknowledgement answered."""
        assert self.board is not None and self.leaderboard is not None
        pipe = client.pipeline(transaction=False)
        self.board.queue(pipe, coins)
        counts = [self.leaderboard.queue_record(pipe, settlement, self.wallet.house) for settlement in settlements]
        acknowledgements = [outbox.queue_ack(pipe, table_id, key) for table_id, key in entries]  # type: ignore[union-attr]
        replies = pipe.execute(raise_on_error=False)
        written = len(replies) - len(counts) - len(acknowledgements)
        if any(isinstance(reply, Exception) for reply in replies[:written]):
            # A hint only: a table that finds no entry, or an old one, asks the ledger.
            log.warning("could not tell the board the available coins of %d account(s)", len(coins))
        for counted, reply in zip(counts, replies[written:written + len(counts)], strict=True):
            try:
                counted(reply)
            except Exception:  # its acknowledgement went with it: a rebuild reads the hand from the ledger
                log.exception("the leaderboard did not count a settled hand")
        return [acknowledged(reply) for acknowledged, reply
                in zip(acknowledgements, replies[written + len(counts):], strict=True)]

    def _keep_records(self, orders: Sequence[SettlementOrder | ScoreOrder]) -> None:
        """The hands' records, for their players' history; a failure here is logged, never
        holds up a settlement (the coins are what must not wait)."""
        records = [order for order in orders if order.record is not None]
        if not records:
            return
        try:
            self.wallet.keep_hand_records(records)
        except Exception:  # the history is second to the settlement
            log.warning("could not keep the records of %d hand(s)", len(records), exc_info=True)

    def _count(self, order: SettlementOrder, settlement: Settlement, lines: int) -> None:
        if not settlement.replayed:
            METRICS.ledger_entries_written("settlement", lines)
            if order.ended_ms is not None:
                METRICS.observe_settlement_lag(max(0.0, time.time() - order.ended_ms / 1000))

    def record_scores(self, order: ScoreOrder) -> bool:
        """Record a score-channel hand's points once (a repeat changes nothing), and keep the
        hand for its players' history as a settled hand is kept."""
        recorded = self.wallet.record_scores(order.hand_id, order.game, order.points)
        self._keep_records([order])
        return recorded

    def release(self, order: ReleaseOrder) -> int:
        """Release the holds of a hand that ended without a settlement; the coins released (0
        when a delivery before this one released them)."""
        return self.wallet.release(order.hand_id)


class Outbox(Protocol):
    """What the relay needs of :class:`paiju.table.store.TableStore`."""

    def outbox_pending(self, limit: int = 100, table_ids: Collection[str] | None = None) -> list[Any]: ...

    def outbox_ack(self, table_id: str, key: str) -> bool: ...


@runtime_checkable
class AcknowledgesInPipelines(Protocol):
    """An outbox whose acknowledgements go in a pipeline with other writes
    (:class:`paiju.table.store.TableStore`)."""

    client: Any

    def outbox_pending(self, limit: int = 100, table_ids: Collection[str] | None = None) -> list[Any]: ...

    def outbox_ack(self, table_id: str, key: str) -> bool: ...

    def queue_ack(self, pipe: Any, table_id: str, key: str) -> Callable[[Any], bool]: ...


PERMANENT_ERRORS: tuple[type[Exception], ...] = (WalletError, ValueError, TypeError)
"""Refusals that repeating will not cure; the entry stays in the outbox for an operator."""
@dataclass(slots=True)
class RelayReport:
    """What one pass of :func:`relay_outbox` did."""

    applied: int = 0
    """Settlements applied now."""
    replayed: int = 0
    """Settlements that had been applied before (acknowledged now)."""
    released: int = 0
    """Hands that ended without a settlement whose holds were released now (or before)."""
    skipped: int = 0
    """Entries that are not settlements (left for their own consumer)."""
    refused: list[tuple[str, str, str]] = field(default_factory=list)
    """``(table_id, key, reason)`` of entries refused for good; they stay pending."""
    settled_tables: list[str] = field(default_factory=list)
    """The tables whose settlements or releases this pass acknowledged first (their next hand
    may start now)."""


@runtime_checkable
class SettlesInBatches(Protocol):
    """A settle function that can also apply many orders in one transaction (:class:`Settler`)."""

    def __call__(self, order: SettlementOrder) -> Settlement: ...

    def settle_many(self, orders: list[SettlementOrder]) -> list[Settlement]: ...

    def settle_and_acknowledge(self, orders: list[SettlementOrder], outbox: Outbox,
                               entries: list[tuple[str, str]]) -> tuple[list[Settlement], list[bool]]: ...


def relay_outbox(
    outbox: Outbox,
    settle: Callable[[SettlementOrder], Settlement],
    limit: int = DEFAULT_BATCH,
    record_scores: Callable[[ScoreOrder], bool] | None = None,
    release: Callable[[ReleaseOrder], int] | None = None,
    table_ids: Collection[str] | None = None,
) -> RelayReport:
    """Apply up to ``limit`` pending settlements and acknowledge each one after it is applied;
    with ``release``, release the holds of hands that ended without one the same way.

    When ``settle`` can settle in batches (a :class:`Settler`), the pass's settlements are
    applied in one ledger transaction and acknowledged once it has committed; if the batch is
    refused, they are settled one by one, so that one bad entry holds up none of the others.
    A refused entry (malformed, unbalanced, conflicting…) is logged, reported and left pending.
    A database failure ends the pass with its exception; what was applied before it is
    acknowledged, the rest is tried again next time. With ``table_ids``, the pass looks only at
    those tables' outboxes (a pass woken by the notices of the commits that queued them).
    """
    report = RelayReport()
    if table_ids is None:
        pending = outbox.outbox_pending(limit)
        METRICS.set_outbox_depth(len(pending))
    else:
        pending = outbox.outbox_pending(limit, table_ids)
    orders: list[tuple[Any, SettlementOrder]] = []
    for entry in pending:
        if entry.key.startswith(SCORE_PREFIX) and record_scores is not None:
            try:
                record_scores(ScoreOrder.from_json(entry.payload))
            except PERMANENT_ERRORS as error:
                _refuse(report, "scores", entry, error)
                continue
            outbox.outbox_ack(entry.table_id, entry.key)
            continue
        if entry.key.startswith(RELEASE_PREFIX) and release is not None:
            _release(outbox, report, entry, release)
            continue
        if not entry.key.startswith(SETTLEMENT_PREFIX):
            report.skipped += 1
            continue
        try:
            orders.append((entry, _settlement_order(entry)))
        except PERMANENT_ERRORS as error:
            _refuse(report, "settlement", entry, error)
    if orders and isinstance(settle, SettlesInBatches):
        try:
            settlements, acknowledged = settle.settle_and_acknowledge(
                [order for _entry, order in orders], outbox, [(entry.table_id, entry.key) for entry, _order in orders])
        except PERMANENT_ERRORS as error:
            if len(orders) > 1:
                log.warning("a batch of %d settlements was refused (%s); settling them one by one",
                            len(orders), error)
            else:
                _refuse(report, "settlement", orders[0][0], error)
                return report
        else:
            for (entry, _order), settlement, first in zip(orders, settlements, acknowledged, strict=True):
                _counted_acknowledgement(report, entry, settlement, first)
            return report
    for entry, order in orders:
        try:
            settlement = settle(order)
        except PERMANENT_ERRORS as error:
            _refuse(report, "settlement", entry, error)
            continue
        _acknowledge(outbox, report, entry, settlement)
    return report


def _settlement_order(entry: Any) -> SettlementOrder:
    """The settlement an outbox entry carries, checked against the entry's place."""
    order = SettlementOrder.from_json(entry.payload)
    if (order.table_id, order.outbox_key) != (entry.table_id, entry.key):
        raise MalformedSettlement(
            f"the payload is hand {order.hand_id!r} of table {order.table_id!r}, "
            f"not what its place in the outbox says"
        )
    return order


def _release(outbox: Outbox, report: RelayReport, entry: Any, release: Callable[[ReleaseOrder], int]) -> None:
    """Release a hand's holds, then acknowledge the entry (releasing twice changes nothing)."""
    try:
        order = ReleaseOrder.from_json(entry.payload)
        if RELEASE_PREFIX + order.hand_id != entry.key or order.table_id != entry.table_id:
            raise MalformedSettlement(f"the payload is hand {order.hand_id!r}, not what its place says")
        release(order)
    except HandAlreadySettled:
        pass  # settled after all: the settlement took the holds
    except PERMANENT_ERRORS as error:
        _refuse(report, "release", entry, error)
        return
    report.released += 1
    if outbox.outbox_ack(entry.table_id, entry.key):
        report.settled_tables.append(entry.table_id)


def _refuse(report: RelayReport, kind: str, entry: Any, error: Exception) -> None:
    log.error("%s %s of table %s refused: %s", kind, entry.key, entry.table_id, error)
    report.refused.append((entry.table_id, entry.key, str(error)))


def _acknowledge(outbox: Outbox, report: RelayReport, entry: Any, settlement: Settlement) -> None:
    """Acknowledge an entry whose settlement the ledger has committed."""
    _counted_acknowledgement(report, entry, settlement, outbox.outbox_ack(entry.table_id, entry.key))


def _counted_acknowledgement(report: RelayReport, entry: Any, settlement: Settlement, first: bool) -> None:
    """Only the relay whose acknowledgement took an entry off the outbox (``first``) reports its
    table as settled: relays of several processes woken by one hand's end all deliver it, and
    each starting the next hand made them race (each but one dealing and holding for nothing)."""
    if first:
        report.settled_tables.append(entry.table_id)
    if settlement.replayed:
        report.replayed += 1
    else:
        report.applied += 1


class RelayLoop:
    """Runs :func:`relay_outbox` every ``interval`` seconds on a daemon thread until stopped.

    Failures of one pass are logged and the next pass tries again.

    >>> passes = []
    >>> loop = RelayLoop(lambda: passes.append(1) or RelayReport(), interval=0.01).start()
    >>> loop.stop(); len(passes) >= 1
    True
    """

    def __init__(self, relay_once: Callable[[], RelayReport], *, interval: float) -> None:
        if interval <= 0:
            raise ValueError(f"a relay interval is above zero seconds, got {interval}")
        self.relay_once = relay_once
        self.interval = interval
        self.passes = 0
        self.last_report: RelayReport | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name="paiju-settlement-relay", daemon=True
        )

    @classmethod
    def over(
        cls,
        outbox: Outbox,
        settler: Settler,
        *,
        interval: float = DEFAULT_INTERVAL_SECONDS,
        limit: int = DEFAULT_BATCH,
    ) -> RelayLoop:
        """A loop relaying ``outbox`` through ``settler`` (not started)."""
        return cls(lambda: relay_outbox(outbox, settler, limit, release=settler.release), interval=interval)

    def start(self) -> RelayLoop:
        """Start the thread; returns the loop."""
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the thread to stop after its current pass and wait for it."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            try:
                self.last_report = self.relay_once()
            except Exception:  # a pass must never kill the loop: money is still owed
                log.exception("settlement relay pass failed; trying again in %.1f s", self.interval)
            self.passes += 1
            if self._stop.wait(self.interval):
                return

"""What an operator can read and do, over the ledger and the tables' store: the domain the Admin
servicer is a thin layer over. Each action (not the reads) is written to the audit log with its
outcome, done or refused; a refusal is raised again after it is written."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar

from paiju.admin.audit import AuditEntry, AuditLog
from paiju.admin.suspensions import Suspensions
from paiju.table.ending import TableEnded
from paiju.table.outbox_contract import RELEASE_PREFIX, SCORE_PREFIX, SETTLEMENT_PREFIX
from paiju.table.store import TableStore
from paiju.wallet.adjustments import adjust_coins
from paiju.wallet.errors import UnknownAccount
from paiju.wallet.hand_export import export_hand
from paiju.wallet.relay import Settler, relay_outbox
from paiju.wallet.store import Wallet

T = TypeVar("T")

OUTBOX_KINDS = {SETTLEMENT_PREFIX: "settlement", RELEASE_PREFIX: "release", SCORE_PREFIX: "scores"}
"""What each outbox entry asks of the ledger, by its key's prefix."""
REQUEST_ID_CHARS = 64


class NotPending(LookupError):
    """No such entry waits in the outbox (never queued, or already applied or voided)."""

    def __init__(self, table_id: str, key: str) -> None:
        super().__init__(f"no pending outbox entry {key!r} at table {table_id!r}: applied, voided, or never queued")


class EntryRefused(RuntimeError):
    """The ledger refused an outbox entry retried by hand; it stays pending."""


@dataclass(frozen=True, slots=True)
class PlayerFound:
    """A player's account as an operator sees it."""

    account: int
    username: str
    balance: int
    held: int
    suspension_reason: str | None
    table_id: str | None


@dataclass(frozen=True, slots=True)
class Adjusted:
    """An adjustment as the ledger wrote it."""

    entry_id: int
    balance_after: int
    house_balance_after: int


@dataclass(frozen=True, slots=True)
class PendingEntry:
    """One pending outbox entry, with what it asks and which hand it is about."""

    table_id: str
    key: str
    kind: str
    hand_id: str
    payload: str


@dataclass(frozen=True, slots=True)
class OutboxOutcome:
    """What retrying or voiding an entry did."""

    outcome: str
    released: int = 0


class Operations:
    """The operator's reads and actions. ``table_of`` says which table an account sits at;
    ``settled`` is told each table whose entry an action acknowledged (its next hand may start);
    ``end_table`` ends a stuck table (:meth:`paiju.table.ending.TableEnding.end_table`)."""

    def __init__(self, wallet: Wallet, store: TableStore, suspensions: Suspensions, settler: Settler,
                 table_of: Callable[[str], str | None], settled: Callable[[str], None] = lambda _table: None, *,
                 end_table: Callable[[str, str], TableEnded]) -> None:
        self.wallet = wallet
        self.store = store
        self.suspensions = suspensions
        self.settler = settler
        self.table_of = table_of
        self.settled = settled
        self._end_table = end_table
        self.audit = AuditLog(wallet.database)

    # -- reads -----------------------------------------------------------------------------

    def find_player(self, *, username: str = "", account: int | None = None) -> PlayerFound:
        """The account called ``username``, or the account ``account``."""
        if account is None:
            account = self.wallet.account_id(username)
            if account is None:
                raise UnknownAccount(username)
        name = self.wallet.username(account)
        coins = self.wallet.coins_many([account])[account]
        return PlayerFound(account, name, coins.total, coins.held, self.suspensions.reason(account),
                           self.table_of(str(account)))

    def outbox(self, limit: int) -> list[PendingEntry]:
        """Pending outbox entries of every table, at most ``limit``."""
        return [_pending(entry) for entry in self.store.outbox_pending(limit)]

    def hand_record(self, hand_id: str) -> dict[str, Any] | None:
        """One kept hand's whole record (:func:`~paiju.wallet.hand_export.export_hand`)."""
        return export_hand(self.wallet, hand_id)

    def audit_log(self, limit: int, before_id: int | None = None) -> list[AuditEntry]:
        return self.audit.newest(limit, before_id)

    # -- actions ---------------------------------------------------------------------------

    def suspend(self, operator: str, account: int, reason: str) -> PlayerFound:
        """Suspend ``account``: no login, no seat."""
        def act() -> tuple[PlayerFound, str]:
            if account == self.wallet.house:
                raise ValueError("the house is not a player: it cannot be suspended")
            self.wallet.username(account)  # an unknown account is refused here
            fresh = self.suspensions.suspend(account, reason, operator, self.wallet.clock())
            return self.find_player(account=account), "suspended" if fresh else "was suspended already"

        return self._audited(operator, "suspend", str(account), reason, act)

    def restore(self, operator: str, account: int, reason: str) -> PlayerFound:
        """Lift ``account``'s suspension."""
        def act() -> tuple[PlayerFound, str]:
            self.wallet.username(account)
            lifted = self.suspensions.restore(account)
            return self.find_player(account=account), "restored" if lifted else "was not suspended"

        return self._audited(operator, "restore", str(account), reason, act)

    def adjust(self, operator: str, account: int, amount: int, reason: str, request_id: str) -> Adjusted:
        """Give (or, negative, take) ``amount`` coins against the house, once per ``request_id``."""
        def act() -> tuple[Adjusted, str]:
            if not request_id or len(request_id) > REQUEST_ID_CHARS:
                raise ValueError(f"an adjustment names itself with a request id of 1 to {REQUEST_ID_CHARS} characters")
            entry = adjust_coins(self.wallet, account, amount, f"admin-adjust:{request_id}", reason)
            house = self.wallet.balance(self.wallet.house)
            done = f"{amount:+d} coins (entry {entry.id}, balance {entry.balance_after}, house {house})"
            return Adjusted(entry.id, entry.balance_after, house), done

        return self._audited(operator, "adjust", str(account), reason, act)

    def retry(self, operator: str, table_id: str, key: str, reason: str) -> OutboxOutcome:
        """Apply one pending entry now, as the relay does (exactly once), and acknowledge it."""
        def act() -> tuple[OutboxOutcome, str]:
            entry = self._pending_entry(table_id, key)
            settler = self.settler
            report = relay_outbox(_OneEntry(self.store, entry), settler, record_scores=settler.record_scores,
                                  release=settler.release)
            if report.refused:
                raise EntryRefused(f"the ledger refuses it: {report.refused[0][2]}")
            if report.skipped:
                raise ValueError(f"{key!r} is not an entry the relay applies")
            self._after_ack(table_id, report.settled_tables)
            done = ("applied" if report.applied else "applied before; acknowledged now" if report.replayed
                    else "released" if report.released else "recorded")
            return OutboxOutcome(done), done

        return self._audited(operator, "retry", f"{table_id} {key}", reason, act)

    def void(self, operator: str, table_id: str, key: str, reason: str) -> OutboxOutcome:
        """Acknowledge one pending entry without applying it, and release every hold of its hand:
        its players get back what it held (a settled hand is refused: the coins moved already)."""
        def act() -> tuple[OutboxOutcome, str]:
            entry = self._pending_entry(table_id, key)
            hand_id = _pending(entry).hand_id
            if not hand_id:
                raise ValueError(f"{key!r} names no hand to void")
            released = self.wallet.release(hand_id)
            acked = self.store.outbox_ack(table_id, key)
            self._after_ack(table_id, [table_id] if acked else [])
            done = f"voided hand {hand_id}: {released} held coins released"
            return OutboxOutcome(done, released), done

        return self._audited(operator, "void", f"{table_id} {key}", reason, act)

    def end_table(self, operator: str, table_id: str, reason: str) -> TableEnded:
        """End a stuck table: its hand in play voided (no settlement; every hold of it given back
        through the ledger's release, as :meth:`void` gives them back), its seats cleared, its
        deadlines dropped. Settlements of hands that ended before stay in the outbox (:meth:`retry`,
        :meth:`void`). A table with nothing to end is answered so, and left as it is."""
        def act() -> tuple[TableEnded, str]:
            ended = self._end_table(table_id, reason)
            return ended, ended.summary()

        return self._audited(operator, "end_table", table_id, reason, act)

    # -- helpers ---------------------------------------------------------------------------

    def _audited(self, operator: str, action: str, target: str, reason: str,
                 act: Callable[[], tuple[T, str]]) -> T:
        """Run ``act`` (its result, and a sentence of what it did) and write the outcome to the
        audit log, done or refused."""
        reason = reason.strip()
        if not reason:
            raise ValueError("an operator's action says why: give a reason")
        try:
            result, done = act()
        except Exception as error:
            self.audit.append(self.wallet.clock(), operator, action, target, reason, f"refused: {error}")
            raise
        self.audit.append(self.wallet.clock(), operator, action, target, reason, f"done: {done}")
        return result

    def _pending_entry(self, table_id: str, key: str) -> Any:
        entry = self.store.outbox_entry(table_id, key)
        if entry is None:
            raise NotPending(table_id, key)
        return entry

    def _after_ack(self, table_id: str, acknowledged: list[str]) -> None:
        if table_id in acknowledged:
            self.settled(table_id)


class _OneEntry:
    """The outbox as the relay sees it, holding one entry: a retry goes through the relay's own pass."""

    def __init__(self, store: TableStore, entry: Any) -> None:
        self.store = store
        self.entry = entry

    def outbox_pending(self, limit: int = 100, table_ids: Collection[str] | None = None) -> list[Any]:
        return [self.entry]

    def outbox_ack(self, table_id: str, key: str) -> bool:
        return self.store.outbox_ack(table_id, key)


def _pending(entry: Any) -> PendingEntry:
    payload = entry.payload.decode() if isinstance(entry.payload, bytes) else str(entry.payload)
    prefix = next((prefix for prefix in OUTBOX_KINDS if entry.key.startswith(prefix)), "")
    hand_id = entry.key[len(prefix):] if prefix else ""
    return PendingEntry(entry.table_id, entry.key, OUTBOX_KINDS.get(prefix, "other"), hand_id, payload)


def document_json(document: dict[str, Any]) -> str:
    """A record as JSON text, its Chinese names as they are."""
    return json.dumps(document, ensure_ascii=False, default=str)

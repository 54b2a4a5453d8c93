"""Seating and readiness at a table: sitting, standing, pressing start, the ready kick and a
start that waits for the last hand's settlement."""

from __future__ import annotations

import logging
from collections.abc import Callable

from paiju.games.engine import Event, IllegalAction
from paiju.table.commits import LedgerNeeded, Outcome, TableCommits
from paiju.table.deadline_names import (
    READY_KICK_DEADLINE,
    START_DEADLINE,
    START_RETRY_MS,
    DeadlinePlan,
    Timers,
    reconnect_deadline,
)
from paiju.table.outbox_contract import OWED_PREFIXES
from paiju.table.ports import CoinsBoard, WalletPort
from paiju.table.record import TableRecord
from paiju.table.suspended import ACCOUNT_SUSPENDED, SuspendedAccounts

log = logging.getLogger(__name__)

TABLE_PLAYING = "table_playing"
"""The word of a refusal because a hand is on (as a press of start during one is refused)."""


class TableSeating(TableCommits):
    """Who sits and who is ready; the start of a hand itself is :class:`~paiju.table.hand_life.HandLife`'s."""

    wallet: WalletPort
    coins: CoinsBoard
    suspended: SuspendedAccounts
    timers: Timers

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

    def sit(self, table_id: str, account: str, name: str, seat: int | None = None,
            between_hands: bool = False) -> Outcome:
        """Take a seat (the first free one when ``seat`` is None); never for an account an
        operator suspended. ``between_hands``: only while no hand is on (refused
        ``table_playing`` otherwise), for a caller that chose the table for being between hands
        (a quick match): seated then, the player is one the next hand waits for."""
        if self.suspended.holds(account):
            raise IllegalAction("this account is suspended: it cannot take a seat", ACCOUNT_SUSPENDED)
        coins = self.wallet.available(account)
        self.load(table_id)  # an unknown table is refused before anything is claimed
        token = self.directory.claim(account, table_id, self._seats(account), self.clock_ms())

        def change(version: int, record: TableRecord) -> Outcome:
            if between_hands and record.hand is not None:
                raise IllegalAction("a hand started at this table meanwhile", TABLE_PLAYING)
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
        hand (whose holds the ledger places). It raises it too after committing a press that
        waited for the last settlement when its commit found that settlement landed: the press
        made again (off the loop) starts the hand.

        A player who pressed before commits nothing (the answer is the table as it stands),
        unless everyone is ready: then the press starts the hand, as the last one would."""
        settling = self._settling(table_id)

        def change(version: int, record: TableRecord) -> Outcome | None:
            seat = record.seat_of(account)
            if seat is not None and record.hand is None and record.seats[seat].ready and not record.can_start():  # type: ignore[union-attr]
                return None  # pressed before, and it starts nothing: no commit, nobody to tell
            starts = record.ready(account)
            events = [Event("ready", {"seat": seat})]
            # No read to confirm a settlement known to be owed: the commit below tells whether
            # it landed meanwhile (see after it).
            if starts and not self._settling(table_id):
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
            return self._commit(table_id, version, record, events, plan, counts_outbox=starts)

        outcome = self._retrying(table_id, change)
        if outcome is None:
            snapshot, record = self._load_for_change(table_id)  # as the press above confirmed it
            return Outcome(snapshot.version, [], record)
        if self._landed_during_the_press(table_id, outcome):
            # Acknowledged by another process after this press found it owed, its notice on its
            # way: the hand starts now, not at the start timer.
            if not ask_ledger:
                raise LedgerNeeded("the press was committed; the start it allows places holds in the ledger")
            return self.start_if_ready(table_id) or outcome
        if any(event.type == "stood" and event.data["account"] == account for event in outcome.events):
            raise IllegalAction("your available coins fell below this room's minimum: you were stood up",
                                "not_enough_coins")
        return outcome

    def _landed_during_the_press(self, table_id: str, outcome: Outcome) -> bool:
        """Whether a press left everyone ready to start while a settlement was owed, and its
        commit then told (:meth:`TableStore.outbox_keys_known`, no read) that it has landed."""
        record = outcome.record
        return (record is not None and record.hand is None and record.can_start()
                and not self._settling(table_id))

    def _verify_on_the_board(self, record: TableRecord, account: str) -> None:
        """Raise :class:`LedgerNeeded` unless the board says ``account`` may play here. Only
        the ledger refuses a press: the board may be behind a grant."""
        available = self.coins.available(account)
        if available is None:
            raise LedgerNeeded("the board does not know this player's coins")
        if not record.can_afford(available):
            raise LedgerNeeded("the board says too few coins: the ledger decides")

    def remembered_ready_to_start(self, table_id: str) -> bool:
        """Whether the table as this process remembers it (no read) waits only for its last
        settlement: no hand on, everyone ready. A table this process does not remember, or whose
        players have not all pressed start, has nothing to start when its settlement lands; a
        press elsewhere that makes everyone ready sets the start timer as well."""
        if not self.store.remembers(table_id):
            return False
        snapshot = self.store.latest_known(table_id)
        if snapshot is None:
            return False
        record = self.records.decode(table_id, snapshot.state)
        return record.hand is None and record.can_start()

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

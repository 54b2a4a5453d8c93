"""Ending a table by an operator's hand, when it is stuck: the hand in play (if any) is voided —
nothing settled, every hold of it given back — every seat is cleared, and the table's deadlines
go, in one commit that its watchers hear of (``hand_voided``, then a ``stood`` with the reason
``table_ended`` per seat). The table is then as it was opened, ready for new players.

What the table owes the ledger for hands that already ended (their settlements and releases in
the outbox) is not the table's to drop: those hands are over, and the relay, or an operator's
retry or void of the entry, deals with them. The answer names them, since the table's next hand
waits for them.

The commit comes first and the holds go back after it: once the hand is off the record no move
can end it and queue a settlement that the holds are meant for. The commit also queues the
release of each hand's holds in the outbox, as a hand that ends without a settlement does, so a
process that dies between the commit and the release leaves them to the relay (seconds), not to
the wallet's sweep of holds no table owes (minutes). Released here, the entries are acknowledged
here too; a relay that got to one first released it (releasing twice changes nothing).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from paiju.games.engine import Event
from paiju.table.commits import Outcome
from paiju.table.deadline_names import STARTING_PREFIX, DeadlinePlan, marked_start
from paiju.table.outbox_contract import release_entry
from paiju.table.record import TableRecord
from paiju.table.seating_flow import TableSeating

log = logging.getLogger(__name__)

TABLE_ENDED = "table_ended"
"""The reason of the ``stood`` event of each player a table's end stands up."""


@dataclass(frozen=True, slots=True)
class TableEnded:
    """What ending a table did."""

    table_id: str
    voided_hand: str | None
    """The hand that was in play, voided: no settlement; ``None`` when none was."""
    abandoned_starts: tuple[str, ...]
    """Hands whose start held coins and never dealt (their mark was still pending)."""
    released: int
    """Coins given back from the holds of those hands."""
    stood: tuple[str, ...]
    """The accounts stood up."""
    deadlines_cleared: tuple[str, ...]
    outbox_left: tuple[str, ...]
    """Pending outbox entries of hands that had ended before, left for the relay."""

    @property
    def nothing_to_end(self) -> bool:
        return self.voided_hand is None and not self.abandoned_starts and not self.stood and not self.deadlines_cleared

    def summary(self) -> str:
        """One sentence of what was done, for an operator and the audit log."""
        if self.nothing_to_end:
            done = "nothing to end: no hand in play, nobody seated, no deadline pending"
        else:
            hands = [f"voided hand {self.voided_hand}"] if self.voided_hand else []
            if self.abandoned_starts:
                hands.append(f"dropped the start of {', '.join(self.abandoned_starts)}")
            done = "; ".join([
                *hands,
                f"{self.released} held coins released",
                f"{_counted(len(self.stood), 'player')} stood up",
                f"{_counted(len(self.deadlines_cleared), 'deadline')} removed",
            ])
        if self.outbox_left:
            done += (f"; left in the outbox for ended hands (the next hand waits for them: retry or void): "
                     f"{', '.join(self.outbox_left)}")
        return done


class TableEnding(TableSeating):
    """:meth:`end_table` (see the module's docstring)."""

    def end_table(self, table_id: str, reason: str) -> TableEnded:
        """End ``table_id`` (``reason``: the operator's, for the log); raises
        :class:`~paiju.table.commits.TableNotFound` for an unknown table."""
        self.load(table_id)
        cleared: list[str] = []
        releases: list[tuple[str, bytes]] = []

        def change(version: int, record: TableRecord) -> Outcome | None:
            cleared[:] = [deadline.name for deadline in self.store.deadlines(table_id)]
            if record.hand is None and not record.seated() and not cleared:
                return None
            held = [record.hand.hand_id] if record.hand is not None and record.hand.held else []
            releases[:] = [release_entry(hand_id, table_id)
                           for hand_id in dict.fromkeys([*held, *_dead_starts(table_id, cleared)])]
            events = self._void_hand(record)
            for seat in record.seated():
                account = record.seats[seat].account  # type: ignore[union-attr]
                record.seats[seat] = None
                events.append(Event("stood", {"seat": seat, "account": account, "reason": TABLE_ENDED}))
            # Fresh stamps: a deadline claimed before this commit finds its state gone.
            record.turn_stamp = record.next_stamp()
            record.system_stamp = record.next_stamp()
            plan = DeadlinePlan()
            self._seating_changed(table_id, record, plan)  # nobody seated: no ready kick, no start
            plan.drop(*cleared)
            return self._commit(table_id, version, record, events, plan, outbox=releases)

        outcome = self._retrying(table_id, change)  # None: nothing to end (and nothing cleared)
        events = [] if outcome is None else outcome.events
        voided = next((event.data["hand_id"] for event in events if event.type == "hand_voided"), None)
        starts = _dead_starts(table_id, cleared)
        released = sum(self.wallet.release(hand_id) for hand_id in [*([voided] if voided else []), *starts])
        if outcome is not None:
            for key, _ in releases:
                self.store.outbox_ack(table_id, key)
        ended = TableEnded(table_id, voided, starts, released,
                           tuple(event.data["account"] for event in events if event.type == "stood"),
                           tuple(cleared), tuple(self.store.outbox_keys(table_id)))
        log.warning("table %s ended by an operator (%s): %s", table_id, reason, ended.summary())
        return ended

    @staticmethod
    def _void_hand(record: TableRecord) -> list[Event]:
        """Take the hand in play off the record unsettled; its event (none without a hand)."""
        if record.hand is None:
            return []
        hand_id = record.hand.hand_id
        record.hand = None
        record.hands_played += 1  # its number was used: the next hand's events must not share it
        record.last_hand = None  # nor be taken for an earlier hand's
        record.carry = None
        record.last_winner = None
        return [Event("hand_voided", {"hand_id": hand_id, "reason": TABLE_ENDED})]


def _dead_starts(table_id: str, deadlines: list[str]) -> tuple[str, ...]:
    """The hands whose start held coins and never dealt: those a start's mark among the
    table's ``deadlines`` names."""
    return tuple(marked_start(table_id, name)[0] for name in deadlines if name.startswith(STARTING_PREFIX))


def _counted(number: int, noun: str) -> str:
    """``number`` of ``noun``, in English.

    >>> _counted(1, "player"), _counted(3, "deadline")
    ('1 player', '3 deadlines')
    """
    return f"{number} {noun}{'' if number == 1 else 's'}"

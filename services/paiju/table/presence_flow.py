"""Presence at a table: a player whose streams all closed is away (their turn timer waits in the
games that wait for one), back when a stream returns, and stood up, by the game's escape rules,
when the reconnect window closes."""

from __future__ import annotations

import logging

from paiju.games.engine import Event, require
from paiju.table.commits import Outcome
from paiju.table.deadline_names import TURN_DEADLINE, DeadlinePlan, reconnect_deadline
from paiju.table.moves import TableMoves
from paiju.table.record import SeatRecord, TableRecord

log = logging.getLogger(__name__)


class TablePresence(TableMoves):
    """Away, back and gone (see the module's docstring)."""

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

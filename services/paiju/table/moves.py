"""Moves at a table: a player's action, the turn timer and its timeout move, the game's own
system steps (a paced deal), and an escape from a hand."""

from __future__ import annotations

import logging
from typing import Any

from paiju.common.metrics import METRICS
from paiju.games.engine import Event, HandState, IllegalAction, require
from paiju.table.commits import NotSeated, Outcome
from paiju.table.deadline_names import SYSTEM_DEADLINE, TURN_DEADLINE, DeadlinePlan
from paiju.table.hand_life import HandLife
from paiju.table.options import hand_seat_of, note_options, options_unchanged
from paiju.table.record import TableRecord
from paiju.table.store import StaleVersion

log = logging.getLogger(__name__)


class TableMoves(HandLife):
    """Players' moves and the clock's (see the module's docstring)."""

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

    @staticmethod
    def _hand_if_due(record: TableRecord, stamp: int, current_stamp: int) -> HandState | None:
        """The record's hand, when the deadline stamped ``stamp`` still stands for its state."""
        return None if record.hand is None or current_stamp != stamp else record.spec.load_hand(record.hand.blob)

    def _system_step(self, table_id: str, version: int, record: TableRecord, stamp: int) -> Outcome | None:
        hand = self._hand_if_due(record, stamp, record.system_stamp)
        if hand is None or hand.pending_system_step is None:
            return None
        before = hand.turn_number
        events = hand.system_step()
        return self._after_move(table_id, version, record, hand, events, turn_changed=hand.turn_number != before)

    def _turn_timeout(self, table_id: str, version: int, record: TableRecord, stamp: int) -> Outcome | None:
        hand = self._hand_if_due(record, stamp, record.turn_stamp)
        if hand is None or hand.to_act is None:
            return None
        before = hand.turn_number
        table_seat = record.hand.seats[hand.to_act]  # type: ignore[union-attr]
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

"""A hand's life at a table: its start (the holds of its stakes, then the deal), the recovery of
a start that died between the two, and its end (the settlement queued in the outbox in the same
commit that ends it)."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable

from paiju.common.logs import log_context
from paiju.common.metrics import METRICS
from paiju.games.engine import Event, HandState, IllegalAction
from paiju.table.commits import Outcome
from paiju.table.deadline_names import (
    READY_KICK_DEADLINE,
    START_DEADLINE,
    START_RECOVERY_MS,
    SYSTEM_DEADLINE,
    TURN_DEADLINE,
    DeadlinePlan,
    marked_start,
    reconnect_deadline,
    starting_mark,
)
from paiju.table.options import note_options
from paiju.table.outbox_contract import EndedHand, hand_end_outbox
from paiju.table.ports import CoinsChanged
from paiju.table.record import HandRecord, TableRecord, new_hand_id
from paiju.table.seating_flow import TableSeating
from paiju.table.store import StaleVersion

log = logging.getLogger(__name__)

LOST_RACE_PAUSES = (0.0, 0.01, 0.05, 0.2)
"""Seconds between looks at whether a start whose holds failed lost a race to another starter."""


class HandLife(TableSeating):
    """Starting, recovering and ending hands (see the module's docstring)."""

    randbelow: Callable[[int], int]
    seeds: Callable[[], bytes]

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
            except CoinsChanged:
                self.store.clear_deadline(table_id, mark)  # nothing was held (all or none): nothing to recover
                raise
            except IllegalAction:
                self.store.clear_deadline(table_id, mark)
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
            # commit may have landed; its mark, if it did not, recovers it.)
            if held:
                self.wallet.release(hand_id)
            if held or confirm:
                self.store.clear_deadline(table_id, starting_mark(table_id, hand_id, accounts))
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

    def _recover_start(self, table_id: str, mark: str, stamp: int) -> Outcome | None:
        """A start's mark fell due: unless its hand is in play, the table moves on (so the start,
        if it is only slow, can no longer commit), the hand's holds go back, and the table deals
        again if its players are ready."""
        hand_id, dealt = marked_start(table_id, mark)

        def fence(version: int, record: TableRecord) -> Outcome | None:
            if record.hand is not None and record.hand.hand_id == hand_id:
                return None  # it committed (its commit would have cleared the mark: a late firing)
            # Whoever the start dealt in had pressed start, the last of them in the press that died
            # with it: they are ready still, so the table deals again without asking them twice.
            events = []
            for account in dealt:
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
        start = hand.start_record()
        ended = EndedHand(
            hand_record.hand_id, record.table_id, record.game, self.clock_ms(), accounts, hand_record.held,
            # The hand's start and move log, for its players' hand history (replayed from them).
            None if start is None else {
                "tier": record.tier,
                "accounts": accounts,
                "names": [record.seats[s].name for s in hand_record.seats],  # type: ignore[union-attr]
                "start": start,
            },
        )
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
        outbox = hand_end_outbox(ended, result)
        return outbox, events

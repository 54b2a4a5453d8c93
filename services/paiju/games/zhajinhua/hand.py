"""A 炸金花 hand as a pure state machine (``spec/zhajinhua.md`` §3).

Every move comes three ways, as in pokerkit: ``verify_call(seat)`` raises
:class:`~paiju.games.engine.IllegalAction` with the reason, ``can_call(seat)`` asks, and
``call(seat)`` acts. ``apply(seat, action)`` takes any move as an :class:`Action` or its text.

>>> game = Game(Rules(ante=10))
>>> hand = game.new_hand(coins=[1000, 1000], dealer=0, seed=b"doc",
...                      deck=deck_dealing(["AS KS QS", "2C 3C 5D"]))
>>> hand.to_act, hand.pot
(1, 20)
>>> [str(action) for action in hand.legal_actions(1)][:4]
['look', 'call', 'raise 20', 'raise 30']
>>> [event.type for event in hand.apply(1, "raise 50")]
['raised', 'turn']
>>> [event.type for event in hand.apply(0, "open")]
['opened', 'hand_over', 'reveal']
>>> hand.result.coins, hand.result.winners   # a straight flush: pot plus a bonus of 1 ante
((70, -70), (0,))
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

from paiju.cards import (
    Card,
    commitment,
    format_cards,
    parse_cards,
    stacked_deck,
    standard_deck,
)
from paiju.games.dealing import checked_deal_order, parse_hands, round_robin
from paiju.games.engine import (
    BaseGame,
    BaseHand,
    Event,
    LedgerLine,
    Settlement,
    recorded_start,
    require,
)
from paiju.games.zhajinhua.actions import (
    CALL,
    FOLD,
    LOOK,
    OPEN,
    Action,
    ActionKind,
    Rules,
    compare_with,
    raise_to,
)
from paiju.games.zhajinhua.ranking import Strength, beats, strength
from paiju.games.zhajinhua.rooms import ante_for, ante_threshold

MIN_PLAYERS, MAX_PLAYERS = 2, 5


class SeatStatus(enum.StrEnum):
    PLAYING = "playing"
    FOLDED = "folded"  # folded, timed out or left
    LOST = "lost"  # lost a compare, an open or the system open
    SHORT = "short"  # judged lost: fewer coins than the call amount at its turn


def deck_dealing(hands: Sequence[str | Sequence[Card]], dealer: int = 0) -> list[Card]:
    """A deck order that deals ``hands[seat]`` to each seat when ``dealer`` deals (tests, demos).

    >>> format_cards(deck_dealing(["AS AH AD", "2S 3H 5D"], dealer=1)[:6])
    '2S AS 3H AH 5D AD'
    """
    cards = parse_hands(hands)
    if any(len(hand) != 3 for hand in cards):
        raise ValueError("every 炸金花 hand is three cards")
    return stacked_deck(round_robin(cards, dealer))


class Hand(BaseHand):
    """One hand of 炸金花. It has no system steps (the cards are dealt at once, so the base's
    ``pending_system_step`` is ``None``); a timeout folds and leaving folds."""

    GAME = "zhajinhua"
    ACTION = Action

    def __init__(
        self,
        rules: Rules,
        coins: Sequence[int],
        dealer: int,
        ante: int,
        seed: bytes,
        order: Sequence[Card],
    ) -> None:
        count = len(coins)
        self.seat_count = count
        self.rules = rules
        self.coins: tuple[int, ...] = tuple(coins)  # at the start of the hand
        self.dealer = dealer
        self.ante = ante
        self.seed = bytes(seed)
        self.order: tuple[Card, ...] = tuple(order)
        self.commitment = commitment(self.seed, self.order)
        self.paid = [0] * count
        self.status = [SeatStatus.PLAYING] * count
        self.seen = [False] * count
        self.acted = [False] * count
        self.shown_to_all = [False] * count
        self.known_by: list[set[int]] = [set() for _ in range(count)]
        self.beat_aaa = [False] * count
        self.stake = ante
        self.to_act: int | None = None
        self.turn_number = 0
        """Counts the turns begun, so that a table can tell a new turn from the same one."""
        self.history: list[tuple[int, str]] = []
        self.result: Settlement | None = None
        self.opening_events: list[Event] = []
        # Card i of the order goes to the i-th receiver, dealing from the dealer round the table.
        self.cards: tuple[tuple[Card, ...], ...] = tuple(
            tuple(self.order[(seat - dealer) % count + count * round_] for round_ in range(3))
            for seat in range(count)
        )
        self.strengths: tuple[Strength, ...] = tuple(strength(cards) for cards in self.cards)

    # --- starting ------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        rules: Rules,
        coins: Sequence[int],
        dealer: int,
        seed: bytes,
        deck: Sequence[Card] | str | None,
    ) -> Hand:
        if not MIN_PLAYERS <= len(coins) <= MAX_PLAYERS:
            raise ValueError(f"炸金花 takes {MIN_PLAYERS}–{MAX_PLAYERS} players, not {len(coins)}")
        order = checked_deal_order(
            coins, dealer, seed, deck, standard_deck(), dealer_role="the dealer",
            deck_refusal="a fixed 炸金花 deck is the 52 cards without jokers, each once",
        )
        ante = rules.ante if rules.ante is not None else ante_for(min(coins))
        poorest = min(range(len(coins)), key=coins.__getitem__)
        if coins[poorest] < ante:
            raise ValueError(f"seat {poorest} holds {coins[poorest]} coins, less than the ante {ante}")
        hand = cls(rules, coins, dealer, ante, seed, order)
        for seat in range(len(coins)):
            hand.paid[seat] = ante
        events = [
            Event(
                "hand_started",
                {
                    "dealer": dealer,
                    "ante": ante,
                    "coins": list(coins),
                    "pot": hand.pot,
                    "pot_cap": hand.pot_cap,
                    "commitment": hand.commitment,
                },
            )
        ]
        if hand.pot >= hand.pot_cap:
            events += hand._system_open(after=dealer)
        else:
            events += hand._begin_turn(hand.next_seat(dealer))
        hand.opening_events = events
        return hand

    # --- derived facts -----------------------------------------------------------------------

    @property
    def pot(self) -> int:
        return sum(self.paid)

    @property
    def pot_cap(self) -> int:
        return self.rules.pot_cap_antes * self.ante

    @property
    def max_stake(self) -> int:
        return self.rules.max_stake_antes * self.ante

    def in_hand(self, seat: int) -> bool:
        return self.status[seat] is SeatStatus.PLAYING

    def live_seats(self) -> list[int]:
        return [seat for seat in range(self.seat_count) if self.status[seat] is SeatStatus.PLAYING]

    def remaining(self, seat: int) -> int:
        """Coins the seat still holds, not counting what it has put in the pot."""
        return self.coins[seat] - self.paid[seat]

    def call_amount(self, seat: int) -> int:
        """What calling costs the seat now: the stake, doubled once it has seen its cards."""
        return self.stake * 2 if self.seen[seat] else self.stake

    def next_seat(self, seat: int) -> int:
        """The next seat after ``seat`` still in the hand (``seat`` itself if it is the last)."""
        for offset in range(1, self.seat_count + 1):
            candidate = (seat + offset) % self.seat_count
            if self.status[candidate] is SeatStatus.PLAYING:
                return candidate
        return seat

    def max_loss(self, seat: int) -> int:
        """The most ``seat`` can lose in this hand from now: what the wallet holds at the start.

        Payments stop once the pot reaches the cap, and the last one can overshoot it by at most
        an open at the top stake (4 × the stake cap); on top of that comes the largest bonus.
        """
        most_paid = min(self.remaining(seat), self.pot_cap - 1 + 4 * self.max_stake) + self.paid[seat]
        bonus = 5 * self.ante
        return min(self.coins[seat], most_paid + bonus)

    def start_record(self) -> dict[str, Any]:
        """The rules, coins, dealer and seed the hand started from, and its move log."""
        return recorded_start(self.rules.to_dict(), self.coins, self.dealer, self.seed, self.history)

    def compare_allowed(self) -> bool:
        """Compares open once everyone still in the hand has acted after the ante."""
        return all(self.acted[seat] for seat in self.live_seats())

    def may_see_cards(self, viewer: int | None, seat: int) -> bool:
        """Whether ``viewer`` (``None``: a spectator) may see ``seat``'s three cards now."""
        if self.is_over or self.shown_to_all[seat]:
            return True
        if viewer is None:
            return False
        return (viewer == seat and self.seen[seat]) or viewer in self.known_by[seat]

    # --- verify / can / act -------------------------------------------------------------------

    def _verify_seat(self, seat: int) -> None:
        require(
            isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < self.seat_count,
            f"there is no seat {seat!r} in this hand of {self.seat_count}",
            "bad_seat",
        )
        require(not self.is_over, "the hand is over", "hand_over")
        require(self.in_hand(seat), f"seat {seat} is out of this hand ({self.status[seat]})", "out")

    def _verify_turn(self, seat: int) -> None:
        self._verify_seat(seat)
        require(self.to_act == seat, f"it is seat {self.to_act}'s turn, not seat {seat}'s", "not_your_turn")

    def verify_look(self, seat: int) -> None:
        self._verify_seat(seat)
        require(not self.seen[seat], f"seat {seat} has already seen its cards", "already_seen")

    def verify_call(self, seat: int) -> None:
        self._verify_turn(seat)

    def verify_raise(self, seat: int, stake: int) -> None:
        self._verify_turn(seat)
        require(
            isinstance(stake, int) and stake > self.stake,
            f"a raise must lift the stake above {self.stake}, not to {stake}",
            "raise_too_small",
        )
        require(
            stake % self.ante == 0,
            f"a stake is a whole number of antes ({self.ante}), not {stake}",
            "raise_not_multiple",
        )
        require(
            stake <= self.max_stake,
            f"the stake may be at most {self.max_stake} ({self.rules.max_stake_antes} × ante), not {stake}",
            "raise_above_cap",
        )
        cost = stake * 2 if self.seen[seat] else stake
        require(
            cost <= self.remaining(seat),
            f"raising to {stake} costs {cost}; seat {seat} holds {self.remaining(seat)}",
            "short_of_coins",
        )

    def verify_fold(self, seat: int) -> None:
        self._verify_turn(seat)

    def verify_compare(self, seat: int, target: int) -> None:
        self._verify_turn(seat)
        require(
            self.compare_allowed(),
            "a compare is allowed once everyone still in the hand has acted",
            "compare_too_early",
        )
        require(
            isinstance(target, int) and not isinstance(target, bool)
            and 0 <= target < self.seat_count and target != seat and self.in_hand(target),
            f"seat {target!r} is not an opponent still in the hand",
            "bad_target",
        )

    def verify_open(self, seat: int) -> None:
        self._verify_turn(seat)
        require(
            len(self.live_seats()) == 2,
            "an open is allowed only when exactly two players are left",
            "open_not_allowed",
        )
        cost = 2 * self.call_amount(seat)
        require(
            cost <= self.remaining(seat),
            f"an open costs {cost}; seat {seat} holds {self.remaining(seat)}",
            "short_of_coins",
        )

    def _verify(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind is ActionKind.LOOK:
            self.verify_look(seat)
        elif kind is ActionKind.CALL:
            self.verify_call(seat)
        elif kind is ActionKind.RAISE:
            self.verify_raise(seat, action.stake)  # type: ignore[arg-type]
        elif kind is ActionKind.FOLD:
            self.verify_fold(seat)
        elif kind is ActionKind.COMPARE:
            self.verify_compare(seat, action.target)  # type: ignore[arg-type]
        else:
            self.verify_open(seat)

    def can_look(self, seat: int) -> bool:
        return self.can(seat, LOOK)

    def can_call(self, seat: int) -> bool:
        return self.can(seat, CALL)

    def can_raise(self, seat: int, stake: int) -> bool:
        return self.can(seat, raise_to(stake))

    def can_fold(self, seat: int) -> bool:
        return self.can(seat, FOLD)

    def can_compare(self, seat: int, target: int) -> bool:
        return self.can(seat, compare_with(target))

    def can_open(self, seat: int) -> bool:
        return self.can(seat, OPEN)

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now: look at any time, the rest on its turn."""
        if not (isinstance(seat, int) and 0 <= seat < self.seat_count) or self.is_over:
            return []
        if not self.in_hand(seat):
            return []
        actions = [] if self.seen[seat] else [LOOK]
        if self.to_act != seat:
            return actions
        actions.append(CALL)
        factor = 2 if self.seen[seat] else 1
        highest = min(self.max_stake, self.remaining(seat) // factor)
        actions += [raise_to(stake) for stake in range(self.stake + self.ante, highest + 1, self.ante)]
        actions.append(FOLD)
        live = self.live_seats()
        if self.compare_allowed():
            actions += [compare_with(other) for other in live if other != seat]
        if len(live) == 2 and 2 * self.call_amount(seat) <= self.remaining(seat):
            actions.append(OPEN)
        return actions

    def apply(self, seat: int, action: Action | str) -> list[Event]:
        """Validate and take one action; the events it causes, or IllegalAction and no change."""
        action = Action.coerce(action)
        self._verify(seat, action)
        self.history.append((seat, str(action)))
        kind = action.kind
        if kind is ActionKind.LOOK:
            return self._look(seat)
        if kind is ActionKind.CALL:
            return self._bet(seat, self.stake, "called")
        if kind is ActionKind.RAISE:
            return self._bet(seat, action.stake, "raised")  # type: ignore[arg-type]
        if kind is ActionKind.FOLD:
            return self._fold(seat, "fold")
        if kind is ActionKind.COMPARE:
            return self._compare(seat, action.target)  # type: ignore[arg-type]
        return self._open(seat)

    def look(self, seat: int) -> list[Event]:
        return self.apply(seat, LOOK)

    def call(self, seat: int) -> list[Event]:
        return self.apply(seat, CALL)

    def raise_to(self, seat: int, stake: int) -> list[Event]:
        return self.apply(seat, raise_to(stake))

    def fold(self, seat: int) -> list[Event]:
        return self.apply(seat, FOLD)

    def compare(self, seat: int, target: int) -> list[Event]:
        return self.apply(seat, compare_with(target))

    def open(self, seat: int) -> list[Event]:
        return self.apply(seat, OPEN)

    def timeout(self) -> list[Event]:
        """The seat to act ran out of time: it folds (超时视为放弃), nothing else is deducted."""
        require(self.to_act is not None, "nobody is to act, so nothing can time out", "hand_over")
        seat = self.to_act
        self.history.append((seat, "timeout"))
        return self._fold(seat, "timeout")

    def leave(self, seat: int) -> list[Event]:
        """A seat leaves mid-hand (逃跑): it folds, whether or not it is its turn."""
        self._verify_seat(seat)
        self.history.append((seat, "leave"))
        return self._fold(seat, "left")

    # --- what the actions do ------------------------------------------------------------------

    def _look(self, seat: int) -> list[Event]:
        self.seen[seat] = True
        events = [
            Event("looked", {"seat": seat}),
            Event("cards", {"seat": seat, "cards": format_cards(self.cards[seat])}, (seat,)),
        ]
        if self.to_act == seat and self.remaining(seat) < self.call_amount(seat):
            events += self._judge_short(seat)
        return events

    def _bet(self, seat: int, stake: int, event_type: str) -> list[Event]:
        self.stake = stake
        amount = self.call_amount(seat)
        self.paid[seat] += amount
        self.acted[seat] = True
        events = [Event(event_type, {"seat": seat, "amount": amount, "stake": stake, "pot": self.pot})]
        if self.pot >= self.pot_cap:
            return events + self._system_open(after=seat)
        return events + self._begin_turn(self.next_seat(seat))

    def _fold(self, seat: int, reason: str) -> list[Event]:
        self.status[seat] = SeatStatus.FOLDED
        events = [Event("folded", {"seat": seat, "reason": reason})]
        return events + self._after_exit(seat)

    def _after_exit(self, seat: int) -> list[Event]:
        """Whoever is left plays on after ``seat`` dropped out."""
        live = self.live_seats()
        if len(live) == 1:
            return self._finish(live[0], "last_player")
        if self.to_act == seat:
            return self._begin_turn(self.next_seat(seat))
        return []

    def _duel(self, champion: int, challenger: int) -> int:
        """The loser of a showdown; ``champion`` counts as having opened first, so loses ties."""
        if beats(self.strengths[champion], self.strengths[challenger], self.rules.special_235) > 0:
            winner, loser = champion, challenger
        else:
            winner, loser = challenger, champion
        if self.strengths[winner].special_235 and self.strengths[loser].is_aaa:
            self.beat_aaa[winner] = True
        self.status[loser] = SeatStatus.LOST
        return loser

    def _compare(self, seat: int, target: int) -> list[Event]:
        amount = self.call_amount(seat)
        self.paid[seat] += amount
        self.acted[seat] = True
        loser = self._duel(seat, target)  # the one who asked loses ties
        for one, other in ((seat, target), (target, seat)):
            self.seen[one] = True
            self.known_by[one].add(other)
        both = {str(s): format_cards(self.cards[s]) for s in (seat, target)}
        events = [
            Event("compared", {"seat": seat, "target": target, "loser": loser, "cards": both}, (seat, target)),
            Event("compare_result", {"seat": seat, "target": target, "amount": amount, "loser": loser, "pot": self.pot}),
        ]
        live = self.live_seats()
        if len(live) == 1:
            return events + self._finish(live[0], "compare")
        # Decision: the compare that was paid for is decided first, then the cap opens the rest.
        if self.pot >= self.pot_cap:
            return events + self._system_open(after=seat)
        return events + self._begin_turn(self.next_seat(seat))

    def _open(self, seat: int) -> list[Event]:
        amount = 2 * self.call_amount(seat)
        self.paid[seat] += amount
        self.acted[seat] = True
        (other,) = [s for s in self.live_seats() if s != seat]
        loser = self._duel(seat, other)  # the opener loses ties
        winner = other if loser == seat else seat
        for shown in (seat, other):
            self.shown_to_all[shown] = True
        hands = {str(s): format_cards(self.cards[s]) for s in (seat, other)}
        events = [Event("opened", {"seat": seat, "amount": amount, "loser": loser, "cards": hands, "pot": self.pot})]
        return events + self._finish(winner, "open")

    def _system_open(self, after: int) -> list[Event]:
        """系统开牌 at the pot cap: a champion in turn order from the seat after ``after``."""
        order = [s for s in ((after + k) % self.seat_count for k in range(1, self.seat_count + 1)) if self.in_hand(s)]
        champion = order[0]
        duels = []
        for challenger in order[1:]:
            loser = self._duel(champion, challenger)
            duels.append({"champion": champion, "challenger": challenger, "loser": loser})
            champion = challenger if loser == champion else champion
        for shown in order:
            self.shown_to_all[shown] = True
        hands = {str(s): format_cards(self.cards[s]) for s in order}
        events = [Event("system_open", {"order": order, "duels": duels, "cards": hands, "pot": self.pot})]
        return events + self._finish(champion, "pot_cap")

    def _judge_short(self, seat: int) -> list[Event]:
        self.status[seat] = SeatStatus.SHORT
        event = Event(
            "judged_lost",
            {"seat": seat, "reason": "short_of_coins", "holds": self.remaining(seat), "needs": self.call_amount(seat)},
        )
        return [event] + self._after_exit(seat)

    def _begin_turn(self, seat: int) -> list[Event]:
        self.to_act = seat
        self.turn_number += 1
        if self.remaining(seat) < self.call_amount(seat):
            return self._judge_short(seat)
        return [Event("turn", {"seat": seat, "call_amount": self.call_amount(seat), "stake": self.stake})]

    def _bonus_antes(self, winner: int) -> int:
        held = self.strengths[winner]
        if held.special_235 and self.beat_aaa[winner]:
            return 5  # 235赢了AAA时，喜钱就要给235
        if held.is_aaa:
            return 5
        if held.category == "trips":
            return 2
        if held.category == "straight_flush":
            return 1
        return 0

    def _finish(self, winner: int, how: str) -> list[Event]:
        self.to_act = None
        pot = self.pot
        bonus_due = self._bonus_antes(winner) * self.ante
        lines: list[LedgerLine] = []
        bonus_won = 0
        for seat in range(self.seat_count):
            if seat == winner:
                continue
            lines.append(LedgerLine(seat, -self.paid[seat], "stake"))
            # 钱输光了，就不再给喜钱: a payer gives at most what it still holds.
            bonus = min(bonus_due, self.remaining(seat))
            if bonus:
                lines.append(LedgerLine(seat, -bonus, "bonus"))
                bonus_won += bonus
        gain = pot - self.paid[winner]
        fee = (gain + bonus_won) * self.rules.fee_permille // 1000
        lines += [LedgerLine(winner, -self.paid[winner], "stake"), LedgerLine(winner, pot, "pot")]
        if bonus_won:
            lines.append(LedgerLine(winner, bonus_won, "bonus"))
        if fee:
            lines.append(LedgerLine(winner, -fee, "fee"))
        net = [0] * self.seat_count
        for line in lines:
            net[line.seat] += line.amount
        if bonus_due:
            self.shown_to_all[winner] = True
        self.result = Settlement(
            coins=tuple(net),
            lines=tuple(lines),
            fee=fee,
            winners=(winner,),
            details={"how": how, "pot": pot, "bonus_per_payer": bonus_due, "ante": self.ante},
        )
        hand_over = {
            "winner": winner,
            "how": how,
            "pot": pot,
            "bonus": bonus_won,
            "coins": list(net),
            "fee": fee,
            "winner_cards": format_cards(self.cards[winner]) if bonus_due else None,
        }
        reveal = {"seed": self.seed.hex(), "order": format_cards(self.order), "commitment": self.commitment}
        return [Event("hand_over", hand_over), Event("reveal", reveal)]

    # --- what a seat sees ----------------------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` (``None``: a spectator) may know, as JSON-ready data."""
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.seat_count):
            raise ValueError(f"there is no seat {seat!r} in this hand of {self.seat_count}")
        players = [
            {
                "seat": s,
                "coins": self.remaining(s),
                "paid": self.paid[s],
                "status": str(self.status[s]),
                "seen": self.seen[s],
                "acted": self.acted[s],
                "cards": format_cards(self.cards[s]) if self.may_see_cards(seat, s) else None,
            }
            for s in range(self.seat_count)
        ]
        view: dict[str, Any] = {
            "game": self.GAME,
            "seat": seat,
            "dealer": self.dealer,
            "ante": self.ante,
            # Why the ante is what it is: it floats with the poorest player's coins (每注计算).
            "ante_rule": None if self.rules.ante is not None else {
                "fewest_coins": min(self.coins), "from_coins": ante_threshold(min(self.coins))},
            "stake": self.stake,
            "max_stake": self.max_stake,
            "pot": self.pot,
            "pot_cap": self.pot_cap,
            "to_act": self.to_act,
            "compare_allowed": self.compare_allowed() and not self.is_over,
            "commitment": self.commitment,
            "players": players,
            "legal_actions": [] if seat is None else [str(a) for a in self.legal_actions(seat)],
            "call_amount": None if seat is None else self.call_amount(seat),
            "result": None if self.result is None else self.result.to_dict(),
            "reveal": None,
        }
        if self.is_over:
            view["reveal"] = {"seed": self.seed.hex(), "order": format_cards(self.order)}
        return view

    # --- serialisation ------------------------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "coins": list(self.coins),
            "dealer": self.dealer,
            "ante": self.ante,
            "seed": self.seed.hex(),
            "order": format_cards(self.order),
            "paid": self.paid,
            "status": [str(s) for s in self.status],
            "seen": self.seen,
            "acted": self.acted,
            "shown_to_all": self.shown_to_all,
            "known_by": [sorted(k) for k in self.known_by],
            "beat_aaa": self.beat_aaa,
            "stake": self.stake,
            "to_act": self.to_act,
            "turn_number": self.turn_number,
            "history": [list(entry) for entry in self.history],
            "result": None if self.result is None else self.result.to_dict(),
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Hand:
        try:
            hand = cls(
                Rules.from_dict(data["rules"]),
                data["coins"],
                data["dealer"],
                data["ante"],
                bytes.fromhex(data["seed"]),
                parse_cards(data["order"]),
            )
            hand.paid = list(data["paid"])
            hand.status = [SeatStatus(s) for s in data["status"]]
            hand.seen = list(data["seen"])
            hand.acted = list(data["acted"])
            hand.shown_to_all = list(data["shown_to_all"])
            hand.known_by = [set(k) for k in data["known_by"]]
            hand.beat_aaa = list(data["beat_aaa"])
            hand.stake = data["stake"]
            hand.to_act = data["to_act"]
            hand.turn_number = data["turn_number"]
            hand.history = [(seat, text) for seat, text in data["history"]]
            hand.result = None if data["result"] is None else Settlement.from_dict(data["result"])
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"corrupt 炸金花 hand: {error!r}") from None
        return hand


class Game(BaseGame[Hand]):
    """Starts and loads 炸金花 hands under one set of rules: ``new_hand`` takes the antes,
    deals, and hands the turn to the dealer's next seat."""

    RULES = Rules
    HAND = Hand

"""A 炒地皮 hand as a pure state machine: paced deal with declaring, the kitty and robbing,
25 tricks, and the settlement that carries the match on (``spec/chaodipi.md``).

The engine has no clock. While dealing nobody is to act (``to_act is None``): the table calls
:meth:`Hand.system_step` when :attr:`Hand.pending_system_step` says so — ``("deal", s)`` one card
per step, then ``("close_declaring", s)`` once the window after the last card or the last
declaration has passed. Then the banker buries (``bury …``), the others are asked in turn
whether to rob (``rob …`` / ``pass``), and the banker leads. ``result.details["match"]`` is the
next hand's :class:`~paiju.games.chaodipi.levels.MatchState` (as data), and
``result.details["next_first_receiver"]`` the seat the next deal starts with.

>>> game = Game(Rules(variant="yangzhou"))
>>> hand = game.new_hand(coins=[0] * 4, dealer=0, seed=b"doc", match=MatchState(banker=0))
>>> hand.pending_system_step
('deal', 0.25)
>>> _ = hand.deal_all()
>>> hand.pending_system_step
('close_declaring', 5.0)
>>> [e.type for e in hand.system_step()][:2]      # nobody declared: the kitty is turned up
['declaring_closed', 'kitty_turned']
>>> hand.phase, hand.to_act, len(hand.hands[0])
(<Phase.BURYING: 'burying'>, 0, 33)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from paiju.cards import (
    Card,
    double_deck_with_jokers,
    parse_cards,
)
from paiju.games import dealing
from paiju.games.chaodipi.actions import Action, ActionKind, Rules
from paiju.games.chaodipi.hand_declaring import DealingAndDeclaring
from paiju.games.chaodipi.hand_ending import Ending
from paiju.games.chaodipi.hand_kitty import KittyAndRobbing
from paiju.games.chaodipi.hand_state import DECK_SIZE, Phase
from paiju.games.chaodipi.hand_tricks import TrickPlay
from paiju.games.chaodipi.hand_view import SeatView
from paiju.games.chaodipi.levels import SEATS, MatchState
from paiju.games.chaodipi.play import lowest_follow
from paiju.games.engine import (
    BaseGame,
    Event,
    options_digest,
    require,
)


def deal_seed(seed: bytes, deal: int) -> bytes:
    """The shuffle seed of the ``deal``-th deal of a hand (0: the hand seed; later: redeals)."""
    return dealing.redeal_seed("chaodipi", seed, deal)


def deck_dealing(
    hands: Sequence[str | Sequence[Card]], kitty: str | Sequence[Card] = "", first_receiver: int = 0
) -> list[Card]:
    """A deck order that deals ``hands[seat]`` (in that order) to each seat, then the kitty.

    Four hands of 25 cards and a kitty of 8, or of 27 and no kitty (a flag hand).
    """
    cards = dealing.parse_hands(hands)
    rest = parse_cards(kitty) if isinstance(kitty, str) else list(kitty)
    size = len(cards[0]) if cards else 0
    if (
        len(cards) != SEATS
        or any(len(hand) != size for hand in cards)
        or SEATS * size + len(rest) != DECK_SIZE
    ):
        raise ValueError(
            "a 炒地皮 deal is four hands of 25 cards and a kitty of 8 (or 27 each, no kitty)"
        )
    order = dealing.round_robin(cards, first_receiver) + rest
    if sorted(order) != sorted(double_deck_with_jokers()):
        raise ValueError("the hands and kitty must be the 108 cards of two decks, each copy once")
    return order


class Hand(SeatView, Ending, TrickPlay, KittyAndRobbing, DealingAndDeclaring):
    """One hand of 炒地皮. Seats 0..3, 0+2 against 1+3; seat ``s+1 mod 4`` plays after ``s``.
    Dealt at the table's pace (:class:`~paiju.games.dealing.PacedDealHand`); each phase's rules
    in its own module, put together here with the moves' dispatch, timeouts and escapes."""

    @classmethod
    def start(
        cls,
        rules: Rules,
        coins: Sequence[int],
        first_receiver: int,
        seed: bytes,
        deck: Sequence[Card] | str | None,
        match: MatchState,
    ) -> Hand:
        if len(coins) != SEATS:
            raise ValueError(f"炒地皮 takes exactly {SEATS} players, not {len(coins)}")
        if not isinstance(match, MatchState):
            raise TypeError(f"match is a MatchState, not {match!r}")
        if match.flag_hand and not rules.variant.flag_hand:
            raise ValueError(f"{rules.variant.name} plays no flag hands")
        order = dealing.checked_deal_order(
            coins, first_receiver, seed, deck, double_deck_with_jokers(), dealer_role="the first receiver",
            deck_refusal="a fixed 炒地皮 deck is the 108 cards of two decks with jokers",
        )
        hand = cls(rules, coins, first_receiver, seed, match)
        hand._new_deal(tuple(order))
        hand.opening_events = [
            Event(
                "hand_started",
                {
                    "first_receiver": first_receiver,
                    "commitment": hand.commitment,
                    "deal": 0,
                    "level": hand.level,
                    "banker": hand.banker,
                    "flag_hand": hand.flag,
                    "variant": rules.variant.name,
                    "match": match.to_dict(),
                },
            )
        ]
        return hand

    def verify_multiple(self, seat: int, action: Action) -> None:
        self._verify_seat(seat)
        choices = self.rules.channel.stake_multiples
        require(
            action.value in choices,
            f"{self.rules.channel} allows stake multiples {choices}",
            "bad_multiple",
        )
        require(
            not self.cards_played and not self.trick,
            "stake multiples are picked before the banker's first lead",
            "too_late",
        )
        require(
            action.value != self.multiples[seat],
            f"your stake multiple is {action.value} already",
            "bad_multiple",
        )

    def _verify(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind is ActionKind.PLAY:
            self.verify_play(seat, action.cards)
        elif kind is ActionKind.DECLARE:
            self.verify_declare(seat, action)
        elif kind is ActionKind.ROB:
            self.verify_rob(seat, action)
        elif kind is ActionKind.PASS:
            self.verify_pass(seat)
        elif kind is ActionKind.BURY:
            self.verify_bury(seat, action)
        else:
            self.verify_multiple(seat, action)

    def options_key(self, seat: int) -> str:
        """What ``seat`` may do, as a key (:meth:`CheckedActions.options_key`): while playing,
        its turn and its stake multiple decide it, so no play is listed."""
        if self.phase is Phase.PLAYING:
            turn = self.turn_number if self.to_act == seat else None
            multiples_open = not self.cards_played and not self.trick
            return options_digest(str(self.phase), turn, self.multiples[seat], multiples_open)
        return super().options_key(seat)

    def legal_actions(self, seat: int) -> list[Action]:
        """What ``seat`` may do now: its declarations while dealing; burying or rob/pass on its
        turn; its plays on its turn (lowest first; throws not listed); a new stake multiple
        before the first lead."""
        if (
            not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < SEATS)
            or self.is_over
        ):
            return []
        actions: list[Action] = []
        if self.phase is Phase.PLAYING:
            actions = [
                Action.of_sorted(ActionKind.PLAY, play) for play in self._listed_plays(seat)[0]
            ]
        elif self.phase in (Phase.DEALING, Phase.DECLARING) and not self.flag:
            actions = [
                a for a in self._declaration_actions(seat, ActionKind.DECLARE) if self.can(seat, a)
            ]
        elif self.phase is Phase.BURYING and seat == self.kitty_holder:
            actions = [Action(ActionKind.BURY, tuple(self.kitty_received))]
        elif self.phase is Phase.ROBBING and seat == self.asked:
            actions = [Action(ActionKind.PASS)]
            actions += [
                a for a in self._declaration_actions(seat, ActionKind.ROB) if self.can(seat, a)
            ]
        if not self.cards_played and not self.trick:
            actions += [
                Action(ActionKind.MULTIPLE, value=value)
                for value in self.rules.channel.stake_multiples
                if value != self.multiples[seat]
            ]
        return actions

    def apply(self, seat: int, action: Action | str) -> list[Event]:
        """Validate and take one move; its events, or :class:`IllegalAction` and no change."""
        action = Action.coerce(action)
        self._verify(seat, action)
        self.history.append((seat, str(action)))
        kind = action.kind
        if kind is ActionKind.MULTIPLE:
            assert action.value is not None
            self.multiples[seat] = action.value
            return [Event("multiple", {"seat": seat, "multiple": action.value})]
        if kind is not ActionKind.DECLARE:
            self.strikes[seat] = 0  # a move on one's turn clears the strikes
        if kind is ActionKind.DECLARE:
            return self._declare(seat, action, "declare")
        if kind is ActionKind.ROB:
            return self._rob(seat, action)
        if kind is ActionKind.PASS:
            return self._pass(seat)
        if kind is ActionKind.BURY:
            return self._bury(seat, action.cards)
        return self._play(seat, action.cards)

    def timeout(self) -> list[Event]:
        """The seat to act ran out of time: a strike and the default move (bury the kitty as
        received; decline to rob; the lowest listed play); the ``timeouts_to_escape``-th
        consecutive strike is an escape instead."""
        require(self.to_act is not None, "nobody is to act, so nothing can time out", "no_turn")
        seat = self.to_act
        self.history.append((seat, "timeout"))
        self.strikes[seat] += 1
        strike = Event("timed_out", {"seat": seat, "strikes": self.strikes[seat]})
        if self.strikes[seat] >= self.rules.timeouts_to_escape:
            return [strike, *self._escape(seat, "timeouts")]
        if self.phase is Phase.BURYING:
            return [strike, *self._bury(seat, tuple(sorted(self.kitty_received)))]
        if self.phase is Phase.ROBBING:
            return [strike, *self._pass(seat)]
        listed, complete = self._listed_plays(seat)
        if self.trick and not complete:  # the lowest may lie beyond the listed follows
            return [strike, *self._play(seat, lowest_follow(self.context, self.hands[seat], self.trick[0][1]))]
        return [strike, *self._play(seat, listed[0])]

    def leave(self, seat: int) -> list[Event]:
        """``seat`` leaves the hand (or its reconnect window ran out): an escape (逃跑)."""
        self._verify_seat(seat)
        self.history.append((seat, "leave"))
        return self._escape(seat, "left")


class Game(BaseGame[Hand]):
    """Starts and loads 炒地皮 hands under one table's rules."""

    RULES = Rules
    HAND = Hand

    def new_hand(
        self,
        coins: Sequence[int],
        dealer: int,
        seed: bytes,
        deck: Sequence[Card] | str | None = None,
        match: MatchState | Mapping[str, Any] | None = None,
    ) -> Hand:
        """A hand whose first card goes to seat ``dealer`` (a random seat in a match's first
        hand, then ``result.details["next_first_receiver"]``), under ``match`` (default: a new
        match; then ``MatchState.from_dict(result.details["match"])``)."""
        if isinstance(match, Mapping):
            match = MatchState.from_dict(dict(match))
        return Hand.start(self.rules, coins, dealer, seed, deck, match or MatchState())

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

import enum
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from paiju.cards import (
    Card,
    double_deck_with_jokers,
    format_cards,
    parse_cards,
)
from paiju.games import dealing
from paiju.games.chaodipi.actions import Action, ActionKind, Rules
from paiju.games.chaodipi.declaring import declaration_options, kitty_trump, read_declaration
from paiju.games.chaodipi.escape import escape_fortune_settlement, escape_score_settlement
from paiju.games.chaodipi.fortune import fortune_settlement, score_settlement
from paiju.games.chaodipi.levels import SEATS, MatchState, is_jack_to_bottom, settle_hand, side_of
from paiju.games.chaodipi.order import RED_FIVE
from paiju.games.chaodipi.play import (
    THROW,
    Context,
    follows,
    is_legal_follow,
    leads,
    lowest_card,
    lowest_follow,
    read_lead,
    throw_fails,
    winner,
)
from paiju.games.chaodipi.scoring import (
    POINTS,
    AttackerPoints,
    Side,
    dig_points,
    failed_rob_points,
    failed_throw_points,
    is_heaven_and_earth,
    red_five_points,
    saved_red_fives,
)
from paiju.games.chaodipi.variants import Declaration
from paiju.games.dealing import PacedDealHand
from paiju.games.engine import (
    BaseGame,
    Event,
    IllegalAction,
    Settlement,
    options_digest,
    recorded_start,
    require,
)

DECK_SIZE = 108
RED_FIVE_LIMIT = 3000
"""Follows examined to find whether a 5♥ was forced (逼红5)."""


class Phase(enum.StrEnum):
    DEALING = dealing.DEALING
    DECLARING = dealing.DECLARING  # every card dealt; the closing window is open
    BURYING = "burying"
    ROBBING = "robbing"
    PLAYING = "playing"
    OVER = "over"


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


class Hand(PacedDealHand):
    """One hand of 炒地皮. Seats 0..3, 0+2 against 1+3; seat ``s+1 mod 4`` plays after ``s``.
    Dealt at the table's pace (:class:`~paiju.games.dealing.PacedDealHand`)."""

    GAME = "chaodipi"
    ACTION = Action

    def __init__(
        self,
        rules: Rules,
        coins: Sequence[int],
        first_receiver: int,
        seed: bytes,
        match: MatchState,
    ) -> None:
        self.rules = rules
        self.variant = rules.variant
        self.coins: tuple[int, ...] = tuple(coins)
        self.first_receiver = first_receiver
        self.seed = bytes(seed)
        self.match = match
        self.flag = match.flag_hand
        self.level: str | None = None if self.flag else _hand_level(match)
        self.orders: list[tuple[Card, ...]] = []
        self.dealt = 0
        self.hands: list[list[Card]] = [[] for _ in range(SEATS)]
        self.kitty: list[Card] = []
        self.kitty_received: list[Card] = []
        self.kitty_holder: int | None = None
        self.kitty_turned = False
        self.declarations: list[dict[str, Any]] = []
        self.revealed = not self.variant.blind_declaring
        self.phase = Phase.DEALING
        self.banker: int | None = match.banker
        self.trump: str | None = None
        self.asked: int | None = None
        self.passes = 0
        self.multiples: list[int] = [1] * SEATS
        self.to_act: int | None = None
        self.turn_number = 0
        self.trick: list[tuple[int, tuple[Card, ...]]] = []
        self.tricks: list[dict[str, Any]] = []
        self.point_cards: list[list[Card]] = [[] for _ in range(SEATS)]
        self.failed_throws: list[tuple[int, int]] = []
        self.forced_fives: list[int] = []
        self.cards_played = 0
        self.strikes: list[int] = [0] * SEATS
        self.history: list[tuple[int, str]] = []
        self.result: Settlement | None = None
        self.opening_events: list[Event] = []
        self._context: Context | None = None
        self._listed: dict[int, tuple[list[tuple[Card, ...]], bool]] = {}

    # --- starting ------------------------------------------------------------------------------

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

    def _new_deal(self, order: tuple[Card, ...]) -> None:
        self.orders.append(order)
        self.dealt = 0
        self.hands = [[] for _ in range(SEATS)]
        self.kitty = list(order[self.deal_size :])
        self.declarations = []
        self.phase = Phase.DEALING

    # --- derived facts ---------------------------------------------------------------------------

    full_deck = staticmethod(double_deck_with_jokers)

    @property
    def deal_size(self) -> int:
        """Cards dealt to the players (the rest is the kitty)."""
        return SEATS * (self.variant.flag_hand_size if self.flag else self.variant.hand_size)

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def context(self) -> Context:
        """The judging context once trump is settled (play)."""
        if self._context is None:
            self._context = Context.of(self.level, self.trump, self.variant)
        return self._context

    @property
    def standing(self) -> dict[str, Any] | None:
        """The declaration in force (the last effective one), if any."""
        for entry in reversed(self.declarations):
            if entry["effective"]:
                return entry
        return None

    @property
    def robs(self) -> int:
        """反主 and 抄底 of the hand so far: effective overrides after the first declaration,
        and every rob (failed blind robs included) — the ×2 factors of N."""
        count = 0
        first = True
        for entry in self.declarations:
            if entry["stage"] == "rob":
                count += 1
            elif entry["effective"]:
                count += 0 if first else 1
                first = False
        return count

    @property
    def system_wait_key(self) -> tuple[int, int, int]:
        """What the wait for :attr:`pending_system_step` was begun for: the deal, the cards
        dealt and the declarations that took effect. The table restarts its timer when this
        changes — a dealt card, or a declaration that took effect (it restarts the declaring
        window) — and not on other moves: a blind declaration with no effect or a stake
        multiple leaves the window running (§3), so no move keeps declaring open for ever."""
        effective = sum(1 for entry in self.declarations if entry["effective"])
        return (len(self.orders), self.dealt, effective)

    def start_record(self) -> dict[str, Any]:
        """The rules, coins, first receiver, seed and match the hand started from, and its move log."""
        return recorded_start(
            _rules_data(self.rules), self.coins, self.first_receiver, self.seed, self.history, self.match.to_dict()
        )

    def side(self, seat: int) -> Side:
        assert self.banker is not None
        return side_of(seat, self.banker)

    def attacker_points(self) -> AttackerPoints:
        """The attackers' points so far, by source (the kitty dig and 保红5 only at the end)."""
        tricks = 0
        if self.banker is not None:
            tricks = sum(
                _points(cards)
                for seat, cards in enumerate(self.point_cards)
                if self.side(seat) is Side.ATTACKERS
            )
        throws = sum(
            failed_throw_points(self.side(seat), count, self.variant)
            for seat, count in self.failed_throws
        )
        forced = red_five_points(
            self.variant, forced=[self.side(seat) for seat in self.forced_fives]
        )
        robs = 0
        if self.revealed:
            robs = sum(
                failed_rob_points(self.side(entry["seat"]), self.variant)
                for entry in self.declarations
                if entry["stage"] == "rob" and not entry["effective"]
            )
        return AttackerPoints(
            tricks=tricks, red_fives=forced, failed_throws=throws, failed_robs=robs
        )

    def max_loss(self, seat: int) -> int:
        """The most ``seat`` can lose: nothing in a score channel; in a fortune channel all it
        holds (N doubles with every rob, so no smaller bound holds; nobody pays more than that)."""
        if not self.rules.channel.moves_coins:
            return 0
        return self.coins[seat]

    # --- verify / can / act ----------------------------------------------------------------------

    def _verify_seat(self, seat: int) -> None:
        if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < SEATS):
            raise IllegalAction(f"there is no seat {seat!r} at a 炒地皮 table", "bad_seat")
        if self.phase is Phase.OVER:
            raise IllegalAction("the hand is over", "hand_over")

    def _held(self, seat: int, cards: Sequence[Card]) -> bool:
        held = Counter(self.hands[seat])
        return all(held[card] >= count for card, count in Counter(cards).items())

    def _look_back_single(self, seat: int, cards: Sequence[Card]) -> bool:
        """Whether ``cards`` (a pair) is ``seat``'s 回头望: the pair of a single it showed while
        holding both copies, since overridden by another seat, not yet looked back on."""
        if not self.variant.look_back or len(cards) != 2 or cards[0] != cards[1]:
            return False
        text = str(cards[0])
        for index, entry in enumerate(self.declarations):
            if (
                entry["seat"] == seat
                and entry["kind"] == Declaration.SINGLE
                and entry["cards"] == text
                and entry["had_pair"]
            ):
                later = self.declarations[index + 1 :]
                overridden = any(other["seat"] != seat for other in later)
                done = any(
                    other["seat"] == seat and other["kind"] == Declaration.LOOK_BACK
                    for other in later
                )
                return overridden and not done
        return False

    def _reading(self, seat: int, action: Action) -> tuple[str, str | None]:
        """The kind and trump of a declaration or rob; :class:`IllegalAction` if it is none."""
        cards = action.cards
        assert self.level is not None
        if self._look_back_single(seat, cards):
            kind, trump = str(Declaration.LOOK_BACK), cards[0].suit
        else:
            reading = read_declaration(cards, self.level)
            if reading is None:
                raise IllegalAction(
                    f"{format_cards(cards)} is no declaration: a level card {self.level}, a pair of them, of SJ, of BJ or of 5H",
                    "bad_declaration",
                )
            kind, trump = reading
        if kind == Declaration.RED_FIVE_PAIR:
            require(
                action.choice is not None,
                "a 红5对 names the trump: S, H, C, D or NT",
                "choose_trump",
            )
            trump = None if action.choice == "NT" else action.choice
        else:
            require(action.choice is None, "only a 红5对 names the trump", "bad_declaration")
        return kind, trump

    def verify_declare(self, seat: int, action: Action) -> None:
        self._verify_seat(seat)
        require(not self.flag, "a flag hand is played without declaring", "not_declaring")
        require(
            self.phase in (Phase.DEALING, Phase.DECLARING), "declaring is over", "not_declaring"
        )
        require(
            self._held(seat, action.cards),
            f"seat {seat} has not been dealt {format_cards(action.cards)}",
            "not_held",
        )
        kind, _ = self._reading(seat, action)
        if self.variant.blind_declaring:
            # Decision (暗炒): a seat cannot declare twice in a row, and a single is only a first
            # declaration (everyone knows *that* someone declared); any pair is accepted blind,
            # once per seat and hand, so that blind declaring ends.
            require(
                not self.declarations or self.declarations[-1]["seat"] != seat,
                "your declaration is the last one",
                "own_declaration",
            )
            require(
                kind != Declaration.SINGLE or not self.declarations,
                "a single declares only first",
                "declaration_too_low",
            )
            self._verify_not_shown_blind(seat, action.cards)
            return
        standing = self.standing
        require(
            standing is None or standing["seat"] != seat,
            "your own declaration stands",
            "own_declaration",
        )
        require(
            self.variant.outranks(kind, None if standing is None else standing["kind"]),
            f"{format_cards(action.cards)} does not outrank the standing {standing['cards'] if standing else ''}",
            "declaration_too_low",
        )

    def verify_rob(self, seat: int, action: Action) -> None:
        self._verify_seat(seat)
        require(self.phase is Phase.ROBBING, "nobody is being asked to rob now", "not_robbing")
        require(
            seat == self.asked,
            f"seat {self.asked} is being asked, not seat {seat}",
            "not_your_turn",
        )
        require(
            self._held(seat, action.cards),
            f"seat {seat} does not hold {format_cards(action.cards)}",
            "not_held",
        )
        kind, _ = self._reading(seat, action)
        require(kind != Declaration.SINGLE, "a rob shows a pair", "declaration_too_low")
        if self.variant.blind_declaring:
            self._verify_not_shown_blind(seat, action.cards)
        else:
            standing = self.standing
            assert standing is not None
            require(
                self.variant.outranks(kind, standing["kind"]),
                f"{format_cards(action.cards)} does not outrank {standing['cards']}",
                "declaration_too_low",
            )

    def _verify_not_shown_blind(self, seat: int, cards: Sequence[Card]) -> None:
        """暗炒 Decision (§3): a seat shows each distinct pair blind at most once per hand,
        declaring and robbing together."""
        text = format_cards(cards)
        require(
            not any(entry["seat"] == seat and entry["cards"] == text for entry in self.declarations),
            f"you have shown {text} already in this hand",
            "shown_before",
        )

    def verify_pass(self, seat: int) -> None:
        self._verify_seat(seat)
        require(self.phase is Phase.ROBBING, "nobody is being asked to rob now", "not_robbing")
        require(
            seat == self.asked,
            f"seat {self.asked} is being asked, not seat {seat}",
            "not_your_turn",
        )

    def verify_bury(self, seat: int, action: Action) -> None:
        self._verify_seat(seat)
        require(self.phase is Phase.BURYING, "nobody is burying now", "not_burying")
        require(
            seat == self.kitty_holder,
            f"seat {self.kitty_holder} holds the kitty, not seat {seat}",
            "not_your_turn",
        )
        size = self.variant.kitty_size
        require(len(action.cards) == size, f"bury exactly {size} cards", "bad_bury")
        require(
            self._held(seat, action.cards),
            f"seat {seat} does not hold {format_cards(action.cards)}",
            "not_held",
        )

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

    def verify_play(self, seat: int, cards: Sequence[Card]) -> None:
        self._verify_seat(seat)
        if self.phase is not Phase.PLAYING:
            raise IllegalAction("the cards are not being played now", "not_playing")
        if self.to_act != seat:
            raise IllegalAction(
                f"it is seat {self.to_act}'s turn, not seat {seat}'s", "not_your_turn"
            )
        play = tuple(sorted(cards))
        listed = self._listed.get(seat)
        if listed is not None and play in listed[0]:
            return
        if not self._held(seat, play):
            raise IllegalAction(f"seat {seat} does not hold {format_cards(play)}", "not_held")
        if not self.trick:
            try:
                read_lead(self.context, play)
            except ValueError:
                raise IllegalAction(
                    f"{format_cards(play)} mixes suit classes: lead one class (or a 5-10-K)",
                    "illegal_play",
                ) from None
            return
        if not is_legal_follow(self.context, self.hands[seat], self.trick[0][1], play):
            raise IllegalAction(
                f"{format_cards(play)} may not follow {format_cards(self.trick[0][1])}: follow the suit class, tractors and pairs",
                "illegal_play",
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

    def _listed_plays(self, seat: int) -> tuple[list[tuple[Card, ...]], bool]:
        if self.phase is not Phase.PLAYING or seat != self.to_act:
            return [], True
        if seat not in self._listed:
            if self.trick:
                self._listed[seat] = follows(self.context, self.hands[seat], self.trick[0][1])
            else:
                self._listed[seat] = (leads(self.context, self.hands[seat]), False)
        return self._listed[seat]

    def plays_listed_completely(self, seat: int) -> bool:
        """Whether :meth:`legal_actions` names every play ``seat`` may make now (never while
        leading: throws are legal but not listed; rarely when following: at most
        ``LIST_LIMIT`` follows are)."""
        return self._listed_plays(seat)[1]

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

    def _declaration_actions(self, seat: int, kind: ActionKind) -> list[Action]:
        assert self.level is not None
        actions = []
        for cards in declaration_options(self.hands[seat], self.level):
            if cards[0] == RED_FIVE:
                actions += [Action(kind, cards, choice) for choice in ("S", "H", "C", "D", "NT")]
            else:
                actions.append(Action(kind, cards))
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

    # --- timeouts and escapes --------------------------------------------------------------------

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

    # --- dealing and declaring ------------------------------------------------------------------

    def _turn(self, seat: int, **data: Any) -> Event:
        self.to_act = seat
        self.turn_number += 1
        self._listed.clear()
        return Event("turn", {"seat": seat, "phase": str(self.phase), **data})

    def _deal_done(self) -> list[Event]:
        if self.flag:
            # 扛旗: no declaring, no kitty; the banker leads at once.
            self.trump = None
            return [Event("deal_done", {"flag_hand": True}), *self._start_play()]
        self.phase = Phase.DECLARING
        return [Event("deal_done", {"declare_window": self.rules.declare_window})]

    def _declare(self, seat: int, action: Action, stage: str) -> list[Event]:
        kind, trump = self._reading(seat, action)
        standing = self.standing
        effective = self.variant.outranks(kind, None if standing is None else standing["kind"])
        entry = {
            "seat": seat,
            "stage": stage,
            "kind": kind,
            "cards": format_cards(action.cards),
            "trump": trump,
            "effective": effective,
            "had_pair": kind == Declaration.SINGLE and self.hands[seat].count(action.cards[0]) >= 2,
        }
        self.declarations.append(entry)
        name = "declared" if stage == "declare" else "robbed"
        public = {"seat": seat, "stage": stage, "index": len(self.declarations) - 1}
        if self.variant.blind_declaring:
            return [Event(name, public), Event(name + "_blind", _private(entry), (seat,))]
        return [Event(name, {**public, **_shown(entry)})]

    def _close_declaring(self) -> list[Event]:
        standing = self.standing
        if standing is None and self.banker is None:
            return self._redeal()  # nobody declared in a match's first hand: no banker to take the kitty
        events: list[Event] = []
        if standing is None:
            assert self.level is not None
            self.kitty_turned = True
            self.trump = kitty_trump(self.kitty, self.level)
            self.revealed = True
            events.append(Event("declaring_closed", {"declared": False, "banker": self.banker}))
            events.append(
                Event("kitty_turned", {"kitty": format_cards(self.kitty), "trump": self.trump})
            )
        else:
            if self.banker is None:
                self.banker = standing["seat"]  # 第一局的庄家由翻主方担任
            self.trump = standing["trump"]
            events.append(
                Event(
                    "declaring_closed",
                    {
                        "declared": True,
                        "banker": self.banker,
                        **({} if self.variant.blind_declaring else {"trump": self.trump}),
                    },
                )
            )
        assert self.banker is not None
        return events + self._take_kitty(self.banker)

    def _take_kitty(self, seat: int) -> list[Event]:
        self.kitty_holder = seat
        self.kitty_received = list(self.kitty)
        self.hands[seat] = sorted(self.hands[seat] + self.kitty)
        self.kitty = []
        self.phase = Phase.BURYING
        taken = Event(
            "kitty_taken", {"seat": seat, "kitty": format_cards(self.kitty_received)}, (seat,)
        )
        return [Event("kitty_taken", {"seat": seat}), taken, self._turn(seat)]

    def _bury(self, seat: int, cards: Sequence[Card]) -> list[Event]:
        for card in cards:
            self.hands[seat].remove(card)
        self.kitty = sorted(cards)
        events = [
            Event("buried", {"seat": seat}),
            Event("buried_cards", {"seat": seat, "kitty": format_cards(self.kitty)}, (seat,)),
        ]
        if self.kitty_turned:
            return events + self._start_play()
        self.phase = Phase.ROBBING
        self.passes = 0
        self.asked = self._next_asked(seat)
        return events + [self._turn(self.asked)]

    def _next_asked(self, after: int) -> int:
        seat = (after + 1) % SEATS
        if seat == self.kitty_holder:
            seat = (seat + 1) % SEATS
        return seat

    def _rob(self, seat: int, action: Action) -> list[Event]:
        events = self._declare(seat, action, "rob")
        self.asked = None
        return events + self._take_kitty(seat)

    def _pass(self, seat: int) -> list[Event]:
        self.passes += 1
        events = [Event("passed", {"seat": seat})]
        if self.passes < SEATS - 1:
            self.asked = self._next_asked(seat)
            return events + [self._turn(self.asked)]
        self.asked = None
        if not self.revealed:
            self.revealed = True
            standing = self.standing
            assert standing is not None
            self.trump = standing["trump"]
            events.append(
                Event(
                    "declarations_revealed",
                    {
                        "declarations": [_shown(entry) for entry in self.declarations],
                        "trump": self.trump,
                    },
                )
            )
        else:
            standing = self.standing
            assert standing is not None
            self.trump = standing["trump"]
        return events + self._start_play()

    def _start_play(self) -> list[Event]:
        self.phase = Phase.PLAYING
        self._context = None
        assert self.banker is not None
        started = Event(
            "play_started",
            {
                "banker": self.banker,
                "trump": self.trump,
                "level": self.level,
                "multiples": list(self.multiples),
            },
        )
        return [started, self._turn(self.banker, leader=True)]

    # --- play -------------------------------------------------------------------------------------

    def _play(self, seat: int, cards: Sequence[Card]) -> list[Event]:
        play = tuple(sorted(cards))
        events: list[Event] = []
        context = self.context
        if not self.trick:
            lead = read_lead(context, play)
            if lead.kind == THROW:
                others = [self.hands[other] for other in range(SEATS) if other != seat]
                if throw_fails(context, play, others):
                    self.failed_throws.append((seat, len(play)))
                    events.append(
                        Event("throw_failed", {"seat": seat, "attempted": format_cards(play)})
                    )
                    play = (lowest_card(context, play),)
        elif self.variant.red_five_bonuses and RED_FIVE in play:
            options, _ = follows(context, self.hands[seat], self.trick[0][1], RED_FIVE_LIMIT)
            fewest = min((option.count(RED_FIVE) for option in options), default=0)
            self.forced_fives += [seat] * min(play.count(RED_FIVE), fewest)
        for card in play:
            self.hands[seat].remove(card)
        self.cards_played += len(play)
        self.trick.append((seat, play))
        self._listed.clear()
        events.append(Event("played", {"seat": seat, "cards": format_cards(play)}))
        if len(self.trick) < SEATS:
            return events + [self._turn((seat + 1) % SEATS, leader=False)]
        plays = [cards for _, cards in self.trick]
        won_by = self.trick[winner(context, plays)][0]
        points = [card for cards in plays for card in cards if POINTS[card]]
        self.point_cards[won_by].extend(sorted(points))
        self.tricks.append(
            {"plays": [[s, format_cards(cards)] for s, cards in self.trick], "winner": won_by}
        )
        self.trick = []
        events.append(
            Event(
                "trick_won",
                {
                    "seat": won_by,
                    "points": _points(points),
                    "attackers": self.attacker_points().total,
                },
            )
        )
        if not self.hands[won_by]:
            return events + self._finish_played()
        return events + [self._turn(won_by, leader=True)]

    def _finish_played(self) -> list[Event]:
        assert self.banker is not None
        rules = self.variant
        last = self.tricks[-1]
        last_winner = last["winner"]
        winning_play = {s: text for s, text in last["plays"]}[last_winner]
        side = self.side(last_winner)
        base = self.attacker_points()
        dig = 0
        if side is Side.ATTACKERS and self.kitty:
            dig = dig_points(self.kitty, winning_play, rules)
        saved: list[Side] = []
        if rules.red_five_bonuses and len(self.tricks) >= 2:
            second_winner = self.tricks[-2]["winner"]
            for seat, text in last["plays"]:
                saved += [self.side(seat)] * saved_red_fives(text, seat == second_winner)
        forced = [self.side(seat) for seat in self.forced_fives]
        points = AttackerPoints(
            tricks=base.tricks,
            dig=dig,
            red_fives=red_five_points(rules, forced=forced, saved=saved),
            failed_throws=base.failed_throws,
            failed_robs=base.failed_robs,
        )
        match = (
            self.match
            if self.match.banker is not None
            else self.match.with_first_banker(self.banker)
        )
        heaven: Side | None = None
        jack = False
        if not self.flag:
            assert self.level is not None
            if is_heaven_and_earth(
                winning_play, side, level=self.level, trump=self.trump, rules=rules
            ):
                heaven = side
            else:
                jack = is_jack_to_bottom(
                    winning_play, side, level=self.level, points=points.counted, rules=rules
                )
        outcome = settle_hand(
            rules, match, points.counted, heaven_and_earth=heaven, jack_to_bottom=jack
        )
        if self.rules.channel.moves_coins:
            settled = fortune_settlement(
                outcome,
                base_stake=self.rules.base_stake,
                multiples=self.multiples,
                balances=self.coins,
                robs=self.robs,
                repeat=match.repeat,
            )
        else:
            settled = score_settlement(outcome, self.multiples)
        details = {
            **settled.details,
            "how": "played",
            "points": _points_dict(points),
            "winner": str(outcome.winner),
            "score": outcome.score,
            "scores": None if settled.scores is None else list(settled.scores),
            "levels_gained": outcome.levels_gained,
            "match_winner": outcome.match_winner,
            "heaven_and_earth": None if heaven is None else str(heaven),
            "jack_to_bottom": jack,
            "last_trick": {"winner": last_winner, "play": winning_play},
        }
        return self._finish(settled, details, outcome.next)

    def _escape(self, seat: int, reason: str) -> list[Event]:
        played = self.cards_played > 0
        match = self.match
        points = self.attacker_points().counted if played else 0
        if played and match.banker is None:
            assert self.banker is not None
            match = match.with_first_banker(self.banker)
        if self.rules.channel.moves_coins:
            settled = escape_fortune_settlement(
                self.variant,
                match,
                seat,
                points,
                base_stake=self.rules.base_stake,
                multiples=self.multiples,
                balances=self.coins,
                robs=self.robs,
                cards_played=played,
            )
        else:
            settled = escape_score_settlement(
                self.variant, match, seat, points, multiples=self.multiples, cards_played=played
            )
        details = {
            **settled.details,
            "how": "escape" if played else "void",
            "reason": reason,
            "points": _points_dict(self.attacker_points()),
            "scores": None if settled.scores is None else list(settled.scores),
        }
        # Levels do not change and the same banker deals again (a first hand stays a first hand).
        events = [Event("escaped", {"seat": seat, "reason": reason, "void": not played})]
        return events + self._finish(settled, details, match if played else self.match)

    def _finish(
        self, settled: Settlement, details: dict[str, Any], following: MatchState
    ) -> list[Event]:
        self.phase = Phase.OVER
        self.to_act = None
        self.asked = None
        self._listed.clear()
        self.revealed = True
        next_first = following.banker if following.banker is not None else self.first_receiver
        full = {
            **details,
            "variant": self.variant.name,
            "level": self.level,
            "trump": self.trump,
            "banker": self.banker,
            "robs": self.robs,
            "multiples": list(self.multiples),
            "declarations": [_shown(entry) for entry in self.declarations],
            "kitty": format_cards(self.kitty),
            "match": following.to_dict(),
            "next_first_receiver": next_first,
        }
        self.result = Settlement(
            coins=settled.coins,
            lines=settled.lines,
            fee=settled.fee,
            scores=settled.scores,
            winners=settled.winners,
            details=full,
        )
        over = Event("hand_over", {"coins": list(settled.coins), **full})
        return [over, Event("reveal", self._reveal())]

    def _reveal(self) -> dict[str, Any]:
        return {**super()._reveal(), "kitty": format_cards(self.kitty)}

    # --- what a seat sees ---------------------------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` (``None``: a spectator) may know now, as JSON-ready data: its own
        hand only; the kitty only to its holder (everyone once turned up or over); 暗炒
        declarations only to their makers until the reveal; deck and seed only at the end."""
        if seat is not None and not (
            isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < SEATS
        ):
            raise ValueError(f"there is no seat {seat!r} at a 炒地皮 table")
        over = self.is_over
        declarations = [
            _shown(entry)
            if self.revealed
            else _private(entry)
            if entry["seat"] == seat
            else {"seat": entry["seat"], "stage": entry["stage"]}
            for entry in self.declarations
        ]
        kitty_visible = over or (
            seat is not None and seat == self.kitty_holder and self.phase is not Phase.DEALING
        )
        standing = self.standing
        trump_known = (
            self.phase in (Phase.PLAYING, Phase.OVER)
            or self.kitty_turned
            or (self.revealed and standing is not None)
        )
        points = self.attacker_points()
        return {
            "game": self.GAME,
            "variant": self.variant.name,
            "seat": seat,
            "phase": str(self.phase),
            "flag_hand": self.flag,
            "level": self.level,
            "match": self.match.to_dict(),
            "first_receiver": self.first_receiver,
            "deal": len(self.orders) - 1,
            "dealt": self.dealt,
            "commitment": self.commitment,
            "banker": self.banker,
            "declarations": declarations,
            "trump": self._shown_trump(standing) if trump_known else None,
            "trump_known": trump_known,
            "kitty_holder": self.kitty_holder,
            "kitty": format_cards(self.kitty) if kitty_visible else None,
            "kitty_turned": format_cards(self.kitty_received) if self.kitty_turned else None,
            "asked": self.asked,
            "multiples": list(self.multiples),
            "to_act": self.to_act,
            "turn_number": self.turn_number,
            "pending_system_step": self.pending_system_step,
            "trick": [{"seat": s, "cards": format_cards(cards)} for s, cards in self.trick],
            "previous_trick": []
            if not self.tricks
            else [{"seat": s, "cards": text} for s, text in self.tricks[-1]["plays"]],
            "tricks_played": len(self.tricks),
            "attacker_points": _points_dict(points),
            "players": [
                {
                    "seat": s,
                    "cards": format_cards(self.hands[s]) if (s == seat or over) else None,
                    "card_count": len(self.hands[s]),
                    "point_cards": format_cards(self.point_cards[s]),
                    "strikes": self.strikes[s],
                    "side": None if self.banker is None else str(self.side(s)),
                }
                for s in range(SEATS)
            ],
            "legal_actions": [] if seat is None else [str(a) for a in self.legal_actions(seat)],
            # Throws (when leading) and, rarely, some follows are legal but not listed.
            "more_plays": seat is not None
            and seat == self.to_act
            and self.phase is Phase.PLAYING
            and not self.plays_listed_completely(seat),
            "kitty_taken": format_cards(self.kitty_received)
            if seat is not None and seat == self.kitty_holder and self.phase is Phase.BURYING
            else None,
            "result": None if self.result is None else self.result.to_dict(),
            "reveal": self._reveal() if over else None,
        }

    def _shown_trump(self, standing: Mapping[str, Any] | None) -> str | None:
        if self.phase in (Phase.PLAYING, Phase.OVER) or self.kitty_turned or standing is None:
            return self.trump
        return standing["trump"]

    # --- serialisation -----------------------------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        return {
            "rules": _rules_data(self.rules),
            "coins": list(self.coins),
            "first_receiver": self.first_receiver,
            "seed": self.seed.hex(),
            "match": self.match.to_dict(),
            "orders": [format_cards(order) for order in self.orders],
            "dealt": self.dealt,
            "hands": [format_cards(cards) for cards in self.hands],
            "kitty": format_cards(self.kitty),
            "kitty_received": format_cards(self.kitty_received),
            "kitty_holder": self.kitty_holder,
            "kitty_turned": self.kitty_turned,
            "declarations": [dict(entry) for entry in self.declarations],
            "revealed": self.revealed,
            "phase": str(self.phase),
            "banker": self.banker,
            "trump": self.trump,
            "asked": self.asked,
            "passes": self.passes,
            "multiples": list(self.multiples),
            "to_act": self.to_act,
            "turn_number": self.turn_number,
            "trick": [[s, format_cards(cards)] for s, cards in self.trick],
            "tricks": [dict(entry) for entry in self.tricks],
            "point_cards": [format_cards(cards) for cards in self.point_cards],
            "failed_throws": [list(entry) for entry in self.failed_throws],
            "forced_fives": list(self.forced_fives),
            "cards_played": self.cards_played,
            "strikes": list(self.strikes),
            "history": [list(entry) for entry in self.history],
            "result": None if self.result is None else self.result.to_dict(),
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Hand:
        try:
            hand = cls(
                _rules_from_data(data["rules"]),
                data["coins"],
                data["first_receiver"],
                bytes.fromhex(data["seed"]),
                MatchState.from_dict(data["match"]),
            )
            hand.orders = [tuple(parse_cards(text)) for text in data["orders"]]
            hand.dealt = data["dealt"]
            hand.hands = [parse_cards(text) for text in data["hands"]]
            hand.kitty = parse_cards(data["kitty"])
            hand.kitty_received = parse_cards(data["kitty_received"])
            hand.kitty_holder = data["kitty_holder"]
            hand.kitty_turned = data["kitty_turned"]
            hand.declarations = [dict(entry) for entry in data["declarations"]]
            hand.revealed = data["revealed"]
            hand.phase = Phase(data["phase"])
            hand.banker = data["banker"]
            hand.trump = data["trump"]
            hand.asked = data["asked"]
            hand.passes = data["passes"]
            hand.multiples = list(data["multiples"])
            hand.to_act = data["to_act"]
            hand.turn_number = data["turn_number"]
            hand.trick = [(s, tuple(parse_cards(text))) for s, text in data["trick"]]
            hand.tricks = [dict(entry) for entry in data["tricks"]]
            hand.point_cards = [parse_cards(text) for text in data["point_cards"]]
            hand.failed_throws = [(s, n) for s, n in data["failed_throws"]]
            hand.forced_fives = list(data["forced_fives"])
            hand.cards_played = data["cards_played"]
            hand.strikes = list(data["strikes"])
            hand.history = [(s, text) for s, text in data["history"]]
            hand.result = None if data["result"] is None else Settlement.from_dict(data["result"])
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ValueError(f"corrupt 炒地皮 hand: {error!r}") from None
        return hand


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


@lru_cache(maxsize=64)
def _rules_data(rules: Rules) -> dict[str, Any]:
    """The rules as plain data, cached (every saved state carries them; never mutated)."""
    return rules.to_dict()


_RULES_READ: dict[str, Rules] = {}


def _rules_from_data(data: Mapping[str, Any]) -> Rules:
    key = json.dumps(data, sort_keys=True)
    rules = _RULES_READ.get(key)
    if rules is None:
        rules = Rules.from_dict(data)
        if len(_RULES_READ) < 256:
            _RULES_READ[key] = rules
    return rules


def _hand_level(match: MatchState) -> str:
    if match.banker is not None:
        return match.level_rank
    ranks = {level.rank for level in match.levels}
    if len(ranks) != 1:
        # Decision: a match's first hand (no banker yet) is played at the teams' common level.
        raise ValueError("before the first banker both teams are at one level")
    return ranks.pop()


def _shown(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {key: entry[key] for key in ("seat", "stage", "kind", "cards", "trump", "effective")}


def _points(cards: Sequence[Card]) -> int:
    return sum([POINTS[card] for card in cards])


def _private(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A blind declaration as its maker sees it: whether it took effect stays hidden."""
    return {key: entry[key] for key in ("seat", "stage", "kind", "cards", "trump")}


def _points_dict(points: AttackerPoints) -> dict[str, int]:
    return {
        "tricks": points.tricks,
        "dig": points.dig,
        "red_fives": points.red_fives,
        "failed_throws": points.failed_throws,
        "failed_robs": points.failed_robs,
        "total": points.total,
        "counted": points.counted,
    }

"""A 混战 hand as a pure state machine: paced deal with declaring, 21 tricks, settlement.

The engine has no clock. During the deal nobody is to act (``to_act is None``); the table
service calls :meth:`Hand.system_step` when :attr:`Hand.pending_system_step` says so: ``deal``
every ``deal_interval`` seconds (one card per step), then ``close_declaring`` once
``declare_window`` seconds pass after the last card or the last declaration, whichever is later.
Any seat may declare at any time in between, with cards already dealt to it.

>>> hand = Game().new_hand(coins=[1000] * 4, dealer=0, seed=b"doc", deck=deck_dealing(
...     ["TS 5H 5H 7H 7H 8H 8H 9H 9H JH JH QH QH KH KH AH AH 2D 2D TD TD",
...      "5S 5S 7S 7S 8S 8S 9S 9S JS JS QS QS KS KS AS AS 2C 2C TC TC SJ",
...      "5C 5C 7C 7C 8C 8C 9C 9C JC JC QC QC KC KC AC AC 2H 2H TH TH SJ",
...      "5D 5D 7D 7D 8D 8D 9D 9D JD JD QD QD KD KD AD AD 2S 2S TS BJ BJ"]))
>>> hand.pending_system_step
('deal', 0.25)
>>> _ = hand.system_step()              # the first card, TS, goes to seat 0
>>> [str(a) for a in hand.legal_actions(0)]
['declare TS']
>>> [e.type for e in hand.apply(0, "declare TS")]
['declared']
>>> _ = hand.deal_all()
>>> [str(a) for a in hand.legal_actions(3)]   # seat 3 holds BJ BJ now
['declare BJ BJ']
>>> [e.type for e in hand.close_declaring()]
['declaring_closed', 'turn']
>>> hand.trump, hand.to_act
('S', 0)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

from paiju.cards import (
    Card,
    double_deck_without_346,
    format_cards,
    parse_cards,
)
from paiju.games import dealing
from paiju.games.dealing import PacedDealHand
from paiju.games.engine import (
    BaseGame,
    Event,
    IllegalAction,
    LedgerLine,
    Settlement,
    options_digest,
    recorded_start,
    require,
)
from paiju.games.hunzhan.actions import Action, ActionKind, Rules
from paiju.games.hunzhan.order import (
    BASE_POINTS,
    DECLARATIONS,
    POINTS,
    declaration_cards,
    declaration_rank,
    declared_trump,
    hunzhan_order,
)
from paiju.games.hunzhan.plays import allowed_plays, why_not_allowed
from paiju.games.hunzhan.settlement import (
    ESCAPE_PENALTY_FACTOR,
    escape_results,
    hand_results,
    settle_results,
)
from paiju.games.tricks import Play, TrumpOrder, trick_winner

SEATS = 4
HAND_SIZE = 21
DECK_SIZE = SEATS * HAND_SIZE


class Phase(enum.StrEnum):
    DEALING = dealing.DEALING
    DECLARING = dealing.DECLARING  # every card dealt; the closing window is open
    PLAYING = "playing"
    OVER = "over"


def deal_seed(seed: bytes, deal: int) -> bytes:
    """The shuffle seed of the ``deal``-th deal of a hand (0: the hand seed; later: redeals)."""
    return dealing.redeal_seed("hunzhan", seed, deal)


def deck_dealing(hands: Sequence[str | Sequence[Card]], first_receiver: int = 0) -> list[Card]:
    """A deck order that deals ``hands[seat]`` (21 cards each, in that order) to each seat.

    >>> hands = _sorted_hands()
    >>> order = deck_dealing(hands, first_receiver=2)
    >>> format_cards(order[:2]) == " ".join([hands[2].split()[0], hands[3].split()[0]])
    True
    """
    cards = dealing.parse_hands(hands)
    if len(cards) != SEATS or any(len(hand) != HAND_SIZE for hand in cards):
        raise ValueError("a 混战 deal is four hands of 21 cards")
    order = dealing.round_robin(cards, first_receiver)
    if sorted(order) != sorted(double_deck_without_346()):
        raise ValueError("the four hands must be the 84 cards of the 混战 deck, each copy once")
    return order


def _sorted_hands() -> list[str]:
    deck = sorted(double_deck_without_346())
    return [format_cards(deck[seat::SEATS]) for seat in range(SEATS)]


class Hand(PacedDealHand):
    """One hand of 混战. Seats 0..3; seat ``s+1 mod 4`` plays after ``s``. Dealt at the table's
    pace (:class:`~paiju.games.dealing.PacedDealHand`); nobody declaring means a redeal."""

    GAME = "hunzhan"
    ACTION = Action

    def __init__(self, rules: Rules, coins: Sequence[int], first_receiver: int, seed: bytes) -> None:
        self.rules = rules
        self.coins: tuple[int, ...] = tuple(coins)
        self.first_receiver = first_receiver
        self.seed = bytes(seed)
        self.orders: list[tuple[Card, ...]] = []  # one per deal; the last is the current one
        self.dealt = 0
        self.hands: list[list[Card]] = [[] for _ in range(SEATS)]
        self.declarations: list[tuple[int, int]] = []  # (seat, rank) of this deal, in order
        self.phase = Phase.DEALING
        self.trump: str | None = None
        self.declarer: int | None = None
        self.to_act: int | None = None
        self.turn_number = 0
        """Turns begun in the hand (each play begins one; the deal begins none)."""
        self.trick: list[tuple[int, Play]] = []
        self.previous_trick: list[tuple[int, Play]] = []
        self.tricks_won: list[int] = [0] * SEATS
        self.point_cards: list[list[Card]] = [[] for _ in range(SEATS)]
        self.strikes: list[int] = [0] * SEATS
        self.last_trick_winner: int | None = None
        self.history: list[tuple[int, str]] = []
        self.result: Settlement | None = None
        self.opening_events: list[Event] = []
        self._allowed: dict[int, list[Play]] = {}
        self._allowed_sets: dict[int, frozenset[Play]] = {}

    # --- starting ------------------------------------------------------------------------------

    @classmethod
    def start(
        cls, rules: Rules, coins: Sequence[int], first_receiver: int, seed: bytes, deck: Sequence[Card] | str | None
    ) -> Hand:
        if len(coins) != SEATS:
            raise ValueError(f"混战 takes exactly {SEATS} players, not {len(coins)}")
        order = dealing.checked_deal_order(
            coins, first_receiver, seed, deck, double_deck_without_346(), dealer_role="the first receiver",
            deck_refusal="a fixed 混战 deck is the 84 cards (two decks without 3, 4, 6)",
        )
        hand = cls(rules, coins, first_receiver, seed)
        hand._new_deal(tuple(order))
        hand.opening_events = [
            Event(
                "hand_started",
                {
                    "first_receiver": first_receiver,
                    "coins": list(coins),
                    "commitment": hand.commitment,
                    "deal": 0,
                },
            )
        ]
        return hand

    # --- derived facts ---------------------------------------------------------------------------

    deal_size = DECK_SIZE
    full_deck = staticmethod(double_deck_without_346)

    def _new_deal(self, order: tuple[Card, ...]) -> None:
        self.orders.append(order)
        self.hands = [[] for _ in range(SEATS)]
        self.dealt = 0
        self.phase = Phase.DEALING

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def trump_order(self) -> TrumpOrder:
        return hunzhan_order(self.trump)

    @property
    def declaration(self) -> tuple[int, int] | None:
        """``(seat, rank)`` of the declaration standing now, if any."""
        return self.declarations[-1] if self.declarations else None

    @property
    def points(self) -> list[int]:
        """Points won so far in completed tricks, per seat."""
        return [sum(POINTS[card] for card in cards) for cards in self.point_cards]

    @property
    def system_wait_key(self) -> tuple[int, int, int]:
        """What the wait for :attr:`pending_system_step` was begun for: the deal, the cards
        dealt and the declarations (each one stands, overriding the last). The table restarts
        its timer when this changes: a dealt card, or a declaration, which restarts the window."""
        return (len(self.orders), self.dealt, len(self.declarations))

    def start_record(self) -> dict[str, Any]:
        """The rules, coins, first receiver and seed the hand started from, and its move log."""
        return recorded_start(self.rules.to_dict(), self.coins, self.first_receiver, self.seed, self.history)

    def max_loss(self, seat: int) -> int:
        """The most ``seat`` can lose: an escape with no points, ``3 × 60`` points' worth."""
        worst = ESCAPE_PENALTY_FACTOR * BASE_POINTS // 5 * self.rules.coins_per_5
        return min(self.coins[seat], worst)

    def allowed(self, seat: int) -> list[Play]:
        """The plays ``seat`` may make now, lowest first (empty unless it is its turn)."""
        if self.phase is not Phase.PLAYING or seat != self.to_act:
            return []
        if seat not in self._allowed:
            self._allowed[seat] = allowed_plays(
                self.hands[seat], [play for _, play in self.trick], self.trump_order
            )
        return self._allowed[seat]

    def _allowed_set(self, seat: int) -> frozenset[Play]:
        if seat not in self._allowed_sets:
            self._allowed_sets[seat] = frozenset(self.allowed(seat))
        return self._allowed_sets[seat]

    def declarations_open_to(self, seat: int) -> list[int]:
        """Ranks of the declarations ``seat`` could make now."""
        if self.phase not in (Phase.DEALING, Phase.DECLARING):
            return []
        standing = self.declaration
        if standing is not None and standing[0] == seat:
            return []
        floor = -1 if standing is None else standing[1]
        held = self.hands[seat]
        return [
            rank
            for rank in range(floor + 1, len(DECLARATIONS))
            if all(held.count(card) >= need for card, need in _needs(rank).items())
        ]

    # --- verify / can / act ----------------------------------------------------------------------

    def _verify_seat(self, seat: int) -> None:
        if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < SEATS):
            raise IllegalAction(f"there is no seat {seat!r} at a 混战 table", "bad_seat")
        if self.phase is Phase.OVER:
            raise IllegalAction("the hand is over", "hand_over")

    def verify_declare(self, seat: int, cards: Sequence[Card]) -> None:
        self._verify_seat(seat)
        require(
            self.phase in (Phase.DEALING, Phase.DECLARING),
            "declaring is over: the cards are being played",
            "not_declaring",
        )
        rank = declaration_rank(cards)
        require(
            rank is not None,
            f"{format_cards(cards)} is no declaration: a single 10, or a pair of SJ or of BJ",
            "bad_declaration",
        )
        assert rank is not None
        held = self.hands[seat]
        require(
            all(held.count(card) >= need for card, need in _needs(rank).items()),
            f"seat {seat} has not been dealt {format_cards(cards)}",
            "not_held",
        )
        standing = self.declaration
        # Decision: overriding (反主) is against another player's declaration; the holder of
        # the standing one may not raise it itself (as in 炒地皮 §3).
        require(standing is None or standing[0] != seat, "your own declaration stands", "own_declaration")
        require(
            standing is None or rank > standing[1],
            f"{format_cards(cards)} does not beat the standing {DECLARATIONS[standing[1]] if standing else ''}",
            "declaration_too_low",
        )

    def verify_play(self, seat: int, cards: Sequence[Card]) -> None:
        # Checks written out (not require()) so that no message is built on the hot path.
        self._verify_seat(seat)
        if self.phase is not Phase.PLAYING:
            raise IllegalAction("the cards are not being played yet", "not_playing")
        if self.to_act != seat:
            raise IllegalAction(f"it is seat {self.to_act}'s turn, not seat {seat}'s", "not_your_turn")
        play = tuple(sorted(cards))
        # Once the plays are listed (the view of the seat to act lists them), a play is judged
        # from the list; a short list is searched as it is, cheaper than building its set.
        listed = self._allowed.get(seat)
        if listed is not None and play in (listed if len(listed) <= 8 else self._allowed_set(seat)):
            return
        held = self.hands[seat]
        if not all(held.count(card) >= play.count(card) for card in set(play)):
            raise IllegalAction(f"seat {seat} does not hold {format_cards(play)}", "not_held")
        if listed is None:  # judged directly: listing every play can take a void follower long
            reason = why_not_allowed(held, [cards for _, cards in self.trick], play, self.trump_order)
            if reason is None:
                return
            raise IllegalAction(reason, "illegal_play")
        raise IllegalAction(_why_not(play, self.trick), "illegal_play")

    def _verify(self, seat: int, action: Action) -> None:
        if action.kind is ActionKind.DECLARE:
            self.verify_declare(seat, action.cards)
        else:
            self.verify_play(seat, action.cards)

    def options_key(self, seat: int) -> str:
        """What ``seat`` may do, as a key (:meth:`CheckedActions.options_key`): while playing,
        its turn alone decides it (nobody else moves then), so no play is listed."""
        if self.phase is Phase.PLAYING:
            return options_digest(str(self.phase), self.turn_number if self.to_act == seat else None)
        return super().options_key(seat)

    def legal_actions(self, seat: int) -> list[Action]:
        """Declarations ``seat`` could make now, or its allowed plays (lowest first) on its turn."""
        if not (isinstance(seat, int) and 0 <= seat < SEATS) or self.is_over:
            return []
        if self.phase is Phase.PLAYING:
            return [Action.of_sorted(ActionKind.PLAY, play) for play in self.allowed(seat)]
        return [Action(ActionKind.DECLARE, tuple(declaration_cards(r))) for r in self.declarations_open_to(seat)]

    def apply(self, seat: int, action: Action | str) -> list[Event]:
        """Validate and take one move; its events, or :class:`IllegalAction` and no change."""
        action = Action.coerce(action)
        self._verify(seat, action)
        self.history.append((seat, str(action)))
        self.strikes[seat] = 0  # a move by the player clears its strikes
        if action.kind is ActionKind.DECLARE:
            return self._declare(seat, action.cards)
        return self._play(seat, action.cards)

    def declare(self, seat: int, cards: Sequence[Card] | str) -> list[Event]:
        return self.apply(seat, Action.declare(cards))

    def play(self, seat: int, cards: Sequence[Card] | str) -> list[Event]:
        return self.apply(seat, Action.play(cards))

    # --- system steps (the table service's clock) -----------------------------------------------

    def deal_next(self) -> list[Event]:
        """Deal one card (the system step while dealing)."""
        require(self.phase is Phase.DEALING, "every card has been dealt", "not_dealing")
        return self.system_step()

    def close_declaring(self) -> list[Event]:
        """Close the declaring window after the last card (the system step then)."""
        require(self.phase is Phase.DECLARING, "the deal is not finished", "not_declaring")
        return self.system_step()

    # --- timeouts and escapes --------------------------------------------------------------------

    def timeout(self) -> list[Event]:
        """The seat to act ran out of time: a strike, and its default move (the lowest allowed
        play); the ``timeouts_to_escape``-th consecutive strike is an escape instead.

        While dealing nobody is to act, so there is no timeout (the default there is to pass).
        """
        require(self.to_act is not None, "nobody is to act, so nothing can time out", "no_turn")
        seat = self.to_act
        self.history.append((seat, "timeout"))
        self.strikes[seat] += 1
        strike = Event("timed_out", {"seat": seat, "strikes": self.strikes[seat]})
        if self.strikes[seat] >= self.rules.timeouts_to_escape:
            return [strike, *self._escape(seat, "timeouts")]
        return [strike, *self._play(seat, self.allowed(seat)[0])]

    def leave(self, seat: int) -> list[Event]:
        """``seat`` leaves the hand (or its reconnect window ran out): an escape (逃跑).

        Decision: the spec makes leaving mid-hand an escape and names no exception, so this
        holds during the deal too (with 0 points then).
        """
        self._verify_seat(seat)
        self.history.append((seat, "leave"))
        return self._escape(seat, "left")

    # --- what the moves do ------------------------------------------------------------------------

    def _deal_done(self) -> list[Event]:
        self.phase = Phase.DECLARING
        return [Event("deal_done", {"declare_window": self.rules.declare_window})]

    def _declare(self, seat: int, cards: Sequence[Card]) -> list[Event]:
        rank = declaration_rank(cards)
        assert rank is not None
        self.declarations.append((seat, rank))
        trump = declared_trump(cards)
        return [Event("declared", {"seat": seat, "cards": format_cards(cards), "trump": trump})]

    def _close_declaring(self) -> list[Event]:
        standing = self.declaration
        if standing is None:
            return self._redeal()  # nobody declared: a new shuffle, the same first receiver
        seat, rank = standing
        self.trump = declared_trump(declaration_cards(rank))
        self.declarer = seat
        self.phase = Phase.PLAYING
        self.to_act = seat
        self.turn_number += 1
        closed = Event("declaring_closed", {"declarer": seat, "trump": self.trump})
        return [closed, Event("turn", {"seat": seat, "leader": True})]

    def _play(self, seat: int, play: Sequence[Card]) -> list[Event]:
        play = tuple(sorted(play))
        for card in play:
            self.hands[seat].remove(card)
        self.trick.append((seat, play))
        self._allowed.clear()
        self._allowed_sets.clear()
        events = [Event("played", {"seat": seat, "cards": format_cards(play)})]
        if len(self.trick) < SEATS:
            self.to_act = (seat + 1) % SEATS
            self.turn_number += 1
            return events + [Event("turn", {"seat": self.to_act, "leader": False})]
        plays = [cards for _, cards in self.trick]
        winner = self.trick[trick_winner(plays, self.trump_order)][0]
        won = [card for cards in plays for card in cards if POINTS[card]]
        self.point_cards[winner].extend(sorted(won))
        self.tricks_won[winner] += 1
        self.previous_trick = self.trick
        self.trick = []
        self.last_trick_winner = winner
        events.append(Event("trick_won", {"seat": winner, "points": sum(POINTS[c] for c in won), "total": self.points[winner]}))
        if not self.hands[winner]:
            return events + self._finish(hand_results(self.points), "played", None)
        self.to_act = winner
        self.turn_number += 1
        return events + [Event("turn", {"seat": winner, "leader": True})]

    def _escape(self, seat: int, reason: str) -> list[Event]:
        results = escape_results(self.points, seat)
        return [Event("escaped", {"seat": seat, "reason": reason})] + self._finish(results, "escape", seat)

    def _finish(self, results: list[int], how: str, escaper: int | None) -> list[Event]:
        settled = settle_results(results, self.rules.coins_per_5, self.rules.fee_rate, held=self.coins)
        lines: list[LedgerLine] = []
        for seat in range(SEATS):
            if settled.paid[seat]:
                # The ledger's words: what a result costs is a stake, what it brings a pot.
                lines.append(LedgerLine(seat, -settled.paid[seat], "escape_penalty" if seat == escaper else "stake"))
            if settled.received[seat]:
                lines.append(LedgerLine(seat, settled.received[seat], "pot"))
            if settled.fees[seat]:
                lines.append(LedgerLine(seat, -settled.fees[seat], "fee"))
        next_first = self.last_trick_winner if self.last_trick_winner is not None else self.first_receiver
        self.phase = Phase.OVER
        self.to_act = None
        self._allowed.clear()
        self._allowed_sets.clear()
        self.result = Settlement(
            coins=settled.coins,
            lines=tuple(lines),
            fee=settled.house,
            scores=tuple(results),
            winners=tuple(seat for seat in range(SEATS) if results[seat] > 0),
            details={
                "how": how,
                "escaper": escaper,
                "points": self.points,
                "results": list(results),
                "fees": list(settled.fees),
                "leftover": settled.leftover,
                "trump": self.trump,
                "declarer": self.declarer,
                "next_first_receiver": next_first,
            },
        )
        over = Event(
            "hand_over",
            {"how": how, "escaper": escaper, "points": self.points, "results": list(results),
             "coins": list(settled.coins), "fees": list(settled.fees)},
        )
        return [over, Event("reveal", self._reveal())]

    # --- what a seat sees ---------------------------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` (``None``: a spectator) may know now, as JSON-ready data.

        Other hands, the deck order and the seed appear only once the hand is over.
        """
        if seat is not None and not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < SEATS):
            raise ValueError(f"there is no seat {seat!r} at a 混战 table")
        standing = self.declaration
        players = [
            {
                "seat": s,
                "cards": format_cards(self.hands[s]) if (s == seat or self.is_over) else None,
                "card_count": len(self.hands[s]),
                "points": sum(POINTS[c] for c in self.point_cards[s]),
                "point_cards": format_cards(self.point_cards[s]),
                "tricks_won": self.tricks_won[s],
                "strikes": self.strikes[s],
            }
            for s in range(SEATS)
        ]
        return {
            "game": self.GAME,
            "seat": seat,
            "phase": str(self.phase),
            "first_receiver": self.first_receiver,
            "deal": len(self.orders) - 1,
            "dealt": self.dealt,
            "commitment": self.commitment,
            "declarations": [
                {"seat": s, "cards": DECLARATIONS[rank]} for s, rank in self.declarations
            ],
            "declaration": None if standing is None else {"seat": standing[0], "cards": DECLARATIONS[standing[1]]},
            "trump": self.trump,
            "no_trump": self.phase in (Phase.PLAYING, Phase.OVER) and self.declarer is not None and self.trump is None,
            "declarer": self.declarer,
            "to_act": self.to_act,
            "turn_number": self.turn_number,
            "pending_system_step": self.pending_system_step,
            "trick": [{"seat": s, "cards": format_cards(cards)} for s, cards in self.trick],
            "previous_trick": [{"seat": s, "cards": format_cards(cards)} for s, cards in self.previous_trick],
            "last_trick_winner": self.last_trick_winner,
            "players": players,
            "legal_actions": [] if seat is None else [str(a) for a in self.legal_actions(seat)],
            "result": None if self.result is None else self.result.to_dict(),
            "reveal": self._reveal() if self.is_over else None,
        }

    # --- serialisation -----------------------------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "coins": list(self.coins),
            "first_receiver": self.first_receiver,
            "seed": self.seed.hex(),
            "orders": [format_cards(order) for order in self.orders],
            "dealt": self.dealt,
            "hands": [format_cards(cards) for cards in self.hands],
            "declarations": [list(entry) for entry in self.declarations],
            "phase": str(self.phase),
            "trump": self.trump,
            "declarer": self.declarer,
            "to_act": self.to_act,
            "turn_number": self.turn_number,
            "trick": [[s, format_cards(cards)] for s, cards in self.trick],
            "previous_trick": [[s, format_cards(cards)] for s, cards in self.previous_trick],
            "tricks_won": list(self.tricks_won),
            "point_cards": [format_cards(cards) for cards in self.point_cards],
            "strikes": list(self.strikes),
            "last_trick_winner": self.last_trick_winner,
            "history": [list(entry) for entry in self.history],
            "result": None if self.result is None else self.result.to_dict(),
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Hand:
        try:
            hand = cls(Rules.from_dict(data["rules"]), data["coins"], data["first_receiver"], bytes.fromhex(data["seed"]))
            hand.orders = [tuple(parse_cards(text)) for text in data["orders"]]
            hand.dealt = data["dealt"]
            hand.hands = [parse_cards(text) for text in data["hands"]]
            hand.declarations = [(s, rank) for s, rank in data["declarations"]]
            hand.phase = Phase(data["phase"])
            hand.trump = data["trump"]
            hand.declarer = data["declarer"]
            hand.to_act = data["to_act"]
            hand.turn_number = data["turn_number"]
            hand.trick = [(s, tuple(parse_cards(text))) for s, text in data["trick"]]
            hand.previous_trick = [(s, tuple(parse_cards(text))) for s, text in data["previous_trick"]]
            hand.tricks_won = list(data["tricks_won"])
            hand.point_cards = [parse_cards(text) for text in data["point_cards"]]
            hand.strikes = list(data["strikes"])
            hand.last_trick_winner = data["last_trick_winner"]
            hand.history = [(s, text) for s, text in data["history"]]
            hand.result = None if data["result"] is None else Settlement.from_dict(data["result"])
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"corrupt 混战 hand: {error!r}") from None
        return hand


def _needs(rank: int) -> dict[Card, int]:
    needs: dict[Card, int] = {}
    for card in declaration_cards(rank):
        needs[card] = needs.get(card, 0) + 1
    return needs


def _why_not(play: Play, trick: Sequence[tuple[int, Play]]) -> str:
    if not trick:
        return f"{format_cards(play)} is not a single, a pair or a tractor"
    return (
        f"{format_cards(play)} may not follow {format_cards(trick[0][1])} now: follow suit, "
        "pairs and tractors; take points when you can; never feed points when you need not"
    )


class Game(BaseGame[Hand]):
    """Starts and loads 混战 hands under one set of rules. ``new_hand``'s ``dealer`` is the
    first receiver (random in a table's first hand, then ``result.details["next_first_receiver"]``);
    ``deck`` fixes only the first deal's order: redeals shuffle from :func:`deal_seed`."""

    RULES = Rules
    HAND = Hand

"""What a 炒地皮 hand holds, whatever its phase: the state every phase module reads and
changes (:class:`HandData`), the facts derived from it (the standing declaration, the robs,
the attackers' points), and its exact serialisation. The phases' rules live beside it:
:mod:`.hand_declaring`, :mod:`.hand_kitty`, :mod:`.hand_tricks`, :mod:`.hand_ending`; what a
seat sees in :mod:`.hand_view`; :mod:`.hand` puts them together as :class:`~.hand.Hand`.
"""

from __future__ import annotations

import enum
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Self

from paiju.cards import (
    Card,
    double_deck_with_jokers,
    format_cards,
    parse_cards,
)
from paiju.games import dealing
from paiju.games.chaodipi.actions import Action, Rules
from paiju.games.chaodipi.levels import SEATS, MatchState, side_of
from paiju.games.chaodipi.play import Context
from paiju.games.chaodipi.scoring import (
    POINTS,
    AttackerPoints,
    Side,
    failed_rob_points,
    failed_throw_points,
    red_five_points,
)
from paiju.games.dealing import PacedDealHand
from paiju.games.engine import (
    Event,
    IllegalAction,
    Settlement,
    recorded_start,
)

DECK_SIZE = 108


class Phase(enum.StrEnum):
    DEALING = dealing.DEALING
    DECLARING = dealing.DECLARING  # every card dealt; the closing window is open
    BURYING = "burying"
    ROBBING = "robbing"
    PLAYING = "playing"
    OVER = "over"


class HandData(PacedDealHand):
    """One hand of 炒地皮 as data: seats 0..3, 0+2 against 1+3; seat ``s+1 mod 4`` plays after ``s``.

    Each phase module adds its rules to this state as a class of its own; one phase's step hands
    on to the next through ``self`` (the deal's end starts the declaring window, its close takes
    the kitty, the last pass starts play, the last trick ends the hand), since
    :class:`~paiju.games.chaodipi.hand.Hand` puts them all together.
    """

    GAME = "chaodipi"
    ACTION = Action
    full_deck = staticmethod(double_deck_with_jokers)

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

    def _new_deal(self, order: tuple[Card, ...]) -> None:
        self.orders.append(order)
        self.dealt = 0
        self.hands = [[] for _ in range(SEATS)]
        self.kitty = list(order[self.deal_size :])
        self.declarations = []
        self.phase = Phase.DEALING

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
                points_in(cards)
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

    def _verify_seat(self, seat: int) -> None:
        if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < SEATS):
            raise IllegalAction(f"there is no seat {seat!r} at a 炒地皮 table", "bad_seat")
        if self.phase is Phase.OVER:
            raise IllegalAction("the hand is over", "hand_over")

    def _held(self, seat: int, cards: Sequence[Card]) -> bool:
        held = Counter(self.hands[seat])
        return all(held[card] >= count for card, count in Counter(cards).items())

    def _turn(self, seat: int, **data: Any) -> Event:
        self.to_act = seat
        self.turn_number += 1
        self._listed.clear()
        return Event("turn", {"seat": seat, "phase": str(self.phase), **data})

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
    def from_data(cls, data: Mapping[str, Any]) -> Self:
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


@lru_cache(maxsize=64)
def _rules_data(rules: Rules) -> dict[str, Any]:
    """The rules as plain data, cached (every saved state carries them; never mutated)."""
    return rules.to_dict()


_RULES_READ: dict[str, Rules] = {}
"""Rules read back from saved hands, by their data (a table loads its hand on every move)."""


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


def shown_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A declaration as everyone sees it once shown."""
    return {key: entry[key] for key in ("seat", "stage", "kind", "cards", "trump", "effective")}


def points_in(cards: Sequence[Card]) -> int:
    """The card points among ``cards``."""
    return sum([POINTS[card] for card in cards])


def private_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A blind declaration as its maker sees it: whether it took effect stays hidden."""
    return {key: entry[key] for key in ("seat", "stage", "kind", "cards", "trump")}


def points_data(points: AttackerPoints) -> dict[str, int]:
    """The attackers' points by source, as plain data (views, the settlement's details)."""
    return {
        "tricks": points.tricks,
        "dig": points.dig,
        "red_fives": points.red_fives,
        "failed_throws": points.failed_throws,
        "failed_robs": points.failed_robs,
        "total": points.total,
        "counted": points.counted,
    }


"""The attackers' points and what they make of a hand (``spec/chaodipi.md`` §6, §7 table).

The trick engine decides who won which trick; these functions turn its findings into points:
the point cards, the kitty dig (抠底 × 2 / × 4), 逼红5 and 保红5, failed throws and failed
blind robs, 上天入地, and finally the level change of the table in §7.

>>> level_change(points=35)
{'winner': 'banker', 'levels': 2, 'score': 2, 'name': '小光'}
>>> level_change(points=245)
{'winner': 'attackers', 'levels': 4, 'score': 4, 'name': None}
>>> card_points("5H TS KD KD 9C")
35
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypedDict

from paiju.cards import ALL_CARDS, Card, parse_cards
from paiju.games.chaodipi.variants import LEVEL_RANKS, VariantRules

TOTAL_POINTS = 200
"""The point cards of two decks: 8 fives, 8 tens and 8 kings."""

POINT_VALUES: dict[int, int] = {5: 5, 10: 10, 13: 10}
"""Points per card rank (``Card.rank``): 5 → 5, 10 → 10, K → 10."""

RED_FIVE = parse_cards("5H")[0]


class Side(enum.StrEnum):
    BANKER = "banker"
    """庄家方: the banker and partner."""
    ATTACKERS = "attackers"
    """抓分方."""

    @property
    def other(self) -> Side:
        return Side.ATTACKERS if self is Side.BANKER else Side.BANKER


class SweepName(enum.StrEnum):
    """The names of the banker side's three holding results (大光 / 小光 / 保庄)."""

    BIG_SWEEP = "大光"
    SMALL_SWEEP = "小光"
    HOLD = "保庄"


class LevelChangeDict(TypedDict):
    winner: str
    levels: int
    score: int
    name: str | None


CardsLike = str | Iterable[Card | str]


def _cards(cards: CardsLike) -> list[Card]:
    return parse_cards(cards)


def card_points(cards: CardsLike) -> int:
    """The points in ``cards`` (5 = 5, 10 = 10, K = 10).

    >>> card_points(""), card_points(["KS", "KS", "5D"])
    (0, 25)
    """
    return sum(POINT_VALUES.get(card.rank, 0) for card in _cards(cards))


POINTS: tuple[int, ...] = tuple(card_points([card]) for card in ALL_CARDS)
"""Points per card code: 5 → 5, 10 and K → 10."""


def _check_points(points: int) -> None:
    if isinstance(points, bool) or not isinstance(points, int):
        raise TypeError(f"points are a whole number, not {points!r}")
    if points % 5:
        raise ValueError(f"points come in fives (5, 10, K and penalties), not {points}")


def level_change(points: int, *, take_bank_at: int = 80, level_step: int = 40) -> LevelChangeDict:
    """What the attackers' final ``points`` make of the hand (§7), before any variant limit.

    ``winner`` is ``"banker"`` or ``"attackers"``; ``levels`` the levels the winners go up (0
    when the attackers just take the bank); ``score`` the 积分 each winner gains and each loser
    loses; ``name`` the banker side's result name, ``None`` when the attackers win. Points
    below 0 count as 0. ``take_bank_at`` is 100 in a flag hand.

    >>> [level_change(points=p)["levels"] for p in (0, 5, 35, 40, 75, 80, 115, 120, 160, 200, 240)]
    [3, 2, 2, 1, 1, 0, 0, 1, 2, 3, 4]
    >>> level_change(points=-80)["name"], level_change(points=75)["name"], level_change(points=80)
    ('大光', '保庄', {'winner': 'attackers', 'levels': 0, 'score': 1, 'name': None})
    >>> level_change(points=95, take_bank_at=100)["name"]
    '保庄'
    >>> level_change(points=7)
    Traceback (most recent call last):
    ...
    ValueError: points come in fives (5, 10, K and penalties), not 7
    """
    _check_points(points)
    if take_bank_at < 1 or level_step < 1:
        raise ValueError("take_bank_at and level_step are positive")
    counted = max(0, points)
    if counted < take_bank_at:
        # Decision (spec §7): the usual 升级 table. In a flag hand (take_bank_at 100) the
        # banker side's bands stay 0 / below 40 / below the threshold.
        if counted == 0:
            return {"winner": "banker", "levels": 3, "score": 3, "name": str(SweepName.BIG_SWEEP)}
        if counted < level_step:
            return {"winner": "banker", "levels": 2, "score": 2, "name": str(SweepName.SMALL_SWEEP)}
        return {"winner": "banker", "levels": 1, "score": 1, "name": str(SweepName.HOLD)}
    levels = (counted - take_bank_at) // level_step
    # Decision: "3+" in the table — from 200 on, the score follows the levels (240 → 4).
    return {"winner": "attackers", "levels": levels, "score": max(1, levels), "name": None}


def dig_points(kitty: CardsLike, winning_play: CardsLike, rules: VariantRules) -> int:
    """抠底: what the kitty adds when the attackers win the last trick with ``winning_play``.

    × 2 when the winning play is singles only, × 4 when it holds a pair or a tractor.
    Decision: "holds a pair" means two identical cards in the play, whatever the lead was.

    >>> rules = VariantRules()
    >>> dig_points("KS 5D 3C 3C 4H 6H 7H 8H", "AS", rules), dig_points("KS 5D", "9S 9S", rules)
    (30, 60)
    """
    play = _cards(winning_play)
    if not play:
        raise ValueError("the winning play of the last trick has cards")
    has_pair = len(set(play)) < len(play)
    multiplier = rules.dig_pair_multiplier if has_pair else rules.dig_single_multiplier
    return card_points(kitty) * multiplier


def _signed(side: Side | str, amount: int) -> int:
    """Points for the attackers when ``side`` is hurt by ``amount``: −amount for the attackers,
    +amount for the banker side (the banker side's penalties are the attackers' gains)."""
    return -amount if Side(side) is Side.ATTACKERS else amount


def failed_throw_points(thrower: Side | str, cards: int, rules: VariantRules) -> int:
    """甩错牌: each card of the attempted throw counts ``throw_penalty_per_card`` against the
    thrower's side: banker side → attackers +10 a card; attackers → −10 a card.

    >>> failed_throw_points("banker", 3, VariantRules()), failed_throw_points("attackers", 4, VariantRules())
    (30, -40)
    """
    if cards < 2:
        raise ValueError(f"a throw has at least two cards, not {cards}")
    return _signed(thrower, cards * rules.throw_penalty_per_card)


def failed_rob_points(robber: Side | str, rules: VariantRules) -> int:
    """暗炒 抄底失败: banker side → attackers +80; attackers → −80.

    >>> failed_rob_points("attackers", VariantRules())
    -80
    """
    return _signed(robber, rules.failed_rob_points)


def forced_red_fives(play: CardsLike, legal_plays: Sequence[CardsLike]) -> int:
    """逼红5: how many 5♥ of a follow were forced out.

    Decision (spec §6): a 5♥ is forced when the follower had no legal play without it; with a
    pair of 5♥ in ``play``, as many are forced as the legal play with the fewest 5♥ holds.
    ``legal_plays`` are every legal follow the player had (a lead is never forced: pass none).

    >>> forced_red_fives("5H", ["5H"]), forced_red_fives("5H", ["5H", "9C"])
    (1, 0)
    >>> forced_red_fives("5H 5H", ["5H 5H", "5H 9H"]), forced_red_fives("5H 5H", [])
    (1, 0)
    """
    played = _cards(play).count(RED_FIVE)
    if not legal_plays or played == 0:
        return 0
    fewest = min(_cards(option).count(RED_FIVE) for option in legal_plays)
    return min(played, fewest)


def red_five_points(
    rules: VariantRules,
    *,
    forced: Iterable[Side | str] = (),
    saved: Iterable[Side | str] = (),
) -> int:
    """The attackers' points from 逼红5/保红5 (zero where the variant does not score them).

    ``forced`` names the side of every forced 5♥ (one entry a card): −50 for the attackers'
    own, +50 for the banker side's. ``saved`` names the side of every saved 5♥: +50 for the
    attackers, −50 for the banker side.

    >>> rules = VariantRules(red_five_bonuses=True)
    >>> red_five_points(rules, forced=["attackers", "banker", "banker"], saved=["attackers"])
    100
    >>> red_five_points(VariantRules(), forced=["attackers"])
    0
    """
    if not rules.red_five_bonuses:
        return 0
    total = sum(_signed(side, rules.red_five_points) for side in forced)
    return total - sum(_signed(side, rules.red_five_points) for side in saved)


def saved_red_fives(last_play: CardsLike, won_second_to_last: bool) -> int:
    """保红5: how many 5♥ a player saved: their play in the last trick is a single 5♥ or a pair
    of them, and they won the second-to-last trick.

    >>> saved_red_fives("5H 5H", True), saved_red_fives("5H", False), saved_red_fives("5H 9H", True)
    (2, 0, 0)
    """
    play = _cards(last_play)
    if won_second_to_last and play and all(card == RED_FIVE for card in play) and len(play) <= 2:
        return len(play)
    return 0


def five_ten_king_suits(
    cards: CardsLike, *, level: str, trump: str | None, rules: VariantRules
) -> set[str]:
    """The suits of which ``cards`` hold a 5, a 10 and a K that may form a 5-10-K (五十K).

    Decision (spec §4): none of them may be a level card. 5♥ counts for hearts when hearts is
    the trump suit, and for plain hearts only where ``plain_hearts_five_ten_king`` allows.

    >>> yangzhou, nantong = VariantRules(), VariantRules(plain_hearts_five_ten_king=True)
    >>> sorted(five_ten_king_suits("5S TS KS 5H TH KH", level="2", trump=None, rules=yangzhou))
    ['S']
    >>> sorted(five_ten_king_suits("5S TS KS 5H TH KH", level="2", trump=None, rules=nantong))
    ['H', 'S']
    >>> sorted(five_ten_king_suits("5H TH KH", level="2", trump="H", rules=VariantRules()))
    ['H']
    >>> five_ten_king_suits("5S TS KS", level="T", trump="S", rules=VariantRules())
    set()
    """
    level_rank = _level_rank_number(level)
    found: set[str] = set()
    ranks_by_suit: dict[str, set[int]] = {}
    for card in _cards(cards):
        if card.suit is None or card.rank == level_rank:
            continue
        if card == RED_FIVE and trump != "H" and not rules.plain_hearts_five_ten_king:
            continue
        ranks_by_suit.setdefault(card.suit, set()).add(card.rank)
    for suit, ranks in ranks_by_suit.items():
        if {5, 10, 13} <= ranks:
            found.add(suit)
    return found


def is_heaven_and_earth(
    winning_play: CardsLike,
    winner: Side | str,
    *,
    level: str,
    trump: str | None,
    rules: VariantRules,
) -> bool:
    """上天入地: does the play that won the last trick carry a same-suit 5-10-K that counts?

    ``heaven_and_earth_exact`` (盐城): exactly one 5, one 10 and one K of a suit, by either
    side where ``heaven_and_earth_guard`` allows. Otherwise: the attackers' winning play
    contains a 5-10-K.

    >>> yancheng, yangzhou = VariantRules(heaven_and_earth_exact=True, heaven_and_earth_guard=True), VariantRules()
    >>> is_heaven_and_earth("5S TS KS", "banker", level="2", trump="S", rules=yancheng)
    True
    >>> is_heaven_and_earth("5S TS KS 9S", "attackers", level="2", trump="S", rules=yancheng)
    False
    >>> is_heaven_and_earth("5S TS KS 9S", "attackers", level="2", trump="S", rules=yangzhou)
    True
    >>> is_heaven_and_earth("5S TS KS", "banker", level="2", trump="S", rules=yangzhou)
    False
    """
    side = Side(winner)
    if side is Side.BANKER and not rules.heaven_and_earth_guard:
        return False
    play = _cards(winning_play)
    suits = five_ten_king_suits(play, level=level, trump=trump, rules=rules)
    if not suits:
        return False
    if rules.heaven_and_earth_exact:
        return len(play) == 3
    return True


def _level_rank_number(level: str) -> int:
    text = "T" if level == "10" else level
    if len(text) != 1 or text not in LEVEL_RANKS:
        raise ValueError(f"bad level rank {level!r}: one of 2 3 4 5 6 7 8 9 T J Q K A")
    return LEVEL_RANKS.index(text) + 2


@dataclass(frozen=True, slots=True)
class AttackerPoints:
    """The attackers' points of a hand, by source, as the settlement table shows them.

    >>> tally = AttackerPoints(tricks=60, dig=40, failed_robs=-80)
    >>> tally.total, tally.counted
    (20, 20)
    >>> AttackerPoints(tricks=10, red_fives=-50).counted
    0
    """

    tricks: int = 0
    """Point cards in the tricks the attackers won."""
    dig: int = 0
    """抠底: the kitty's points × 2 or × 4."""
    red_fives: int = 0
    """逼红5 and 保红5."""
    failed_throws: int = 0
    """甩错牌 penalties."""
    failed_robs: int = 0
    """暗炒 抄底失败 penalties."""

    @property
    def total(self) -> int:
        """The sum, which may be below 0."""
        return self.tricks + self.dig + self.red_fives + self.failed_throws + self.failed_robs

    @property
    def counted(self) -> int:
        """What §7 counts: the total, and 0 when it is below 0."""
        return max(0, self.total)

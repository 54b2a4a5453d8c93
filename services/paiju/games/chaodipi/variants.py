"""The four regional variants of 炒地皮 as data (``spec/chaodipi.md``, table at the top).

Every difference between the variants is a named option of :class:`VariantRules`, with the
spec's value as the variant's default; code reads options and never asks which variant it is.
Options the trick-play engine needs (tractors, 5-10-K, throws) live here too, so one object
describes a table.

>>> rules = variant_rules("yancheng")
>>> rules.laps, rules.blind_declaring, rules.heaven_and_earth_score
(3, True, 16)
>>> variant_rules("南通").must_play_ranks, variant_rules("yangzhong").trump_five_ten_king_forces
(('J', 'K'), False)
>>> variant_rules("yangzhou", flag_hand_take_bank_at=120).flag_hand_take_bank_at
120
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

LEVEL_RANKS: str = "23456789TJQKA"
"""The level ranks in order, in card notation (``T`` is the 10)."""


class Declaration(enum.StrEnum):
    """What a declaration (亮主/反主/抄底) shows. A single level card ranks below every pair."""

    SINGLE = "single"
    """One level-rank card (亮主 only; any pair beats it)."""
    CLUBS_PAIR = "clubs_pair"
    DIAMONDS_PAIR = "diamonds_pair"
    SPADES_PAIR = "spades_pair"
    HEARTS_PAIR = "hearts_pair"
    SMALL_JOKER_PAIR = "small_joker_pair"
    BIG_JOKER_PAIR = "big_joker_pair"
    RED_FIVE_PAIR = "red_five_pair"
    LOOK_BACK = "look_back"
    """回头望: the pair of a single the declarer showed earlier, shown after being overridden."""


_C, _D, _S, _H = (
    Declaration.CLUBS_PAIR,
    Declaration.DIAMONDS_PAIR,
    Declaration.SPADES_PAIR,
    Declaration.HEARTS_PAIR,
)
_TOP = (Declaration.SMALL_JOKER_PAIR, Declaration.BIG_JOKER_PAIR, Declaration.RED_FIVE_PAIR)


@dataclass(frozen=True, slots=True)
class VariantRules:
    """The rule options of one table, each documented with the spec's rule it encodes.

    Build one with :func:`variant_rules`; ``VariantRules()`` alone is the 扬州/镇江 rule set.

    >>> VariantRules() == variant_rules("yangzhou")
    True
    """

    name: str = "yangzhou"
    """The variant id this object was built from (for logs and views; code reads the options)."""

    # --- dealing -------------------------------------------------------------------------
    hand_size: int = 25
    kitty_size: int = 8
    flag_hand_size: int = 27
    """扛旗: the flag hand keeps no kitty, so each player gets 27 cards."""

    # --- declaring (亮主, 反主, 抄底) ---------------------------------------------------------
    declaration_order: tuple[Declaration, ...] = (_D, _C, _H, _S, *_TOP)
    """The pairs that may override, low to high (反主级别). A single is below all of them."""
    look_back: bool = False
    """回头望 is allowed (it is then the last, highest entry of ``declaration_order``)."""
    blind_declaring: bool = False
    """暗炒: declarations, overrides and robs stay hidden until robbing ends."""
    failed_rob_points: int = 80
    """暗炒: a rob that did not outrank the declaration before it costs (attackers) or gives
    (banker side) the attackers this many points."""

    # --- shapes and play (read by the trick engine) ---------------------------------------
    joker_tractor: bool = True
    """``SJ SJ BJ BJ`` is a tractor (一对大王和一对小王算做连对)."""
    red_five_pair_in_tractor: bool = False
    """A pair of 5♥ never joins a tractor (红桃5对不能与其他对形成连对)."""
    level_pair_in_plain_tractor: bool = False
    """Level cards are trumps, so never part of a plain tractor (级牌对不能形成副牌的连对)."""
    plain_tractor_skips_level: bool = True
    """In plain suits the level rank is skipped: with level 7, ``66 88`` is a tractor."""
    ace_high_tractor: bool = True
    """``KK AA`` is a tractor with the A on top."""
    ace_low_tractor: bool = True
    """``AA 22`` is a tractor, the A counting as 1 (its top pair is the 22)."""
    ace_wraps_tractor: bool = False
    """``KK AA 22`` is never a tractor: A is high or low, not both."""
    plain_hearts_five_ten_king: bool = False
    """With hearts plain, 5♥ may form a plain hearts 5-10-K (红桃为副牌时，红桃5可以形成五十K)."""
    trump_five_ten_king_forces: bool = True
    """A led trump 5-10-K forces a holder of the trump 5-10-K to play it, others their highest
    trumps (扬中: 主花色的5、10、K不逼大牌, follow normally)."""
    throw_penalty_per_card: int = 10
    """甩错牌: each card of a failed throw is worth this many points against the thrower's side."""

    # --- points (§6) -----------------------------------------------------------------------
    dig_single_multiplier: int = 2
    """抠底 with a winning play of singles only: the kitty's points count this many times."""
    dig_pair_multiplier: int = 4
    """抠底 with a winning play holding a pair or tractor."""
    red_five_bonuses: bool = False
    """逼红5 and 保红5 are scored."""
    red_five_points: int = 50
    """逼红5/保红5: points per 5♥."""
    heaven_and_earth_exact: bool = False
    """上天入地 needs a winning last play of exactly one 5, one 10 and one K of a suit (盐城);
    otherwise any winning last play that contains a same-suit 5-10-K."""
    heaven_and_earth_guard: bool = False
    """上天入地 also by the banker side winning the last trick (保底), not only by the
    attackers digging (抠底)."""
    heaven_and_earth_score: int = 16
    """The 积分 reward of 上天入地 (or the normal reward if larger)."""

    # --- levels and the match (§7) ---------------------------------------------------------
    take_bank_at: int = 80
    """The attackers take the bank (上台) with at least this many points."""
    level_step: int = 40
    """Every further ``level_step`` points is one more level for the winners."""
    laps: int = 1
    """A match is this many laps of 2 → A (盐城: 每轮比赛打三圈). A gain past A wraps into the
    next lap, except in the last lap, where A must be played."""
    must_play_ranks: tuple[str, ...] = ()
    """Level ranks a gain stops at, in every lap (南通: J、K必打). A in the last lap always is."""
    flag_hand: bool = True
    """扛旗: winning as banker at the last A leads to a flag hand instead of winning the match."""
    flag_hand_take_bank_at: int = 100
    """In the flag hand the attackers need this many points to take the bank."""
    jack_to_bottom: bool = False
    """J到底: digging with the top J at level J (or a pair of A at level A) and at least
    ``take_bank_at`` points drops the banker side to 2 (from A: to J)."""

    # --- escapes (§8) ----------------------------------------------------------------------
    escape_penalty: int = 15
    """逃跑: the 积分 an escaper loses (exactly, or at least, by the case); coins: × base stake."""

    def __post_init__(self) -> None:
        order = self.declaration_order
        object.__setattr__(self, "declaration_order", tuple(Declaration(kind) for kind in order))
        object.__setattr__(
            self, "must_play_ranks", tuple(_rank(rank) for rank in self.must_play_ranks)
        )
        if Declaration.SINGLE in self.declaration_order:
            raise ValueError("declaration_order lists pairs; a single is below all of them")
        if len(set(self.declaration_order)) != len(self.declaration_order):
            raise ValueError("declaration_order names a declaration twice")
        if (Declaration.LOOK_BACK in self.declaration_order) != self.look_back:
            raise ValueError("look_back is allowed exactly when declaration_order ranks it")
        for name in ("hand_size", "kitty_size", "laps", "level_step", "take_bank_at"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} is at least 1, not {getattr(self, name)}")
        if self.flag_hand_take_bank_at < 1 or self.heaven_and_earth_score < 0:
            raise ValueError(
                "flag_hand_take_bank_at is positive and heaven_and_earth_score not negative"
            )
        if "A" in self.must_play_ranks:
            raise ValueError("A is always played in the last lap; must_play_ranks lists others")

    def declaration_strength(self, declaration: Declaration | str) -> int:
        """The declaration's place in this variant's order: a single is 0, pairs count up from 1.

        >>> rules = variant_rules("yancheng")
        >>> rules.declaration_strength("clubs_pair") < rules.declaration_strength("diamonds_pair")
        True
        >>> variant_rules("yangzhou").declaration_strength("look_back")
        Traceback (most recent call last):
        ...
        ValueError: yangzhou does not allow look_back
        """
        kind = Declaration(declaration)
        if kind is Declaration.SINGLE:
            return 0
        if kind not in self.declaration_order:
            raise ValueError(f"{self.name} does not allow {kind}")
        return 1 + self.declaration_order.index(kind)

    def outranks(self, new: Declaration | str, standing: Declaration | str | None) -> bool:
        """Whether ``new`` overrides ``standing`` (``None``: nothing declared yet).

        A first declaration may be a single or any pair; an override or a rob must be a pair
        ranking strictly higher.

        >>> rules = variant_rules("nantong")
        >>> rules.outranks("single", None), rules.outranks("single", "single")
        (True, False)
        >>> rules.outranks("look_back", "red_five_pair"), rules.outranks("hearts_pair", "spades_pair")
        (True, False)
        """
        if standing is None:
            self.declaration_strength(new)
            return True
        if Declaration(new) is Declaration.SINGLE:
            return False
        return self.declaration_strength(new) > self.declaration_strength(standing)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["declaration_order"] = [str(kind) for kind in self.declaration_order]
        data["must_play_ranks"] = list(self.must_play_ranks)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> VariantRules:
        """Rules from plain data: ``variant`` (or ``name``) picks the variant, the rest override.

        >>> VariantRules.from_dict({"variant": "yancheng", "laps": 2}).laps
        2
        >>> VariantRules.from_dict(variant_rules("nantong").to_dict()) == variant_rules("nantong")
        True
        """
        options = dict(data)
        name = options.pop("variant", None) or options.pop("name", None) or "yangzhou"
        options.pop("name", None)
        return variant_rules(name, **options)


def _rank(rank: str) -> str:
    text = "T" if rank == "10" else str(rank).upper()
    if len(text) != 1 or text not in LEVEL_RANKS:
        raise ValueError(f"bad level rank {rank!r}: one of 2 3 4 5 6 7 8 9 T J Q K A")
    return text


_LOOK_BACK_ORDER_YANCHENG = (_C, _D, _S, _H, *_TOP, Declaration.LOOK_BACK)

VARIANTS: Mapping[str, VariantRules] = {
    "yancheng": VariantRules(
        name="yancheng",
        declaration_order=_LOOK_BACK_ORDER_YANCHENG,
        look_back=True,
        blind_declaring=True,
        plain_tractor_skips_level=False,
        plain_hearts_five_ten_king=True,
        red_five_bonuses=True,
        laps=3,
        flag_hand=False,
        heaven_and_earth_exact=True,
        heaven_and_earth_guard=True,
    ),
    "yangzhou": VariantRules(name="yangzhou"),
    "yangzhong": VariantRules(name="yangzhong", trump_five_ten_king_forces=False),
    "nantong": VariantRules(
        name="nantong",
        declaration_order=(_D, _C, _H, _S, *_TOP, Declaration.LOOK_BACK),
        look_back=True,
        plain_tractor_skips_level=False,
        plain_hearts_five_ten_king=True,
        must_play_ranks=("J", "K"),
        flag_hand=False,
        jack_to_bottom=True,
        heaven_and_earth_score=13,
    ),
}
"""The spec's four variants, by id."""

ALIASES: Mapping[str, str] = {
    "盐城": "yancheng",
    "扬州": "yangzhou",
    "镇江": "yangzhou",
    "zhenjiang": "yangzhou",
    "扬中": "yangzhong",
    "南通": "nantong",
    "连云港": "nantong",
    "lianyungang": "nantong",
}

_FIELD_NAMES = frozenset(field.name for field in fields(VariantRules))


def variant_rules(name: str, **overrides: Any) -> VariantRules:
    """The rules of variant ``name`` (an id, or the region's name), with options overridden.

    >>> variant_rules("镇江").name
    'yangzhou'
    >>> variant_rules("beijing")
    Traceback (most recent call last):
    ...
    ValueError: unknown 炒地皮 variant 'beijing': one of yancheng, yangzhou, yangzhong, nantong
    >>> variant_rules("nantong", laps=0)
    Traceback (most recent call last):
    ...
    ValueError: laps is at least 1, not 0
    """
    key = ALIASES.get(name, name)
    if key not in VARIANTS:
        raise ValueError(f"unknown 炒地皮 variant {name!r}: one of {', '.join(VARIANTS)}")
    unknown = set(overrides) - _FIELD_NAMES
    if unknown:
        raise ValueError(f"unknown 炒地皮 rule options: {sorted(unknown)}")
    if "name" in overrides and overrides["name"] != key:
        raise ValueError("override options, not the variant's name")
    return replace(VARIANTS[key], **overrides) if overrides else VARIANTS[key]

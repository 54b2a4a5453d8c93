"""The games the platform can run, and what a service needs to know of each.

Services reach a game only through this registry and the state-machine shape of
:mod:`paiju.games.engine`; adding a game means adding its module and one entry here.

>>> spec = game_spec("zhajinhua")
>>> spec.min_players, spec.max_players, [tier.name for tier in spec.tiers]
(2, 5, ['free', 'expert'])
>>> spec.tier("expert").min_coins
10100
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from paiju.games.engine import HandState
from paiju.games.levels import Levels
from paiju.quoting import quoted


class UnknownName(ValueError, LookupError):
    """A game or tier this server does not run (a ``LookupError``: services answer NOT_FOUND)."""


@dataclass(frozen=True, slots=True)
class Tier:
    """One room tier of a game: who may sit (``min_coins``) and its base stake."""

    name: str
    title: str
    min_coins: int
    base_stake: int


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A registered game: seats, tiers, and how to start and load its hands."""

    name: str
    title: str
    min_players: int
    max_players: int
    tiers: tuple[Tier, ...]
    start_hand: Callable[[Mapping[str, Any], list[int], int, bytes, Mapping[str, Any] | None], HandState]
    """``(rules, coins, dealer, seed, carry)`` -> a new hand; ``rules`` holds rule options by
    name, ``carry`` what the last hand at the same seats left for this one (炒地皮: the match)."""
    load_hand: Callable[[bytes], HandState]
    waits_for_disconnected: bool = False
    """Whether a disconnected player's turn timer stops until they are back (trick games) or
    runs on (炸金花: a timeout folds)."""
    strikes_to_escape: int | None = None
    """Consecutive timeouts after which the table makes a player escape; ``None`` where the
    engine needs no help (炸金花 folds on a timeout; 混战 counts its own strikes)."""
    tier_rules: Callable[[Tier], Mapping[str, Any]] = lambda tier: {}
    """The rule options a tier sets (混战: its coins per 5 points)."""
    bot: str = "random"
    """The name of the bot in :data:`paiju.client.bots.BOTS` that plays it best."""
    levels: Levels | None = None
    """The ladder of levels a balance reads as in this game (炸金花's coin levels, 炒地皮's
    fortune medals), which the wallet serves; None for a game without one."""

    def tier(self, name: str) -> Tier:
        for tier in self.tiers:
            if tier.name == name:
                return tier
        raise UnknownName(f"{self.name} has no tier {quoted(name)}: {', '.join(t.name for t in self.tiers)}")


def _zhajinhua() -> GameSpec:
    from paiju.games import zhajinhua
    from paiju.games.zhajinhua.rooms import LEVEL_THRESHOLDS

    def start_hand(rules: Mapping[str, Any], coins: list[int], dealer: int, seed: bytes, carry: Any) -> HandState:
        return zhajinhua.Game(zhajinhua.Rules.from_dict(rules)).new_hand(coins, dealer, seed)

    return GameSpec(
        name="zhajinhua",
        title="炸金花",
        min_players=2,
        max_players=5,
        tiers=tuple(
            Tier(room.tier.name, room.tier.title, room.tier.min_coins, room.tier.base_ante)
            for room in zhajinhua.Room
        ),
        start_hand=start_hand,
        load_hand=zhajinhua.Game.load,
        bot="sensible",
        levels=Levels(
            top=len(zhajinhua.LEVEL_TITLES),
            level_of=lambda coins: zhajinhua.level_for(coins)[0],
            fewest=lambda level: LEVEL_THRESHOLDS[level - 1],
            title=lambda level: zhajinhua.LEVEL_TITLES[level - 1],
        ),
    )


def _hunzhan() -> GameSpec:
    from paiju.games import hunzhan

    def start_hand(rules: Mapping[str, Any], coins: list[int], dealer: int, seed: bytes, carry: Any) -> HandState:
        return hunzhan.Game(hunzhan.Rules.from_dict(rules)).new_hand(coins, dealer, seed)

    # platform.md: a tier is its coins per 5 points; sitting needs 36 × that (the worst escape).
    tiers = tuple(Tier(f"stake{stake}", f"每5分{stake}金 {stake} coins per 5 points", 36 * stake, stake)
                  for stake in (10, 100, 1000))
    return GameSpec(
        name="hunzhan",
        title="混战",
        min_players=4,
        max_players=4,
        tiers=tiers,
        start_hand=start_hand,
        load_hand=hunzhan.Game.load,
        waits_for_disconnected=True,
        tier_rules=lambda tier: {"coins_per_5": tier.base_stake},
        bot="trick",
    )


def _chaodipi() -> GameSpec:
    from paiju.games import chaodipi

    def start_hand(rules: Mapping[str, Any], coins: list[int], dealer: int, seed: bytes, carry: Any) -> HandState:
        match = None if carry is None else carry.get("match")
        return chaodipi.Game(chaodipi.Rules.from_dict(rules)).new_hand(coins, dealer, seed, match=match)

    # platform.md: score channels (积分, no coins) and fortune channels of base stake X = 10, 100,
    # 1000 needing 100 × X to sit; each for every regional variant.
    tiers: list[Tier] = []
    regions = {"yancheng": "盐城 Yancheng", "yangzhou": "扬州 Yangzhou", "yangzhong": "扬中 Yangzhong",
               "nantong": "南通 Nantong"}
    for variant, region in regions.items():
        tiers.append(Tier(f"{variant}-score", f"{region} · 积分 score", 0, 0))
        tiers += [
            Tier(f"{variant}-fortune{stake}", f"{region} · 财富 fortune X={stake}", chaodipi.min_coins_to_sit(stake), stake)
            for stake in chaodipi.FORTUNE_BASE_STAKES
        ]

    def tier_rules(tier: Tier) -> Mapping[str, Any]:
        variant, _, channel = tier.name.partition("-")
        if channel == "score":
            return {"variant": variant, "channel": "score_normal"}
        return {"variant": variant, "channel": "fortune_normal", "base_stake": tier.base_stake}

    return GameSpec(
        name="chaodipi",
        title="炒地皮",
        min_players=4,
        max_players=4,
        tiers=tuple(tiers),
        start_hand=start_hand,
        load_hand=chaodipi.Game.load,
        waits_for_disconnected=True,
        tier_rules=tier_rules,
        bot="trick",
        levels=Levels(
            top=chaodipi.MEDAL_LEVELS,
            level_of=chaodipi.medal_for,
            fewest=chaodipi.medal_threshold,
            title=lambda medal: f"财富勋章 {medal}",
        ),
    )


_FACTORIES: dict[str, Callable[[], GameSpec]] = {
    "zhajinhua": _zhajinhua,
    "hunzhan": _hunzhan,
    "chaodipi": _chaodipi,
}
_LOADED: dict[str, GameSpec] = {}


def register_game(spec: GameSpec) -> None:
    """Make a game known to every service of this process (tests register small fake games)."""
    _FACTORIES[spec.name] = lambda: spec
    _LOADED.pop(spec.name, None)


def game_names() -> list[str]:
    return sorted(_FACTORIES)


def game_spec(name: str) -> GameSpec:
    """The registered game called ``name``; :class:`UnknownName` naming the known ones otherwise."""
    if name not in _FACTORIES:
        raise UnknownName(f"unknown game {quoted(name)}; this server runs {', '.join(game_names())}")
    if name not in _LOADED:
        _LOADED[name] = _FACTORIES[name]()
    return _LOADED[name]

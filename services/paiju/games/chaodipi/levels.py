"""Team levels, laps, the bank and the match (``spec/chaodipi.md`` §1, §6 上天入地, §7).

A :class:`MatchState` is what carries from hand to hand: both teams' levels, the banker, how
many hands in a row the banker side has kept the bank (连庄), and whether the next hand is a
flag hand (扛旗). :func:`settle_hand` applies a finished hand to it under a variant's limits.

>>> from paiju.games.chaodipi.variants import variant_rules
>>> rules = variant_rules("yancheng")
>>> match = MatchState(levels=(TeamLevel(1, "K"), TeamLevel()), banker=0)
>>> outcome = settle_hand(rules, match, points=0)
>>> outcome.name, outcome.levels_gained, str(outcome.next.levels[0]), outcome.next.repeat
('大光', 3, 'lap 2 · 3', 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from paiju.cards import parse_cards
from paiju.games.chaodipi.scoring import CardsLike, Side, level_change
from paiju.games.chaodipi.variants import LEVEL_RANKS, VariantRules

SEATS = 4
RANKS_PER_LAP = len(LEVEL_RANKS)


def team_of(seat: int) -> int:
    """Seats 0 and 2 are team 0, seats 1 and 3 team 1.

    >>> team_of(2), team_of(3)
    (0, 1)
    """
    if seat not in range(SEATS):
        raise ValueError(f"a 炒地皮 seat is 0..3, not {seat!r}")
    return seat % 2


def side_of(seat: int, banker: int) -> Side:
    """Whether ``seat`` is on the banker side or an attacker when ``banker`` banks.

    >>> side_of(2, banker=0), side_of(1, banker=0)
    (<Side.BANKER: 'banker'>, <Side.ATTACKERS: 'attackers'>)
    """
    return Side.BANKER if team_of(seat) == team_of(banker) else Side.ATTACKERS


@dataclass(frozen=True, slots=True)
class TeamLevel:
    """A team's level: the rank it plays (``"2"`` … ``"A"``) in lap ``lap`` (盐城 has three).

    >>> TeamLevel(2, "10"), TeamLevel.from_position(13)
    (TeamLevel(lap=2, rank='T'), TeamLevel(lap=2, rank='2'))
    """

    lap: int = 1
    rank: str = "2"

    def __post_init__(self) -> None:
        rank = "T" if self.rank == "10" else str(self.rank).upper()
        if len(rank) != 1 or rank not in LEVEL_RANKS:
            raise ValueError(f"bad level rank {self.rank!r}: one of 2 3 4 5 6 7 8 9 T J Q K A")
        if isinstance(self.lap, bool) or not isinstance(self.lap, int) or self.lap < 1:
            raise ValueError(f"a lap is 1 or more, not {self.lap!r}")
        object.__setattr__(self, "rank", rank)

    @property
    def position(self) -> int:
        """Levels climbed since lap 1 at 2 (lap 1 · 2 is 0, lap 2 · 2 is 13)."""
        return (self.lap - 1) * RANKS_PER_LAP + LEVEL_RANKS.index(self.rank)

    @classmethod
    def from_position(cls, position: int) -> TeamLevel:
        if position < 0:
            raise ValueError(f"a level position is not negative, got {position}")
        lap, index = divmod(position, RANKS_PER_LAP)
        return cls(lap + 1, LEVEL_RANKS[index])

    def __str__(self) -> str:
        return f"lap {self.lap} · {self.rank}"


def final_level(rules: VariantRules) -> TeamLevel:
    """The last level of a match: A in the last lap.

    >>> final_level(VariantRules(laps=3))
    TeamLevel(lap=3, rank='A')
    """
    return TeamLevel(rules.laps, "A")


def advance(level: TeamLevel, gain: int, rules: VariantRules) -> TeamLevel:
    """``level`` raised by ``gain`` levels under the variant's limits.

    A gain past A wraps into the next lap; it stops at A in the last lap (A must be played)
    and at every rank of ``must_play_ranks`` it reaches (南通: J and K).

    >>> from paiju.games.chaodipi.variants import variant_rules
    >>> advance(TeamLevel(1, "K"), 3, variant_rules("yancheng"))
    TeamLevel(lap=2, rank='3')
    >>> advance(TeamLevel(3, "Q"), 3, variant_rules("yancheng")).rank
    'A'
    >>> advance(TeamLevel(1, "9"), 3, variant_rules("nantong")).rank, advance(TeamLevel(1, "J"), 3, variant_rules("nantong")).rank
    ('J', 'K')
    """
    if gain < 0:
        raise ValueError(f"a gain is not negative, got {gain}")
    if level.lap > rules.laps:
        raise ValueError(f"{level} is beyond the {rules.laps} lap(s) of {rules.name}")
    position, last = level.position, final_level(rules).position
    for _ in range(gain):
        if position >= last:
            break
        position += 1
        if LEVEL_RANKS[position % RANKS_PER_LAP] in rules.must_play_ranks:
            break
    return TeamLevel.from_position(position)


@dataclass(frozen=True, slots=True)
class MatchState:
    """What one hand hands on to the next.

    ``banker`` is ``None`` before the first hand of a match (the final declarer then banks,
    and nobody declaring deals again). ``repeat`` is how many hands in a row, just before the
    next one, the banker side has kept the bank (the ``repeat`` of ``fortune_multiple``).
    """

    levels: tuple[TeamLevel, TeamLevel] = (TeamLevel(), TeamLevel())
    banker: int | None = None
    repeat: int = 0
    flag_hand: bool = False
    """The next hand is a flag hand (扛旗): no-trump, only 5♥ and jokers trump, no kitty."""

    def __post_init__(self) -> None:
        if len(self.levels) != 2:
            raise ValueError("a match has two teams")
        if self.banker is not None:
            team_of(self.banker)
        elif self.repeat or self.flag_hand:
            raise ValueError("before the first hand there is no repeat and no flag hand")
        if self.repeat < 0:
            raise ValueError(f"repeat is not negative, got {self.repeat}")

    @property
    def level_rank(self) -> str:
        """The level rank (级牌) of the next hand: the banker team's rank."""
        if self.banker is None:
            raise ValueError("no banker yet: the first hand of a match plays 2s")
        return self.levels[team_of(self.banker)].rank

    def to_dict(self) -> dict[str, object]:
        """Plain data for a hand's result and a table's store.

        >>> MatchState.from_dict(MatchState((TeamLevel(2, "K"), TeamLevel()), 1, 2).to_dict())
        MatchState(levels=(TeamLevel(lap=2, rank='K'), TeamLevel(lap=1, rank='2')), banker=1, repeat=2, flag_hand=False)
        """
        return {
            "levels": [[level.lap, level.rank] for level in self.levels],
            "banker": self.banker,
            "repeat": self.repeat,
            "flag_hand": self.flag_hand,
        }

    @classmethod
    def from_dict(cls, data: object) -> MatchState:
        """The state :meth:`to_dict` wrote; ``ValueError`` when it is not one."""
        try:
            assert isinstance(data, dict)
            levels = tuple(TeamLevel(int(lap), str(rank)) for lap, rank in data["levels"])
            return cls(levels, data["banker"], int(data["repeat"]), bool(data["flag_hand"]))  # type: ignore[arg-type]
        except (AssertionError, KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a 炒地皮 match state: {data!r} ({error})") from None

    def with_first_banker(self, declarer: int) -> MatchState:
        """The first hand's banker is the player holding the final declaration (翻主方)."""
        if self.banker is not None:
            raise ValueError(f"seat {self.banker} already banks")
        team_of(declarer)
        return replace(self, banker=declarer)


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """What a hand did to the match.

    ``score`` is the 积分 each winner gains and each loser loses (before personal stake
    multiples); ``levels_gained`` the levels the winners actually rose after the variant's
    limits (the level-up factor of the fortune multiple); ``name`` the banker side's result
    name (大光/小光/保庄), ``None`` otherwise; ``match_winner`` the team that won the match.
    """

    winner: Side
    name: str | None
    score: int
    levels_gained: int
    reason: str
    """``"table"``, ``"heaven_and_earth"``, ``"jack_to_bottom"`` or ``"flag_hand"``."""
    banker: int
    next: MatchState
    match_winner: int | None = None
    details: dict[str, object] = field(default_factory=dict)

    @property
    def winning_team(self) -> int:
        return team_of(self.banker) if self.winner is Side.BANKER else 1 - team_of(self.banker)


def is_jack_to_bottom(
    winning_play: CardsLike, winner: Side | str, *, level: str, points: int, rules: VariantRules
) -> bool:
    """J到底: the attackers won the last trick with a J (single or pair) at level J, or a pair
    of A at level A, and have at least ``take_bank_at`` points. The trick engine makes sure the
    play was the top play.

    >>> from paiju.games.chaodipi.variants import variant_rules
    >>> nantong = variant_rules("nantong")
    >>> is_jack_to_bottom("JS JS", "attackers", level="J", points=80, rules=nantong)
    True
    >>> is_jack_to_bottom("AS", "attackers", level="A", points=120, rules=nantong)
    False
    >>> is_jack_to_bottom("JS", "attackers", level="J", points=80, rules=variant_rules("yangzhou"))
    False
    """
    if (
        not rules.jack_to_bottom
        or Side(winner) is not Side.ATTACKERS
        or points < rules.take_bank_at
    ):
        return False
    play = parse_cards(winning_play)
    same_card = bool(play) and len(set(play)) == 1
    rank = "T" if level == "10" else level
    if rank == "J":
        return same_card and len(play) <= 2 and play[0].rank == 11
    if rank == "A":
        return same_card and len(play) == 2 and play[0].rank == 14
    return False


def settle_hand(
    rules: VariantRules,
    match: MatchState,
    points: int,
    *,
    heaven_and_earth: Side | str | None = None,
    jack_to_bottom: bool = False,
) -> HandOutcome:
    """Apply a finished hand, the attackers having ``points`` (below 0 counts as 0).

    ``heaven_and_earth`` names the side rewarded by 上天入地 (see ``is_heaven_and_earth``);
    ``jack_to_bottom`` says J到底 happened (see :func:`is_jack_to_bottom`).

    >>> from paiju.games.chaodipi.variants import variant_rules
    >>> match = MatchState(levels=(TeamLevel(1, "A"), TeamLevel(1, "5")), banker=2)
    >>> settle_hand(variant_rules("yangzhou"), match, points=40).next.flag_hand
    True
    >>> settle_hand(variant_rules("nantong"), match, points=40).match_winner
    0
    >>> settle_hand(variant_rules("nantong"), match, points=125).next
    MatchState(levels=(TeamLevel(lap=1, rank='A'), TeamLevel(lap=1, rank='6')), banker=3, repeat=0, flag_hand=False)
    """
    if match.banker is None:
        raise ValueError("the first hand needs its banker: use match.with_first_banker(declarer)")
    banker = match.banker
    banker_team = team_of(banker)
    if match.flag_hand:
        if not rules.flag_hand:
            raise ValueError(f"{rules.name} plays no flag hands")
        if heaven_and_earth is not None or jack_to_bottom:
            # Decision: a flag hand keeps no kitty, so nothing is dug and neither applies.
            raise ValueError("a flag hand has no kitty: no 上天入地 and no J到底")
        return _settle_flag_hand(rules, match, points)
    if heaven_and_earth is not None:
        if jack_to_bottom:
            raise ValueError("上天入地 and J到底 cannot both end one hand")
        return _settle_heaven_and_earth(rules, match, points, Side(heaven_and_earth))

    table = level_change(points, take_bank_at=rules.take_bank_at, level_step=rules.level_step)
    levels = list(match.levels)
    if table["winner"] == Side.BANKER:
        if jack_to_bottom:
            raise ValueError("J到底 needs the attackers to take the bank")
        return _banker_holds(
            rules, match, Side.BANKER, table["name"], table["score"], table["levels"], "table"
        )

    attackers_team = 1 - banker_team
    before = levels[attackers_team]
    levels[attackers_team] = advance(before, table["levels"], rules)
    reason = "table"
    if jack_to_bottom:
        held = levels[banker_team]
        if not rules.jack_to_bottom or held.rank not in ("J", "A"):
            raise ValueError(
                f"J到底 needs a variant that has it and the bank at J or A, not {held}"
            )
        # Decision (spec §7): from J the banker side falls to 2, from A to J; the seed's
        # "由坐庄方打2" is read as the new bankers playing their own level.
        levels[banker_team] = replace(held, rank="2" if held.rank == "J" else "J")
        reason = "jack_to_bottom"
    return HandOutcome(
        winner=Side.ATTACKERS,
        name=None,
        score=table["score"],
        levels_gained=levels[attackers_team].position - before.position,
        reason=reason,
        banker=banker,
        next=MatchState(levels=(levels[0], levels[1]), banker=(banker + 1) % SEATS),
    )


def _banker_holds(
    rules: VariantRules,
    match: MatchState,
    winner: Side,
    name: str | None,
    score: int,
    gain: int,
    reason: str,
) -> HandOutcome:
    """The banker side won the hand: it climbs, passes A (扛旗), or wins the match."""
    banker = match.banker
    assert banker is not None
    team = team_of(banker)
    held = match.levels[team]
    if held == final_level(rules):
        if rules.flag_hand:
            following = replace(match, repeat=match.repeat + 1, flag_hand=True)
            return HandOutcome(winner, name, score, 0, reason, banker, following)
        return _match_won(winner, name, score, reason, banker, team)
    levels = list(match.levels)
    levels[team] = advance(held, gain, rules)
    following = MatchState((levels[0], levels[1]), banker, match.repeat + 1)
    return HandOutcome(
        winner, name, score, levels[team].position - held.position, reason, banker, following
    )


def _match_won(
    winner: Side, name: str | None, score: int, reason: str, banker: int, team: int
) -> HandOutcome:
    # Decision: a new match starts like the first one: levels at 2, the final declarer banks.
    return HandOutcome(winner, name, score, 0, reason, banker, MatchState(), match_winner=team)


def _settle_flag_hand(rules: VariantRules, match: MatchState, points: int) -> HandOutcome:
    assert match.banker is not None
    table = level_change(
        points, take_bank_at=rules.flag_hand_take_bank_at, level_step=rules.level_step
    )
    banker_team = team_of(match.banker)
    if table["winner"] == Side.BANKER:
        return _match_won(
            Side.BANKER, table["name"], table["score"], "flag_hand", match.banker, banker_team
        )
    # Decision: attackers with 100 or more take the bank and climb one level for every further
    # 40; the flag side stays at A and must win as banker at A again.
    levels = list(match.levels)
    before = levels[1 - banker_team]
    levels[1 - banker_team] = advance(before, table["levels"], rules)
    following = MatchState((levels[0], levels[1]), (match.banker + 1) % SEATS)
    gained = levels[1 - banker_team].position - before.position
    return HandOutcome(
        Side.ATTACKERS, None, table["score"], gained, "flag_hand", match.banker, following
    )


def _settle_heaven_and_earth(
    rules: VariantRules, match: MatchState, points: int, side: Side
) -> HandOutcome:
    assert match.banker is not None
    if side is Side.BANKER and not rules.heaven_and_earth_guard:
        raise ValueError(f"in {rules.name} only the attackers earn 上天入地")
    table = level_change(points, take_bank_at=rules.take_bank_at, level_step=rules.level_step)
    same_winner = table["winner"] == side
    # The reward is the larger of the fixed score and what the table would give that side.
    score = max(rules.heaven_and_earth_score, table["score"] if same_winner else 0)
    name = table["name"] if same_winner and side is Side.BANKER else None
    banker_team = team_of(match.banker)
    winner_team = banker_team if side is Side.BANKER else 1 - banker_team
    if side is Side.BANKER and match.levels[winner_team] == final_level(rules):
        # Decision: 保底 上天入地 at the last A is also winning as banker at A.
        return _banker_holds(rules, match, side, name, score, 0, "heaven_and_earth")
    levels = [TeamLevel(), TeamLevel()]
    levels[winner_team] = final_level(rules)
    gained = levels[winner_team].position - match.levels[winner_team].position
    if side is Side.BANKER:
        following = MatchState((levels[0], levels[1]), match.banker, match.repeat + 1)
    else:
        following = MatchState((levels[0], levels[1]), (match.banker + 1) % SEATS)
    return HandOutcome(side, name, score, gained, "heaven_and_earth", match.banker, following)


def score_changes(outcome: HandOutcome, multiples: Sequence[int] = (1, 1, 1, 1)) -> tuple[int, ...]:
    """积分 per seat: winners +score, losers −score, each times their own stake multiple.

    >>> from paiju.games.chaodipi.variants import variant_rules
    >>> match = MatchState(banker=1)
    >>> score_changes(settle_hand(variant_rules("yangzhou"), match, points=35), (1, 2, 1, 1))
    (-2, 4, -2, 2)
    """
    if len(multiples) != SEATS or any(m < 1 for m in multiples):
        raise ValueError(f"four stake multiples of 1 or more, not {tuple(multiples)}")
    winning_team = outcome.winning_team
    return tuple(
        outcome.score * multiples[seat] * (1 if team_of(seat) == winning_team else -1)
        for seat in range(SEATS)
    )

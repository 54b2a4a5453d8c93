"""Channels, stake multiples and the coin split of the fortune channel (``spec/chaodipi.md`` §9).

``N = base × robs × result × level-up × repeat``; the losers pay ``X × N`` between them by
their stake multiples and the winners receive what was paid, split the same way. Coins are
whole, conserved, and nobody pays more than they hold. 炒地皮 takes no house fee.

>>> fortune_multiple(banker=(2, 1), attackers=(1, 1), robs=1, points=35, repeat=0)
108
>>> split_by_multiples(100, {1: 2, 3: 1})
{1: 67, 3: 33}
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence

from paiju.games.chaodipi.levels import SEATS, HandOutcome, score_changes, team_of
from paiju.games.chaodipi.scoring import SweepName, level_change
from paiju.games.engine import LedgerLine, Settlement

FORTUNE_BASE_STAKES: tuple[int, ...] = (10, 100, 1000)
"""The fortune channels' base stakes X (platform Decision)."""


def min_coins_to_sit(base_stake: int) -> int:
    """A fortune channel with base stake X needs ``100 × X`` coins to sit.

    >>> [min_coins_to_sit(x) for x in FORTUNE_BASE_STAKES]
    [1000, 10000, 100000]
    """
    if base_stake < 1:
        raise ValueError(f"a base stake is a positive number of coins, not {base_stake}")
    return 100 * base_stake


class ChannelKind(enum.StrEnum):
    """积分 or 财富 channel, normal or pass (通行证, for pass members)."""

    SCORE_NORMAL = "score_normal"
    SCORE_PASS = "score_pass"
    FORTUNE_NORMAL = "fortune_normal"
    FORTUNE_PASS = "fortune_pass"

    @property
    def moves_coins(self) -> bool:
        return self in (ChannelKind.FORTUNE_NORMAL, ChannelKind.FORTUNE_PASS)

    @property
    def needs_pass(self) -> bool:
        return self in (ChannelKind.SCORE_PASS, ChannelKind.FORTUNE_PASS)

    @property
    def stake_multiples(self) -> tuple[int, ...]:
        """The 胜负倍数 a player may pick here (Decision on the values; default 1).

        >>> ChannelKind.FORTUNE_PASS.stake_multiples, ChannelKind.SCORE_NORMAL.stake_multiples
        ((1, 2, 4, 8), (1,))
        """
        return _STAKE_MULTIPLES[self]

    def check_multiple(self, multiple: int) -> int:
        """``multiple`` if a player may pick it here, else a ``ValueError`` that lists the choices.

        >>> ChannelKind.FORTUNE_NORMAL.check_multiple(4)
        Traceback (most recent call last):
        ...
        ValueError: fortune_normal allows stake multiples 1, 2, not 4
        """
        if multiple not in self.stake_multiples:
            choices = ", ".join(str(m) for m in self.stake_multiples)
            raise ValueError(f"{self} allows stake multiples {choices}, not {multiple}")
        return multiple


_STAKE_MULTIPLES: Mapping[ChannelKind, tuple[int, ...]] = {
    ChannelKind.SCORE_NORMAL: (1,),
    ChannelKind.SCORE_PASS: (1, 2),
    ChannelKind.FORTUNE_NORMAL: (1, 2),
    ChannelKind.FORTUNE_PASS: (1, 2, 4, 8),
}

RESULT_FACTORS: Mapping[str, int] = {
    str(SweepName.BIG_SWEEP): 6,
    str(SweepName.SMALL_SWEEP): 3,
    # Decision (spec §9): the seed's "连庄2倍" in this list is read as 保庄, its heading.
    str(SweepName.HOLD): 2,
}


def _pair(multiples: Sequence[int], who: str) -> tuple[int, int]:
    if len(multiples) != 2 or any(
        isinstance(m, bool) or not isinstance(m, int) or m < 1 for m in multiples
    ):
        raise ValueError(f"{who}: two stake multiples of 1 or more, not {tuple(multiples)}")
    return multiples[0], multiples[1]


def stake_multiple(
    *,
    banker: Sequence[int],
    attackers: Sequence[int],
    robs: int,
    name: str | None,
    levels_gained: int,
    repeat: int,
) -> int:
    """N from its parts: ``name`` the banker side's result (大光/小光/保庄 or ``None``),
    ``levels_gained`` the levels the winners actually rose.

    >>> stake_multiple(banker=(1, 1), attackers=(1, 1), robs=0, name=None, levels_gained=0, repeat=2)
    12
    """
    a1, a2 = _pair(banker, "banker side")
    b1, b2 = _pair(attackers, "attackers")
    if robs < 0 or levels_gained < 0 or repeat < 0:
        raise ValueError("robs, levels_gained and repeat are not negative")
    if name is not None and name not in RESULT_FACTORS:
        raise ValueError(f"unknown result name {name!r}: one of {', '.join(RESULT_FACTORS)}")
    base = (a1 + a2) * (b1 + b2)
    result = RESULT_FACTORS[name] if name is not None else 1
    level_up = levels_gained + 1 if levels_gained >= 1 else 1
    return base * 2**robs * result * level_up * (repeat + 1)


def fortune_multiple(
    *,
    banker: Sequence[int],
    attackers: Sequence[int],
    robs: int,
    points: int,
    repeat: int,
    levels: int | None = None,
) -> int:
    """N of a hand from the attackers' ``points`` (engine-api.md).

    ``robs`` counts every 反主 and 抄底 of the hand (failed blind robs and 回头望 too);
    ``repeat`` is k when the banker side had kept the bank the k hands just before this one.
    ``levels`` gives the levels actually gained after the variant's limits; by default the
    table's. Use :func:`outcome_multiple` when a :class:`HandOutcome` is at hand.

    >>> fortune_multiple(banker=(1, 1), attackers=(1, 1), robs=0, points=0, repeat=1)
    192
    >>> fortune_multiple(banker=(1, 1), attackers=(1, 1), robs=0, points=0, repeat=1, levels=0)
    48
    """
    table = level_change(points)
    return stake_multiple(
        banker=banker,
        attackers=attackers,
        robs=robs,
        name=table["name"],
        levels_gained=table["levels"] if levels is None else levels,
        repeat=repeat,
    )


def outcome_multiple(
    outcome: HandOutcome, multiples: Sequence[int], *, robs: int, repeat: int
) -> int:
    """N of a settled hand; ``multiples`` per seat, ``repeat`` the hand's (``MatchState.repeat``)."""
    if len(multiples) != SEATS:
        raise ValueError(f"four stake multiples, not {tuple(multiples)}")
    partner = (outcome.banker + 2) % SEATS
    left, right = (outcome.banker + 1) % SEATS, (outcome.banker + 3) % SEATS
    return stake_multiple(
        banker=(multiples[outcome.banker], multiples[partner]),
        attackers=(multiples[left], multiples[right]),
        robs=robs,
        name=outcome.name,
        levels_gained=outcome.levels_gained,
        repeat=repeat,
    )


def split_by_multiples(amount: int, multiples: Mapping[int, int]) -> dict[int, int]:
    """``amount`` coins split by stake multiple: shares floored, the remainder to the larger
    multiple (the lower seat on a tie). The shares sum to ``amount`` exactly.

    >>> split_by_multiples(7, {0: 1, 2: 1}), split_by_multiples(10, {1: 1, 3: 2})
    ({0: 4, 2: 3}, {1: 3, 3: 7})
    """
    if amount < 0:
        raise ValueError(f"an amount to split is not negative, got {amount}")
    if not multiples or any(m < 1 for m in multiples.values()):
        raise ValueError(f"stake multiples of 1 or more, not {dict(multiples)}")
    weight = sum(multiples.values())
    shares = {seat: amount * m // weight for seat, m in multiples.items()}
    remainder = amount - sum(shares.values())
    ranked = sorted(multiples, key=lambda seat: (-multiples[seat], seat))
    for index in range(remainder):
        shares[ranked[index % len(ranked)]] += 1
    return shares


def pay_and_collect(
    amount: int,
    losers: Mapping[int, int],
    winners: Mapping[int, int],
    balances: Sequence[int],
) -> dict[int, int]:
    """The net coin change per seat when ``losers`` owe ``amount`` to ``winners``.

    Both map seat → stake multiple. Each loser owes their share and pays at most what they
    hold; the winners share what was actually paid, by multiple. The changes sum to zero.

    >>> pay_and_collect(300, {1: 1, 3: 2}, {0: 1, 2: 1}, [0, 50, 0, 1000])
    {1: -50, 3: -200, 0: 125, 2: 125}
    """
    if any(balance < 0 for balance in balances):
        raise ValueError(f"balances are never negative, got {list(balances)}")
    owed = split_by_multiples(amount, losers)
    paid = {seat: -min(due, balances[seat]) for seat, due in owed.items()}
    received = split_by_multiples(-sum(paid.values()), winners)
    return {**paid, **received}


def fortune_settlement(
    outcome: HandOutcome,
    *,
    base_stake: int,
    multiples: Sequence[int],
    balances: Sequence[int],
    robs: int,
    repeat: int,
) -> Settlement:
    """The coins of a settled hand: the losing side pays ``X × N``, the winners receive it.

    ``balances`` are the coins each seat holds (nobody pays more); ``repeat`` is the hand's
    ``MatchState.repeat``.
    """
    if base_stake < 1:
        raise ValueError(f"a base stake is a positive number of coins, not {base_stake}")
    if len(balances) != SEATS:
        raise ValueError(f"four balances, not {list(balances)}")
    multiple = outcome_multiple(outcome, multiples, robs=robs, repeat=repeat)
    winning = outcome.winning_team
    winners = {seat: multiples[seat] for seat in range(SEATS) if team_of(seat) == winning}
    losers = {seat: multiples[seat] for seat in range(SEATS) if team_of(seat) != winning}
    changes = pay_and_collect(base_stake * multiple, losers, winners, balances)
    coins = tuple(changes[seat] for seat in range(SEATS))
    return Settlement(
        coins=coins,
        lines=tuple(
            LedgerLine(seat, coins[seat], "pot" if coins[seat] > 0 else "stake") for seat in range(SEATS) if coins[seat]
        ),
        winners=tuple(sorted(winners)),
        details={
            "multiple": multiple,
            "base_stake": base_stake,
            "winner": str(outcome.winner),
            "name": outcome.name,
            "reason": outcome.reason,
            "levels_gained": outcome.levels_gained,
        },
    )


def score_settlement(outcome: HandOutcome, multiples: Sequence[int] = (1, 1, 1, 1)) -> Settlement:
    """A score-channel hand: no coins move; ``scores`` holds each seat's 积分 change."""
    scores = score_changes(outcome, multiples)
    return Settlement(
        coins=(0,) * SEATS,
        lines=(),
        scores=scores,
        winners=tuple(seat for seat in range(SEATS) if team_of(seat) == outcome.winning_team),
        details={"winner": str(outcome.winner), "name": outcome.name, "reason": outcome.reason},
    )

"""混战 results and coins (``spec/hunzhan.md`` §4 and §5), integers only.

Results are in points (``X - 60``, always a multiple of 5); each 5 points is worth the room's
``coins_per_5``. Winners pay the house ``fee_rate`` of what they actually receive, rounded
half up to a whole coin (2% of 100 is 2; 2% of 125 = 2.5 rounds to 3; 2% of 75 = 1.5 to 2).
``fee_rate`` is read as the decimal it is written as (``0.02`` is exactly 1/50), never as a
binary float, so the rounding is exact.

>>> [row["coins"] for row in settle([70, 50, 60, 60], coins_per_5=50, fee_rate=0.02)]
[98, -100, 0, 0]
>>> escape_results([40, 70, 65, 35], escaper=0)
[-60, 10, 5, 0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from paiju.games.hunzhan.order import BASE_POINTS, TOTAL_POINTS

ESCAPE_PENALTY_FACTOR = 3
ESCAPE_FLAT_PENALTY = 10


def exact_rate(fee_rate: float | str | Fraction) -> Fraction:
    """The fee rate as an exact fraction of its decimal text, checked to be in [0, 1)."""
    rate = fee_rate if isinstance(fee_rate, Fraction) else Fraction(str(fee_rate))
    if not 0 <= rate < 1:
        raise ValueError(f"a fee rate is in [0, 1), not {fee_rate!r}")
    return rate


def fee_on(received: int, fee_rate: float | str | Fraction) -> int:
    """The house fee on ``received`` coins, rounded half up.

    >>> fee_on(100, 0.02), fee_on(125, 0.02), fee_on(75, 0.02), fee_on(24, 0.02)
    (2, 3, 2, 0)
    """
    exact = received * exact_rate(fee_rate)
    return int(exact + Fraction(1, 2)) if received > 0 else 0


def share(pool: int, dues: Sequence[int]) -> list[int]:
    """Split ``pool`` coins among ``dues``: each its due if the pool suffices, otherwise in
    proportion (floors, the spare coins one each to the largest remainders, earlier seat first
    on a tie), never above a due.

    >>> share(100, [60, 0, 40]), share(50, [60, 0, 40]), share(10, [1, 1, 1])
    ([60, 0, 40], [30, 0, 20], [1, 1, 1])
    >>> share(2, [1, 1, 1])
    [1, 1, 0]
    """
    total = sum(dues)
    if pool >= total:
        return list(dues)
    shares = [pool * due // total for due in dues]
    spare = pool - sum(shares)
    by_remainder = sorted(range(len(dues)), key=lambda i: (-(pool * dues[i] % total), i))
    for index in by_remainder[:spare]:
        shares[index] += 1
    return shares


@dataclass(frozen=True, slots=True)
class CoinSettlement:
    """Coins of one hand: per seat the net change and fee; what the house keeps in all."""

    results: tuple[int, ...]
    coins: tuple[int, ...]
    fees: tuple[int, ...]
    paid: tuple[int, ...]
    received: tuple[int, ...]
    leftover: int
    """Coins paid by losers that no winner was due (escapes: 系统收回)."""

    @property
    def house(self) -> int:
        return self.leftover + sum(self.fees)


def settle_results(
    results: Sequence[int],
    coins_per_5: int,
    fee_rate: float | str | Fraction,
    held: Sequence[int] | None = None,
) -> CoinSettlement:
    """Coins for results in points: losers pay (at most what they hold), winners share it."""
    if coins_per_5 < 0 or not isinstance(coins_per_5, int):
        raise ValueError(f"coins_per_5 is a whole number of at least 0, not {coins_per_5!r}")
    if any(result % 5 for result in results):
        raise ValueError(f"results are whole multiples of 5 points, not {list(results)}")
    owed = [max(0, -result) // 5 * coins_per_5 for result in results]
    limits = held if held is not None else owed
    paid = [min(debt, max(0, limit)) for debt, limit in zip(owed, limits, strict=True)]
    dues = [max(0, result) // 5 * coins_per_5 for result in results]
    received = share(sum(paid), dues)
    fees = [fee_on(amount, fee_rate) for amount in received]
    coins = [got - fee - pay for got, fee, pay in zip(received, fees, paid, strict=True)]
    return CoinSettlement(
        results=tuple(results),
        coins=tuple(coins),
        fees=tuple(fees),
        paid=tuple(paid),
        received=tuple(received),
        leftover=sum(paid) - sum(received),
    )


def _check_points(points: Sequence[int], complete: bool) -> None:
    if len(points) != 4 or any(not isinstance(x, int) or x < 0 or x % 5 for x in points):
        raise ValueError(f"four players' points, each a whole multiple of 5 of at least 0: {list(points)}")
    if complete and sum(points) != TOTAL_POINTS:
        raise ValueError(f"a finished hand has {TOTAL_POINTS} points, not {sum(points)}")
    if sum(points) > TOTAL_POINTS:
        raise ValueError(f"there are only {TOTAL_POINTS} points, not {sum(points)}")


def hand_results(points: Sequence[int]) -> list[int]:
    """Results of a finished hand: ``X - 60`` each."""
    _check_points(points, complete=True)
    return [x - BASE_POINTS for x in points]


def escape_results(points: Sequence[int], escaper: int) -> list[int]:
    """Results when ``escaper`` leaves with ``points`` won in completed tricks (spec §5)."""
    _check_points(points, complete=False)
    if not 0 <= escaper < 4:
        raise ValueError(f"the escaper is a seat 0..3, not {escaper!r}")
    results = [x - BASE_POINTS if x > BASE_POINTS else 0 for x in points]
    mine = points[escaper]
    # Decision (spec): exactly 60 falls in the flat -10 case.
    results[escaper] = -ESCAPE_PENALTY_FACTOR * (BASE_POINTS - mine) if mine < BASE_POINTS else -ESCAPE_FLAT_PENALTY
    return results


def _rows(settled: CoinSettlement) -> list[dict[str, int]]:
    return [
        {"result": result, "coins": coins, "fee": fee}
        for result, coins, fee in zip(settled.results, settled.coins, settled.fees, strict=True)
    ]


def settle(
    points: Sequence[int],
    coins_per_5: int,
    fee_rate: float | str | Fraction = 0.02,
    coins: Sequence[int] | None = None,
) -> list[dict[str, int]]:
    """One row per seat of a finished hand: ``result`` (X - 60), net ``coins`` after the fee,
    and the ``fee``. ``coins`` (optional) caps what each loser can pay.

    >>> settle([70, 50, 60, 60], coins_per_5=50, fee_rate=0.02)[:2]
    [{'result': 10, 'coins': 98, 'fee': 2}, {'result': -10, 'coins': -100, 'fee': 0}]
    """
    return _rows(settle_results(hand_results(points), coins_per_5, fee_rate, coins))


def settle_escape(
    points: Sequence[int],
    escaper: int,
    coins_per_5: int,
    fee_rate: float | str | Fraction = 0.02,
    coins: Sequence[int] | None = None,
) -> list[dict[str, int]]:
    """Rows as :func:`settle` for a hand ended by ``escaper``'s escape.

    >>> settle_escape([40, 70, 65, 35], escaper=0, coins_per_5=50, fee_rate=0.02, coins=[300, 0, 0, 0])
    [{'result': -60, 'coins': -300, 'fee': 0}, {'result': 10, 'coins': 98, 'fee': 2}, {'result': 5, 'coins': 49, 'fee': 1}, {'result': 0, 'coins': 0, 'fee': 0}]
    """
    return _rows(settle_results(escape_results(points, escaper), coins_per_5, fee_rate, coins))

"""逃跑: what an escaper loses (``spec/chaodipi.md`` §8).

Before the first card is played an escape costs nothing and the hand is dealt again. After
it, the escaper loses exactly 15 积分 (15 × X coins) or at least that much, by the case:

============  =====================  ======================
escaper       attackers below 80     attackers at 80 or more
============  =====================  ======================
banker side   exactly 15             at least 15
attackers     at least 15            exactly 15
============  =====================  ======================

"At least" is the larger of 15 and what the escaper would lose if the hand ended now. The two
opponents share what the escaper loses; the partner is unaffected. Levels do not change and the
same banker deals again: the :class:`~paiju.games.chaodipi.levels.MatchState` carries over
as it was. Decision (spec §8): these rules, given by the seed for 盐城, apply to every variant.

>>> from paiju.games.chaodipi.variants import variant_rules
>>> from paiju.games.chaodipi.levels import MatchState
>>> rules, match = variant_rules("yancheng"), MatchState(banker=0)
>>> escape_score_settlement(rules, match, escaper=1, points=30).scores
(8, -15, 7, 0)
"""

from __future__ import annotations

from collections.abc import Sequence

from paiju.games.chaodipi.fortune import outcome_multiple, split_by_multiples
from paiju.games.chaodipi.levels import SEATS, MatchState, settle_hand, side_of, team_of
from paiju.games.chaodipi.scoring import Side
from paiju.games.chaodipi.variants import VariantRules
from paiju.games.engine import LedgerLine, Settlement


def _threshold(rules: VariantRules, match: MatchState) -> int:
    # Decision: in a flag hand "enough to take the bank" is the flag hand's 100.
    return rules.flag_hand_take_bank_at if match.flag_hand else rules.take_bank_at


def escape_is_at_least(rules: VariantRules, match: MatchState, escaper: int, points: int) -> bool:
    """Whether the escaper loses *at least* the penalty (their side is losing the hand now).

    >>> from paiju.games.chaodipi.variants import variant_rules
    >>> rules, match = variant_rules("nantong"), MatchState(banker=0)
    >>> escape_is_at_least(rules, match, 2, points=80), escape_is_at_least(rules, match, 3, points=80)
    (True, False)
    """
    banker = _banker(match)
    taking_bank = points >= _threshold(rules, match)
    return taking_bank == (side_of(escaper, banker) is Side.BANKER)


def _banker(match: MatchState) -> int:
    if match.banker is None:
        raise ValueError("no banker yet: an escape before the first card costs nothing")
    return match.banker


def _opponents(escaper: int) -> tuple[int, int]:
    return tuple(sorted(seat for seat in range(SEATS) if team_of(seat) != team_of(escaper)))  # type: ignore[return-value]


def _shared(amount: int, escaper: int) -> dict[int, int]:
    # Decision: the odd unit goes to the opponent with the lower seat number.
    first, second = _opponents(escaper)
    return {first: amount - amount // 2, second: amount // 2}


def escape_score_loss(
    rules: VariantRules, match: MatchState, escaper: int, points: int, multiple: int = 1
) -> int:
    """The 积分 the escaper loses (times their score-channel stake ``multiple``).

    >>> from paiju.games.chaodipi.variants import variant_rules
    >>> escape_score_loss(variant_rules("yangzhou"), MatchState(banker=0), escaper=2, points=400)
    15
    """
    loss = rules.escape_penalty
    if escape_is_at_least(rules, match, escaper, points):
        loss = max(loss, settle_hand(rules, match, points).score)
    return loss * multiple


def escape_score_settlement(
    rules: VariantRules,
    match: MatchState,
    escaper: int,
    points: int,
    *,
    multiples: Sequence[int] = (1, 1, 1, 1),
    cards_played: bool = True,
) -> Settlement:
    """A score-channel escape: the escaper's loss, shared by the two opponents."""
    scores = [0] * SEATS
    if cards_played:
        loss = escape_score_loss(rules, match, escaper, points, multiples[escaper])
        scores[escaper] = -loss
        for seat, gain in _shared(loss, escaper).items():
            scores[seat] = gain
    return Settlement(
        coins=(0,) * SEATS,
        lines=(),
        scores=tuple(scores),
        winners=_opponents(escaper) if cards_played else (),
        details={"reason": "escape", "escaper": escaper, "void": not cards_played},
    )


def escape_coin_loss(
    rules: VariantRules,
    match: MatchState,
    escaper: int,
    points: int,
    *,
    base_stake: int,
    multiples: Sequence[int],
    robs: int,
) -> int:
    """The coins the escaper owes: ``15 × X``, or in the "at least" cases the larger of that and
    their share of ``X × N`` as if the hand ended now with their side losing.

    >>> from paiju.games.chaodipi.variants import variant_rules
    >>> rules, match = variant_rules("yangzhou"), MatchState(banker=0)
    >>> escape_coin_loss(rules, match, 1, 75, base_stake=100, multiples=(1, 1, 1, 1), robs=0)
    1500
    >>> escape_coin_loss(rules, match, 1, 75, base_stake=100, multiples=(1, 1, 1, 1), robs=2)
    3200
    """
    if base_stake < 1:
        raise ValueError(f"a base stake is a positive number of coins, not {base_stake}")
    fixed = rules.escape_penalty * base_stake
    if not escape_is_at_least(rules, match, escaper, points):
        return fixed
    outcome = settle_hand(rules, match, points)
    multiple = outcome_multiple(outcome, multiples, robs=robs, repeat=match.repeat)
    losers = {seat: multiples[seat] for seat in range(SEATS) if team_of(seat) == team_of(escaper)}
    share = split_by_multiples(base_stake * multiple, losers)[escaper]
    return max(fixed, share)


def escape_fortune_settlement(
    rules: VariantRules,
    match: MatchState,
    escaper: int,
    points: int,
    *,
    base_stake: int,
    multiples: Sequence[int],
    balances: Sequence[int],
    robs: int,
    cards_played: bool = True,
) -> Settlement:
    """A fortune-channel escape: the escaper pays what they owe (at most what they hold), the
    two opponents share it (the lower seat takes the odd coin)."""
    if len(balances) != SEATS or any(balance < 0 for balance in balances):
        raise ValueError(f"four balances, none negative, not {list(balances)}")
    coins = [0] * SEATS
    if cards_played:
        owed = escape_coin_loss(
            rules, match, escaper, points, base_stake=base_stake, multiples=multiples, robs=robs
        )
        paid = min(owed, balances[escaper])
        coins[escaper] = -paid
        for seat, gain in _shared(paid, escaper).items():
            coins[seat] = gain
    return Settlement(
        coins=tuple(coins),
        lines=tuple(
            LedgerLine(seat, coins[seat], "escape_penalty") for seat in range(SEATS) if coins[seat]
        ),
        winners=_opponents(escaper) if cards_played else (),
        details={"reason": "escape", "escaper": escaper, "void": not cards_played},
    )

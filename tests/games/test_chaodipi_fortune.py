"""炒地皮 fortune channel: the multiple N, the exact coin split, escapes, medals."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paiju.games import chaodipi
from paiju.games.chaodipi import (
    ChannelKind,
    MatchState,
    TeamLevel,
    escape_coin_loss,
    escape_fortune_settlement,
    escape_score_settlement,
    fortune_multiple,
    fortune_settlement,
    medal_for,
    medal_threshold,
    pay_and_collect,
    settle_hand,
    split_by_multiples,
    stake_multiple,
    variant_rules,
)

VARIANT_IDS = list(chaodipi.VARIANTS)
variants = st.sampled_from(VARIANT_IDS)
multiple = st.sampled_from(ChannelKind.FORTUNE_PASS.stake_multiples)
four_multiples = st.tuples(multiple, multiple, multiple, multiple)
balances = st.lists(st.integers(0, 10**7), min_size=4, max_size=4)
points = st.integers(min_value=-20, max_value=70).map(lambda n: 5 * n)


def test_engine_api_example_gives_108():
    # base (2+1)(1+1) = 6, one rob × 2, 小光 × 3, two levels up × 3, no repeat.
    assert fortune_multiple(banker=(2, 1), attackers=(1, 1), robs=1, points=35, repeat=0) == 108


@pytest.mark.parametrize(
    "points, result_and_level_factor",
    [(0, 6 * 4), (35, 3 * 3), (40, 2 * 2), (80, 1), (120, 2), (160, 3), (200, 4), (240, 5)],
)
def test_seed_factors(points, result_and_level_factor):
    # Seed: 大光6倍, 小光3倍, 保庄2倍; 升一级翻2倍，升两级翻3倍.
    base = fortune_multiple(banker=(1, 1), attackers=(1, 1), robs=0, points=points, repeat=0)
    assert base == 4 * result_and_level_factor


@pytest.mark.parametrize("repeat, factor", [(0, 1), (1, 2), (2, 3), (5, 6)])
def test_repeat_factor(repeat, factor):
    # Seed: 第一次连庄奖励2倍，继续连庄累积加1倍.
    n = fortune_multiple(banker=(1, 1), attackers=(1, 1), robs=0, points=80, repeat=repeat)
    assert n == 4 * factor


@pytest.mark.parametrize("robs", range(5))
def test_every_override_and_rob_doubles(robs):
    n = fortune_multiple(banker=(1, 2), attackers=(4, 8), robs=robs, points=80, repeat=0)
    assert n == 3 * 12 * 2**robs


def test_bad_multiples_are_clear_errors():
    with pytest.raises(ValueError):
        fortune_multiple(banker=(0, 1), attackers=(1, 1), robs=0, points=0, repeat=0)
    with pytest.raises(ValueError):
        fortune_multiple(banker=(1, 1, 1), attackers=(1, 1), robs=0, points=0, repeat=0)
    with pytest.raises(ValueError):
        stake_multiple(
            banker=(1, 1), attackers=(1, 1), robs=-1, name=None, levels_gained=0, repeat=0
        )
    with pytest.raises(ValueError):
        ChannelKind.SCORE_PASS.check_multiple(4)


def test_channel_multiples():
    assert ChannelKind.SCORE_NORMAL.stake_multiples == (1,)
    assert ChannelKind.SCORE_PASS.stake_multiples == (1, 2)
    assert ChannelKind.FORTUNE_NORMAL.stake_multiples == (1, 2)
    assert ChannelKind.FORTUNE_PASS.stake_multiples == (1, 2, 4, 8)
    assert [kind.moves_coins for kind in ChannelKind] == [False, False, True, True]
    assert chaodipi.min_coins_to_sit(100) == 10_000


def test_seed_split_example():
    # Seed: A1奖励 = 胜利方奖励 × A1/(A1+A2); the remainder to the larger multiple.
    assert split_by_multiples(900, {0: 2, 2: 1}) == {0: 600, 2: 300}
    assert split_by_multiples(1000, {0: 2, 2: 1}) == {0: 667, 2: 333}
    assert split_by_multiples(1001, {1: 1, 3: 1}) == {1: 501, 3: 500}


@given(st.integers(0, 10**9), st.tuples(multiple, multiple))
def test_split_is_exact_and_proportional(amount, pair):
    shares = split_by_multiples(amount, {1: pair[0], 3: pair[1]})
    assert sum(shares.values()) == amount
    for seat, m in ((1, pair[0]), (3, pair[1])):
        exact = amount * m / (pair[0] + pair[1])
        assert abs(shares[seat] - exact) < 1


@given(st.integers(0, 10**8), four_multiples, balances)
def test_pay_and_collect_conserves_and_never_overdraws(amount, multiples, held):
    losers = {1: multiples[1], 3: multiples[3]}
    winners = {0: multiples[0], 2: multiples[2]}
    changes = pay_and_collect(amount, losers, winners, held)
    assert sum(changes.values()) == 0
    assert all(held[seat] + change >= 0 for seat, change in changes.items())
    assert all(changes[seat] <= 0 for seat in losers) and all(
        changes[seat] >= 0 for seat in winners
    )
    if all(held[seat] >= amount for seat in losers):
        assert -sum(changes[seat] for seat in losers) == amount


@given(
    variants,
    points,
    st.integers(0, 3),
    st.integers(0, 4),
    st.integers(0, 3),
    four_multiples,
    balances,
    st.sampled_from(chaodipi.FORTUNE_BASE_STAKES),
)
def test_hand_settlement_is_exact(variant, p, banker, robs, repeat, multiples, held, stake):
    rules = variant_rules(variant)
    match = MatchState((TeamLevel(1, "5"), TeamLevel(1, "Q")), banker, repeat)
    outcome = settle_hand(rules, match, p)
    settlement = fortune_settlement(
        outcome, base_stake=stake, multiples=multiples, balances=held, robs=robs, repeat=repeat
    )
    assert sum(settlement.coins) == 0 and settlement.fee == 0
    assert all(h + c >= 0 for h, c in zip(held, settlement.coins))
    n = settlement.details["multiple"]
    losers = [seat for seat in range(4) if seat not in settlement.winners]
    if all(held[seat] >= stake * n for seat in losers):
        assert sum(c for c in settlement.coins if c > 0) == stake * n


def test_hand_settlement_uses_the_levels_actually_gained():
    rules = variant_rules("nantong")
    match = MatchState((TeamLevel(1, "9"), TeamLevel(1, "4")), banker=0)
    outcome = settle_hand(rules, match, points=0)  # 大光 +3, stopped at J: 2 levels
    assert outcome.levels_gained == 2
    settlement = fortune_settlement(
        outcome, base_stake=10, multiples=(1, 1, 1, 1), balances=[10**6] * 4, robs=0, repeat=0
    )
    assert settlement.details["multiple"] == 4 * 6 * 3
    assert settlement.coins == (360, -360, 360, -360)


def test_a_loser_short_of_coins_pays_what_they_hold():
    outcome = settle_hand(variant_rules("yangzhou"), MatchState(banker=0), points=0)
    # N = 4 × 6 × 4 = 96; X × N = 9600, 4800 each.
    settlement = fortune_settlement(
        outcome,
        base_stake=100,
        multiples=(1, 1, 1, 1),
        balances=[0, 1000, 0, 10**6],
        robs=0,
        repeat=0,
    )
    assert settlement.coins == (2900, -1000, 2900, -4800)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_escape_before_the_first_card_costs_nothing(variant):
    rules = variant_rules(variant)
    settlement = escape_fortune_settlement(
        rules,
        MatchState(banker=0),
        1,
        0,
        base_stake=100,
        multiples=(1, 1, 1, 1),
        balances=[5000] * 4,
        robs=3,
        cards_played=False,
    )
    assert settlement.coins == (0, 0, 0, 0)
    assert (
        escape_score_settlement(rules, MatchState(banker=0), 1, 0, cards_played=False).scores
        == (0,) * 4
    )


@pytest.mark.parametrize("variant", VARIANT_IDS)
@pytest.mark.parametrize(
    "escaper, points, at_least",
    [(0, 40, False), (2, 120, True), (1, 40, True), (3, 120, False)],
)
def test_escape_cases_from_the_seed(variant, escaper, points, at_least):
    # Seed 逃跑惩罚: banker side, attackers short of 80 → only 15; enough → at least 15;
    # attackers short → at least 15; enough → only 15.
    rules = variant_rules(variant)
    match = MatchState(banker=0)
    assert chaodipi.escape_is_at_least(rules, match, escaper, points) is at_least
    score = escape_score_settlement(rules, match, escaper, points).scores
    assert score[escaper] == -15 and sum(score) == 0
    assert score[(escaper + 2) % 4] == 0
    loss = escape_coin_loss(
        rules, match, escaper, points, base_stake=100, multiples=(8, 8, 8, 8), robs=3
    )
    if at_least:
        assert loss > 1500  # the hand's share dwarfs 15 × X with these multiples
    else:
        assert loss == 1500


@given(variants, st.integers(0, 3), points, st.integers(0, 3), four_multiples, balances)
def test_escape_settlement_is_exact(variant, escaper, p, robs, multiples, held):
    rules = variant_rules(variant)
    settlement = escape_fortune_settlement(
        rules,
        MatchState(banker=0),
        escaper,
        p,
        base_stake=10,
        multiples=multiples,
        balances=held,
        robs=robs,
    )
    assert sum(settlement.coins) == 0
    assert all(h + c >= 0 for h, c in zip(held, settlement.coins))
    assert settlement.coins[(escaper + 2) % 4] == 0
    assert settlement.coins[escaper] <= 0
    opponents = sorted(seat for seat in range(4) if seat % 2 != escaper % 2)
    assert 0 <= settlement.coins[opponents[0]] - settlement.coins[opponents[1]] <= 1


def test_medals():
    assert [medal_threshold(k) for k in (1, 2, 3, 10, 100)] == [0, 100, 800, 72_900, 97_029_900]
    for level in range(1, 101):
        threshold = medal_threshold(level)
        assert medal_for(threshold) == level
        if level > 1:
            assert medal_for(threshold - 1) == level - 1
    with pytest.raises(ValueError):
        medal_threshold(101)


@given(st.integers(0, 10**9), st.integers(0, 10**9))
def test_medals_rise_with_coins(low, high):
    low, high = sorted((low, high))
    assert 1 <= medal_for(low) <= medal_for(high) <= 100

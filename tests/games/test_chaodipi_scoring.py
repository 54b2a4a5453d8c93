"""炒地皮 points: the level table, the kitty dig, red fives, penalties, 上天入地."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paiju.cards import double_deck_with_jokers, format_cards
from paiju.games import chaodipi
from paiju.games.chaodipi import (
    AttackerPoints,
    card_points,
    dig_points,
    failed_rob_points,
    failed_throw_points,
    forced_red_fives,
    is_heaven_and_earth,
    level_change,
    red_five_points,
    saved_red_fives,
    variant_rules,
)

VARIANT_IDS = list(chaodipi.VARIANTS)
points = st.integers(min_value=-60, max_value=100).map(lambda n: 5 * n)


def test_two_decks_hold_200_points():
    deck = double_deck_with_jokers()
    assert len(deck) == 108
    assert card_points(format_cards(deck)) == chaodipi.TOTAL_POINTS == 200


def test_engine_api_example():
    assert level_change(points=35) == {"winner": "banker", "levels": 2, "score": 2, "name": "小光"}


@pytest.mark.parametrize(
    "points, winner, levels, score, name",
    [
        (0, "banker", 3, 3, "大光"),
        (-40, "banker", 3, 3, "大光"),  # below 0 counts as 0
        (5, "banker", 2, 2, "小光"),
        (35, "banker", 2, 2, "小光"),
        (40, "banker", 1, 1, "保庄"),
        (75, "banker", 1, 1, "保庄"),
        (80, "attackers", 0, 1, None),  # the seed's threshold: 80 to 上台
        (115, "attackers", 0, 1, None),
        (120, "attackers", 1, 1, None),
        (155, "attackers", 1, 1, None),
        (160, "attackers", 2, 2, None),
        (195, "attackers", 2, 2, None),
        (200, "attackers", 3, 3, None),
        (240, "attackers", 4, 4, None),
        (320, "attackers", 6, 6, None),
    ],
)
def test_level_table(points, winner, levels, score, name):
    assert level_change(points=points) == {
        "winner": winner,
        "levels": levels,
        "score": score,
        "name": name,
    }


def _attacker_edge(result) -> int:
    return result["levels"] if result["winner"] == "attackers" else -1 - result["levels"]


@given(points, points)
def test_more_points_never_help_the_banker_side(low, high):
    low, high = sorted((low, high))
    assert _attacker_edge(level_change(points=low)) <= _attacker_edge(level_change(points=high))


@given(points)
def test_the_threshold_splits_the_winners(p):
    result = level_change(points=p)
    assert (result["winner"] == "attackers") == (p >= 80)
    assert (result["name"] is None) == (p >= 80)
    assert result["score"] >= 1


@given(points)
def test_a_flag_hand_needs_100(p):
    result = level_change(points=p, take_bank_at=100)
    assert (result["winner"] == "attackers") == (p >= 100)
    if p >= 100:
        assert result["levels"] == (p - 100) // 40


@pytest.mark.parametrize(
    "bad, error",
    [(7, ValueError), (2.5, TypeError), ("35", TypeError), (True, TypeError), (None, TypeError)],
)
def test_bad_points_are_clear_errors(bad, error):
    with pytest.raises(error):
        level_change(points=bad)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_dig_doubles_for_singles_and_quadruples_for_pairs(variant):
    # Seed 抠底: 单张 → 底分 × 2; 有对 → × 4.
    rules = variant_rules(variant)
    kitty = "5S TD KH KH 3C 4C 6D 8D"  # 35 points
    assert dig_points(kitty, "AS", rules) == 70
    assert dig_points(kitty, "AS KS", rules) == 70
    assert dig_points(kitty, "9S 9S", rules) == 140
    assert dig_points(kitty, "9S 9S 8S 8S 4S", rules) == 140
    assert dig_points("3C 4C 6D 8D 7C 7C 9D 2S", "9S 9S", rules) == 0
    with pytest.raises(ValueError):
        dig_points(kitty, "", rules)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_failed_throws_cost_10_a_card_against_the_thrower(variant):
    # Seed: 庄家方甩错1张牌，抓分方加10分；抓分方甩错1张牌，扣10分.
    rules = variant_rules(variant)
    assert failed_throw_points("banker", 1 + 1, rules) == 20
    assert failed_throw_points("attackers", 5, rules) == -50
    with pytest.raises(ValueError):
        failed_throw_points("banker", 1, rules)


def test_failed_blind_robs_cost_80():
    # Seed 暗炒: 庄家方炒底失败1次，则抓分方加80分；抓分方炒底失败一次，扣80分.
    rules = variant_rules("yancheng")
    assert failed_rob_points("banker", rules) == 80
    assert failed_rob_points("attackers", rules) == -80


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_red_fives_count_only_where_the_variant_scores_them(variant):
    rules = variant_rules(variant)
    result = red_five_points(
        rules, forced=["attackers", "banker"], saved=["attackers", "attackers"]
    )
    if rules.red_five_bonuses:
        # forced: −50 (own) + 50 (banker side's); saved: 2 × 50 for the attackers
        assert result == 100
        assert red_five_points(rules, saved=["banker"]) == -50
        assert red_five_points(rules, forced=["attackers"]) == -50
    else:
        assert result == 0


def test_a_red_five_is_forced_only_without_a_legal_play_without_it():
    assert forced_red_fives("5H", ["5H"]) == 1
    assert forced_red_fives("5H", ["5H", "BJ"]) == 0
    assert forced_red_fives("5H 5H", ["5H 5H"]) == 2
    assert forced_red_fives("5H 9S", ["5H 9S", "5H 8S"]) == 1
    assert forced_red_fives("9S", ["9S"]) == 0


def test_saving_red_fives():
    # Seed 保红5: 最后一张牌（或者一对）为红5，并且此人倒数第二手牌为大.
    assert saved_red_fives("5H", won_second_to_last=True) == 1
    assert saved_red_fives("5H 5H", won_second_to_last=True) == 2
    assert saved_red_fives("5H 5H", won_second_to_last=False) == 0
    assert saved_red_fives("5H BJ", won_second_to_last=True) == 0


def test_attacker_points_floor_at_zero():
    tally = AttackerPoints(tricks=40, failed_throws=-30, failed_robs=-80, red_fives=50, dig=0)
    assert tally.total == -20 and tally.counted == 0
    assert level_change(points=tally.counted)["name"] == "大光"


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_heaven_and_earth_per_variant(variant):
    rules = variant_rules(variant)
    exact = "5S TS KS"
    with_more = "5S TS KS 9S"
    pairs = "5S 5S TS TS KS KS"
    kw = {"level": "2", "trump": "S", "rules": rules}
    assert is_heaven_and_earth(exact, "attackers", **kw)
    if variant == "yancheng":
        # Seed: 仅同花色的5、10、K这3张牌保（抠）底; 带其他牌或5对10对K对 do not count.
        assert is_heaven_and_earth(exact, "banker", **kw)
        assert not is_heaven_and_earth(with_more, "attackers", **kw)
        assert not is_heaven_and_earth(pairs, "attackers", **kw)
    else:
        # Seed: 抓分方用含有同花色的5、10、K的牌型抠底.
        assert not is_heaven_and_earth(exact, "banker", **kw)
        assert is_heaven_and_earth(with_more, "attackers", **kw)
        assert is_heaven_and_earth(pairs, "attackers", **kw)
    assert not is_heaven_and_earth("5S TS KD", "attackers", **kw)
    assert not is_heaven_and_earth("5S TS KS", "attackers", level="K", trump="S", rules=rules)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_plain_hearts_five_ten_king_uses_the_red_five_only_where_allowed(variant):
    rules = variant_rules(variant)
    plain = is_heaven_and_earth("5H TH KH", "attackers", level="2", trump="S", rules=rules)
    assert plain is rules.plain_hearts_five_ten_king
    assert is_heaven_and_earth("5H TH KH", "attackers", level="2", trump="H", rules=rules)

"""炒地皮 levels and the match: laps, must-play ranks, 扛旗, J到底, 上天入地, the bank."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paiju.games import chaodipi
from paiju.games.chaodipi import (
    MatchState,
    TeamLevel,
    advance,
    final_level,
    is_jack_to_bottom,
    score_changes,
    settle_hand,
    variant_rules,
)

VARIANT_IDS = list(chaodipi.VARIANTS)
variants = st.sampled_from(VARIANT_IDS)
points = st.integers(min_value=-20, max_value=80).map(lambda n: 5 * n)


def levels_of(rules):
    last = final_level(rules).position
    return st.integers(min_value=0, max_value=last).map(TeamLevel.from_position)


@given(variants, st.data(), st.integers(0, 10), st.integers(0, 10))
def test_advance_is_monotonic_and_stays_in_the_match(variant, data, gain, more):
    rules = variant_rules(variant)
    level = data.draw(levels_of(rules))
    once = advance(level, gain, rules)
    assert level.position <= once.position <= final_level(rules).position
    assert once.position <= level.position + gain
    assert advance(level, gain + more, rules).position >= once.position


@given(variants, st.data(), st.integers(1, 10))
def test_a_gain_stops_at_must_play_ranks_and_the_last_a(variant, data, gain):
    rules = variant_rules(variant)
    level = data.draw(levels_of(rules))
    after = advance(level, gain, rules)
    climbed = after.position - level.position
    if climbed < gain:  # stopped short: at a must-play rank or at the last A
        assert after.rank in rules.must_play_ranks or after == final_level(rules)


def test_yancheng_laps_wrap_and_the_third_a_must_be_played():
    rules = variant_rules("yancheng")
    assert advance(TeamLevel(1, "K"), 3, rules) == TeamLevel(2, "3")  # spec: K +3 → next lap at 3
    assert advance(TeamLevel(2, "A"), 1, rules) == TeamLevel(3, "2")
    assert advance(TeamLevel(3, "Q"), 3, rules) == TeamLevel(3, "A")


@pytest.mark.parametrize("variant", ["yangzhou", "yangzhong", "nantong"])
def test_one_lap_variants_stop_at_a(variant):
    assert advance(TeamLevel(1, "K"), 3, variant_rules(variant)) == TeamLevel(1, "A")
    assert advance(TeamLevel(1, "A"), 3, variant_rules(variant)) == TeamLevel(1, "A")


def test_nantong_j_and_k_must_be_played():
    rules = variant_rules("nantong")
    assert advance(TeamLevel(1, "9"), 3, rules).rank == "J"
    assert advance(TeamLevel(1, "J"), 3, rules).rank == "K"
    assert advance(TeamLevel(1, "K"), 3, rules).rank == "A"
    assert advance(TeamLevel(1, "9"), 3, variant_rules("yangzhou")).rank == "Q"


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_banker_side_holding_keeps_the_bank_and_counts_the_repeat(variant):
    rules = variant_rules(variant)
    match = MatchState(levels=(TeamLevel(1, "3"), TeamLevel(1, "6")), banker=1, repeat=2)
    outcome = settle_hand(rules, match, points=35)
    assert (outcome.winner, outcome.name, outcome.score, outcome.levels_gained) == (
        "banker",
        "小光",
        2,
        2,
    )
    assert outcome.next == MatchState(
        levels=(TeamLevel(1, "3"), TeamLevel(1, "8")), banker=1, repeat=3
    )
    assert score_changes(outcome) == (-2, 2, -2, 2)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_attackers_take_the_bank_with_the_seat_after_the_banker(variant):
    rules = variant_rules(variant)
    match = MatchState(levels=(TeamLevel(1, "3"), TeamLevel(1, "6")), banker=3, repeat=4)
    outcome = settle_hand(rules, match, points=165)
    assert (outcome.winner, outcome.name, outcome.score, outcome.levels_gained) == (
        "attackers",
        None,
        2,
        2,
    )
    assert outcome.next == MatchState(
        levels=(TeamLevel(1, "5"), TeamLevel(1, "6")), banker=0, repeat=0
    )
    assert outcome.next.level_rank == "5"
    assert score_changes(outcome, (2, 1, 1, 1)) == (4, -2, 2, -2)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_winning_as_banker_at_the_last_a(variant):
    rules = variant_rules(variant)
    match = MatchState(levels=(final_level(rules), TeamLevel(1, "9")), banker=2, repeat=1)
    outcome = settle_hand(rules, match, points=40)
    if rules.flag_hand:
        # 扛旗: the same banker plays the flag hand, and holding it wins the match.
        assert outcome.match_winner is None and outcome.next.flag_hand
        assert outcome.next.banker == 2 and outcome.next.repeat == 2
        flag = settle_hand(rules, outcome.next, points=95)
        assert flag.winner == "banker" and flag.match_winner == 0 and flag.reason == "flag_hand"
        assert flag.next == MatchState()
        lost = settle_hand(rules, outcome.next, points=180)
        assert lost.winner == "attackers" and lost.levels_gained == 2
        assert lost.next.banker == 3 and not lost.next.flag_hand
        assert lost.next.levels == (final_level(rules), TeamLevel(1, "J"))
    else:
        assert outcome.match_winner == 0 and outcome.next == MatchState()
        assert outcome.levels_gained == 0
        with pytest.raises(ValueError, match="no flag hands"):
            settle_hand(rules, MatchState(banker=0, flag_hand=True), 0)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_heaven_and_earth_by_the_attackers(variant):
    rules = variant_rules(variant)
    match = MatchState(levels=(TeamLevel(2, "7"), TeamLevel(1, "4")), banker=0, repeat=1)
    if rules.laps < 2:
        match = MatchState(levels=(TeamLevel(1, "7"), TeamLevel(1, "4")), banker=0, repeat=1)
    outcome = settle_hand(rules, match, points=60, heaven_and_earth="attackers")
    assert outcome.winner == "attackers" and outcome.reason == "heaven_and_earth"
    # Seed: 被惩罚方会降级至第1局且级牌为2；另外一方升至第3局（one lap: 升为）A.
    assert outcome.next.levels == (TeamLevel(1, "2"), final_level(rules))
    assert outcome.next.banker == 1 and outcome.next.repeat == 0
    assert outcome.score == rules.heaven_and_earth_score
    assert outcome.levels_gained == final_level(rules).position - TeamLevel(1, "4").position


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_heaven_and_earth_reward_is_the_larger_one(variant):
    rules = variant_rules(variant)
    match = MatchState(levels=(TeamLevel(1, "7"), TeamLevel(1, "4")), banker=0)
    big = settle_hand(rules, match, points=200 + 40 * 20, heaven_and_earth="attackers")
    assert big.score == 23 > rules.heaven_and_earth_score


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_heaven_and_earth_by_the_banker_side(variant):
    rules = variant_rules(variant)
    match = MatchState(levels=(TeamLevel(1, "7"), TeamLevel(1, "4")), banker=0, repeat=1)
    if not rules.heaven_and_earth_guard:
        with pytest.raises(ValueError):
            settle_hand(rules, match, points=60, heaven_and_earth="banker")
        return
    outcome = settle_hand(rules, match, points=60, heaven_and_earth="banker")
    assert outcome.winner == "banker" and outcome.name == "保庄" and outcome.score == 16
    assert outcome.next == MatchState((final_level(rules), TeamLevel(1, "2")), banker=0, repeat=2)


def test_jack_to_bottom_in_nantong():
    rules = variant_rules("nantong")
    at_j = MatchState(levels=(TeamLevel(1, "J"), TeamLevel(1, "8")), banker=0)
    assert is_jack_to_bottom("JD", "attackers", level="J", points=80, rules=rules)
    assert not is_jack_to_bottom("JD", "attackers", level="J", points=75, rules=rules)
    assert not is_jack_to_bottom("JD JS", "attackers", level="J", points=80, rules=rules)
    assert not is_jack_to_bottom("JD", "banker", level="J", points=80, rules=rules)
    outcome = settle_hand(rules, at_j, points=80, jack_to_bottom=True)
    assert outcome.reason == "jack_to_bottom"
    assert (
        outcome.next.levels == (TeamLevel(1, "2"), TeamLevel(1, "8")) and outcome.next.banker == 1
    )
    at_a = MatchState(levels=(TeamLevel(1, "A"), TeamLevel(1, "8")), banker=0)
    assert is_jack_to_bottom("AH AH", "attackers", level="A", points=80, rules=rules)
    assert settle_hand(rules, at_a, points=125, jack_to_bottom=True).next.levels == (
        TeamLevel(1, "J"),
        TeamLevel(1, "9"),
    )
    with pytest.raises(ValueError):
        settle_hand(rules, at_j, points=40, jack_to_bottom=True)
    with pytest.raises(ValueError):
        settle_hand(variant_rules("yangzhou"), at_j, points=80, jack_to_bottom=True)


@given(variants, st.data(), points, st.integers(0, 3), st.integers(0, 5))
def test_any_hand_leaves_a_valid_match(variant, data, p, banker, repeat):
    rules = variant_rules(variant)
    match = MatchState((data.draw(levels_of(rules)), data.draw(levels_of(rules))), banker, repeat)
    outcome = settle_hand(rules, match, p)
    last = final_level(rules).position
    assert all(0 <= level.position <= last for level in outcome.next.levels)
    kept = outcome.winner == "banker"
    if outcome.match_winner is None:
        assert outcome.next.banker == (banker if kept else (banker + 1) % 4)
        assert outcome.next.repeat == (repeat + 1 if kept else 0)
    changes = score_changes(outcome)
    assert sorted(changes) == [-outcome.score] * 2 + [outcome.score] * 2


def test_first_hand_banker_is_the_declarer():
    match = MatchState().with_first_banker(3)
    assert match.banker == 3 and match.level_rank == "2"
    with pytest.raises(ValueError):
        settle_hand(variant_rules("yangzhou"), MatchState(), 40)
    with pytest.raises(ValueError):
        _ = MatchState().level_rank
    with pytest.raises(ValueError):
        TeamLevel(1, "1")
    with pytest.raises(ValueError):
        MatchState(banker=4)

"""炒地皮 variants as data: the spec's table, declaration orders, options round-trip."""

from __future__ import annotations

from itertools import pairwise

import pytest

from paiju.games import chaodipi
from paiju.games.chaodipi import Declaration, VariantRules, variant_rules

VARIANT_IDS = ["yancheng", "yangzhou", "yangzhong", "nantong"]

# The declaration orders of spec §0 / the seed's 反主级别, low to high.
SUIT_ORDERS = {
    "yancheng": ["clubs_pair", "diamonds_pair", "spades_pair", "hearts_pair"],
    "yangzhou": ["diamonds_pair", "clubs_pair", "hearts_pair", "spades_pair"],
    "yangzhong": ["diamonds_pair", "clubs_pair", "hearts_pair", "spades_pair"],
    "nantong": ["diamonds_pair", "clubs_pair", "hearts_pair", "spades_pair"],
}
HAS_LOOK_BACK = {"yancheng": True, "yangzhou": False, "yangzhong": False, "nantong": True}


def test_every_variant_is_listed_once():
    assert list(chaodipi.VARIANTS) == VARIANT_IDS


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_declaration_order_matches_the_seed(variant):
    rules = variant_rules(variant)
    expected = SUIT_ORDERS[variant] + ["small_joker_pair", "big_joker_pair", "red_five_pair"]
    if HAS_LOOK_BACK[variant]:
        expected.append("look_back")
    assert [str(kind) for kind in rules.declaration_order] == expected
    strengths = [rules.declaration_strength(kind) for kind in expected]
    assert strengths == sorted(strengths) and len(set(strengths)) == len(strengths)
    assert rules.look_back is HAS_LOOK_BACK[variant]


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_any_pair_beats_a_single_and_only_higher_pairs_override(variant):
    rules = variant_rules(variant)
    pairs = rules.declaration_order
    for pair in pairs:
        assert rules.outranks(pair, Declaration.SINGLE)
        assert not rules.outranks(Declaration.SINGLE, pair)
        assert not rules.outranks(pair, pair)
    for low, high in pairwise(pairs):
        assert rules.outranks(high, low) and not rules.outranks(low, high)


@pytest.mark.parametrize(
    "variant, option, value",
    [
        ("yancheng", "blind_declaring", True),
        ("yangzhou", "blind_declaring", False),
        ("yancheng", "red_five_bonuses", True),
        ("nantong", "red_five_bonuses", False),
        ("yancheng", "laps", 3),
        ("yangzhou", "laps", 1),
        ("yangzhou", "flag_hand", True),
        ("yangzhong", "flag_hand", True),
        ("yancheng", "flag_hand", False),
        ("nantong", "flag_hand", False),
        ("yangzhou", "plain_tractor_skips_level", True),
        ("yangzhong", "plain_tractor_skips_level", True),
        ("yancheng", "plain_tractor_skips_level", False),
        ("nantong", "plain_tractor_skips_level", False),
        ("yangzhou", "plain_hearts_five_ten_king", False),
        ("yangzhong", "plain_hearts_five_ten_king", False),
        ("yancheng", "plain_hearts_five_ten_king", True),
        ("nantong", "plain_hearts_five_ten_king", True),
        ("yangzhong", "trump_five_ten_king_forces", False),
        ("yangzhou", "trump_five_ten_king_forces", True),
        ("nantong", "jack_to_bottom", True),
        ("yancheng", "jack_to_bottom", False),
        ("nantong", "must_play_ranks", ("J", "K")),
        ("yangzhou", "must_play_ranks", ()),
        ("nantong", "heaven_and_earth_score", 13),
        ("yancheng", "heaven_and_earth_score", 16),
        ("yangzhou", "heaven_and_earth_score", 16),
        ("yancheng", "heaven_and_earth_exact", True),
        ("yancheng", "heaven_and_earth_guard", True),
        ("yangzhou", "heaven_and_earth_guard", False),
        ("nantong", "heaven_and_earth_exact", False),
    ],
)
def test_variant_differences_are_named_options(variant, option, value):
    assert getattr(variant_rules(variant), option) == value


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_common_core_options(variant):
    rules = variant_rules(variant)
    assert (rules.hand_size, rules.kitty_size, rules.flag_hand_size) == (25, 8, 27)
    assert 4 * rules.hand_size + rules.kitty_size == 108 == 4 * rules.flag_hand_size
    assert rules.joker_tractor and not rules.red_five_pair_in_tractor
    assert rules.ace_high_tractor and rules.ace_low_tractor and not rules.ace_wraps_tractor
    assert (rules.take_bank_at, rules.level_step, rules.flag_hand_take_bank_at) == (80, 40, 100)
    assert (rules.dig_single_multiplier, rules.dig_pair_multiplier) == (2, 4)
    assert (rules.throw_penalty_per_card, rules.escape_penalty) == (10, 15)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_rules_round_trip_through_plain_data(variant):
    rules = variant_rules(variant)
    assert VariantRules.from_dict(rules.to_dict()) == rules
    changed = VariantRules.from_dict({**rules.to_dict(), "escape_penalty": 20})
    assert changed.escape_penalty == 20 and changed.name == variant


@pytest.mark.parametrize(
    "alias, variant",
    [
        ("盐城", "yancheng"),
        ("扬州", "yangzhou"),
        ("镇江", "yangzhou"),
        ("扬中", "yangzhong"),
        ("南通", "nantong"),
        ("连云港", "nantong"),
    ],
)
def test_region_names_find_their_variant(alias, variant):
    assert variant_rules(alias) == variant_rules(variant)


def test_bad_options_are_clear_errors():
    with pytest.raises(ValueError, match="unknown 炒地皮 rule options"):
        variant_rules("yangzhou", kitty=6)
    with pytest.raises(ValueError, match="unknown 炒地皮 variant"):
        variant_rules("shanghai")
    with pytest.raises(ValueError, match="look_back"):
        variant_rules("nantong", look_back=False)
    with pytest.raises(ValueError, match="bad level rank"):
        variant_rules("nantong", must_play_ranks=("1",))
    with pytest.raises(ValueError, match="does not allow"):
        variant_rules("yangzhong").outranks("look_back", "red_five_pair")
    with pytest.raises(ValueError):
        variant_rules("yangzhong").outranks("triple", None)


def test_rules_are_frozen():
    rules = variant_rules("yancheng")
    with pytest.raises(AttributeError):
        rules.laps = 1  # type: ignore[misc]

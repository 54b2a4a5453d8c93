"""炒地皮 card order, shapes, following and trick winners: the spec's and the seed's examples."""

from __future__ import annotations

import pytest

from paiju.cards import format_cards, parse_cards
from paiju.games import chaodipi
from paiju.games.chaodipi.play import Context, follows, leads, throw_fails
from paiju.games.tricks import TRACTOR, classify

VARIANTS = ["yancheng", "yangzhou", "yangzhong", "nantong"]


def shape(cards: str, level: str, trump: str | None, variant: str = "yangzhou") -> str | None:
    found = classify(
        parse_cards(cards), chaodipi.chaodipi_order(level, trump, chaodipi.variant_rules(variant))
    )
    return None if found is None else found.kind


def winner(level: str, trump: str | None, plays: list[str], variant: str = "yangzhou") -> int:
    return chaodipi.trick_winner(level=level, trump=trump, plays=plays, variant=variant)


# --- the engine-api example and the order of trumps ------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_engine_api_example(variant: str) -> None:
    plays = ["5C 4C 4C", "9S 7S 7S", "8S 8S 4S", "AC KC QC"]
    assert winner("2", "S", plays, variant) == 2


@pytest.mark.parametrize("variant", VARIANTS)
def test_trump_order_top_to_bottom(variant: str) -> None:
    order = chaodipi.chaodipi_order("7", "S", chaodipi.variant_rules(variant))
    ranked = ["5H", "BJ", "SJ", "7S", "7H", "AS", "KS", "8S", "6S", "2S"]
    strengths = [order.strength[parse_cards(card)[0]] for card in ranked]
    assert strengths == sorted(strengths, reverse=True) and len(set(strengths)) == len(strengths)
    assert (
        order.strength[parse_cards("7H")[0]]
        == order.strength[parse_cards("7D")[0]]
        == order.strength[parse_cards("7C")[0]]
    )
    assert not order.is_trump(parse_cards("AH")[0]) and order.is_trump(parse_cards("5H")[0])


def test_no_trump_and_level_five() -> None:
    rules = chaodipi.variant_rules("yangzhou")
    order = chaodipi.chaodipi_order("9", None, rules)
    s = {
        card: order.strength[parse_cards(card)[0]] for card in ("5H", "BJ", "SJ", "9S", "9H", "AS")
    }
    assert s["5H"] > s["BJ"] > s["SJ"] > s["9S"] == s["9H"]
    assert not order.is_trump(parse_cards("AS")[0])
    five = chaodipi.chaodipi_order("5", "H", rules)
    # 5♥ is the 红5 even at level 5: above the jokers, and no separate trump-suit level card.
    assert five.strength[parse_cards("5H")[0]] > five.strength[parse_cards("BJ")[0]]
    assert five.strength[parse_cards("5S")[0]] < five.strength[parse_cards("SJ")[0]]


def test_equal_cards_first_played_wins() -> None:
    assert winner("7", "S", ["7H", "7D", "7C", "6S"]) == 0
    assert winner("7", "S", ["3C", "7D", "7H", "2C"]) == 1


def test_flag_hand_order() -> None:
    order = chaodipi.chaodipi_order(None, None, chaodipi.variant_rules("yangzhou"))
    trumps = [card for card in parse_cards("5H BJ SJ AS 2C 7D") if order.is_trump(card)]
    assert format_cards(trumps) == "5H BJ SJ"
    assert classify(parse_cards("QS QS KS KS AS AS"), order).kind == TRACTOR  # type: ignore[union-attr]


# --- tractors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_tractors_in_the_trumps(variant: str) -> None:
    assert shape("SJ SJ BJ BJ", "7", "S", variant) == TRACTOR
    assert shape("SJ SJ 7S 7S", "7", "S", variant) is None
    assert shape("7H 7H 7S 7S", "7", "S", variant) is None
    assert shape("7H 7H 7D 7D", "7", None, variant) is None
    assert shape("BJ BJ 5H 5H", "7", "S", variant) is None
    assert shape("4H 4H 6H 6H", "7", "H", variant) is None  # the 5♥ gap in trump hearts
    assert shape("6S 6S 7S 7S 8S 8S", "7", "S", variant) == TRACTOR


@pytest.mark.parametrize("variant", VARIANTS)
def test_at_level_five_the_missing_five_of_hearts_is_the_gap_so_4h_4h_6h_6h_is_no_tractor(
    variant: str,
) -> None:
    # Decision (§4): at level 5 the 5♥ is the 红5, and its absence is the 5♥ gap, not a skipped
    # level rank — in every variant, with hearts plain, trump or in no-trump.
    for trump in ("S", "C", "H", None):
        assert shape("4H 4H 6H 6H", "5", trump, variant) is None
    # The other plain suits do skip the level rank where the variant says so.
    skips = variant in ("yangzhou", "yangzhong")
    assert (shape("4C 4C 6C 6C", "5", "S", variant) == TRACTOR) is skips


def test_trump_suit_level_pair_keeps_its_natural_place() -> None:
    # 级牌形成的连对中级牌仅以实际点数参与比较大小: 6677 loses to 8899 although 77 is a top pair.
    assert winner("7", "S", ["6S 6S 7S 7S", "8S 8S 9S 9S", "2C 3C 4C 6C", "2D 3D 4D 6D"]) == 1
    assert winner("7", "S", ["AS AS", "7S 7S", "2C 2C", "3C 3C"]) == 1


def test_plain_tractors_skip_the_level_rank_by_variant() -> None:
    for variant in ("yangzhou", "yangzhong"):
        assert shape("6C 6C 8C 8C", "7", "S", variant) == TRACTOR
    for variant in ("yancheng", "nantong"):
        assert shape("6C 6C 8C 8C", "7", "S", variant) is None
    # Level cards are trumps, never part of a plain tractor; the 5♥ gap is never skipped.
    assert shape("4H 4H 6H 6H", "7", "S", "yangzhou") is None


@pytest.mark.parametrize("variant", VARIANTS)
def test_ace_high_or_low_never_both(variant: str) -> None:
    assert shape("KC KC AC AC", "7", "S", variant) == TRACTOR
    assert shape("AC AC 2C 2C", "7", "S", variant) == TRACTOR
    assert shape("KC KC AC AC 2C 2C", "7", "S", variant) is None
    # AA22 counts the A as 1: its top pair is the 22, below 2233.
    assert (
        winner("7", "S", ["AC AC 2C 2C", "2C 2C 3C 3C", "4D 5D 6D 8D", "4D 5D 6D 8D"], variant) == 1
    )


def test_longer_tractor_lead_needs_a_tractor_of_its_length() -> None:
    plays = ["4C 4C 5C 5C 6C 6C", "9S 9S TS TS JS JS", "QS QS KS KS 2S 2S", "2D 3D 4D 5D 6D 8D"]
    assert winner("7", "S", plays, "yancheng") == 1


# --- trumping and throws: the seed's examples ---------------------------------------------------


def test_trumping_a_throw_needs_its_pairs_and_tractors() -> None:
    # 主牌998872可毙副牌AK5544, 但不能毙副牌AA5544.
    assert (
        winner(
            "J",
            "S",
            ["AC KC 5C 5C 4C 4C", "9S 9S 8S 8S 7S 2S", "2D 3D 4D 6D 8D 9D", "2H 3H 4H 6H 8H 9H"],
        )
        == 1
    )
    assert (
        winner(
            "J",
            "S",
            ["AC AC 5C 5C 4C 4C", "9S 9S 8S 8S 7S 2S", "2D 3D 4D 6D 8D 9D", "2H 3H 4H 6H 8H 9H"],
        )
        == 0
    )


def test_over_trumping_compares_pairs_or_the_top_card() -> None:
    # 主牌977可毙副牌544, 主牌884可盖毙; 主牌977可毙副牌567, 主牌884不能盖毙.
    assert winner("J", "S", ["5C 4C 4C", "9S 7S 7S", "8S 8S 4S", "2C 3C 6C"]) == 2
    assert winner("J", "S", ["5C 6C 7C", "9S 7S 7S", "8S 8S 4S", "2C 3C 8C"]) == 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_longer_trump_tractor_beats_shorter_when_trumping_a_throw(variant: str) -> None:
    # 不同长度的连对之，长度最长的连对最大: the three-pair trump tractor wins, whoever plays first.
    lead, two_pairs, three_pairs = "3C 3C 4C 4C 9C JC", "KS KS AS AS 5S 6S", "2S 2S 3S 3S 4S 4S"
    discard = "2D 3D 4D 6D 8D 9D"
    assert winner("7", "S", [lead, two_pairs, three_pairs, discard], variant) == 2
    assert winner("7", "S", [lead, three_pairs, two_pairs, discard], variant) == 1
    # Of two trump tractors of one length, the higher top pair still wins.
    assert winner("7", "S", [lead, "2S 2S 3S 3S 8S 9S", two_pairs, discard], variant) == 2


def test_trumping_with_singles_against_pairs_is_a_discard() -> None:
    assert winner("J", "S", ["5C 5C", "9S 7S", "2C 3C", "4C 6C"]) == 0
    assert winner("J", "S", ["5C 5C", "7S 7S", "2C 3C", "BJ BJ"]) == 3


def test_a_standing_trump_throw_wins() -> None:
    assert winner("J", "S", ["BJ SJ", "5H 5H", "AS AS", "2C 2C"]) == 0


def test_throw_fails_against_any_other_hand() -> None:
    context = Context.of("7", "S", chaodipi.variant_rules("yangzhou"))
    throw = parse_cards("AC KC KC")
    assert not throw_fails(
        context, throw, [parse_cards("QC QC JC"), parse_cards("2D"), parse_cards("3H")]
    )
    assert not throw_fails(
        context, throw, [parse_cards("QC QC"), parse_cards("AC"), parse_cards("3H")]
    )
    assert throw_fails(
        context, throw, [parse_cards("QC QC"), parse_cards("AC AC"), parse_cards("3H")]
    )
    # The partner's hand counts too; a pair part fails against a higher pair.
    assert throw_fails(
        context,
        parse_cards("QC QC 9C"),
        [parse_cards("KC KC"), parse_cards("2D"), parse_cards("3H")],
    )
    # A tractor part fails against a higher tractor of its length.
    assert throw_fails(
        context,
        parse_cards("8C 8C 9C 9C AC"),
        [parse_cards("TC TC JC JC"), parse_cards(""), parse_cards("")],
    )
    assert not throw_fails(
        context,
        parse_cards("8C 8C 9C 9C AC"),
        [parse_cards("TC TC QC QC"), parse_cards(""), parse_cards("")],
    )


# --- following ----------------------------------------------------------------------------------------


def legal(
    hand: str,
    lead: str,
    play: str,
    level: str = "7",
    trump: str | None = "S",
    variant: str = "yangzhou",
) -> bool:
    return chaodipi.is_legal_follow(
        hand=hand, lead=lead, play=play, level=level, trump=trump, variant=variant
    )


def test_following_a_throw_tractors_then_pairs_then_singles() -> None:
    lead = "3C 3C 4C 4C AC"  # a tractor and a single
    assert legal("8C 8C 9C 9C 2C 6C", lead, "8C 8C 9C 9C 2C")
    assert not legal("8C 8C 9C 9C 2C 6C", lead, "8C 8C 2C 6C 9C")  # the tractor is held: play it
    assert legal("8C 8C TC TC 2C 6C", lead, "8C 8C TC TC 2C")  # no tractor: the pairs
    assert not legal("8C 8C TC TC 2C 6C", lead, "8C 8C 2C 6C TC")
    assert legal("8C 2C 6C 9S 9S", lead, "8C 2C 6C 9S 9S")  # short: all clubs, then anything
    assert not legal("8C 2C 6C 9S 9S KC", lead, "8C 2C 6C 9S 9S")


def test_following_counts_all_the_pairs_of_the_lead() -> None:
    lead = "3C 3C 6C 6C 9C"  # two pairs that do not connect, and a single
    assert legal("8C 8C TC TC QC KC", lead, "8C 8C TC TC QC")
    assert not legal("8C 8C TC TC QC KC", lead, "8C 8C QC KC TC")


def test_engine_api_is_legal_follow_refuses_cards_not_held() -> None:
    assert not legal("8C 9C", "5C", "TC")
    assert legal("8C 9C", "5C", "9C")
    assert not legal("8C 9S", "5C", "9S")


# --- 5-10-K ------------------------------------------------------------------------------------------------


def test_five_ten_king_shapes_by_variant() -> None:
    yangzhou, nantong = chaodipi.variant_rules("yangzhou"), chaodipi.variant_rules("nantong")
    assert chaodipi.five_ten_king_of(parse_cards("5S TS KS"), "7", "S", yangzhou).trump  # type: ignore[union-attr]
    assert (
        chaodipi.five_ten_king_of(parse_cards("5C TC KC"), "K", "S", yangzhou) is None
    )  # K is the level
    assert chaodipi.five_ten_king_of(parse_cards("5H TH KH"), "7", "S", yangzhou) is None
    assert chaodipi.five_ten_king_of(parse_cards("5H TH KH"), "7", "S", nantong) is not None
    assert chaodipi.five_ten_king_of(parse_cards("5H TH KH"), "7", "H", yangzhou).trump  # type: ignore[union-attr]


def test_trump_five_ten_king_is_the_top_play() -> None:
    assert winner("7", "S", ["5S TS KS", "BJ BJ 5H", "5S TS KS", "2C 3C 4C"]) == 0


def test_plain_five_ten_king_beaten_only_by_the_trump_one() -> None:
    assert winner("7", "S", ["5C TC KC", "BJ BJ 5H", "AC AC QC", "2D 3D 4D"]) == 0
    assert winner("7", "S", ["5C TC KC", "BJ BJ 5H", "5S TS KS", "2D 3D 4D"]) == 2
    assert winner("7", None, ["5C TC KC", "BJ BJ 5H", "5S TS KS", "2D 3D 4D"]) == 0


@pytest.mark.parametrize("variant", ["yancheng", "yangzhou", "nantong"])
def test_trump_five_ten_king_forces(variant: str) -> None:
    lead = "5S TS KS"
    assert legal("5S TS KS 2C 3C", lead, "5S TS KS", variant=variant)
    assert not legal("5S TS KS 2C 3C AS", lead, "AS 2C 3C", variant=variant)
    # Otherwise the three highest trumps.
    assert legal("BJ 7D AS 9S 2C", lead, "BJ 7D AS", variant=variant)
    assert not legal("BJ 7D AS 9S 2C", lead, "BJ AS 9S", variant=variant)
    # Equal trumps at the edge: any of them.
    assert not legal("BJ 7D 7H 9S", lead, "BJ 7H 9S", variant=variant)
    assert legal("BJ SJ 7D 7H 9S", lead, "BJ SJ 7H", variant=variant)
    assert legal("BJ SJ 7D 7H 9S", lead, "BJ SJ 7D", variant=variant)


def test_trump_five_ten_king_forces_nothing_in_yangzhong() -> None:
    assert legal("BJ 7D AS 9S 2C", "5S TS KS", "AS 9S 7D", variant="yangzhong")
    assert not legal("BJ 7D AS 9S 2C", "5S TS KS", "AS 9S 2C", variant="yangzhong")


def test_plain_five_ten_king_of_pairs_forces_pairs() -> None:
    lead = "5C 5C TC TC KC KC"
    assert legal("2C 2C 3C 3C 4C 4C 6C", lead, "2C 2C 3C 3C 4C 4C")
    assert not legal("2C 2C 3C 3C 4C 4C 6C", lead, "2C 2C 3C 3C 4C 6C")


# --- listing ---------------------------------------------------------------------------------------------------


def test_leads_list_five_ten_kings_and_follows_are_lowest_first() -> None:
    context = Context.of("7", "S", chaodipi.variant_rules("yangzhou"))
    listed = {format_cards(play) for play in leads(context, parse_cards("5C TC KC 5C TC KC 2D"))}
    assert {"5C TC KC", "5C 5C TC TC KC KC", "2D", "5C 5C"} <= listed
    plays, complete = follows(context, parse_cards("9C 2C AS BJ"), parse_cards("KC"))
    assert complete and [format_cards(p) for p in plays] == ["2C", "9C"]
    plays, _ = follows(context, parse_cards("9H 2D AS BJ"), parse_cards("KC"))
    assert format_cards(plays[0]) == "2D"


@pytest.mark.parametrize("variant", VARIANTS)
def test_default_move_on_a_timeout_orders_by_points_before_strength(variant: str) -> None:
    # Hunzhan §5's key: point value, then the strength of the highest card, then the text.
    context = Context.of("7", "S", chaodipi.variant_rules(variant))
    plays, _ = follows(context, parse_cards("5C 6C 9H"), parse_cards("3C"))
    assert [format_cards(p) for p in plays] == ["6C", "5C"]
    plays, _ = follows(context, parse_cards("5C KC 8C 9C 2H"), parse_cards("3C 4C"))
    assert [format_cards(p) for p in plays][:3] == ["8C 9C", "5C 8C", "5C 9C"]
    hand = chaodipi.Game(chaodipi.Rules(variant=variant)).new_hand(
        [0] * 4, dealer=0, seed=b"x", match=chaodipi.MatchState(banker=0)
    )
    hand.deal_all()
    hand.system_step()  # nobody declared: the kitty sets trump, the banker buries
    hand.timeout()
    # The banker leads 3C; seat 1 holds only 5C and 6C of that class.
    hand.trump, hand._context = "S", None
    hand.hands[0] = sorted(parse_cards("3C") + hand.hands[0][1:])
    hand.hands[1] = sorted(parse_cards("5C 6C") + [c for c in hand.hands[1] if c.suit == "S"][:2])
    hand.apply(0, "play 3C")
    hand.timeout()
    assert hand.trick[-1] == (1, tuple(parse_cards("6C")))


def test_default_move_text_is_rank_ascending_with_s_h_c_d_within_a_rank() -> None:
    # Decision (Hunzhan §5, used by §8): on equal points and equal highest card, the lower text
    # wins, the play written by rank ascending and S H C D within a rank: "4S 4C", not "4C 4S".
    context = Context.of("7", "S", chaodipi.variant_rules("yangzhou"))
    plays, _ = follows(context, parse_cards("2S 4S 4C 7C 7D TS"), parse_cards("3H 3H 4H 4H"))
    assert format_cards(plays[0]) == "2S 4C 7C 7D"  # "2S 4C …" < "2S 4S 4C 7C"
    assert format_cards(sorted(parse_cards("7D 7C 7H 7S"))) == "7S 7H 7C 7D"

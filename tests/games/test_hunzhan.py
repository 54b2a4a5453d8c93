"""混战: the spec's examples as golden tests, the deal and declaring, settlement, escapes, timeouts."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.cards import double_deck_without_346, format_cards, parse_cards, shuffled
from paiju.games import hunzhan
from paiju.games.engine import IllegalAction
from paiju.games.hunzhan import Game, Phase, Rules, deal_seed, deck_dealing
from paiju.games.hunzhan.plays import allowed_plays
from paiju.games.tricks import follow_plays
from tests.volume import volume


def hands_with(fixed: dict[int, str]) -> list[str]:
    """Four 21-card hands: the ``fixed`` cards first, the rest of the deck dealt in code order."""
    rest = Counter(double_deck_without_346())
    hands = {seat: parse_cards(text) for seat, text in fixed.items()}
    for cards in hands.values():
        rest.subtract(cards)
    pool = sorted(rest.elements())
    out = []
    for seat in range(4):
        cards = hands.get(seat, [])
        need = 21 - len(cards)
        out.append(format_cards(cards + pool[:need]))
        pool = pool[need:]
    return out


def new_hand(fixed: dict[int, str], first: int = 0, rules: Rules | None = None, coins=None):
    deck = deck_dealing(hands_with(fixed), first_receiver=first)
    return Game(rules).new_hand(coins=coins or [100_000] * 4, dealer=first, seed=b"test", deck=deck)


def playing_hand(fixed: dict[int, str], declarer: int, declaration: str, first: int = 0, **kw):
    hand = new_hand(fixed, first, **kw)
    hand.deal_all()
    hand.apply(declarer, f"declare {declaration}")
    hand.close_declaring()
    return hand


# --- engine-api examples and the seed's examples ---------------------------------------------

def test_engine_api_examples():
    assert hunzhan.trick_winner(trump="S", plays=["9H", "JH", "5S", "KH"]) == 2
    assert hunzhan.legal_plays(hand="5H 9H KH", trick=["9C", "JC"], trump="S") == ["9H"]
    rows = hunzhan.settle(points=[70, 50, 60, 60], coins_per_5=50, fee_rate=0.02)
    assert rows[0] == {"result": 10, "coins": 98, "fee": 2}
    assert rows[1] == {"result": -10, "coins": -100, "fee": 0}


def test_seed_settlement_table():
    # 本局结算表: A 60 → 0, B 70 → 98 (fee 2), C 50 → -100, D 60 → 0.
    rows = hunzhan.settle([60, 70, 50, 60], coins_per_5=50, fee_rate=0.02)
    assert [(r["result"], r["coins"], r["fee"]) for r in rows] == [(0, 0, 0), (10, 98, 2), (-10, -100, 0), (0, 0, 0)]


def test_must_take_points():
    # 上家出了5, J: the current player must play above J, even a K.
    assert hunzhan.legal_plays("KC 9C 7C", ["5C", "JC"], trump="S") == ["KC"]
    assert hunzhan.legal_plays("KC AC 9C", ["5C", "JC"], trump="S") == ["AC", "KC"]
    # Nothing can take them: any follow, but without feeding more points.
    assert hunzhan.legal_plays("9C 7C 5C", ["5C", "JC"], trump="S") == ["7C", "9C"]
    # Void with a trump: trumping is the winning play, so it is forced.
    assert hunzhan.legal_plays("2D 9H", ["5C", "JC"], trump="S") == ["2D"]


def test_no_feeding_points():
    # 上两家出了9、J: no 5, but a K (it wins); a 5 if that is all you may play.
    assert hunzhan.legal_plays("5C KC", ["9C", "JC"], trump="S") == ["KC"]
    assert hunzhan.legal_plays("5C 7C", ["9C", "JC"], trump="S") == ["7C"]
    assert hunzhan.legal_plays("5C 9H", ["9C", "JC"], trump="S") == ["5C"]
    assert hunzhan.legal_plays("5H KH", ["9C", "JC"], trump="S") == ["5H", "KH"]  # void, all feed


def test_the_leader_is_exempt_from_the_point_rules():
    assert hunzhan.legal_plays("5C 5C KC", [], trump="S") == ["5C", "5C 5C", "KC"]  # by points, then strength


def test_a_winning_pair_must_take_points():
    assert hunzhan.legal_plays("AH AH 7H 7H 9H", ["KH KH"], trump="C") == ["AH AH"]
    assert hunzhan.legal_plays("AH AH 7H 7H 9H", ["QH QH"], trump="C") == ["7H 7H", "AH AH"]
    assert hunzhan.legal_plays("KH KH 7H 7H 9H", ["QH QH"], trump="C") == ["7H 7H", "KH KH"]


def test_public_functions_refuse_bad_input():
    with pytest.raises(ValueError):
        hunzhan.legal_plays("5C", ["AH KH"], trump="S")
    with pytest.raises(ValueError):
        hunzhan.legal_plays("5C 9C", ["5C", "7C", "8C", "9C"], trump="S")
    with pytest.raises(ValueError):
        hunzhan.trick_winner(trump="X", plays=["5C"])
    with pytest.raises(ValueError):
        hunzhan.settle([70, 50, 60, 61], coins_per_5=50, fee_rate=0.02)
    with pytest.raises(ValueError):
        hunzhan.settle([70, 50, 60, 60], coins_per_5=50, fee_rate=1.5)


# --- settlement --------------------------------------------------------------------------------

@pytest.mark.parametrize(("received", "fee"), [(100, 2), (125, 3), (75, 2), (24, 0), (25, 1), (0, 0)])
def test_fee_rounds_half_up(received, fee):
    assert hunzhan.fee_on(received, 0.02) == fee


def test_fee_rate_is_read_as_its_decimal():
    # 0.07 as a binary float is a hair below 7/100; 50 × 0.07 = 3.5 must still round to 4.
    assert hunzhan.fee_on(50, 0.07) == 4 and hunzhan.fee_on(50, Fraction(7, 100)) == 4


@pytest.mark.parametrize(
    ("points", "escaper", "results"),
    [
        ([40, 70, 65, 35], 0, [-60, 10, 5, 0]),
        ([60, 70, 50, 40], 0, [-10, 10, 0, 0]),  # exactly 60: the flat -10 (Decision)
        ([80, 70, 50, 40], 0, [-10, 10, 0, 0]),
        ([0, 0, 0, 0], 2, [0, 0, -180, 0]),
    ],
)
def test_escape_results(points, escaper, results):
    assert hunzhan.escape_results(points, escaper) == results


def test_escape_coins_shared_in_proportion_and_rest_to_the_house():
    # The escaper owes 12 × 50 = 600 but holds 90: winners due 100 and 50 share 90 as 2 : 1.
    rows = hunzhan.settle_escape([40, 70, 65, 35], 0, coins_per_5=50, fee_rate=0.02, coins=[90, 0, 0, 0])
    assert [r["coins"] for r in rows] == [-90, 60 - 1, 30 - 1, 0]
    # Holding enough: winners get their due, the surplus goes to the house.
    hand = playing_hand({0: "TS"}, 0, "TS")
    hand.coins = (1000, 1000, 1000, 1000)
    events = hand.leave(2)
    result = hand.result
    assert events[0].type == "escaped" and result.details["results"] == [0, 0, -180, 0]
    assert result.coins == (0, 0, -1000, 0) and result.fee == 1000 and result.details["leftover"] == 1000


@settings(max_examples=volume(suite=100, soak=200), deadline=None)
@given(
    points=st.lists(st.integers(0, 48).map(lambda x: 5 * x), min_size=4, max_size=4).filter(lambda p: sum(p) <= 240),
    escaper=st.integers(0, 3),
    held=st.lists(st.integers(0, 5000), min_size=4, max_size=4),
    per5=st.sampled_from([1, 7, 50, 100]),
    rate=st.sampled_from([0, 0.02, 0.05, 0.1]),
)
def test_escape_coins_are_conserved(points, escaper, held, per5, rate):
    rows = hunzhan.settle_escape(points, escaper, per5, rate, coins=held)
    paid = -rows[escaper]["coins"]
    assert paid == min(held[escaper], -rows[escaper]["result"] // 5 * per5)
    for seat, row in enumerate(rows):
        if seat != escaper:
            due = row["result"] // 5 * per5
            assert 0 <= row["coins"] + row["fee"] <= due
    assert sum(r["coins"] + r["fee"] for r in rows) <= 0  # the house keeps fees and any surplus


@settings(max_examples=volume(suite=100, soak=200), deadline=None)
@given(
    points=st.lists(st.integers(0, 48).map(lambda x: 5 * x), min_size=3, max_size=3).filter(lambda p: sum(p) <= 240),
    per5=st.sampled_from([1, 7, 50, 100]),
    rate=st.sampled_from([0, 0.02, 0.05]),
)
def test_finished_hand_coins(points, per5, rate):
    points = [*points, 240 - sum(points)]
    rows = hunzhan.settle(points, per5, rate)
    assert sum(r["result"] for r in rows) == 0
    fees = sum(r["fee"] for r in rows)
    assert sum(r["coins"] for r in rows) + fees == 0
    for x, row in zip(points, rows, strict=True):
        assert row["coins"] + row["fee"] == (x - 60) // 5 * per5
        assert row["fee"] == (hunzhan.fee_on((x - 60) // 5 * per5, rate) if x > 60 else 0)


# --- dealing and declaring --------------------------------------------------------------------

def test_cards_go_round_the_table_from_the_first_receiver():
    hand = new_hand({}, first=2)
    events = hand.system_step()
    assert events[0].data == {"seat": 2, "count": 1} and events[1].visible_to == (2,)
    hand.deal_all()
    for seat in range(4):
        assert format_cards(hand.hands[seat]) == format_cards(sorted(parse_cards(hands_with({})[seat])))


def test_a_declaration_uses_only_cards_already_dealt():
    hand = new_hand({1: "5S TH"})
    hand.system_step()  # seat 0's first card
    hand.system_step()  # seat 1 gets 5S
    with pytest.raises(IllegalAction) as refused:
        hand.apply(1, "declare TH")
    assert refused.value.code == "not_held"
    for _ in range(4):
        hand.system_step()  # seat 1 gets TH on the 6th card
    assert [str(a) for a in hand.legal_actions(1)] == ["declare TH"]
    hand.apply(1, "declare TH")


def test_override_order_and_overriding_again():
    hand = new_hand({0: "TD TS", 1: "TC SJ SJ", 2: "BJ BJ", 3: "TH"})
    hand.deal_all()
    hand.apply(0, "declare TD")
    with pytest.raises(IllegalAction) as own:
        hand.apply(0, "declare TS")  # Decision: no raising one's own declaration
    assert own.value.code == "own_declaration"
    hand.apply(1, "declare TC")
    hand.apply(3, "declare TH")
    with pytest.raises(IllegalAction) as low:
        hand.apply(1, "declare TC")
    assert low.value.code == "declaration_too_low"
    hand.apply(0, "declare TS")  # overridden, overrides again
    assert [str(a) for a in hand.legal_actions(1)] == ["declare SJ SJ"]
    hand.apply(1, "declare SJ SJ")
    hand.apply(2, "declare BJ BJ")
    assert all(hand.legal_actions(seat) == [] for seat in range(4))
    with pytest.raises(IllegalAction):
        hand.apply(1, "declare SJ")  # a single joker declares nothing
    hand.close_declaring()
    assert hand.trump is None and hand.declarer == 2 and hand.to_act == 2  # the declarer leads
    assert hand.view(0)["no_trump"] is True


def test_nobody_declares_deals_again_from_a_derived_seed():
    hand = new_hand({}, first=3)
    hand.deal_all()
    events = hand.close_declaring()
    assert [e.type for e in events] == ["redeal"] and hand.phase is Phase.DEALING
    assert hand.order == tuple(shuffled(double_deck_without_346(), deal_seed(b"test", 1)))
    assert deal_seed(b"test", 1) != deal_seed(b"test", 2) and deal_seed(b"test", 0) == b"test"
    assert events[0].data["commitment"] == hand.commitment and hand.dealt == 0
    hand.system_step()
    assert len(hand.hands[3]) == 1  # same first receiver
    with pytest.raises(IllegalAction):
        hand.close_declaring()  # not before the deal is over


def test_the_engine_tells_the_service_its_next_system_step():
    hand = new_hand({0: "TS"})
    assert hand.pending_system_step == ("deal", 0.25) and hand.to_act is None
    hand.deal_all()
    assert hand.pending_system_step == ("close_declaring", 5.0)
    hand.apply(0, "declare TS")
    hand.system_step()
    assert hand.pending_system_step is None and hand.to_act == 0
    with pytest.raises(IllegalAction):
        hand.system_step()


# --- playing ------------------------------------------------------------------------------------

def test_a_trick_goes_to_the_trump_and_the_winner_leads():
    no_hearts = "5S 5S 7S 7S 8S 8S 9S 9S JS JS QS QS KS KS AS AS 2C 2C 5C 5C 7C"
    hand = playing_hand({0: "TS 9H", 1: "JH", 2: no_hearts, 3: "KH"}, 0, "TS")
    hand.play(0, "9H")
    hand.play(1, "JH")
    assert "play 5S" in [str(a) for a in hand.legal_actions(2)]
    hand.play(2, "5S")
    last = hand.legal_actions(3)[0]
    hand.apply(3, last)
    assert hand.last_trick_winner == 2 and hand.to_act == 2
    assert hand.points[2] == 5 + hunzhan.points_of(last.cards) and sum(hand.points) == hand.points[2]
    assert [p["cards"] for p in hand.view(1)["previous_trick"]] == ["9H", "JH", "5S", format_cards(last.cards)]


def test_illegal_plays_are_refused_without_change():
    hand = playing_hand({0: "TS 9H 9H AH"}, 0, "TS")
    blob = hand.to_bytes()
    for seat, move, code in [
        (1, "play 5C", "not_your_turn"),
        (0, "play 9H AH", "illegal_play"),  # not a shape
        (0, "play BJ", "not_held"),
        (0, "declare TS", "not_declaring"),
        (7, "play 9H", "bad_seat"),
    ]:
        with pytest.raises(IllegalAction) as refused:
            hand.apply(seat, move)
        assert refused.value.code == code
        assert hand.to_bytes() == blob
    with pytest.raises(IllegalAction) as malformed:
        hand.apply(0, "play 1H")
    assert malformed.value.code == "malformed"


def test_timeouts_play_the_lowest_and_the_fourth_is_an_escape():
    hand = playing_hand({0: "TS"}, 0, "TS")
    lowest = hand.legal_actions(0)[0]
    events = hand.timeout()
    assert events[0].data == {"seat": 0, "strikes": 1} and events[1].data["cards"] == format_cards(lowest.cards)
    for _ in range(3):
        hand.timeout()  # seats 1, 2, 3 each get one strike
    assert hand.strikes == [1, 1, 1, 1]
    seat = hand.to_act
    hand.apply(seat, hand.legal_actions(seat)[0])
    assert hand.strikes[seat] == 0  # a move by the player clears its strikes
    while not hand.is_over:
        hand.timeout()
    assert hand.result.details["how"] == "escape"
    escaper = hand.result.details["escaper"]
    assert hand.strikes[escaper] == 4 and escaper != seat


def test_the_default_move_is_lowest_by_points_then_strength_then_text():
    order = hunzhan.hunzhan_order("S")
    plays = allowed_plays(parse_cards("KH 5C 9D 9C 2D AS"), [], order)
    assert format_cards(plays[0]) == "9C" and format_cards(plays[1]) == "9D"
    assert all(hunzhan.default_key(a, order) <= hunzhan.default_key(b, order) for a, b in itertools.pairwise(plays))


def test_default_move_text_is_rank_ascending_with_s_h_c_d_within_a_rank():
    # Decision (§5): on equal points and equal highest card (here the other 2s), the lower text
    # wins, each play written by rank ascending and S H C D within a rank: "7S 7C", not "7C 7S".
    order = hunzhan.hunzhan_order("S")
    plays = allowed_plays(parse_cards("2S 2C 2D 7S 7C AD"), [parse_cards("7H 7H 8H 8H")], order)
    assert format_cards(plays[0]) == "2C 2D 7C AD"  # "2C 2D 7C …" < "2C 2D 7S 7C"
    hand = playing_hand({0: "TS 7H 7H 8H 8H", 1: "2S 2C 2D 7S 7C AD"}, 0, "TS")
    hand.apply(0, "play 7H 7H 8H 8H")
    hand.hands[1] = sorted(parse_cards("2S 2C 2D 7S 7C AD"))  # void in hearts, as in the vector
    events = hand.timeout()
    assert events[1].data["cards"] == "2C 2D 7C AD"


def test_the_player_whose_declaration_stands_cannot_override_it():
    # Decision (§1): 反主 answers someone else's declaration, while dealing and after it.
    hand = new_hand({0: "TD TS BJ BJ", 1: "TC"})
    hand.system_step()  # seat 0 gets TD
    hand.apply(0, "declare TD")
    assert hand.legal_actions(0) == []
    hand.deal_all()
    assert hand.legal_actions(0) == [] and not hand.can(0, "declare BJ BJ")
    with pytest.raises(IllegalAction) as own:
        hand.apply(0, "declare BJ BJ")
    assert own.value.code == "own_declaration"
    hand.apply(1, "declare TC")
    assert [str(a) for a in hand.legal_actions(0)] == ["declare TS", "declare BJ BJ"]


def test_views_leak_nothing_before_the_end():
    hand = playing_hand({0: "TS"}, 0, "TS")
    for seat in (None, 0, 1, 2, 3):
        view = hand.view(seat)
        text = json.dumps(view)
        assert b"test".hex() not in text and view["reveal"] is None
        for player in view["players"]:
            assert (player["cards"] is not None) == (player["seat"] == seat)
    hand.leave(1)
    assert hand.view(None)["reveal"]["deals"][0]["seed"] == b"test".hex()


def test_round_trip_and_corrupt_bytes():
    hand = playing_hand({0: "TS"}, 0, "TS")
    hand.play(0, str(hand.legal_actions(0)[0].cards[0]))
    blob = hand.to_bytes()
    assert Game.load(blob) == hand and Game.load(blob).to_bytes() == blob
    with pytest.raises(ValueError):
        Game.load(b'{"game":"hunzhan","format":1,"state":{}}')
    with pytest.raises(ValueError):
        Game.load(b"not json")


def test_bad_starts_are_refused():
    game = Game()
    with pytest.raises(ValueError):
        game.new_hand([100] * 3, 0, b"s")
    with pytest.raises(ValueError):
        game.new_hand([100] * 4, 4, b"s")
    with pytest.raises(ValueError):
        game.new_hand([100] * 4, 0, b"")
    with pytest.raises(ValueError):
        game.new_hand([100] * 4, 0, b"s", deck="AS KS")
    with pytest.raises(ValueError):
        Rules(fee_rate=2)
    with pytest.raises(ValueError):
        Rules.from_dict({"nope": 1})


def test_a_whole_hand_by_default_moves_sums_to_zero():
    hand = playing_hand({0: "TS"}, 0, "TS", rules=Rules(timeouts_to_escape=1000))
    while not hand.is_over:
        hand.timeout()
    assert sum(hand.points) == 240 and sum(hand.result.scores) == 0
    assert sum(hand.result.coins) + hand.result.fee == 0


def test_single_lead_fast_path_matches_the_general_rules():
    # The fast path for single leads against the shape-based follow rules and point rules.

    from paiju.games.hunzhan.order import POINTS
    from paiju.games.tricks import beats, classify, trick_winner

    rng = random.Random(5)
    deck = double_deck_without_346()
    for _ in range(volume(suite=400, soak=2000)):
        order = hunzhan.hunzhan_order(rng.choice(["S", "H", "C", "D", None]))
        cards = rng.sample(deck, 20)
        hand, trick = cards[:rng.randint(1, 12)], [[card] for card in cards[12 : 12 + rng.randint(1, 3)]]
        follows = follow_plays(hand, trick[0], order)
        best = classify(trick[trick_winner(trick, order)], order)
        winning = [p for p in follows if beats(classify(p, order), best)]
        if winning and any(POINTS[c[0]] for c in trick):
            expected = winning
        else:
            expected = [p for p in follows if p in winning or not POINTS[p[0]]] or follows
        assert sorted(allowed_plays(hand, trick, order)) == sorted(expected)


def test_a_hand_has_the_shared_state_machine_shape():
    from paiju.games.engine import HandState

    hand = new_hand({0: "TS"})
    assert isinstance(hand, HandState)
    hand.deal_all()
    hand.apply(0, "declare TS")
    assert hand.turn_number == 0
    hand.close_declaring()
    assert hand.turn_number == 1
    for _ in range(4):
        hand.timeout()
    assert hand.turn_number == 5  # four plays: three turns, then the winner's new turn
    assert hand.max_loss(0) == 36 * Rules().coins_per_5  # an escape with no points: -180
    assert Game(Rules(coins_per_5=100)).new_hand([50, 10**6, 10**6, 10**6], 0, b"s").max_loss(0) == 50


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), held=st.sampled_from([4, 6, 10, 21]), played=st.integers(1, 3))
def test_a_play_judged_directly_is_allowed_exactly_when_listed(seed, held, played):
    # CheckAction judges a selection without listing every play; it must agree with the list.

    from paiju.games.hunzhan.plays import why_not_allowed
    from paiju.games.tricks import lead_plays

    rng = random.Random(seed)
    cards = list(double_deck_without_346())
    rng.shuffle(cards)
    order = hunzhan.hunzhan_order(rng.choice(["S", "H", "C", "D", None]))
    hands = [sorted(rng.sample(cards[21 * s : 21 * (s + 1)], held)) for s in range(4)]
    trick = [rng.choice(lead_plays(hands[0], order))]
    for seat in range(1, played):
        trick.append(rng.choice(allowed_plays(hands[seat], trick, order)))
    hand = hands[len(trick)]
    allowed = set(allowed_plays(hand, trick, order))
    selections = allowed | {tuple(sorted(rng.sample(hand, len(trick[0])))) for _ in range(40)}
    for play in selections:
        assert (why_not_allowed(hand, trick, play, order) is None) == (play in allowed), format_cards(play)


def test_options_key_changes_only_with_what_the_seat_may_do():
    # The table refuses a move on an older view only when this key changed (no spurious ABORTED).
    hand = new_hand({0: "TD", 1: "TH"})
    hand.system_step()  # TD to seat 0: it may declare now
    key = hand.options_key(0)
    hand.system_step()  # TH to seat 1: seat 0's options are the same
    assert hand.options_key(0) == key
    hand.apply(1, "declare TH")  # seat 0's TD no longer outranks the standing declaration
    assert hand.options_key(0) != key
    hand.deal_all()
    hand.close_declaring()
    leader, other = hand.to_act, (hand.to_act + 1) % 4
    keys = hand.options_key(leader), hand.options_key(other)
    hand.apply(leader, hand.legal_actions(leader)[0])
    assert hand.options_key(leader) != keys[0] and hand.options_key(other) != keys[1]  # turn passed


def test_bug_a_listed_play_was_judged_again_from_scratch(monkeypatch):
    # The seat's plays were listed (as the view of the seat to act lists them), yet every
    # play was judged again directly, rule by rule: a third of the engine's speed, gone.
    import paiju.games.hunzhan.hand as hand_module

    rng = random.Random(5)
    hand = Game().new_hand(coins=[10**6] * 4, dealer=0, seed=b"listed")
    hand.deal_all()
    seat = next(s for s in range(4) if hand.legal_actions(s))
    hand.apply(seat, hand.legal_actions(seat)[0])
    hand.close_declaring()

    def judged_again(*_args):
        raise AssertionError("a listed play was judged again")

    monkeypatch.setattr(hand_module, "why_not_allowed", judged_again)
    while not hand.is_over:
        seat = hand.to_act
        hand.apply(seat, rng.choice(hand.legal_actions(seat)))
    assert hand.result is not None

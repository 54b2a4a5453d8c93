"""炸金花 hands played move by move against spec/zhajinhua.md §3."""

from __future__ import annotations

import pytest

from paiju.cards import format_cards, verify_commitment
from paiju.games.engine import IllegalAction
from paiju.games.zhajinhua import Game, Rules, SeatStatus, deck_dealing

ANTE = 10


def new_hand(hands, coins=None, dealer=0, **rules):
    rules.setdefault("ante", ANTE)
    coins = coins or [1_000] * len(hands)
    return Game(Rules(**rules)).new_hand(coins=coins, dealer=dealer, seed=b"test", deck=deck_dealing(hands, dealer))


def types(events):
    return [event.type for event in events]


def assert_refused(hand, seat, action, code):
    before = hand.to_bytes()
    with pytest.raises(IllegalAction) as refused:
        hand.apply(seat, action)
    assert refused.value.code == code, refused.value.reason
    assert hand.to_bytes() == before
    return refused.value


# --- the start ----------------------------------------------------------------------------------

def test_antes_deal_from_the_dealer_and_the_next_seat_acts_first():
    hand = new_hand(["AS AH AD", "KS KH KD", "QS QH QD"], dealer=1)
    assert hand.pot == 3 * ANTE and hand.paid == [ANTE] * 3
    assert hand.to_act == 2
    assert [format_cards(cards) for cards in hand.cards] == ["AS AH AD", "KS KH KD", "QS QH QD"]
    # The dealer receives card 0, the dealer's next seat card 1, and so on round the table.
    assert format_cards(hand.order[:3]) == "KS QS AS"


def test_the_floating_ante_follows_the_poorest_player():
    hand = Game().new_hand(coins=[50_000, 12_000, 900_000], dealer=0, seed=b"x")
    assert hand.ante == 100
    with pytest.raises(ValueError, match="1,010"):
        Game().new_hand(coins=[50_000, 1_000], dealer=0, seed=b"x")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"coins": [5_000]}, "2–5 players"),
        ({"coins": [5_000] * 6}, "2–5 players"),
        ({"dealer": 3}, "dealer"),
        ({"seed": b""}, "seed"),
        ({"deck": "AS KS"}, "52 cards"),
        ({"coins": [5_000, -1]}, "coins"),
    ],
)
def test_a_bad_hand_start_is_refused_with_a_reason(kwargs, message):
    arguments = {"coins": [5_000, 5_000], "dealer": 0, "seed": b"x", **kwargs}
    with pytest.raises(ValueError, match=message):
        Game().new_hand(**arguments)


def test_the_commitment_is_published_and_checks_out_at_the_reveal():
    hand = Game().new_hand(coins=[5_000] * 3, dealer=0, seed=b"fair")
    started = hand.opening_events[0]
    assert started.type == "hand_started" and started.data["commitment"] == hand.commitment
    while hand.to_act is not None:
        events = hand.apply(hand.to_act, "fold")
    reveal = events[-1].data
    assert reveal["commitment"] == hand.commitment
    from paiju.cards import parse_cards, shuffled, standard_deck

    seed = bytes.fromhex(reveal["seed"])
    assert verify_commitment(hand.commitment, seed, parse_cards(reveal["order"]))
    assert shuffled(standard_deck(), seed) == parse_cards(reveal["order"])


# --- stakes -------------------------------------------------------------------------------------

def test_blind_pays_the_stake_and_seen_pays_twice():
    hand = new_hand(["AS AH AD", "KS KH KD", "QS QH QD"])
    hand.apply(1, "call")
    assert hand.paid[1] == 2 * ANTE
    hand.apply(2, "look")
    assert hand.to_act == 2  # looking does not end the turn
    hand.apply(2, "call")
    assert hand.paid[2] == ANTE + 2 * ANTE


def test_raise_is_capped_at_ten_antes_and_a_seen_player_pays_up_to_twenty():
    hand = new_hand(["AS AH AD", "KS KH KD", "QS QH QD"])
    refused = assert_refused(hand, 1, "raise 110", "raise_above_cap")
    assert "100" in refused.reason
    assert_refused(hand, 1, "raise 10", "raise_too_small")
    assert_refused(hand, 1, "raise 25", "raise_not_multiple")
    hand.apply(1, "look")
    hand.apply(1, "raise 100")
    assert hand.stake == 100 and hand.paid[1] == ANTE + 200
    assert "raise" not in {action.kind for action in hand.legal_actions(2)}  # nothing above the cap


def test_look_is_allowed_out_of_turn_and_only_once():
    hand = new_hand(["AS AH AD", "KS KH KD", "QS QH QD"])
    events = hand.apply(0, "look")
    assert types(events) == ["looked", "cards"]
    assert events[0].visible(2) and not events[1].visible(2) and events[1].visible(0)
    assert hand.to_act == 1
    assert_refused(hand, 0, "look", "already_seen")


@pytest.mark.parametrize(
    "seat, action, code",
    [
        (0, "call", "not_your_turn"),
        (7, "call", "bad_seat"),
        (1, "dance", "malformed"),
        (1, "raise", "malformed"),
        (1, "raise lots", "malformed"),
        (1, "compare 2", "compare_too_early"),
        (1, "open", "open_not_allowed"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(seat, action, code):
    hand = new_hand(["AS AH AD", "KS KH KD", "QS QH QD"])
    assert_refused(hand, seat, action, code)


def test_a_refused_action_object_of_the_wrong_type_is_malformed():
    hand = new_hand(["AS AH AD", "KS KH KD"])
    assert_refused(hand, 1, 42, "malformed")


# --- compare ------------------------------------------------------------------------------------

def test_compare_opens_once_everyone_has_acted_and_only_the_two_see_the_cards():
    hand = new_hand(["AS AH AD", "KS KH KD", "2S 3H 5D"], dealer=2)
    hand.apply(0, "call")
    hand.apply(1, "call")
    assert_refused(hand, 2, "compare 0", "compare_too_early")  # seat 2 has not acted yet
    hand.apply(2, "call")
    assert_refused(hand, 0, "compare 5", "bad_target")
    assert_refused(hand, 0, "compare 0", "bad_target")
    events = hand.apply(0, "compare 2")  # AAA against the special 235: the 235 wins
    private, public = events[0], events[1]
    assert private.type == "compared" and private.visible_to == (0, 2)
    assert private.data["cards"] == {"0": "AS AH AD", "2": "2S 3H 5D"}
    assert public.type == "compare_result" and public.visible_to is None and "cards" not in public.data
    assert public.data["loser"] == 0 and hand.status[0] is SeatStatus.LOST
    assert hand.paid[0] == 3 * ANTE  # a blind compare costs the stake
    assert hand.seen[2]  # a blind player in a compare is seen from then on
    assert hand.view(2)["players"][0]["cards"] == "AS AH AD"
    assert hand.view(1)["players"][0]["cards"] is None


def test_compare_tie_the_one_who_asked_loses():
    hand = new_hand(["AS KH QD", "AH KS QC", "2S 4H 6D"], dealer=2)
    for seat in (0, 1, 2):
        hand.apply(seat, "call")
    hand.apply(0, "compare 1")
    assert hand.status[0] is SeatStatus.LOST and hand.status[1] is SeatStatus.PLAYING


def test_the_last_compare_ends_the_hand():
    hand = new_hand(["AS AH AD", "KS KH KD"], dealer=1)
    hand.apply(0, "call")
    hand.apply(1, "call")
    events = hand.apply(0, "compare 1")
    assert types(events)[-2:] == ["hand_over", "reveal"]
    assert hand.result.winners == (0,)


# --- open ---------------------------------------------------------------------------------------

def test_open_costs_double_and_the_opener_loses_a_tie():
    hand = new_hand(["AS KH QD", "AH KS QC"])
    events = hand.apply(1, "open")
    assert events[0].data["amount"] == 2 * ANTE and events[0].data["loser"] == 1
    assert hand.result.winners == (0,)
    assert hand.result.coins == (3 * ANTE, -3 * ANTE)


def test_open_needs_exactly_two_players():
    hand = new_hand(["AS AH AD", "KS KH KD", "QS QH QD"])
    assert_refused(hand, 1, "open", "open_not_allowed")
    hand.apply(1, "fold")
    hand.apply(2, "open")
    assert hand.is_over


# --- short of coins and the pot cap ----------------------------------------------------------

def test_short_of_coins_at_your_turn_is_judged_lost():
    hand = new_hand(["AS AH AD", "KS KH KD", "QS QH QD"], coins=[1_000, 1_000, 60], pot_cap_antes=1000)
    hand.apply(1, "raise 100")
    # Seat 2 holds 50 after the ante, less than the 100 it must call: out at once.
    assert hand.status[2] is SeatStatus.SHORT and hand.to_act == 0


def test_looking_at_your_turn_can_leave_you_short():
    hand = new_hand(["AS AH AD", "KS KH KD", "QS QH QD"], coins=[1_000, 1_000, 160], pot_cap_antes=1000)
    hand.apply(1, "raise 100")
    assert hand.to_act == 2 and hand.remaining(2) == 150
    events = hand.apply(2, "look")  # seen now: the call is 200
    assert "judged_lost" in types(events) and hand.status[2] is SeatStatus.SHORT


def test_pot_cap_opens_every_hand_champion_in_turn_order_losing_ties():
    # Cap 10 antes = 100; antes 30, then 1 raises to 70 (pot 100): the cap is reached after seat 1.
    hand = new_hand(["AS KH QD", "9S 6S 2S", "AH KS QC"], pot_cap_antes=10)
    events = hand.apply(1, "raise 70")
    opened = next(e for e in events if e.type == "system_open")
    assert opened.data["order"] == [2, 0, 1]
    # Seat 2 is champion; seat 0's equal straight unseats it (the champion loses ties); seat 1's
    # flush then beats seat 0.
    assert opened.data["duels"] == [
        {"champion": 2, "challenger": 0, "loser": 2},
        {"champion": 0, "challenger": 1, "loser": 0},
    ]
    assert hand.result.winners == (1,) and hand.result.details["how"] == "pot_cap"
    assert all(hand.view(None)["players"][s]["cards"] for s in range(3))


def test_pot_cap_with_two_players_settles_like_an_open():
    hand = new_hand(["KS KH KD", "QS QH 2D"], pot_cap_antes=5)
    hand.apply(1, "raise 30")  # pot 20 + 30 = 50 = cap
    assert hand.result.winners == (0,)


# --- bonuses ------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "winner_hand, bonus_antes",
    [("QS JS TS", 1), ("9S 9H 9D", 2), ("AS AH AD", 5), ("AS KS 9S", 0), ("AS KH QD", 0)],
)
def test_bonus_is_paid_by_every_other_player(winner_hand, bonus_antes):
    hand = new_hand([winner_hand, "2C 4D 7H", "3C 5D 8H"])
    hand.apply(1, "fold")
    hand.apply(2, "fold")
    bonus = bonus_antes * ANTE
    assert hand.result.coins == (2 * ANTE + 2 * bonus, -ANTE - bonus, -ANTE - bonus)
    assert hand.view(1)["players"][0]["cards"] is not None  # revealed: the hand is over
    if bonus:
        assert hand.shown_to_all[0]


def test_235_beating_aaa_takes_the_aaa_bonus():
    hand = new_hand(["2S 3H 5D", "AS AH AD", "KS 4H 7D"], dealer=2)
    hand.apply(0, "call")
    hand.apply(1, "call")
    hand.apply(2, "fold")
    hand.apply(0, "compare 1")  # the 235 pays 10 to call, 10 to compare: 30 in all, like seat 1's 20
    bonus = 5 * ANTE
    assert hand.result.winners == (0,)
    assert hand.result.coins == (2 * ANTE + ANTE + 2 * bonus, -2 * ANTE - bonus, -ANTE - bonus)


def test_235_without_beating_aaa_gets_no_bonus():
    hand = new_hand(["2S 3H 5D", "KS 4H 7D"])
    hand.apply(1, "fold")
    assert hand.result.coins == (ANTE, -ANTE)


def test_bonus_is_capped_by_what_a_payer_still_holds():
    hand = new_hand(["AS AH AD", "2C 4D 7H"], coins=[1_000, 30])
    hand.apply(1, "fold")  # seat 1 holds 20 after its ante; the bonus would be 50
    assert hand.result.coins == (ANTE + 20, -ANTE - 20)
    assert [line.reason for line in hand.result.lines if line.seat == 1] == ["stake", "bonus"]


# --- leaving and timeouts -----------------------------------------------------------------------

def test_timeout_folds_the_seat_to_act():
    hand = new_hand(["AS AH AD", "KS KH KD", "QS QH QD"])
    events = hand.timeout()
    assert events[0].data == {"seat": 1, "reason": "timeout"} and hand.to_act == 2


def test_leaving_out_of_turn_folds_and_the_turn_stays():
    hand = new_hand(["AS KH 2D", "KS QH 9D", "QS JH 8D"])
    hand.leave(0)
    assert hand.status[0] is SeatStatus.FOLDED and hand.to_act == 1
    hand.leave(2)
    assert hand.result.winners == (1,) and hand.result.coins == (-ANTE, 2 * ANTE, -ANTE)


def test_nothing_can_be_done_after_the_hand_is_over():
    hand = new_hand(["AS AH AD", "KS KH KD"])
    hand.apply(1, "fold")
    assert_refused(hand, 0, "call", "hand_over")
    assert hand.legal_actions(0) == [] and hand.to_act is None
    with pytest.raises(IllegalAction):
        hand.timeout()


# --- views and serialisation ------------------------------------------------------------------

def test_a_blind_player_does_not_see_its_own_cards_until_it_looks():
    hand = new_hand(["AS AH AD", "KS KH KD"])
    assert hand.view(0)["players"][0]["cards"] is None
    hand.apply(0, "look")
    assert hand.view(0)["players"][0]["cards"] == "AS AH AD"
    assert hand.view(1)["players"][0]["cards"] is None
    assert hand.view(None)["legal_actions"] == []


def test_bytes_round_trip_mid_hand_and_play_on_identically():
    hand = new_hand(["AS AH AD", "KS KH KD", "QS QH QD"])
    hand.apply(1, "raise 30")
    hand.apply(2, "look")
    copy = Game.load(hand.to_bytes())
    assert copy == hand and copy.to_bytes() == hand.to_bytes()
    assert types(copy.apply(2, "call")) == types(hand.apply(2, "call"))
    assert copy.to_bytes() == hand.to_bytes()


@pytest.mark.parametrize("blob", [b"", b"{}", b"[1]", b'{"game":"hunzhan","format":1,"state":{}}',
                                  b'{"game":"zhajinhua","format":1,"state":{}}', b"\xff\xfe"])
def test_loading_garbage_is_a_clear_error(blob):
    with pytest.raises(ValueError):
        Game.load(blob)

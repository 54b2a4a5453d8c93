"""The 炒地皮 hand: declaring, the kitty and robbing, 暗炒, flag hands, escapes and timeouts."""

from __future__ import annotations

from collections import Counter

import pytest

from paiju.cards import Card, double_deck_with_jokers, format_cards, parse_cards
from paiju.games.chaodipi import (
    Game,
    Hand,
    MatchState,
    Phase,
    Rules,
    TeamLevel,
    deck_dealing,
)
from paiju.games.engine import IllegalAction

VARIANTS = ["yancheng", "yangzhou", "yangzhong", "nantong"]


def arranged(
    wanted: dict[int, str], kitty: str = "", avoid: str = "2S 2H 2C 2D BJ SJ 5H", size: int = 25
) -> list[Card]:
    """A deck dealing each seat its ``wanted`` cards (then fillers, no level 2s or jokers if
    possible) from seat 0 on, and the kitty."""
    pool = Counter(double_deck_with_jokers())
    hands: list[list[Card]] = [parse_cards(wanted.get(seat, "")) for seat in range(4)]
    fixed_kitty = parse_cards(kitty)
    for card in [c for hand in hands for c in hand] + fixed_kitty:
        pool[card] -= 1
        assert pool[card] >= 0, f"{card} used too often"
    avoided = set(parse_cards(avoid))
    fillers = sorted(pool.elements(), key=lambda card: (card in avoided, card))
    for hand in hands:
        while len(hand) < size:
            hand.append(fillers.pop(0))
    kitty_cards = fixed_kitty + fillers[: 108 - 4 * size - len(fixed_kitty)]
    return deck_dealing(hands, kitty_cards)


def new_hand(
    variant: str = "yangzhou",
    deck: list[Card] | None = None,
    match: MatchState | None = None,
    channel: str = "score_normal",
    coins: int = 100_000,
) -> Hand:
    return Game(Rules(variant=variant, channel=channel)).new_hand(
        [coins] * 4, dealer=0, seed=b"test", deck=deck, match=match
    )


# --- declaring --------------------------------------------------------------------------------------------


def test_single_then_a_pair_overrides_and_the_declarer_banks() -> None:
    hand = new_hand(deck=arranged({0: "2S", 1: "2H 2H", 2: "2D 2D"}))
    hand.deal_all()
    hand.apply(0, "declare 2S")
    with pytest.raises(IllegalAction) as own:
        hand.apply(0, "declare 2S")
    assert own.value.code == "own_declaration"
    hand.apply(1, "declare 2H 2H")
    with pytest.raises(IllegalAction) as low:
        hand.apply(2, "declare 2D 2D")  # ♦对 < ♥对 in yangzhou
    assert low.value.code == "declaration_too_low"
    events = hand.system_step()
    assert [e.type for e in events][:2] == ["declaring_closed", "kitty_taken"]
    assert (hand.banker, hand.phase, hand.to_act, len(hand.hands[1])) == (1, Phase.BURYING, 1, 33)
    assert hand.view(0)["trump"] == "H" and hand.robs == 1


@pytest.mark.parametrize(
    ("variant", "low", "high"),
    [("yancheng", "2C 2C", "2D 2D"), ("yangzhou", "2D 2D", "2C 2C"), ("nantong", "2D 2D", "2C 2C")],
)
def test_declaration_order_per_variant(variant: str, low: str, high: str) -> None:
    hand = new_hand(variant, arranged({1: low, 2: high}))
    hand.deal_all()
    hand.apply(2, "declare " + high)
    if variant == "yancheng":  # 暗炒 accepts any pair blind; a lower one has no effect
        hand.apply(1, "declare " + low)
        assert hand.standing["seat"] == 2 and not hand.declarations[-1]["effective"]  # type: ignore[index]
    else:
        assert not hand.can(1, "declare " + low)
        with pytest.raises(IllegalAction):
            hand.apply(1, "declare " + low)


def test_red_five_pair_names_the_trump() -> None:
    hand = new_hand(deck=arranged({3: "5H 5H"}))
    hand.deal_all()
    with pytest.raises(IllegalAction) as missing:
        hand.apply(3, "declare 5H 5H")
    assert missing.value.code == "choose_trump"
    assert {str(a) for a in hand.legal_actions(3)} >= {"declare 5H 5H NT", "declare 5H 5H C"}
    hand.apply(3, "declare 5H 5H NT")
    hand.system_step()
    assert hand.banker == 3 and hand.trump is None


def test_look_back_outranks_everything() -> None:
    hand = new_hand("nantong", arranged({0: "2S 2S", 1: "2H 2H", 2: "5H 5H"}))
    hand.deal_all()
    hand.apply(0, "declare 2S")
    hand.apply(1, "declare 2H 2H")
    hand.apply(0, "declare 2S 2S")
    assert hand.standing["kind"] == "look_back"  # type: ignore[index]
    assert not hand.can(2, "declare 5H 5H NT")
    hand.system_step()
    assert (hand.banker, hand.trump) == (0, "S")


def test_a_pair_completed_after_the_single_is_no_look_back() -> None:
    # Seat 0 gets its second 2S only after declaring the first: its pair is a plain 黑桃对.
    deck = arranged({0: "2S 2S", 1: "2H 2H"})
    seat_zero = [deck[i] for i in range(0, 100, 4)]
    seat_zero = seat_zero[:1] + seat_zero[2:] + seat_zero[1:2]
    hands = [seat_zero] + [[deck[i] for i in range(seat, 100, 4)] for seat in (1, 2, 3)]
    hand = new_hand("nantong", deck_dealing(hands, deck[100:]))
    hand.system_step()
    hand.apply(0, "declare 2S")
    hand.deal_all()
    hand.apply(1, "declare 2H 2H")
    hand.apply(0, "declare 2S 2S")
    assert hand.standing["kind"] == "spades_pair"  # type: ignore[index]


def test_nobody_declares_first_hand_deals_again() -> None:
    hand = new_hand()
    hand.deal_all()
    events = hand.system_step()
    assert [e.type for e in events] == ["redeal"] and hand.phase is Phase.DEALING
    assert hand.dealt == 0 and len(hand.orders) == 2


def test_nobody_declares_later_the_kitty_is_turned() -> None:
    deck = arranged({}, kitty="3C 5H 9D 9S BJ 4C 4C 6D")
    hand = new_hand(deck=deck, match=MatchState((TeamLevel(1, "9"), TeamLevel()), banker=2))
    hand.deal_all()
    events = hand.system_step()
    turned = [e for e in events if e.type == "kitty_turned"]
    assert turned and turned[0].data["trump"] == "D" and turned[0].visible(None)
    assert hand.view(1)["kitty_turned"] == "3C 5H 9D 9S BJ 4C 4C 6D"
    hand.timeout()  # buries the kitty as received
    assert hand.phase is Phase.PLAYING and hand.to_act == 2  # no robbing
    assert format_cards(hand.kitty) == format_cards(sorted(parse_cards("3C 5H 9D 9S BJ 4C 4C 6D")))


# --- the kitty and robbing -------------------------------------------------------------------------------------


def declared_hand(variant: str = "yangzhou", extra: dict[int, str] | None = None) -> Hand:
    wanted = {0: "2S", 2: "BJ BJ"}
    wanted.update(extra or {})
    hand = new_hand(variant, arranged(wanted))
    hand.deal_all()
    hand.apply(0, "declare 2S")
    hand.system_step()
    return hand


def test_burying_needs_eight_held_cards() -> None:
    hand = declared_hand()
    assert hand.view(0)["kitty"] is not None and hand.view(1)["kitty"] is None
    with pytest.raises(IllegalAction):
        hand.apply(0, "bury " + format_cards(hand.hands[0][:7]))
    with pytest.raises(IllegalAction):
        hand.apply(1, "bury " + format_cards(hand.hands[1][:8]))
    buried = hand.hands[0][-8:]
    hand.apply(0, "bury " + format_cards(buried))
    assert Counter(hand.kitty) == Counter(buried) and len(hand.hands[0]) == 25
    assert hand.phase is Phase.ROBBING and hand.asked == 1


def test_robbing_goes_round_until_three_decline() -> None:
    hand = declared_hand()
    hand.timeout()
    assert [str(a) for a in hand.legal_actions(1)][:1] == ["pass"]
    hand.apply(1, "pass")
    assert hand.asked == 2
    assert "rob BJ BJ" in {str(a) for a in hand.legal_actions(2)}
    hand.apply(2, "rob BJ BJ")
    assert hand.kitty_holder == 2 and len(hand.hands[2]) == 33 and hand.phase is Phase.BURYING
    hand.apply(2, "bury " + format_cards(hand.hands[2][:8]))
    order = []
    while hand.phase is Phase.ROBBING:
        order.append(hand.asked)
        hand.apply(hand.asked, "pass")  # type: ignore[arg-type]
    assert order == [3, 0, 1]
    assert (
        hand.phase is Phase.PLAYING and hand.to_act == 0 and hand.trump is None and hand.banker == 0
    )
    assert hand.robs == 1


def test_a_rob_must_outrank_the_declaration() -> None:
    hand = declared_hand(extra={1: "2D 2D"})
    hand.timeout()
    hand.apply(1, "rob 2D 2D")  # any pair beats a single
    hand.apply(1, "bury " + format_cards(hand.hands[1][:8]))
    assert hand.asked == 2
    hand.apply(2, "pass")
    with pytest.raises(IllegalAction):
        hand.apply(3, "rob 2D 2D")


# --- 暗炒 ------------------------------------------------------------------------------------------------------


def test_blind_declarations_stay_hidden_until_robbing_ends() -> None:
    hand = new_hand("yancheng", arranged({0: "2S 3S", 1: "2C 2C", 2: "BJ BJ", 3: "2D 2D"}))
    hand.deal_all()
    events = hand.apply(0, "declare 2S")
    public = [e for e in events if e.visible(1)]
    assert all("cards" not in e.data for e in public)
    hand.apply(2, "declare BJ BJ")
    hand.apply(1, "declare 2C 2C")  # too low: no effect
    assert hand.view(3)["declarations"] == [
        {"seat": 0, "stage": "declare"},
        {"seat": 2, "stage": "declare"},
        {"seat": 1, "stage": "declare"},
    ]
    assert hand.view(3)["trump"] is None
    hand.system_step()
    assert hand.banker == 2  # the first hand's banker is the one whose declaration stands
    hand.timeout()  # bury
    assert hand.asked == 3
    hand.apply(3, "rob 2D 2D")  # blind: accepted, but below BJ BJ — a failed rob by an attacker
    hand.timeout()
    for _ in range(3):
        hand.apply(hand.asked, "pass")  # type: ignore[arg-type]
    assert hand.phase is Phase.PLAYING and hand.trump is None
    assert hand.view(1)["declarations"][3]["kind"] == "diamonds_pair"
    assert hand.attacker_points().failed_robs == -80
    assert hand.robs == 2  # the effective override and the (failed) rob; the too-low one not


# --- flag hands -------------------------------------------------------------------------------------------


def test_flag_hand_has_no_kitty_and_no_declaring() -> None:
    match = MatchState((TeamLevel(1, "A"), TeamLevel(1, "9")), banker=0, repeat=1, flag_hand=True)
    hand = new_hand("yangzhou", match=match)
    assert hand.level is None
    while hand.phase is Phase.DEALING:
        assert not [a for a in hand.legal_actions(0) if a.kind == "declare"]
        hand.system_step()
    assert [len(cards) for cards in hand.hands] == [27] * 4 and hand.kitty == []
    assert hand.phase is Phase.PLAYING and hand.to_act == 0 and hand.trump is None
    with pytest.raises(ValueError):
        new_hand("nantong", match=match)


# --- escapes, timeouts, multiples ------------------------------------------------------------------------


def playing_hand(variant: str = "yangzhou", channel: str = "score_normal") -> Hand:
    hand = new_hand(variant, match=MatchState(banker=1), channel=channel)
    hand.deal_all()
    hand.system_step()  # nobody declared: kitty turned
    hand.timeout()
    hand.strikes = [0] * 4
    return hand


def test_escape_before_the_first_card_is_void() -> None:
    hand = playing_hand(channel="fortune_normal")
    hand.leave(3)
    assert hand.result is not None and hand.result.coins == (0, 0, 0, 0)
    assert hand.result.details["how"] == "void"
    assert MatchState.from_dict(hand.result.details["match"]) == MatchState(banker=1)


@pytest.mark.parametrize("channel", ["score_normal", "fortune_normal"])
def test_escape_after_the_first_card_costs_the_escaper(channel: str) -> None:
    hand = playing_hand(channel=channel)
    hand.timeout()  # the banker's lead
    hand.leave(0)  # an attacker escapes with 0 points: at least 15
    result = hand.result
    assert result is not None and result.details["how"] == "escape"
    if channel == "score_normal":
        assert result.scores is not None and result.scores[0] <= -15 and result.scores[2] == 0
        assert sum(result.scores) == 0
    else:
        assert result.coins[0] <= -1500 and result.coins[2] == 0 and sum(result.coins) == 0
        assert {line.reason for line in result.lines} == {"escape_penalty"}


def test_fourth_consecutive_timeout_is_an_escape() -> None:
    hand = playing_hand()
    seat = hand.to_act
    events = []
    for _ in range(4):
        while hand.to_act != seat:
            hand.apply(hand.to_act, hand.legal_actions(hand.to_act)[0])  # type: ignore[arg-type]
        events = hand.timeout()
    assert [e.type for e in events][:2] == ["timed_out", "escaped"]
    assert hand.result is not None and hand.result.details["escaper"] == seat


def test_stake_multiples_before_the_first_lead_only() -> None:
    hand = playing_hand(channel="fortune_pass")
    assert {str(a) for a in hand.legal_actions(3)} == {"multiple 2", "multiple 4", "multiple 8"}
    hand.apply(3, "multiple 4")
    assert hand.multiples == [1, 1, 1, 4]
    with pytest.raises(IllegalAction):
        hand.apply(2, "multiple 3")
    hand.timeout()
    with pytest.raises(IllegalAction) as late:
        hand.apply(2, "multiple 2")
    assert late.value.code == "too_late"
    score = playing_hand(channel="score_normal")
    assert score.legal_actions(0) == [] and not score.can(0, "multiple 2")


def test_round_trip_and_replay_mid_hand() -> None:
    hand = declared_hand("yancheng")
    hand.timeout()
    blob = hand.to_bytes()
    assert Game.load(blob) == hand and Game.load(blob).to_bytes() == blob
    with pytest.raises(ValueError):
        Game.load(b'{"game": "hunzhan"}')
    replayed = Game(hand.rules).replay([100_000] * 4, 0, b"test", hand.history, deck=hand.orders[0])
    assert replayed == hand


def test_verify_action_judges_a_selection_without_listing_the_plays() -> None:
    hand = playing_hand()
    leader = hand.to_act
    assert leader is not None
    clubs = [card for card in hand.hands[leader] if hand.context.order.suit_class[card] == "C"]
    throw = "play " + format_cards(clubs[:3])
    hand.verify_action(leader, throw)  # a throw is legal while leading, though never listed
    assert hand.can_act(leader, throw) and hand._listed == {}
    mixed = "play " + format_cards([clubs[0], *[c for c in hand.hands[leader] if c not in clubs][:1]])
    with pytest.raises(IllegalAction) as refused:
        hand.verify_action(leader, mixed)
    assert refused.value.code == "illegal_play" and "mixes suit classes" in refused.value.reason
    with pytest.raises(IllegalAction) as malformed:
        hand.verify_action(leader, "play 1X")
    assert malformed.value.code == "malformed"
    assert not hand.can_act((leader + 1) % 4, throw)

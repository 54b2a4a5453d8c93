"""炒地皮 hands played to their end from a crafted last trick or two: the kitty dig, 上天入地,
J到底, 保红5/逼红5, failed throws, the level table and both channels' settlements."""

from __future__ import annotations

from paiju.cards import parse_cards
from paiju.games.chaodipi import Game, Hand, MatchState, Phase, Rules, TeamLevel


def near_end(
    variant: str,
    level: str,
    trump: str | None,
    hands: list[str],
    kitty: str = "3H 4H 6H 7H 8H 9H 3D 4D",
    banker: int = 0,
    leader: int | None = None,
    won_before: str = "",
    channel: str = "score_normal",
) -> Hand:
    """A hand whose play has reached its last cards: ``hands`` left, the banker's kitty, and the
    attackers' point cards so far (``won_before``, to seat ``banker + 1``)."""
    levels = [TeamLevel(1, "2"), TeamLevel(1, "2")]
    levels[banker % 2] = TeamLevel(1, level)
    rules = Rules(variant=variant, channel=channel)
    hand = Game(rules).new_hand(
        [100_000] * 4, dealer=banker, seed=b"end", match=MatchState((levels[0], levels[1]), banker)
    )
    hand.deal_all()
    hand.system_step()  # nobody declared: the kitty is turned up
    hand.timeout()
    assert hand.phase is Phase.PLAYING
    hand.trump = trump
    hand._context = None
    hand.hands = [sorted(parse_cards(cards)) for cards in hands]
    hand.kitty = parse_cards(kitty)
    hand.point_cards = [[] for _ in range(4)]
    hand.point_cards[(banker + 1) % 4] = parse_cards(won_before)
    hand.cards_played = 100 - sum(len(cards) for cards in hand.hands)
    hand.strikes = [0] * 4
    hand._listed.clear()
    hand.to_act = banker if leader is None else leader
    return hand


def play(hand: Hand, *moves: str) -> None:
    for move in moves:
        assert hand.to_act is not None
        hand.apply(hand.to_act, "play " + move)


def test_dig_twice_with_a_single_and_the_banker_holds() -> None:
    hand = near_end("yangzhou", "2", "S", ["3C", "AS", "4C", "5C"], kitty="KD KD TD 5D 3H 4H 6H 7H")
    play(hand, "3C", "AS", "4C", "5C")
    details = hand.result.details  # type: ignore[union-attr]
    assert (
        details["points"]["tricks"] == 5
        and details["points"]["dig"] == 70
        and details["points"]["total"] == 75
    )
    assert (details["winner"], details["name"], details["score"]) == ("banker", "保庄", 1)
    assert hand.result.scores == (1, -1, 1, -1)  # type: ignore[union-attr]
    following = MatchState.from_dict(details["match"])
    assert (
        following.banker == 0 and following.repeat == 1 and following.levels[0] == TeamLevel(1, "3")
    )
    assert details["next_first_receiver"] == 0


def test_dig_four_times_with_a_pair_and_the_attackers_take_the_bank() -> None:
    hand = near_end(
        "yangzhou",
        "2",
        "S",
        ["3C 3C", "AS AS", "4C 6C", "5C 5C"],
        kitty="KD KD TD 5D 3H 4H 6H 7H",
        channel="fortune_normal",
    )
    play(hand, "3C 3C", "AS AS", "4C 6C", "5C 5C")
    result = hand.result
    assert result is not None
    assert result.details["points"]["dig"] == 140 and result.details["points"]["total"] == 150
    following = MatchState.from_dict(result.details["match"])
    assert (
        following.banker == 1 and following.levels[1] == TeamLevel(1, "3") and following.repeat == 0
    )
    # N = (1+1)(1+1) × 1 × 1 × (1+1) × 1 = 8; X = 100.
    assert result.details["multiple"] == 8
    assert result.coins == (-400, 400, -400, 400)
    assert {line.reason for line in result.lines} == {"stake", "pot"}


def test_heaven_and_earth_by_the_banker_side_in_yancheng() -> None:
    hand = near_end("yancheng", "2", "S", ["5S TS KS", "3C 4C 6C", "3D 6D 7D", "7C 8C 9C"])
    play(hand, "5S TS KS", "3C 4C 6C", "3D 6D 7D", "7C 8C 9C")
    details = hand.result.details  # type: ignore[union-attr]
    assert details["heaven_and_earth"] == "banker" and details["score"] == 16
    following = MatchState.from_dict(details["match"])
    assert following.levels == (TeamLevel(3, "A"), TeamLevel(1, "2")) and following.banker == 0


def test_no_heaven_and_earth_for_the_banker_side_in_yangzhou() -> None:
    hand = near_end("yangzhou", "2", "S", ["5S TS KS", "3C 4C 6C", "3D 6D 7D", "7C 8C 9C"])
    play(hand, "5S TS KS", "3C 4C 6C", "3D 6D 7D", "7C 8C 9C")
    assert hand.result.details["heaven_and_earth"] is None  # type: ignore[union-attr]


def test_heaven_and_earth_by_the_attackers_in_nantong() -> None:
    hand = near_end("nantong", "2", "S", ["3C 4C 6C", "5S TS KS", "3D 6D 7D", "7C 8C 9C"], leader=1)
    play(hand, "5S TS KS", "3D 6D 7D", "7C 8C 9C", "3C 4C 6C")
    details = hand.result.details  # type: ignore[union-attr]
    assert details["heaven_and_earth"] == "attackers" and details["score"] == 13
    following = MatchState.from_dict(details["match"])
    assert following.levels == (TeamLevel(1, "2"), TeamLevel(1, "A")) and following.banker == 1


def test_jack_to_bottom_in_nantong() -> None:
    hand = near_end(
        "nantong", "J", "S", ["3C", "JS", "4C", "6C"], won_before="KD KD KC KC TC TC TD TD"
    )
    play(hand, "3C", "JS", "4C", "6C")
    details = hand.result.details  # type: ignore[union-attr]
    assert details["jack_to_bottom"] and details["points"]["total"] == 80
    following = MatchState.from_dict(details["match"])
    assert following.levels[0] == TeamLevel(1, "2") and following.banker == 1


def test_saved_red_five_in_yancheng() -> None:
    hand = near_end("yancheng", "2", "S", ["3C 4C", "AS 5H", "6C 7C", "8C 9C"])
    play(hand, "3C", "AS", "6C", "8C")
    assert hand.to_act == 1
    play(hand, "5H", "7C", "9C", "4C")
    points = hand.result.details["points"]  # type: ignore[union-attr]
    assert points["red_fives"] == 50 and points["tricks"] == 5


def test_forced_red_five_in_yancheng() -> None:
    hand = near_end("yancheng", "2", "S", ["AS 3C", "5H 4D", "6C 7C", "8C 9C"])
    play(hand, "AS", "5H", "6C", "8C")
    assert hand.forced_fives == [1]
    play(hand, "4D", "7C", "9C", "3C")
    points = hand.result.details["points"]  # type: ignore[union-attr]
    assert points["red_fives"] == -50 and points["total"] == -45
    assert hand.result.details["name"] == "大光"  # type: ignore[union-attr]


def test_red_fives_score_nothing_outside_yancheng() -> None:
    hand = near_end("nantong", "2", "S", ["AS 3C", "5H 4D", "6C 7C", "8C 9C"])
    play(hand, "AS", "5H", "6C", "8C", "4D", "7C", "9C", "3C")
    assert hand.result.details["points"]["red_fives"] == 0  # type: ignore[union-attr]


def test_failed_throw_plays_the_lowest_card_and_costs_ten_a_card() -> None:
    hand = near_end("yangzhou", "2", "S", ["AC KC 3D", "AC 4D 6D", "6C 7C 8C", "8D 9D TD"])
    events = hand.apply(0, "play AC KC")
    assert [e.type for e in events][:2] == ["throw_failed", "played"]
    assert hand.trick == [(0, tuple(parse_cards("KC")))]
    assert hand.attacker_points().failed_throws == 20
    banker_side = near_end(
        "yangzhou", "2", "S", ["3D 4D 7D", "AC KC 6D", "6C 7C AC", "8D 9D TD"], leader=1
    )
    banker_side.apply(1, "play AC KC")
    assert banker_side.attacker_points().failed_throws == -20


def test_a_standing_throw_wins_unless_trumped() -> None:
    hand = near_end("yangzhou", "2", "S", ["AC KC 3D", "QC 4D 6D", "6C 7C 8C", "8D 9D TD"])
    play(hand, "AC KC", "QC 4D", "6C 7C", "8D 9D")
    assert hand.tricks[-1]["winner"] == 0
    hand = near_end("yangzhou", "2", "S", ["AC KC 3D", "QC 4D 6D", "6C 7C 8C", "3S 4S TD"])
    play(hand, "AC KC", "QC 4D", "6C 7C", "3S 4S")
    assert hand.tricks[-1]["winner"] == 3

"""Every view and event of seeded random hands of every game and tier converts to its typed
message (``views.proto``, ``events.proto``, each game's proto) and back to exactly its JSON form
(:mod:`paiju.common.typed_views`): no field is dropped, and a field a view or event gains without
a proto field fails here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from paiju.common.typed_views import (
    GAME_EVENTS,
    TABLE_EVENT_TYPES,
    UntypedEvent,
    event_dict,
    event_source,
    typed_event,
    view_dict,
    view_state,
)
from paiju.games.engine import Event, HandState
from paiju.games.registry import game_spec
from paiju.proto.v1 import events_pb2, views_pb2
from tests.games.test_conformance import GAMES, MAX_STEPS, Playout

ROOT = Path(__file__).resolve().parents[2]


def json_form(data: Any) -> Any:
    """``data`` as the server writes it for a client (views and event payloads)."""
    return orjson.loads(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))


def table_view(game: str, tier: str, state: dict[str, Any], seats: int, step: int) -> dict[str, Any]:
    """A table's view around a hand's view, as :meth:`TableCommits.view_of` and
    :class:`~paiju.table.views.TableViews` make it: the timers' fields there, or left out of a
    followed view, and an empty table seat among the taken ones."""
    players = [{"account": f"a{seat}", "name": f"p{seat}", "ready": seat % 2 == 0, "coins": 1000 + seat,
                "connected": seat != 1} for seat in range(seats)]
    view: dict[str, Any] = {
        "version": step + 1,
        "last_event_id": f"17000000{step}-0",
        "table": {"table_id": "t1", "game": game, "tier": tier, "state": "playing", "seats": [*players, None]},
        "seat": state["seat"],
        "hand": {"hand_id": "h", "number": 2, "seats": list(range(seats)), "my_hand_seat": state["seat"], "state": state},
        "last_hand": None,
        "turn_due_ms": None if step % 3 else 1_700_000_000_000 + step,
    }
    if step % 2:
        view["ready_kick"] = None if step % 4 == 1 else {"seat": 0, "due_ms": 1_700_000_000_500}
        view["reconnect_by_ms"] = {} if step % 4 == 1 else {"1": 1_700_000_060_000}
    return view


class RoundTrips(Playout):
    """A conformance playout whose every view and event goes to its message and back."""

    def __init__(self, name: str, tier_name: str, seed: int) -> None:
        super().__init__(name, tier_name, seed)
        self.event_types: set[str] = set()

    def play_hand(self, number: int, carry: object) -> HandState:
        hand, coins = self.start(number, carry)
        seats = len(coins)
        self.check_events(list(hand.opening_events))
        for step in range(MAX_STEPS):
            for viewer in [None, *range(seats)]:
                state = hand.view(viewer)
                self.check_view(table_view(self.spec.name, self.tier.name, state, seats, step))
            if hand.is_over:
                # The end view a table keeps as its last hand, beside no hand in play.
                self.check_view({**table_view(self.spec.name, self.tier.name, hand.view(None), seats, step),
                                 "hand": None, "last_hand": {"hand_id": self.hand_id(number), "seats": list(range(seats)),
                                                             "state": hand.view(None)}})
                return hand
            self.check_events(self.step(hand, seats))
        pytest.fail(f"the hand did not end in {MAX_STEPS} steps")

    def hand_id(self, number: int) -> str:
        """A hand's id, which names one hand only (the messages of last hands are kept by it)."""
        return f"{self.spec.name}-{self.tier.name}-{self.seed}-{number}"

    @staticmethod
    def check_view(view: dict[str, Any]) -> None:
        message = view_state(view)
        again = views_pb2.TableViewState.FromString(message.SerializeToString())
        assert view_dict(again) == json_form(view)

    def check_events(self, events: list[Event]) -> None:
        for event in events:
            payload = json_form(dict(event.data))
            typed = events_pb2.TypedEvent.FromString(typed_event(self.spec.name, event.type, payload).SerializeToString())
            assert event_dict(typed) == (event.type, payload)
            self.event_types.add(event.type)


@pytest.mark.parametrize(("game", "tier"), [(game, tier.name) for game in GAMES for tier in game_spec(game).tiers])
def test_every_view_and_event_of_random_hands_goes_to_its_message_and_back(game: str, tier: str) -> None:
    playout = RoundTrips(game, tier, 1)
    playout.run()
    assert len(playout.event_types) >= 8  # the playout reached the hand's phases


TABLE_EVENT_SAMPLES = {
    "sat": {"seat": 2, "account": "acc-1", "name": "小明", "coins": 5000},
    "stood": {"seat": 2, "account": "acc-1", "reason": "not_enough_coins"},
    "ready": {"seat": 0},
    "hand_seats": {"hand_id": "h-1", "number": 3, "seats": [0, 2, 3], "accounts": ["a", "b", "c"]},
    "hand_settled": {"hand_id": "h-1", "coins": {"a": -300, "b": 290, "c": 0}},
    "disconnected": {"seat": 1, "reconnect_by_ms": 1_700_000_060_000},
    "reconnected": {"seat": 1},
    "strike": {"seat": 0, "strikes": 2},
    "escaped": {"seat": 0},
    "hand_voided": {"hand_id": "h-1", "reason": "table_ended"},
}
"""One of each table event, with the fields its emitter in ``paiju/table`` gives it."""


def test_every_table_event_goes_to_its_message_and_back() -> None:
    source = "".join(path.read_text() for path in (ROOT / "services" / "paiju" / "table").glob("*.py"))
    assert set(re.findall(r'Event\("([a-z_]+)"', source)) == set(TABLE_EVENT_SAMPLES) == TABLE_EVENT_TYPES
    for event_type, payload in TABLE_EVENT_SAMPLES.items():
        typed = typed_event("zhajinhua", event_type, payload)
        assert typed.WhichOneof("source") == "table"
        assert event_dict(typed) == (event_type, payload)


def test_a_games_own_escape_is_the_games_event_and_zhajinhuas_the_tables() -> None:
    assert event_source("hunzhan", "escaped") == "hunzhan"
    assert event_source("chaodipi", "escaped") == "chaodipi"
    assert event_source("zhajinhua", "escaped") == "table"
    assert "escaped" not in GAME_EVENTS["zhajinhua"]


def test_an_event_or_field_without_a_message_is_refused() -> None:
    with pytest.raises(UntypedEvent):
        typed_event("hunzhan", "no_such_event", {})
    with pytest.raises(UntypedEvent):
        typed_event("hunzhan", "played", {"seat": 1, "cards": "AS", "new_field": 1})
    with pytest.raises(ValueError):
        view_state(table_view("zhajinhua", "t", {"seat": None, "game": "zhajinhua", "result": None, "new_field": 1}, 4, 0))


def test_a_chaodipi_ending_with_every_nullable_set_goes_to_its_message_and_back() -> None:
    # Random hands seldom end a match, go 上天入地 or name the banker side's result: set them.
    spec = game_spec("chaodipi")
    hand = RoundTrips("chaodipi", spec.tiers[0].name, 1).play_hand(0, None)
    result = json_form(hand.result.to_dict())  # type: ignore[union-attr]
    details = {**result["details"], "how": "played", "winner": "banker", "score": 3, "levels_gained": 2,
               "jack_to_bottom": False, "last_trick": {"winner": 1, "play": "AS AS"},
               "name": "大光", "match_winner": 1, "heaven_and_earth": "banker"}
    over = {"coins": result["coins"], **details}
    assert event_dict(typed_event("chaodipi", "hand_over", over)) == ("hand_over", over)
    state = json_form(hand.view(None))
    state["result"] = {**result, "details": details}
    view = {**table_view("chaodipi", spec.tiers[0].name, state, 4, 1), "hand": None,
            "last_hand": {"hand_id": "chaodipi-ended", "seats": [0, 1, 2, 3], "state": state}}
    assert view_dict(view_state(view)) == json_form(view)

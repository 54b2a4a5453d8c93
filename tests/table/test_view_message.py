"""The wire form of a view and of an event: what a frontend reads without parsing the JSON, and
the view and events typed unless the caller asks for JSON."""

from __future__ import annotations

import json

import orjson

from paiju.common.typed_views import payload_of, view_of
from paiju.games import zhajinhua
from paiju.proto.v1 import views_pb2
from paiju.table.commits import TableCommits
from paiju.table.messages import event_message, table_view_message
from paiju.table.record import TableRecord
from paiju.table.store import StoredEvent

JSON = views_pb2.VIEW_FORMAT_JSON


def test_the_turn_says_whose_it_is_and_when_it_runs_out_to_the_millisecond() -> None:
    view = {
        "table": {"game": "zhajinhua"}, "version": 3, "last_event_id": "17-0", "seat": 2,
        "hand": {"hand_id": "h-1", "seats": [0, 2], "state": {"to_act": 1, "legal_actions": ["fold", "call"]}},
        "turn_due_ms": 1_764_547_200_123,
    }
    message = table_view_message("t1", view, JSON)
    assert (message.turn.seat, message.seat, message.version, message.hand_id) == (2, 2, 3, "h-1")
    assert list(message.legal_actions) == ["fold", "call"]
    assert message.turn.due_at.ToMilliseconds() == 1_764_547_200_123
    assert json.loads(message.view_json) == view


def test_a_view_between_hands_has_no_turn() -> None:
    view = {"table": {"game": "zhajinhua"}, "version": 1, "last_event_id": "", "seat": None, "hand": None}
    message = table_view_message("t1", view, JSON)
    assert not message.HasField("turn") and not message.HasField("seat") and message.hand_id == ""


def test_a_view_is_typed_unless_json_is_asked_for() -> None:
    record = TableRecord.open("t1", "hunzhan", "stake10")
    view = {**TableCommits.view_of(4, "17-0", record, None), "turn_due_ms": None, "ready_kick": None,
            "reconnect_by_ms": {}}
    typed = table_view_message("t1", view)
    assert typed.HasField("state") and typed.view_json == ""
    assert typed.state.table.game == "hunzhan" and len(typed.state.table.seats) == len(record.seats)
    as_json = table_view_message("t1", view, JSON)
    assert not as_json.HasField("state")
    assert view_of(typed) == view_of(as_json) == json.loads(orjson.dumps(view))


def test_an_event_is_typed_unless_json_is_asked_for() -> None:
    stored = StoredEvent("5-0", 7, None, "trick_won", orjson.dumps({"seat": 2, "points": 15, "total": 40}), hand=3)
    typed = event_message(stored, "h-3", "hunzhan")
    assert typed.typed.hunzhan.trick_won.points == 15 and typed.payload_json == ""
    as_json = event_message(stored, "h-3", "hunzhan", JSON)
    assert not as_json.HasField("typed")
    assert payload_of(typed) == payload_of(as_json) == {"seat": 2, "points": 15, "total": 40}
    assert (typed.id, typed.type, typed.version, typed.hand_id) == ("5-0", "trick_won", 7, "h-3")


def test_an_event_no_message_describes_yet_goes_as_json() -> None:
    stored = StoredEvent("6-0", 8, None, "brand_new", b'{"seat":1}')
    message = event_message(stored, "", "hunzhan")
    assert not message.HasField("typed") and json.loads(message.payload_json) == {"seat": 1}


def test_views_sharing_a_table_summary_and_last_hand_each_carry_them_whole() -> None:
    # The summary and the last hand are made into messages once and copied into every view.
    hand = zhajinhua.Game().new_hand(coins=[5000] * 3, dealer=0, seed=b"last-hand")
    while not hand.is_over:
        hand.apply(hand.to_act, "fold")
    last_hand = {"hand_id": "zhajinhua-free-01-7-0badf00d", "seats": [0, 1, 2], "state": hand.view(None)}
    record = TableRecord.open("t1", "zhajinhua", "free")
    for version in (5, 6):
        view = {**TableCommits.view_of(version, "17-0", record, None), "last_hand": last_hand, "turn_due_ms": None,
                "ready_kick": None, "reconnect_by_ms": {}}
        assert view_of(table_view_message("t1", view)) == json.loads(orjson.dumps(view))


def test_a_view_no_message_describes_yet_goes_as_json() -> None:
    record = TableRecord.open("t1", "hunzhan", "stake10")
    view = {**TableCommits.view_of(4, "17-0", record, None), "turn_due_ms": None, "brand_new": 1}
    message = table_view_message("t1", view)
    assert not message.HasField("state") and json.loads(message.view_json) == view

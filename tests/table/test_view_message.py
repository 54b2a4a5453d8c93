"""The wire form of a view: what a frontend reads without parsing the JSON."""

from __future__ import annotations

import json

from paiju.table.messages import table_view_message


def test_the_turn_says_whose_it_is_and_when_it_runs_out_to_the_millisecond() -> None:
    view = {
        "table": {"game": "zhajinhua"}, "version": 3, "last_event_id": "17-0", "seat": 2,
        "hand": {"hand_id": "h-1", "seats": [0, 2], "state": {"to_act": 1, "legal_actions": ["fold", "call"]}},
        "turn_due_ms": 1_764_547_200_123,
    }
    message = table_view_message("t1", view)
    assert (message.turn.seat, message.seat, message.version, message.hand_id) == (2, 2, 3, "h-1")
    assert list(message.legal_actions) == ["fold", "call"]
    assert message.turn.due_at.ToMilliseconds() == 1_764_547_200_123
    assert json.loads(message.view_json) == view


def test_a_view_between_hands_has_no_turn() -> None:
    view = {"table": {"game": "zhajinhua"}, "version": 1, "last_event_id": "", "seat": None, "hand": None}
    message = table_view_message("t1", view)
    assert not message.HasField("turn") and not message.HasField("seat") and message.hand_id == ""

"""A Play stream's bytes (:mod:`paiju.table.play_wire`) are exactly the messages ``Watch`` and
``Act`` make (:class:`~paiju.table.outgoing.Messages`), for every view and event of random hands
of every game: each seat's view of a commit put together from the parts every view shares,
serialised once, and its own, with nothing of another seat's in it."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from paiju.games.engine import Event
from paiju.games.registry import game_spec
from paiju.proto.v1 import table_pb2, views_pb2
from paiju.table.outgoing import MESSAGES
from paiju.table.play_wire import PlayWire, view_bytes
from paiju.table.store import StoredEvent
from paiju.table.views import ActorsReply
from tests.common.test_typed_views import RoundTrips
from tests.games.test_conformance import GAMES

JSON = views_pb2.VIEW_FORMAT_JSON


def play_response(wire: bytes) -> table_pb2.PlayResponse:
    return table_pb2.PlayResponse.FromString(wire)


class WireAgainstMessages(RoundTrips):
    """A conformance playout whose every view (each seat's and a spectator's, at every step) and
    event goes out as the Play stream's bytes and as messages, which must be equal."""

    events_seen = 0

    def check_view(self, view: dict[str, Any]) -> None:  # type: ignore[override]
        for view_format in (0, JSON):
            assert table_pb2.TableView.FromString(view_bytes("t1", view, view_format)) == \
                MESSAGES.update([], "t1", view, view_format).snapshot
            wire = play_response(PlayWire().update([], "t1", view, view_format))
            assert wire.update == MESSAGES.update([], "t1", view, view_format)

    def check_events(self, events: list[Event]) -> None:
        stored = [StoredEvent(f"17000000{self.events_seen + n}-0", 9, None, event.type,
                              orjson.dumps(dict(event.data), option=orjson.OPT_NON_STR_KEYS), 2)
                  for n, event in enumerate(events)]
        self.events_seen += len(stored)
        wire = PlayWire(move_id=7)
        for view_format in (0, JSON):
            update = play_response(wire.update([wire.event(e, "h", self.spec.name, view_format) for e in stored]))
            assert update.update == MESSAGES.update([MESSAGES.event(e, "h", self.spec.name, view_format) for e in stored])
        super().check_events(events)


@pytest.mark.parametrize("game", GAMES)
def test_a_play_streams_bytes_are_the_messages_of_every_view_and_event_of_random_hands(game: str) -> None:
    playout = WireAgainstMessages(game, game_spec(game).tiers[0].name, 3)
    playout.run()
    assert playout.events_seen > 20


def test_a_moves_answer_as_bytes_is_the_act_response_inside_the_answer_to_that_move() -> None:
    view = {"table": {"table_id": "t1", "game": "zhajinhua", "tier": "free", "state": "playing", "seats": [None, None]},
            "version": 3, "last_event_id": "", "seat": None, "hand": None, "last_hand": None, "turn_due_ms": None,
            "ready_kick": None, "reconnect_by_ms": {}}
    events = [(StoredEvent("5-0", 3, None, "ready", b'{"seat":0}', 0), ""),
              (StoredEvent("6-0", 3, None, "ready", b'{"seat":1}', 0), "")]
    reply = ActorsReply(3, view, events)
    for view_format in (0, JSON):
        answer = play_response(PlayWire(move_id=41).accepted("t1", reply, view_format)).answer
        assert answer.move_id == 41
        assert answer.accepted == MESSAGES.accepted("t1", reply, view_format)
        assert [e.id for e in answer.accepted.events] == ["5-0", "6-0"]

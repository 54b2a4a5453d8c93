"""Which hand a stored event belongs to, for ``Event.hand_id``.

The event stream records each event's hand by its number (a byte or two, where the id would
cost dozens in every table's stream); a stream turns numbers back into ids from what it has
seen: the table's record when it opened, and each hand's ``hand_seats`` event, which names the
hand it starts.
"""

from __future__ import annotations

import json
from typing import Any

from paiju.table.record import TableRecord
from paiju.table.store import StoredEvent

HANDS_REMEMBERED = 4
"""Ids kept per stream: the hand being played and the few before it a resumed stream may
still be sent events of."""


class HandIds:
    """The ids of the hands one stream's events belong to, by hand number."""

    def __init__(self, record: TableRecord | None = None) -> None:
        self._ids: dict[int, str] = {}
        if record is not None:
            self.learn_record(record)

    def learn_record(self, record: TableRecord) -> None:
        """The hand being played and the last one played, as a record of the table says."""
        if record.last_hand is not None:
            self._learn(record.hands_played, record.last_hand["hand_id"])
        if record.hand is not None:
            self._learn(record.hand.number, record.hand.hand_id)

    def learn_view(self, view: dict[str, Any]) -> None:
        """The hand being played, as a view of the table says."""
        if view["hand"] is not None:
            self._learn(view["hand"]["number"], view["hand"]["hand_id"])

    def of(self, event: StoredEvent) -> str:
        """The id of the hand ``event`` belongs to; empty for a table event, or a hand too old."""
        if event.type == "hand_seats":
            started = json.loads(event.payload)
            self._learn(started["number"], started["hand_id"])
        return self._ids.get(event.hand, "") if event.hand else ""

    def _learn(self, number: int, hand_id: str) -> None:
        self._ids[number] = hand_id
        for old in [n for n in self._ids if n <= number - HANDS_REMEMBERED]:
            del self._ids[old]

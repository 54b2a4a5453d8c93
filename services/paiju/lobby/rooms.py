"""Rooms per game and tier, and quick match, over the table records (a room is a table).

A room's id is its table's id, ``<game>-<tier>-<nn>``; the lobby keeps a fixed number of rooms
per tier (setting), created when a lobby starts if they are missing.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass

from paiju.games.engine import IllegalAction
from paiju.games.registry import game_names, game_spec
from paiju.table.commits import Outcome
from paiju.table.record import IDLE, PLAYING, WAITING, TableRecord
from paiju.table.store import parse_commit_notice
from paiju.table.tables import Tables

log = logging.getLogger(__name__)

QUICK_MATCH_WAIT_SECONDS = 5.0
"""How long quick match waits for a playing room with a free seat to end its hand when no room is
waiting with players in it: a seat where a hand can start soon beats an empty table."""
NO_FREE_SEAT = "no_free_seat"
"""The refusal of a quick match when no room of the tier has a free seat it may take."""


@dataclass(frozen=True, slots=True)
class RoomEntry:
    version: int
    record: TableRecord


def room_of_commit(table_id: str, outcome: Outcome) -> RoomEntry:
    """A room as a commit of this process left it, from the commit itself (no read)."""
    assert outcome.record is not None
    return RoomEntry(outcome.version, outcome.record)


def room_id(game: str, tier: str, number: int) -> str:
    """The id of a room (and of its table).

    >>> room_id("zhajinhua", "free", 3)
    'zhajinhua-free-03'
    """
    return f"{game}-{tier}-{number:02d}"


class Lobby:
    def __init__(self, tables: Tables, rooms_per_tier: int = 10, games: list[str] | None = None) -> None:
        self.tables = tables
        self.rooms_per_tier = rooms_per_tier
        self.games = games or game_names()

    def tiers(self) -> list[tuple[str, str]]:
        """Every (game, tier) this lobby keeps rooms for."""
        return [(game, tier.name) for game in self.games for tier in game_spec(game).tiers]

    def ensure_rooms(self) -> int:
        """Create the rooms that do not exist yet; how many rooms there are in all."""
        count = 0
        for game, tier in self.tiers():
            for number in range(1, self.rooms_per_tier + 1):
                self.tables.open(room_id(game, tier, number), game, tier)
                count += 1
        return count

    def room_ids(self, game: str, tier: str) -> list[str]:
        """The ids of the rooms of one game and tier (``""``: every tier of the game), by tier then
        number, made or not yet; an unknown game or tier is refused with
        :class:`~paiju.games.registry.UnknownName`."""
        spec = game_spec(game)
        tiers = [t.name for t in spec.tiers] if tier == "" else [spec.tier(tier).name]
        return [room_id(game, name, number) for name in tiers for number in range(1, self.rooms_per_tier + 1)]

    def rooms(self, game: str, tier: str) -> list[RoomEntry]:
        """The rooms of :meth:`room_ids` as they are now (those that exist)."""
        ids = self.room_ids(game, tier)
        found = self.tables.store.load_many(ids)  # one round trip: WatchRooms polls this
        return [
            RoomEntry(found[table_id].version, TableRecord.from_bytes(found[table_id].state))
            for table_id in ids
            if table_id in found
        ]

    def room(self, table_id: str) -> RoomEntry | None:
        """One room as it is now, or ``None`` if it is gone."""
        snapshot = self.tables.store.load(table_id)
        return None if snapshot is None else RoomEntry(snapshot.version, TableRecord.from_bytes(snapshot.state))

    def quick_match(
        self, game: str, tier: str, account: str, name: str, wait_seconds: float = QUICK_MATCH_WAIT_SECONDS
    ) -> tuple[str, Outcome]:
        """Seat the player where a hand can start soonest: the waiting room with the most
        players ready, then the fullest; with nobody waiting anywhere, the first playing room
        with a free seat to end its hand (for at most ``wait_seconds``); else an idle room."""
        rooms = [entry.record for entry in self.rooms(game, tier)]
        candidates = [record for record in rooms if record.state in (WAITING, IDLE) and None in record.seats]
        candidates.sort(key=soonest_start)
        if not any(record.seated() for record in candidates):
            playing = {record.table_id for record in rooms if record.state == PLAYING and None in record.seats}
            seated = self._seat_when_a_hand_ends(playing, account, name, wait_seconds) if playing else None
            if seated is not None:
                return seated
        for record in candidates:
            try:
                return record.table_id, self.tables.sit(record.table_id, account, name, between_hands=True)
            except IllegalAction as refusal:
                if refusal.code in ("not_enough_coins", "seated_elsewhere", "already_seated"):
                    raise
                # the room filled, or its hand started, meanwhile: try the next
        raise IllegalAction(f"every {game} {tier} room is full or playing", NO_FREE_SEAT)

    def _seat_when_a_hand_ends(
        self, table_ids: set[str], account: str, name: str, wait_seconds: float
    ) -> tuple[str, Outcome] | None:
        """Sit at the first of ``table_ids`` found between hands with a free seat, listening to
        their commits for at most ``wait_seconds``; None if none came free in time."""
        store = self.tables.store
        listener = uuid.uuid4().hex[:12]
        store.watch_commits(sorted(table_ids), listener, watch_ms=int((wait_seconds + 5) * 1000))
        notices = store.commit_notices(listener)
        try:
            waiting_for = sorted(table_ids)  # a hand may have ended before we listened
            give_up = time.monotonic() + wait_seconds
            while True:
                for table_id in waiting_for:
                    snapshot = self.tables.store.load(table_id)
                    record = None if snapshot is None else TableRecord.from_bytes(snapshot.state)
                    if record is None or record.state == PLAYING or None not in record.seats:
                        continue
                    try:
                        # Between hands when it commits, or not at all: seated in a hand that
                        # started meanwhile, the player's press of start would be refused.
                        return table_id, self.tables.sit(table_id, account, name, between_hands=True)
                    except IllegalAction as refusal:
                        if refusal.code in ("not_enough_coins", "seated_elsewhere", "already_seated"):
                            raise  # the player's own refusal: no other room would do better
                left = give_up - time.monotonic()
                if left <= 0:
                    return None
                notice = notices.get_message(timeout=min(left, 1.0))
                changed = None if notice is None else parse_commit_notice(notice["data"])[0]
                # No notice for a second: look at them all again (a notice can be lost).
                waiting_for = sorted(table_ids) if notice is None else [changed] if changed in table_ids else []
        finally:
            notices.close()
            try:
                store.unwatch_commits(sorted(table_ids), listener)
            except Exception:  # the watches run out on their own
                log.warning("ending the lobby's watch of %d tables failed", len(table_ids), exc_info=True)


def soonest_start(record: TableRecord) -> tuple[int, int]:
    """Where a hand can start soonest sorts first: most players ready, then the fullest."""
    seated = [record.seats[seat] for seat in record.seated()]
    return -sum(1 for taken in seated if taken is not None and taken.ready), -len(seated)

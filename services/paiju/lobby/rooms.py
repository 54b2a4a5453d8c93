"""Rooms per game and tier, and quick match, over the table records (a room is a table).

A room's id is its table's id, ``<game>-<tier>-<nn>``; the lobby keeps a fixed number of rooms
per tier (setting), created when a lobby starts if they are missing.
"""

from __future__ import annotations

from dataclasses import dataclass

from paiju.games.engine import IllegalAction
from paiju.games.registry import game_names, game_spec
from paiju.table.record import IDLE, WAITING, TableRecord
from paiju.table.tables import Outcome, Tables


@dataclass(frozen=True, slots=True)
class RoomEntry:
    version: int
    record: TableRecord


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

    def rooms(self, game: str, tier: str) -> list[RoomEntry]:
        """The rooms of one game and tier (every tier when ``tier`` is empty, as ListRooms
        promises), tier by tier in number order."""
        spec = game_spec(game)
        tiers = [spec.tier(tier).name] if tier else [t.name for t in spec.tiers]  # unknown names are refused
        ids = [room_id(game, name, number) for name in tiers for number in range(1, self.rooms_per_tier + 1)]
        found = self.tables.store.load_many(ids)  # one round trip: WatchRooms polls this
        return [
            RoomEntry(found[table_id].version, TableRecord.from_bytes(found[table_id].state))
            for table_id in ids
            if table_id in found
        ]

    def quick_match(self, game: str, tier: str, account: str, name: str) -> tuple[str, Outcome]:
        """Seat the player in the fullest waiting room with a free seat, else an idle one."""
        candidates = [
            entry.record
            for entry in self.rooms(game, tier)
            if entry.record.state in (WAITING, IDLE) and None in entry.record.seats
        ]
        candidates.sort(key=lambda record: (record.state != WAITING, -len(record.seated())))
        last_refusal: IllegalAction | None = None
        for record in candidates:
            try:
                return record.table_id, self.tables.sit(record.table_id, account, name)
            except IllegalAction as refusal:
                if refusal.code in ("not_enough_coins", "seated_elsewhere", "already_seated"):
                    raise
                last_refusal = refusal  # the room filled or started meanwhile: try the next
        raise last_refusal or IllegalAction(f"every {game} {tier} room is full or playing", "no_free_seat")

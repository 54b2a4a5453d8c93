"""A table's record: its seats, who is ready, and the hand in play (one Redis key per table).

The record is what the lobby and the table service change together with one compare-and-set,
so sitting, readiness and the start of a hand can never disagree. It knows seat rules common
to every game (``spec/platform.md``: rooms, sitting, ready); the game's own rules stay in the
engine, reached through :mod:`paiju.games.registry`.

>>> table = TableRecord.open("t1", "zhajinhua", "free")
>>> table.sit("a1", "Ann", coins=5_000); table.sit("b2", "Bo", coins=5_000, seat=3)
0
3
>>> table.state, table.ready("a1"), table.ready("b2"), table.can_start()
('waiting', False, True, True)
"""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import dataclass, field, fields
from typing import Any

from paiju.games.engine import require
from paiju.games.registry import GameSpec, game_spec

IDLE, WAITING, PLAYING = "idle", "waiting", "playing"


@dataclass(slots=True)
class SeatRecord:
    account: str
    name: str
    coins: int
    """Coins as the table last knew them (at sitting, then after each settlement)."""
    ready: bool = False
    connected: bool = True
    away_stamp: int | None = None
    """While disconnected: the stamp of this disconnection, which its reconnect deadline carries."""
    turn_left_ms: int | None = None
    """A suspended turn timer's time left (games that wait for a disconnected player)."""
    leaving: bool = False
    """Escaped mid-hand: stood up when the hand ends."""
    strikes: int = 0
    """Consecutive turn timeouts (trick games: the 4th is an escape)."""


@dataclass(slots=True)
class HandRecord:
    hand_id: str
    seats: list[int]
    """The table seat of each hand seat, in hand order (hand seat i plays at seats[i])."""
    blob: bytes
    number: int

    def hand_seat(self, table_seat: int) -> int | None:
        return self.seats.index(table_seat) if table_seat in self.seats else None


@dataclass(slots=True)
class TableRecord:
    table_id: str
    game: str
    tier: str
    seats: list[SeatRecord | None]
    rules: dict[str, Any] = field(default_factory=dict)
    hand: HandRecord | None = None
    hands_played: int = 0
    last_winner: str | None = None
    """The account that won the last hand: the next dealer (炸金花) while it stays seated."""
    last_hand: dict[str, Any] | None = None
    """The public view of the last finished hand: its settlement table and its reveal."""
    stamps: int = 0
    """Source of stamps: each deadline carries the stamp of the state it was set for, and its
    expiry is a no-op once that state has moved on (see :mod:`paiju.table.tables`)."""
    turn_stamp: int = 0
    seating_stamp: int = 0
    carry: dict[str, Any] | None = None
    """What the last hand left for the next one at the same seats (炒地皮: the match), with
    the accounts it holds for (``carry["accounts"]``); another line-up starts afresh."""
    system_stamp: int = 0
    """The stamp of the engine's pending system step (混战: the next card, the end of declaring)."""
    turn_ms: int | None = None
    """This table's turn time; ``None``: the platform's default (``PAIJU_TURN_SECONDS``)."""

    def next_stamp(self) -> int:
        self.stamps += 1
        return self.stamps

    @classmethod
    def open(cls, table_id: str, game: str, tier: str, rules: dict[str, Any] | None = None) -> TableRecord:
        spec = game_spec(game)
        merged = {**spec.tier_rules(spec.tier(tier)), **(rules or {})}
        return cls(table_id, game, tier, [None] * spec.max_players, merged)

    @property
    def spec(self) -> GameSpec:
        return game_spec(self.game)

    # --- what the lobby shows -----------------------------------------------------------

    @property
    def state(self) -> str:
        """``idle`` (nobody seated), ``waiting`` or ``playing`` (a hand is on)."""
        if self.hand is not None:
            return PLAYING
        return WAITING if self.seated() else IDLE

    def seated(self) -> list[int]:
        return [seat for seat, taken in enumerate(self.seats) if taken is not None]

    def seat_of(self, account: str) -> int | None:
        for seat, taken in enumerate(self.seats):
            if taken is not None and taken.account == account:
                return seat
        return None

    def summary(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "game": self.game,
            "tier": self.tier,
            "state": self.state,
            "seats": [
                None if s is None
                else {"account": s.account, "name": s.name, "ready": s.ready, "coins": s.coins, "connected": s.connected}
                for s in self.seats
            ],
        }

    # --- sit, stand, ready ----------------------------------------------------------------

    def verify_sit(self, account: str, coins: int, seat: int | None = None) -> int:
        """The seat ``account`` would take; raises IllegalAction with the reason otherwise."""
        require(self.hand is None, "a hand is being played here: nobody may enter now", "table_playing")
        require(self.seat_of(account) is None, "you are already seated at this table", "already_seated")
        tier = self.spec.tier(self.tier)
        require(
            coins >= tier.min_coins,
            f"this {tier.title} room needs {tier.min_coins:,} coins to sit; you hold {coins:,}",
            "not_enough_coins",
        )
        if seat is None:
            free = [s for s, taken in enumerate(self.seats) if taken is None]
            require(bool(free), "every seat is taken", "table_full")
            return free[0]
        require(
            isinstance(seat, int) and 0 <= seat < len(self.seats),
            f"this table has seats 0..{len(self.seats) - 1}, not {seat!r}",
            "bad_seat",
        )
        require(self.seats[seat] is None, f"seat {seat} is taken", "seat_taken")
        return seat

    def sit(self, account: str, name: str, coins: int, seat: int | None = None) -> int:
        seat = self.verify_sit(account, coins, seat)
        self.seats[seat] = SeatRecord(account, name, coins)
        return seat

    def verify_stand(self, account: str) -> int:
        seat = self.seat_of(account)
        require(seat is not None, "you are not seated at this table", "not_seated")
        require(
            self.hand is None or self.hand.hand_seat(seat) is None,  # type: ignore[arg-type]
            "you are in the hand being played: leave it through the table (it counts as an escape)",
            "in_hand",
        )
        return seat  # type: ignore[return-value]

    def stand(self, account: str) -> int:
        seat = self.verify_stand(account)
        self.seats[seat] = None
        return seat

    def ready(self, account: str) -> bool:
        """Mark ``account`` ready; True when this makes the table ready to start a hand."""
        seat = self.seat_of(account)
        require(seat is not None, "you are not seated at this table", "not_seated")
        require(self.hand is None, "a hand is already being played", "table_playing")
        self.seats[seat].ready = True  # type: ignore[union-attr]
        return self.can_start()

    def can_start(self) -> bool:
        """Every seated player is ready and their number is legal for the game."""
        seated = self.seated()
        spec = self.spec
        return (
            self.hand is None
            and spec.min_players <= len(seated) <= spec.max_players
            and all(self.seats[s].ready for s in seated)  # type: ignore[union-attr]
        )

    def ready_kick_candidate(self) -> int | None:
        """The one seat that is not ready while enough others are to start without it.

        It is stood up if it does not press start within the ready-kick time (platform.md).
        """
        if self.hand is not None:
            return None
        seated = self.seated()
        waiting = [s for s in seated if not self.seats[s].ready]  # type: ignore[union-attr]
        ready_count = len(seated) - len(waiting)
        spec = self.spec
        needed = spec.max_players - 1 if spec.min_players == spec.max_players else spec.min_players
        if len(waiting) == 1 and ready_count >= needed:
            return waiting[0]
        return None

    # --- serialisation --------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        # Shallow field reads: asdict() would deep-copy the last hand's view on every write.
        data = _fields_of(self)
        data["seats"] = [None if seat is None else _fields_of(seat) for seat in self.seats]
        if self.hand is not None:
            data["hand"] = {**_fields_of(self.hand), "blob": base64.b64encode(self.hand.blob).decode()}
        text = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        # Hand states are repetitive JSON; compressed they keep a live table near 1 KB in Redis.
        return zlib.compress(text.encode(), 6)

    @classmethod
    def from_bytes(cls, blob: bytes) -> TableRecord:
        try:
            data = json.loads(zlib.decompress(blob))
            seats = [None if s is None else SeatRecord(**s) for s in data.pop("seats")]
            hand = data.pop("hand")
            if hand is not None:
                hand = HandRecord(**{**hand, "blob": base64.b64decode(hand["blob"])})
            return cls(seats=seats, hand=hand, **data)
        except (zlib.error, ValueError, TypeError, KeyError) as error:
            raise ValueError(f"corrupt table record: {error!r}") from None


def _fields_of(instance: Any) -> dict[str, Any]:
    return {f.name: getattr(instance, f.name) for f in fields(instance)}

"""Finished hands kept for their players' history (牌谱): written once per hand as its
settlement is applied, listed per player newest first, read back for a replay, and pruned after
the retention period.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from paiju.wallet.tables import hand_players, hand_records


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One finished hand as kept: ``record`` holds ``tier``, ``accounts`` (by hand seat),
    ``names`` and ``start`` (what it started from and its move log: ``replays.start_of``)."""

    hand_id: str
    game: str
    table_id: str
    ended_at: datetime
    record: dict[str, Any]
    nets: dict[int, int]
    """Each player's net coins in the hand (account → coins)."""


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A line of a player's history: a hand they played, and how it went for them."""

    hand_id: str
    game: str
    table_id: str
    ended_at: datetime
    seat: int
    net: int


def keep(conn: Connection, hands: Iterable[HandRecord]) -> int:
    """Store each hand not stored before; how many were new. Settlements of one hand can be
    delivered twice at once (the worker's job and the relay): the second insert is skipped by the
    database, not by a look first, which both could pass."""
    fresh = sorted({hand.hand_id: hand for hand in hands}.values(), key=lambda hand: hand.hand_id)
    players: list[dict[str, Any]] = []
    added = 0
    for hand in fresh:
        inserted = conn.execute(_insert_new(conn, hand_records).values(
            hand_id=hand.hand_id, game=hand.game, table_id=hand.table_id, ended_at=hand.ended_at,
            record=json.dumps(hand.record, separators=(",", ":"))).returning(hand_records.c.hand_id)).first()
        if inserted is None:
            continue  # kept by another delivery
        added += 1
        players += [{"account_id": int(account), "hand_id": hand.hand_id, "seat": seat,
                     "net": hand.nets.get(int(account), 0), "ended_at": hand.ended_at}
                    for seat, account in enumerate(hand.record["accounts"])]
    if players:
        # In the accounts' order: each row locks its account against changes of its key (the
        # foreign key) as it goes in, and holds lock the same rows in that order, so the two
        # never wait for each other in a circle (rows in seat order deadlocked with a hold).
        players.sort(key=lambda row: (row["account_id"], row["hand_id"]))
        conn.execute(_insert_new(conn, hand_players), players)
    return added


def _insert_new(conn: Connection, table: sa.Table) -> Any:
    """An INSERT that does nothing when the row's key is there already."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert

        return insert(table).on_conflict_do_nothing()
    if conn.dialect.name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(table).on_conflict_do_nothing()
    return table.insert()


def played_by(conn: Connection, account: int, limit: int, before: tuple[datetime, str] | None) -> list[PlayedHand]:
    """``account``'s hands, newest first, at most ``limit``; with ``before`` (ended_at, hand_id
    of the last one of the previous page), the ones after it."""
    query = (
        sa.select(hand_players.c.hand_id, hand_records.c.game, hand_records.c.table_id, hand_players.c.ended_at,
                  hand_players.c.seat, hand_players.c.net)
        .join(hand_records, hand_records.c.hand_id == hand_players.c.hand_id)
        .where(hand_players.c.account_id == account)
        .order_by(hand_players.c.ended_at.desc(), hand_players.c.hand_id.desc())
        .limit(limit)
    )
    if before is not None:
        ended, hand_id = before
        query = query.where(sa.or_(hand_players.c.ended_at < ended,
                                   sa.and_(hand_players.c.ended_at == ended, hand_players.c.hand_id < hand_id)))
    return [PlayedHand(row.hand_id, row.game, row.table_id, row.ended_at, row.seat, int(row.net))
            for row in conn.execute(query)]


def record_of(conn: Connection, hand_id: str) -> HandRecord | None:
    row = conn.execute(sa.select(hand_records).where(hand_records.c.hand_id == hand_id)).first()
    if row is None:
        return None
    nets = {r.account_id: int(r.net) for r in conn.execute(
        sa.select(hand_players.c.account_id, hand_players.c.net).where(hand_players.c.hand_id == hand_id))}
    return HandRecord(row.hand_id, row.game, row.table_id, row.ended_at, json.loads(row.record), nets)


def prune(conn: Connection, ended_before: datetime) -> int:
    """Forget the hands that ended before ``ended_before``; how many."""
    old = sa.select(hand_records.c.hand_id).where(hand_records.c.ended_at < ended_before)
    conn.execute(hand_players.delete().where(hand_players.c.hand_id.in_(old)))
    return conn.execute(hand_records.delete().where(hand_records.c.ended_at < ended_before)).rowcount


def nets_of(lines: Sequence[tuple[int, int, str]]) -> dict[int, int]:
    """Each account's net coins from a settlement's ``(account, amount, reason)`` lines.

    >>> nets_of([(1, -100, "stake"), (2, 100, "pot"), (2, -2, "fee")])
    {1: -100, 2: 98}
    """
    nets: dict[int, int] = {}
    for account, amount, _reason in lines:
        nets[account] = nets.get(account, 0) + amount
    return nets

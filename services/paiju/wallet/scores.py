"""Score points (积分) of score-channel hands: recorded once per (hand, account), summed on demand.

Score channels move no coins, so their points never touch balances; they live beside the coin
ledger, keyed like settlements so that a repeated delivery records nothing twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from paiju.wallet.model import LeaderboardRow
from paiju.wallet.queries import coin_sum
from paiju.wallet.tables import accounts, scores


def record_scores(conn: Connection, hand_id: str, game: str, points: Mapping[int, int], now: datetime) -> bool:
    """Record a hand's points; False (and nothing written) if the hand was recorded before."""
    recorded = conn.execute(sa.select(scores.c.account_id, scores.c.points).where(scores.c.hand_id == hand_id)).all()
    if recorded:
        if dict(recorded) != dict(points):
            raise ValueError(f"hand {hand_id} was recorded before with other points: {dict(recorded)}")
        return False
    conn.execute(
        scores.insert(),
        [
            {"hand_id": hand_id, "account_id": account, "game": game, "points": value, "created_at": now}
            for account, value in sorted(points.items())
        ],
    )
    return True


def hand_scores(conn: Connection, hand_id: str) -> dict[int, int]:
    rows = conn.execute(sa.select(scores.c.account_id, scores.c.points).where(scores.c.hand_id == hand_id)).all()
    return {row.account_id: int(row.points) for row in rows}


def score_of(conn: Connection, account: int, game: str) -> int:
    total = conn.execute(
        sa.select(coin_sum(scores.c.points)).where(scores.c.account_id == account, scores.c.game == game)
    ).scalar_one()
    return int(total or 0)


def score_top(conn: Connection, game: str, n: int) -> list[LeaderboardRow]:
    """The ``n`` players with the most score points in ``game``, best first (ties by id)."""
    total = coin_sum(scores.c.points).label("total")
    rows = conn.execute(
        sa.select(accounts.c.id, accounts.c.username, total)
        .select_from(scores.join(accounts, accounts.c.id == scores.c.account_id))
        .where(scores.c.game == game)
        .group_by(accounts.c.id, accounts.c.username)
        .order_by(total.desc(), accounts.c.id)
        .limit(n)
    ).all()
    return [LeaderboardRow(row.id, row.username, int(row.total)) for row in rows]

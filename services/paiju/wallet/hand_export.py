"""One kept hand as a JSON document, for an operator (``paiju hand export HAND_ID``): who played
it, how it settled, its start (rules, coins, the shuffle's seed) and move log, which replay it exactly
(:func:`paiju.games.replays.replay_start`), and how it ended as the table saw it."""

from __future__ import annotations

from typing import Any

from paiju.games.replays import replay_start
from paiju.wallet.store import Wallet


def export_hand(wallet: Wallet, hand_id: str) -> dict[str, Any] | None:
    """The hand's document, or None when it is not kept."""
    kept = wallet.hand_record(hand_id)
    if kept is None:
        return None
    steps = replay_start(kept.game, kept.record["start"], None)
    accounts = [int(account) for account in kept.record["accounts"]]
    return {
        "hand_id": kept.hand_id,
        "game": kept.game,
        "table_id": kept.table_id,
        "tier": kept.record.get("tier"),
        "ended_at": kept.ended_at.isoformat(),
        "players": [
            {"seat": seat, "account_id": account, "name": name, "net": kept.nets.get(account, 0)}
            for seat, (account, name) in enumerate(zip(accounts, kept.record.get("names", []), strict=False))
        ],
        "start": kept.record["start"],
        "moves": kept.record["start"]["history"],
        "end": steps[-1]["view"],
    }

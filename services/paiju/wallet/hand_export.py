"""One kept hand as a JSON document, for an operator (``paiju hand export HAND_ID``): who played
it, how it settled, its move log and its whole final state — every card, the shuffle's seed —
which is enough to replay it (:func:`paiju.games.replays.replay`)."""

from __future__ import annotations

import base64
from typing import Any

from paiju.games.registry import game_spec
from paiju.wallet.store import Wallet


def export_hand(wallet: Wallet, hand_id: str) -> dict[str, Any] | None:
    """The hand's document, or None when it is not kept."""
    kept = wallet.hand_record(hand_id)
    if kept is None:
        return None
    final = game_spec(kept.game).load_hand(base64.b64decode(kept.record["hand"]))
    state = final.to_data()
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
        "moves": state.get("history", []),
        "state": state,
    }

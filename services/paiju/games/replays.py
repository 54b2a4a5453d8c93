"""A finished hand replayed move by move, as one seat saw it (hand history, 牌谱).

A hand's final state (``to_bytes``) holds everything it started from — rules, coins, dealer,
seed, the match carried in — and its move log; the hand is started again from those and the log
applied one entry at a time. Each step's view is the game's own ``view(seat)``, so a replay shows
exactly what the rules let that seat see then: its own cards all along, the others' once shown.

>>> from paiju.games import zhajinhua
>>> hand = zhajinhua.Game().new_hand(coins=[5000, 5000], dealer=0, seed=b"replay")
>>> _ = hand.apply(1, "fold")
>>> steps = replay("zhajinhua", hand.to_bytes(), seat=0)
>>> [step["move"] for step in steps]
[None, [1, 'fold']]
>>> steps[-1]["view"]["result"]["coins"] == hand.view(0)["result"]["coins"]
True
"""

from __future__ import annotations

from typing import Any

from paiju.games.engine import replay_moves
from paiju.games.registry import game_spec


def replay(game: str, blob: bytes, seat: int | None) -> list[dict[str, Any]]:
    """Every step of the hand in ``blob`` as ``seat`` saw it (``None``: a spectator): first the
    start (``move`` None), then after each entry of the move log, ``{"move": [seat, text],
    "view": …}``. Raises ValueError when the replay does not end where the hand did."""
    spec = game_spec(game)
    final = spec.load_hand(blob)
    data = final.to_data()
    dealer = data.get("dealer", data.get("first_receiver"))
    carry = {"match": data["match"]} if data.get("match") is not None else None
    hand = spec.start_hand(data["rules"], list(data["coins"]), dealer, bytes.fromhex(data["seed"]), carry)
    steps: list[dict[str, Any]] = [{"move": None, "view": hand.view(seat)}]
    for entry in data["history"]:
        replay_moves(hand, [tuple(entry)])
        steps.append({"move": list(entry), "view": hand.view(seat)})
    if hand.to_data() != data:
        raise ValueError(f"the {game} hand did not replay to where it ended")
    return steps

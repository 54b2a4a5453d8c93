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

from paiju.games.engine import BaseHand, HandState, replay_moves
from paiju.games.registry import game_spec


def start_of(hand: HandState) -> dict[str, Any] | None:
    """What ``hand`` started from and its move log (:meth:`HandState.start_record`): all a replay
    needs, far smaller than the hand's final state (it waits in a table's outbox until the
    settlement is relayed); None for a hand that keeps no seed or move log.

    Decision: a hand not built on :class:`~paiju.games.engine.BaseHand` (a game written for a
    test, which may not implement ``start_record``) keeps none, as before the contract named it.
    """
    return hand.start_record() if isinstance(hand, BaseHand) else None


def replay(game: str, blob: bytes, seat: int | None) -> list[dict[str, Any]]:
    """Every step of the hand in ``blob`` (its final state) as ``seat`` saw it; see
    :func:`replay_start`. Raises ValueError when the replay does not end where the hand did."""
    final = game_spec(game).load_hand(blob)
    start = start_of(final)
    if start is None:
        raise ValueError(f"a {game} hand that keeps no seed or move log cannot be replayed")
    steps, hand = _replayed(game, start, seat)
    if hand.to_data() != final.to_data():
        raise ValueError(f"the {game} hand did not replay to where it ended")
    return steps


def replay_start(game: str, start: dict[str, Any], seat: int | None) -> list[dict[str, Any]]:
    """Every step of the hand of ``start`` (:func:`start_of`) as ``seat`` (``None``: a
    spectator) saw it: first the start (``move`` None), then after each entry of the move log,
    ``{"move": [seat, text], "view": …}``. Raises ValueError when the log does not end the hand."""
    steps, hand = _replayed(game, start, seat)
    if not hand.is_over:
        raise ValueError(f"the {game} hand's move log stops before the hand ended")
    return steps


def _replayed(game: str, start: dict[str, Any], seat: int | None) -> tuple[list[dict[str, Any]], Any]:
    spec = game_spec(game)
    carry = {"match": start["match"]} if start.get("match") is not None else None
    hand = spec.start_hand(start["rules"], list(start["coins"]), start["dealer"], bytes.fromhex(start["seed"]), carry)
    steps: list[dict[str, Any]] = [{"move": None, "view": hand.view(seat)}]
    for entry in start["history"]:
        replay_moves(hand, [tuple(entry)])
        steps.append({"move": list(entry), "view": hand.view(seat)})
    return steps, hand

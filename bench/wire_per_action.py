"""What the wire forms cost the server per action, typed against JSON: every message a commit
makes, built and serialised as the servicer does, summed over random hands and divided by the
actions.

Each seat of a full table holds a Play stream that follows views and leaves out its own moves
(as the web client does). Per commit: the mover's answer (its view and its events), and for
every other seat either a followed view with the events it may see (what it may do changed:
:func:`paiju.table.views.view_key`) or an update of those events alone. Views and events are
made before the clock starts; the clock counts making the messages and serialising them, the
forms taking turns (A B A B), the message caches emptied at each turn (a commit's event is made
for the first stream that sends it, then shared).

Run: ``.venv/bin/python bench/wire_per_action.py [--hands 20] [--rounds 6]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from paiju.games.registry import game_spec
from paiju.proto.v1 import table_pb2, views_pb2
from paiju.table import messages
from paiju.table.play import _accepted, _as_update
from paiju.table.store import StoredEvent
from paiju.table.views import view_key

FORMS = {"json": views_pb2.VIEW_FORMAT_JSON, "typed": views_pb2.VIEW_FORMAT_TYPED}
TABLE_ID = "bench-07"


@dataclass
class Commit:
    """One commit as the streams see it: the mover (None for a system step) and, per seat, the
    view after it and the events it may see."""

    mover: int | None
    views: list[dict[str, Any]]
    seen: list[list[tuple[StoredEvent, str]]]


def table_view(game: str, tier: Any, hand: Any, seat: int, version: int, hand_id: str) -> dict[str, Any]:
    players = [{"account": f"account-{s:04d}", "name": f"player {s}", "ready": True, "coins": 10_000 + s,
                "connected": True} for s in range(game_spec(game).max_players)]
    state = hand.view(seat)
    return {
        "version": version, "last_event_id": f"{1764547200000 + version}-0",
        "table": {"table_id": TABLE_ID, "game": game, "tier": tier.name, "state": "playing", "seats": players},
        "seat": seat, "last_hand": None,
        "hand": {"hand_id": hand_id, "number": 41, "seats": list(range(len(players))), "my_hand_seat": seat,
                 "state": state},
        "turn_due_ms": 1_764_547_220_123 + version if state.get("to_act") is not None else None,
        "ready_kick": None, "reconnect_by_ms": {},
    }


def played(game: str, hands: int, seed: int) -> list[Commit]:
    """Every commit of ``hands`` random hands of ``game`` at a full table."""
    spec = game_spec(game)
    tier = spec.tiers[-1]
    seats = spec.max_players
    rng = random.Random(seed)
    commits: list[Commit] = []
    version = 0
    for number in range(hands):
        hand_id = f"{TABLE_ID}-{number}-5c0ffee5"
        hand = spec.start_hand(spec.tier_rules(tier), [tier.min_coins * 5 + 100 * s for s in range(seats)], 0,
                               f"bench/{seed}/{number}".encode(), None)
        pending = list(hand.opening_events)
        mover: int | None = None
        while True:
            version += 1
            stored = [StoredEvent(f"{1764547200000 + version}-{n}", version, e.visible_to, e.type,
                                  orjson.dumps(dict(e.data), option=orjson.OPT_NON_STR_KEYS), number)
                      for n, e in enumerate(pending)]
            commits.append(Commit(mover, [table_view(game, tier, hand, s, version, hand_id) for s in range(seats)],
                                  [[(e, hand_id) for e in stored if e.visible(s)] for s in range(seats)]))
            if hand.is_over:
                break
            movers = [s for s in range(seats) if hand.legal_actions(s)]
            if hand.to_act is None:  # a paced deal: now and then a seat declares
                if movers and rng.random() < 0.1:
                    mover = movers[0]
                    pending = list(hand.apply(mover, rng.choice(hand.legal_actions(mover))))
                else:
                    mover, pending = None, list(hand.system_step())
            else:
                mover = hand.to_act if hand.to_act in movers else movers[0]
                pending = list(hand.apply(mover, rng.choice(hand.legal_actions(mover))))
    return commits


def counted(commits: list[Commit]) -> tuple[int, int]:
    """The views and the event messages the streams send over ``commits``."""
    views = events = 0
    keys: list[Any] = [None] * len(commits[0].views)
    for commit in commits:
        for seat, view in enumerate(commit.views):
            key = view_key(view)
            if seat == commit.mover or key != keys[seat]:
                views += 1
            keys[seat] = key
            events += len(commit.seen[seat])
    return views, events


def sent(commits: list[Commit], view_format: int) -> Callable[[], int]:
    """Makes and serialises every message of ``commits`` in ``view_format``; returns the bytes."""
    game = commits[0].views[0]["table"]["game"]
    serialise = table_pb2.PlayResponse.SerializeToString

    def run() -> int:
        size = 0
        keys: list[Any] = [None] * len(commits[0].views)
        for move_id, commit in enumerate(commits):
            for seat, view in enumerate(commit.views):
                events = [messages.event_message(e, hand_id, game, view_format) for e, hand_id in commit.seen[seat]]
                if seat == commit.mover:
                    keys[seat] = view_key(view)
                    answered = _accepted(move_id)
                    answer = messages.with_view(
                        lambda fields, sent=events, version=view["version"], made=answered: made(
                            version=version, view=fields, events=sent),
                        TABLE_ID, view, view_format)
                    size += len(serialise(answer))
                    continue
                key = view_key(view)
                if key != keys[seat]:
                    keys[seat] = key
                    update = messages.with_view(lambda fields, sent=events: _as_update(events=sent, snapshot=fields),
                                                TABLE_ID, view, view_format)
                elif events:
                    update = _as_update(events=events)
                else:
                    continue
                size += len(serialise(update))
        return size

    return run


def forget_messages() -> None:
    """Empties the servicer's message caches, as a new run of commits would find them."""
    messages._typed_event.cache_clear()
    messages._summary.cache_clear()
    messages._last_hands.clear()


def timed(run: Callable[[], int]) -> float:
    forget_messages()
    gc.disable()
    try:
        tick = time.thread_time()
        run()
        return time.thread_time() - tick
    finally:
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20, help="random hands per game (default 20)")
    parser.add_argument("--rounds", type=int, default=6, help="A B rounds (default 6)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print("per action at a full table, every seat a Play stream following views: "
          "bytes sent, median server CPU µs to make and serialise (A B A B)")
    for game in ("zhajinhua", "hunzhan", "chaodipi"):
        commits = played(game, args.hands, args.seed)
        runs = {name: sent(commits, view_format) for name, view_format in FORMS.items()}
        sizes = {name: run() for name, run in runs.items()}
        samples: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, run in runs.items():
                samples[name].append(timed(run))
        cost = {name: statistics.median(values) / len(commits) * 1e6 for name, values in samples.items()}
        views, events = counted(commits)
        print(f"{game:9} {len(commits):6} commits, {views / len(commits):.1f} views and "
              f"{events / len(commits):.1f} events an action   "
              + "   ".join(f"{name} {sizes[name] / len(commits):7.0f} B {cost[name]:6.1f} µs" for name in runs)
              + f"   typed/json {cost['typed'] / cost['json']:.2f}")


if __name__ == "__main__":
    main()

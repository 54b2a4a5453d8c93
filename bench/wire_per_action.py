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
from view_forms import random_step, seated_view

FORMS = {"json": views_pb2.VIEW_FORMAT_JSON, "typed": views_pb2.VIEW_FORMAT_TYPED}
TABLE_ID = "bench-07"


@dataclass
class Commit:
    """One commit as the streams see it: the mover (None for a system step) and, per seat, the
    view after it, the events it may see and whether its stream sends that view (the mover's
    answer, or a followed view: what the seat may do changed)."""

    mover: int | None
    views: list[dict[str, Any]]
    seen: list[list[tuple[StoredEvent, str]]]
    viewed: list[bool]


def played(game: str, hands: int, seed: int) -> list[Commit]:
    """Every commit of ``hands`` random hands of ``game`` at a full table."""
    spec = game_spec(game)
    tier = spec.tiers[-1]
    seats = spec.max_players
    rng = random.Random(seed)
    commits: list[Commit] = []
    sent_keys: list[Any] = [None] * seats
    version = 0
    for number in range(hands):
        hand_id = f"{TABLE_ID}-{number}-5c0ffee5"
        hand = spec.start_hand(spec.tier_rules(tier), [tier.min_coins * 5 + 100 * s for s in range(seats)], 0,
                               f"bench/{seed}/{number}".encode(), None)
        mover, pending = None, list(hand.opening_events)
        while True:
            version += 1
            stored = [StoredEvent(f"{1764547200000 + version}-{n}", version, e.visible_to, e.type,
                                  orjson.dumps(dict(e.data), option=orjson.OPT_NON_STR_KEYS), number)
                      for n, e in enumerate(pending)]
            due = 1_764_547_220_123 + version if hand.to_act is not None else None
            views = [seated_view(game, hand, s, table_id=TABLE_ID, hand_id=hand_id, version=version,
                                 last_event_id=f"{1764547200000 + version}-0", turn_due_ms=due) for s in range(seats)]
            viewed = []
            for seat, view in enumerate(views):
                key = view_key(view)
                viewed.append(seat == mover or key != sent_keys[seat])
                sent_keys[seat] = key
            commits.append(Commit(mover, views, [[(e, hand_id) for e in stored if e.visible(s)] for s in range(seats)],
                                  viewed))
            if hand.is_over:
                break
            mover, pending = random_step(hand, seats, rng)
    return commits


def sent(commits: list[Commit], view_format: int) -> Callable[[], int]:
    """Makes and serialises every message of ``commits`` in ``view_format``; returns the bytes."""
    game = commits[0].views[0]["table"]["game"]
    serialise = table_pb2.PlayResponse.SerializeToString

    def run() -> int:
        size = 0
        for move_id, commit in enumerate(commits):
            for seat, view in enumerate(commit.views):
                events = [messages.event_message(e, hand_id, game, view_format) for e, hand_id in commit.seen[seat]]
                if seat == commit.mover:
                    answered = _accepted(move_id)
                    update = messages.with_view(
                        lambda fields, sent=events, version=view["version"], made=answered: made(
                            version=version, view=fields, events=sent),
                        TABLE_ID, view, view_format)
                elif commit.viewed[seat]:
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
        views = sum(sum(commit.viewed) for commit in commits)
        events = sum(len(seen) for commit in commits for seen in commit.seen)
        print(f"{game:9} {len(commits):6} commits, {views / len(commits):.1f} views and "
              f"{events / len(commits):.1f} events an action   "
              + "   ".join(f"{name} {sizes[name] / len(commits):7.0f} B {cost[name]:6.1f} µs" for name in runs)
              + f"   typed/json {cost['typed'] / cost['json']:.2f}")


if __name__ == "__main__":
    main()

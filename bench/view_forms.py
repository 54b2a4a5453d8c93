"""What a view and an event cost on the wire, typed (``TableView.state``, ``Event.typed``) against
JSON (``view_json``, ``payload_json``): bytes per message and server CPU to build it.

For a mid-hand table of each game (a seated player's view, as a Play stream sends a followed
view), for the same table between hands (``after``: the last hand's end view in every view
until the next starts), and for every event of random hands of that game, builds the message both ways with
the servicer's own functions (:mod:`paiju.table.messages`) and serialises it, alternating the two
forms A B A B in one run; prints bytes and the median µs of each form. An event's typed message
is built once per commit and copied into each watcher's message: both costs are shown (``first``
and ``each``), against the JSON form's one cost.

Run: ``.venv/bin/python bench/view_forms.py [--rounds 4] [--repeats 300]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import orjson

from paiju.common.typed_views import made_typed
from paiju.games.registry import game_spec
from paiju.proto.v1 import table_pb2, views_pb2
from paiju.table.messages import event_message, with_view
from paiju.table.store import StoredEvent

JSON, TYPED = views_pb2.VIEW_FORMAT_JSON, views_pb2.VIEW_FORMAT_TYPED
MID_HAND = {"zhajinhua": 6, "hunzhan": 160, "chaodipi": 220}
"""Steps into a hand where its view is a typical one (炸金花: bets going round; the trick games:
every card dealt and a few tricks played)."""


def random_step(hand: Any, seats: int, rng: random.Random) -> tuple[int | None, list[Any]]:
    """One random step of ``hand``: the seat that moved (None for a system step) and the events.
    In a paced deal a seat now and then declares; else the deal goes on."""
    movers = [s for s in range(seats) if hand.legal_actions(s)]
    if hand.to_act is None:
        if movers and rng.random() < 0.1:
            return movers[0], list(hand.apply(movers[0], rng.choice(hand.legal_actions(movers[0]))))
        return None, list(hand.system_step())
    seat = hand.to_act if hand.to_act in movers else movers[0]
    return seat, list(hand.apply(seat, rng.choice(hand.legal_actions(seat))))


def seated_view(game: str, hand: Any, viewer: int, *, table_id: str, hand_id: str, version: int,
                last_event_id: str, turn_due_ms: int | None) -> dict[str, Any]:
    """``viewer``'s table view of ``hand`` at a full table of ``game``'s highest tier, as the
    table makes it (every seat taken, ready and connected)."""
    spec = game_spec(game)
    tier = spec.tiers[-1]
    seats = spec.max_players
    players = [{"account": f"account-{s:04d}", "name": f"player {s}", "ready": True, "coins": 10_000 + s,
                "connected": True} for s in range(seats)]
    return {
        "version": version, "last_event_id": last_event_id,
        "table": {"table_id": table_id, "game": game, "tier": tier.name, "state": "playing", "seats": players},
        "seat": viewer, "last_hand": None,
        "hand": {"hand_id": hand_id, "number": 41, "seats": list(range(seats)), "my_hand_seat": viewer,
                 "state": hand.view(viewer)},
        "turn_due_ms": turn_due_ms, "ready_kick": None, "reconnect_by_ms": {},
    }


def mid_hand(game: str, seed: int, steps: int | None = None) -> tuple[dict[str, Any], list[StoredEvent]]:
    """A seated player's table view of a hand ``MID_HAND`` steps in (or ``steps``), and every
    event of the hand until then as the table stores them."""
    spec = game_spec(game)
    tier = spec.tiers[-1]
    rng = random.Random(seed)
    seats = spec.max_players
    hand = spec.start_hand(spec.tier_rules(tier), [tier.min_coins * 5 + 100 * s for s in range(seats)], 0,
                           f"bench/{seed}".encode(), None)
    events = list(hand.opening_events)
    for _ in range(MID_HAND[game] if steps is None else steps):
        if hand.is_over:
            break
        events += random_step(hand, seats, rng)[1]
    viewer = hand.to_act if hand.to_act is not None else 0
    table_id = f"{game}-{tier.name}-07"
    view = seated_view(game, hand, viewer, table_id=table_id, hand_id=f"{table_id}-41-5c0ffee5", version=420,
                       last_event_id="1764547200123-0", turn_due_ms=1_764_547_220_123)
    stored = [StoredEvent(f"1764547200{n:03d}-0", 400 + n, None, e.type,
                          orjson.dumps(dict(e.data), option=orjson.OPT_NON_STR_KEYS), 41)
              for n, e in enumerate(events)]
    return view, stored


def timed(build: Callable[[], Any], repeats: int) -> float:
    """µs per call of ``build`` (CPU time, the collector paused)."""
    gc.disable()
    try:
        tick = time.thread_time()
        for _ in range(repeats):
            build()
        return (time.thread_time() - tick) / repeats * 1e6
    finally:
        gc.enable()


def ab(forms: dict[str, Callable[[], Any]], rounds: int, repeats: int) -> dict[str, float]:
    """The median µs of each form, the forms taking turns round after round."""
    samples: dict[str, list[float]] = {name: [] for name in forms}
    for _ in range(rounds):
        for name, build in forms.items():
            samples[name].append(timed(build, repeats))
    return {name: statistics.median(values) for name, values in samples.items()}


def between_hands(game: str, seed: int) -> dict[str, Any]:
    """A seated player's table view after a hand, before the next: no hand, the last one's public
    end view (settlement and reveal) in ``last_hand``, the same in every view until the next."""
    view, _ = mid_hand(game, seed, steps=5000)
    hand = view["hand"]
    state = hand["state"]
    assert state["result"] is not None, "the hand did not end"
    public = {**state, "seat": None, "legal_actions": []}
    return {**view, "hand": None, "turn_due_ms": None,
            "last_hand": {"hand_id": hand["hand_id"], "seats": hand["seats"], "state": public}}


def view_figures(game: str, view: dict[str, Any], rounds: int, repeats: int, label: str = "view") -> str:
    def built(view_format: int) -> Callable[[], bytes]:
        # As a Play stream sends a followed view: made in place in the stream's message.
        return lambda: with_view(lambda fields: table_pb2.PlayResponse(update={"snapshot": fields}),
                                 "t", view, view_format).SerializeToString()

    forms = {"json": built(JSON), "typed": built(TYPED)}
    sizes = {name: len(build()) for name, build in forms.items()}
    cost = ab(forms, rounds, repeats)
    return (f"{game:9} {label:6} json {sizes['json']:6} B {cost['json']:7.1f} µs   "
            f"typed {sizes['typed']:6} B {cost['typed']:7.1f} µs")


def event_figures(game: str, events: list[StoredEvent], rounds: int, repeats: int) -> str:
    # As a stream sends them: each event in the stream's message (a copy of the shared typed one).
    def each(view_format: int) -> Callable[[], list[bytes]]:
        return lambda: [table_pb2.WatchResponse(events=[event_message(e, "h", game, view_format)]).SerializeToString()
                        for e in events]

    def first() -> list[bytes]:
        # As the servicer makes an event's message the first time (made_typed: in one call).
        return [table_pb2.WatchResponse(events=[made_typed(
            lambda typed, e=e: table_pb2.Event(id=e.id, type=e.type, version=e.version, hand_id="h", typed=typed),
            game, e.type, orjson.loads(e.payload),
        )]).SerializeToString() for e in events]

    forms = {"json": each(JSON), "typed first": first, "typed each": each(TYPED)}
    sizes = {name: sum(map(len, build())) / len(events) for name, build in forms.items()}
    cost = {name: value / len(events) for name, value in ab(forms, rounds, max(1, repeats // 10)).items()}
    return (f"{game:9} event  json {sizes['json']:6.1f} B {cost['json']:7.1f} µs   "
            f"typed {sizes['typed each']:6.1f} B {cost['typed first']:7.1f} µs first, {cost['typed each']:5.1f} µs each"
            f"   ({len(events)} events)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4, help="A B rounds (default 4)")
    parser.add_argument("--repeats", type=int, default=300, help="builds of a view per round (default 300)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print("per message: serialised bytes, median CPU µs to build and serialise (A B A B)")
    for game in ("zhajinhua", "hunzhan", "chaodipi"):
        view, events = mid_hand(game, args.seed)
        print(view_figures(game, view, args.rounds, args.repeats))
        print(view_figures(game, between_hands(game, args.seed), args.rounds, args.repeats, label="after"))
        print(event_figures(game, events, args.rounds, args.repeats))


if __name__ == "__main__":
    main()

"""docs/views-and-events.md names every event type each engine and the table can emit, and every
field of each game's view: collected from random hands of each game (throws, 暗炒, escapes and
timeouts included) and from the table's source. And the doc and the typed messages agree: every
documented field and event type is a field or case of its message, and every field and case is
documented."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from paiju.cards import format_cards
from paiju.common.typed_views import LEFT_OUT_WHEN_UNSET, NULLABLE_WRAPPERS
from paiju.games import chaodipi, hunzhan, zhajinhua
from paiju.games.engine import IllegalAction
from paiju.proto.v1 import chaodipi_pb2, events_pb2, hunzhan_pb2, views_pb2, zhajinhua_pb2

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "views-and-events.md"


def documented(section: str) -> set[str]:
    """The names in the first column of the tables under ``## <section>``."""
    text = DOC.read_text()
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for line in body.splitlines():
        if line.startswith("| ") and not line.startswith("| field") and not line.startswith("| type"):
            names.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return names


def random_hand(game: str, rng: random.Random, variant: str = "yangzhou"):
    seed = rng.randbytes(8)
    if game == "zhajinhua":
        return zhajinhua.Game().new_hand(coins=[5000] * rng.choice([2, 3, 5]), dealer=0, seed=seed)
    if game == "hunzhan":
        return hunzhan.Game().new_hand(coins=[5000] * 4, dealer=0, seed=seed)
    match = chaodipi.MatchState(banker=rng.choice([None, 0]))
    rules = chaodipi.Rules(variant=variant, channel="fortune_pass")
    return chaodipi.Game(rules).new_hand(coins=[100_000] * 4, dealer=0, seed=seed, match=match)


def a_throw(hand, seat: int, rng: random.Random) -> str | None:
    """炒地皮, leading: every held card of one plain suit, which is no single shape."""
    order = hand.context.order
    suits = {order.suit_class[card] for card in hand.hands[seat]} - {"T"}
    if not suits:
        return None
    suit = rng.choice(sorted(suits))
    cards = [card for card in hand.hands[seat] if order.suit_class[card] == suit]
    return f"play {format_cards(cards)}" if len(cards) >= 3 else None


def play_out(hand, rng: random.Random) -> tuple[set[str], set[str]]:
    """Event types and view fields seen over one random hand."""
    events = list(getattr(hand, "opening_events", []))
    fields: set[str] = set()
    seats = range(len(hand.coins))
    while not hand.is_over:
        for seat in [*seats, None]:
            fields |= set(hand.view(seat))
        if hand.to_act is None:
            others = [(s, a) for s in seats for a in hand.legal_actions(s)]
            if others and rng.random() < 0.1:
                events += hand.apply(*rng.choice(others))
            events += hand.system_step()
            continue
        seat, chance = hand.to_act, rng.random()
        try:
            if chance < 0.004:
                events += hand.leave(rng.choice(seats))
            elif chance < 0.05:
                events += hand.timeout()
            elif chance < 0.15:
                events += hand.apply(*rng.choice([(s, a) for s in seats for a in hand.legal_actions(s)] or [(seat, "")]))
            elif chance < 0.3 and hand.GAME == "chaodipi" and hand.phase is chaodipi.Phase.PLAYING and not hand.trick:
                events += hand.apply(seat, a_throw(hand, seat, rng) or hand.legal_actions(seat)[0])
            else:
                events += hand.apply(seat, rng.choice(hand.legal_actions(seat)))
        except IllegalAction:
            pass
    for seat in [*seats, None]:
        fields |= set(hand.view(seat))
    return {event.type for event in events}, fields


CASES = [("zhajinhua", "炸金花 Zha Jin Hua", "zhajinhua", 120), ("hunzhan", "混战 Hunzhan", "hunzhan", 12)] + [
    ("chaodipi", "炒地皮 Chao Di Pi", variant, 10) for variant in ("yancheng", "yangzhou")
]


@pytest.mark.parametrize(("game", "section", "variant", "hands"), CASES)
def test_every_event_type_and_view_field_of_each_game_is_documented(game, section, variant, hands):
    rng = random.Random(f"{game}-{variant}")
    seen_events: set[str] = set()
    seen_fields: set[str] = set()
    for _ in range(hands):
        found, fields = play_out(random_hand(game, rng, variant), rng)
        seen_events |= found
        seen_fields |= fields
    names = documented(section)
    assert seen_events - names == set(), f"event types missing from {DOC.name} under {section}"
    assert seen_fields - names == set(), f"view fields missing from {DOC.name} under {section}"
    assert len(seen_events) >= 10  # the playouts reached the hand's phases


def test_every_table_event_and_table_view_field_is_documented():
    # The table domain's modules (tables.py and the parts it is assembled from).
    source = "".join(path.read_text() for path in (ROOT / "services" / "paiju" / "table").glob("*.py"))
    emitted = set(re.findall(r'Event\("([a-z_]+)"', source))
    assert emitted and emitted <= documented("Table events (every game)")
    from paiju.table.record import TableRecord
    from paiju.table.tables import Tables

    record = TableRecord.open("t", "zhajinhua", "free")
    view = Tables.view_of(1, "", record, None)
    assert set(view) | {"turn_due_ms", "ready_kick", "reconnect_by_ms"} <= documented("The table view (every game)")


# --- the doc and the typed messages (views.proto, events.proto, each game's proto) agree ----------

GAME_MESSAGES = {
    "炸金花 Zha Jin Hua": (zhajinhua_pb2.ZhajinhuaView, zhajinhua_pb2.ZhajinhuaEvent),
    "混战 Hunzhan": (hunzhan_pb2.HunzhanView, hunzhan_pb2.HunzhanEvent),
    "炒地皮 Chao Di Pi": (chaodipi_pb2.ChaodipiView, chaodipi_pb2.ChaodipiEvent),
}


def table_rows(text: str) -> list[tuple[set[str], str]]:
    """The rows of the tables in ``text``: the names in the first column, and the second column."""
    found = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith(("| field", "| type")):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            found.append((set(re.findall(r"`([a-z_]+)`", cells[0])), cells[1]))
    return found


def section_text(section: str) -> str:
    return DOC.read_text().split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]


def fields_of(message: Any) -> set[str]:
    return {field.name for field in message.DESCRIPTOR.fields}


def event_messages(oneof_message: Any) -> dict[str, tuple[set[str], set[str]]]:
    """Each event type of ``oneof_message`` (a game's or the table's): its message's fields, and
    those of them its JSON form always has (the others may be left out: a shared message's field
    of another game, a hidden one). 炒地皮's ``hand_over`` is its details beside ``coins``, as in
    the JSON form."""
    cases = {}
    for field in oneof_message.DESCRIPTOR.oneofs_by_name["event"].fields:
        parts = [field.message_type]
        if field.message_type.name == "ChaodipiHandOver":
            parts.append(chaodipi_pb2.ChaodipiResultDetails.DESCRIPTOR)
        every, always = set(), set()
        for part in parts:
            left_out = LEFT_OUT_WHEN_UNSET.get(part.full_name, frozenset())
            for f in part.fields:
                if f.name == "details" and len(parts) > 1:
                    continue
                every.add(f.name)
                wrapped = f.message_type is not None and f.message_type.full_name in NULLABLE_WRAPPERS
                if f.name not in left_out and not wrapped:
                    always.add(f.name)
        cases[field.name] = (every, always)
    return cases


def check_events(rows: list[tuple[set[str], str]], cases: dict[str, tuple[set[str], set[str]]]) -> None:
    assert set().union(*(names for names, _ in rows)) == set(cases), "event types: doc and proto differ"
    for names, fields_text in rows:
        if fields_text.startswith("as "):
            continue  # "as in 混战", "as `declared`": that row's fields
        # Values in brackets (a reason's words) are no fields.
        named = set(re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", fields_text)))
        for event_type in names:
            every, always = cases[event_type]
            assert named <= every, f"{event_type}: {named - every} are in the doc only"
            if "…" not in fields_text:
                assert always <= named, f"{event_type}: {always - named} are in the proto only"


def test_the_table_views_documented_fields_are_its_messages() -> None:
    documented_fields = set().union(*(names for names, _ in table_rows(section_text("The table view (every game)"))))
    assert documented_fields == fields_of(views_pb2.TableViewState)


@pytest.mark.parametrize("section", GAME_MESSAGES)
def test_each_games_documented_view_fields_and_events_are_its_messages(section: str) -> None:
    view, events = GAME_MESSAGES[section]
    view_part, events_part = section_text(section).split("\n### Events\n", 1)
    assert set().union(*(names for names, _ in table_rows(view_part))) == fields_of(view)
    check_events(table_rows(events_part), event_messages(events))


def test_the_documented_table_events_are_the_table_events_messages() -> None:
    check_events(table_rows(section_text("Table events (every game)")), event_messages(events_pb2.TableEvent))

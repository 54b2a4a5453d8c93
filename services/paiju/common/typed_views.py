"""Views and events as typed messages, and back: the one place that knows how the JSON form of a
view (``TableView.view_json``) and of an event (``Event.payload_json``) maps onto the messages of
``views.proto``, ``events.proto`` and each game's proto.

The messages keep the JSON form's field names, so most of a view goes into its message as it is
(the message constructors take nested dicts and lists, in C). What this module rewrites are the
few places where the JSON form is no message: a list standing for a record (a settlement line
``[seat, amount, reason]``, a team's level ``[lap, rank]``, a system step ``[name, seconds]``),
an empty table seat (``null`` in a list), a list that may be null (``scores``), a field that may
be null or left out (the Nullable* wrappers), the game's view under ``hand.state`` (a oneof by
game), an event (a oneof by whose it is, then by type), and 炒地皮's ``hand_over`` (the
settlement's details beside ``coins``, nested in the message).

:func:`view_dict` and :func:`event_dict` give the JSON form back, exactly as the server would
have written it (``tests/common/test_typed_views.py`` checks both ways over random hands of every
game): a client reads the messages directly, or these dicts, without the JSON text
(:func:`view_of` and :func:`payload_of` read a message of either form).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from google.protobuf.message import Message

from paiju.proto.v1 import chaodipi_pb2, events_pb2, hunzhan_pb2, views_pb2, zhajinhua_pb2

Dict = dict[str, Any]
Made = TypeVar("Made")

GAME_EVENTS: dict[str, frozenset[str]] = {
    game: frozenset(field.name for field in message.DESCRIPTOR.oneofs_by_name["event"].fields)
    for game, message in (
        ("zhajinhua", zhajinhua_pb2.ZhajinhuaEvent),
        ("hunzhan", hunzhan_pb2.HunzhanEvent),
        ("chaodipi", chaodipi_pb2.ChaodipiEvent),
    )
}
"""Each game's event types: the cases of its event oneof."""
TABLE_EVENT_TYPES = frozenset(field.name for field in events_pb2.TableEvent.DESCRIPTOR.oneofs_by_name["event"].fields)
"""The table's own event types (a game's event of the same name is the game's: 混战's and
炒地皮's ``escaped`` carry a reason)."""


class UntypedEvent(ValueError):
    """An event no message describes (a type or a field the protos do not have yet)."""


# --- to messages ----------------------------------------------------------------------------


def _lines(result: Dict) -> Dict:
    """A settlement as its message's fields (the game's details are fixed by the caller)."""
    scores = result["scores"]
    return {
        **result,
        "lines": [{"seat": seat, "amount": amount, "reason": reason} for seat, amount, reason in result["lines"]],
        "scores": None if scores is None else {"values": scores},
    }


def _step(step: Any) -> Dict | None:
    return None if step is None else {"name": step[0], "seconds": step[1]}


def _match(match: Dict) -> Dict:
    return {**match, "levels": [{"lap": lap, "rank": rank} for lap, rank in match["levels"]]}


def _declaration(entry: Dict) -> Dict:
    if "trump" not in entry:
        return entry
    return {**entry, "trump": {"value": entry["trump"]}}


def _chaodipi_details(details: Dict) -> Dict:
    fixed = {
        **details,
        "match": _match(details["match"]),
        "declarations": [_declaration(entry) for entry in details["declarations"]],
        "scores": None if details["scores"] is None else {"values": details["scores"]},
    }
    for nullable in ("name", "match_winner", "heaven_and_earth"):
        if nullable in details:
            fixed[nullable] = {"value": details[nullable]}
    return fixed


def _zhajinhua_view(state: Dict) -> Dict:
    result = state["result"]
    if result is None:
        return state
    return {**state, "result": _lines(result)}


def _hunzhan_view(state: Dict) -> Dict:
    result = state["result"]
    return {
        **state,
        "pending_system_step": _step(state["pending_system_step"]),
        "result": None if result is None else _lines(result),
    }


def _chaodipi_view(state: Dict) -> Dict:
    result = state["result"]
    return {
        **state,
        "match": _match(state["match"]),
        "declarations": [_declaration(entry) for entry in state["declarations"]],
        "pending_system_step": _step(state["pending_system_step"]),
        "result": None if result is None else {**_lines(result), "details": _chaodipi_details(result["details"])},
    }


GAME_VIEW_FIELDS: dict[str, Callable[[Dict], Dict]] = {
    "zhajinhua": _zhajinhua_view,
    "hunzhan": _hunzhan_view,
    "chaodipi": _chaodipi_view,
}
"""Per game, its view's JSON form as its message's fields."""


def _game_view(state: Dict) -> Dict:
    game = state["game"]
    return {game: GAME_VIEW_FIELDS[game](state)}


def summary_fields(table: Mapping[str, Any]) -> Dict:
    """A table summary as its ``TableSummary``'s fields."""
    return {**table, "seats": [{"player": seat} for seat in table["seats"]]}


def last_hand_fields(last_hand: Mapping[str, Any]) -> Dict:
    """The hand last played as its ``LastHand``'s fields."""
    return {**last_hand, "state": _game_view(last_hand["state"])}


def game_view(state: Mapping[str, Any]) -> views_pb2.GameView:
    """The typed form of a game's view of a hand (a view's ``hand.state``; a replayed step's)."""
    return views_pb2.GameView(**_game_view(dict(state)))


def view_state(view: Mapping[str, Any]) -> views_pb2.TableViewState:
    """The typed form of a view as the table makes it (:mod:`paiju.table.views`). Raises
    ValueError (or TypeError) when the view has a field its message does not."""
    return views_pb2.TableViewState(**view_state_fields(view))


def view_state_fields(view: Mapping[str, Any], table: views_pb2.TableSummary | None = None,
                      last_hand: views_pb2.LastHand | None = None) -> Dict:
    """A view as the fields of its ``TableViewState``: what a message holding one takes as it is
    made (``TableView(state=…)``), which spares making the state apart and copying it in.
    ``table`` and ``last_hand``: their messages when the caller has them already (the same in
    every view of a commit)."""
    hand = view["hand"]
    fields = {
        **view,
        "table": summary_fields(view["table"]) if table is None else table,
        "hand": None if hand is None else {**hand, "state": _game_view(hand["state"])},
    }
    if last_hand is not None:
        fields["last_hand"] = last_hand
    elif view["last_hand"] is not None:
        fields["last_hand"] = last_hand_fields(view["last_hand"])
    if "ready_kick" not in view:
        fields["windows_left_out"] = True
    return fields


def _seat_cards(payload: Dict) -> Dict:
    return {**payload, "cards": {int(seat): cards for seat, cards in payload["cards"].items()}}


def _chaodipi_hand_over(payload: Dict) -> Dict:
    details = dict(payload)
    coins = details.pop("coins")
    return {"coins": coins, "details": _chaodipi_details(details)}


EVENT_FIELDS: dict[tuple[str, str], Callable[[Dict], Dict]] = {
    ("zhajinhua", "compared"): _seat_cards,
    ("zhajinhua", "opened"): _seat_cards,
    ("zhajinhua", "system_open"): _seat_cards,
    ("chaodipi", "hand_started"): lambda payload: {**payload, "match": _match(payload["match"])},
    ("chaodipi", "declared"): _declaration,
    ("chaodipi", "declared_blind"): _declaration,
    ("chaodipi", "robbed"): _declaration,
    ("chaodipi", "robbed_blind"): _declaration,
    ("chaodipi", "declaring_closed"): _declaration,
    ("chaodipi", "declarations_revealed"): lambda payload: {
        **payload, "declarations": [_declaration(entry) for entry in payload["declarations"]]},
    ("chaodipi", "hand_over"): _chaodipi_hand_over,
}
"""Per (whose, type), the payload's JSON form as its message's fields, where it differs."""


def event_source(game: str, event_type: str) -> str:
    """Whose event ``event_type`` is at a table of ``game``: the game's or the ``"table"``'s."""
    if event_type in GAME_EVENTS.get(game, ()):
        return game
    if event_type in TABLE_EVENT_TYPES:
        return "table"
    raise UntypedEvent(f"no message for a {game} table's event {event_type!r}")


def typed_event(game: str, event_type: str, payload: Mapping[str, Any]) -> events_pb2.TypedEvent:
    """The typed form of an event of a table of ``game``, from its payload (the JSON form,
    parsed). Raises :class:`UntypedEvent` when no message has the event or one of its fields."""
    return made_typed(lambda fields: events_pb2.TypedEvent(**fields), game, event_type, payload)


def made_typed(make: Callable[[Dict], Made], game: str, event_type: str, payload: Mapping[str, Any]) -> Made:
    """``make(fields)``, ``fields`` being the ``TypedEvent`` of the event as a message's fields:
    for a message that holds one to make it in the same call (made apart, it would be copied
    in). Raises :class:`UntypedEvent` when no message has the event or one of its fields."""
    source = event_source(game, event_type)
    fix = EVENT_FIELDS.get((source, event_type))
    fields = dict(payload) if fix is None else fix(dict(payload))
    try:
        return make({source: {event_type: fields}})
    except (ValueError, TypeError) as error:
        raise UntypedEvent(f"{game} event {event_type!r}: {error}") from error


# --- back to the JSON form --------------------------------------------------------------------

LEFT_OUT_WHEN_UNSET: dict[str, frozenset[str]] = {
    "paiju.v1.HandReveal": frozenset({"kitty"}),
    "paiju.v1.ChaodipiDeclaration": frozenset({"index", "kind", "cards", "effective"}),
    "paiju.v1.ChaodipiResultDetails": frozenset({
        "winner", "score", "levels_gained", "jack_to_bottom", "last_trick", "multiple", "base_stake",
        "reason", "escaper", "void"}),
    "paiju.v1.ChaodipiDealDone": frozenset({"declare_window", "flag_hand"}),
    "paiju.v1.ChaodipiKitty": frozenset({"kitty"}),
    "paiju.v1.ChaodipiTurn": frozenset({"leader"}),
}
"""Fields whose unset means left out of the JSON form rather than null (the proto's comments say
"left out"); a Nullable* wrapper unset is always left out."""
NULLABLE_WRAPPERS = frozenset({"paiju.v1.NullableString", "paiju.v1.NullableInt32"})


def _nullable_value(message: Message) -> Any:
    return message.value if message.HasField("value") else None


def _table_seat(message: views_pb2.TableSeat) -> Dict | None:
    return _as_dict(message.player) if message.HasField("player") else None


def _game_view_dict(message: views_pb2.GameView) -> Dict:
    game = message.WhichOneof("game")
    if game is None:
        raise ValueError("a GameView names no game")
    return _as_dict(getattr(message, game))


def _chaodipi_hand_over_dict(message: chaodipi_pb2.ChaodipiHandOver) -> Dict:
    return {"coins": list(message.coins), **_as_dict(message.details)}


AS_JSON_FORM: dict[str, Callable[[Any], Any]] = {
    "paiju.v1.SettlementLine": lambda m: [m.seat, m.amount, m.reason],
    "paiju.v1.ChaodipiTeamLevel": lambda m: [m.lap, m.rank],
    "paiju.v1.SystemStep": lambda m: [m.name, m.seconds],
    "paiju.v1.ScoreList": lambda m: list(m.values),
    "paiju.v1.NullableString": _nullable_value,
    "paiju.v1.NullableInt32": _nullable_value,
    "paiju.v1.TableSeat": _table_seat,
    "paiju.v1.GameView": _game_view_dict,
    "paiju.v1.ChaodipiHandOver": _chaodipi_hand_over_dict,
}
"""Messages whose JSON form is no object of their fields."""


SCALAR, MESSAGE, REPEATED_SCALAR, REPEATED_MESSAGE, MAP_SCALAR, MAP_MESSAGE = range(6)
NULL, LEFT_OUT, ALWAYS = range(3)
"""What an unset field is in the JSON form: null, left out, or a field without presence."""

FieldPlan = tuple[str, int, int]
_plans: dict[str, list[FieldPlan]] = {}


def _plan(descriptor: Any) -> list[FieldPlan]:
    """How each field of a message goes into the JSON form: its name, its kind and what unset
    means (worked out once per message type: reading descriptors costs more than the values)."""
    plan = _plans.get(descriptor.full_name)
    if plan is None:
        left_out = LEFT_OUT_WHEN_UNSET.get(descriptor.full_name, frozenset())
        plan = []
        for field in descriptor.fields:
            message_type = field.message_type
            if message_type is not None and message_type.GetOptions().map_entry:
                kind = MAP_MESSAGE if message_type.fields_by_name["value"].message_type is not None else MAP_SCALAR
            elif field.is_repeated:
                kind = REPEATED_MESSAGE if message_type is not None else REPEATED_SCALAR
            else:
                kind = MESSAGE if message_type is not None else SCALAR
            if kind not in (SCALAR, MESSAGE) or not field.has_presence:
                unset = ALWAYS
            elif field.name in left_out or (message_type is not None and message_type.full_name in NULLABLE_WRAPPERS):
                unset = LEFT_OUT
            else:
                unset = NULL
            plan.append((field.name, kind, unset))
        _plans[descriptor.full_name] = plan
    return plan


def _json_form(message: Message) -> Any:
    special = AS_JSON_FORM.get(message.DESCRIPTOR.full_name)
    return _as_dict(message) if special is None else special(message)


def _as_dict(message: Message) -> Dict:
    data: Dict = {}
    for name, kind, unset in _plan(message.DESCRIPTOR):
        if unset != ALWAYS and not message.HasField(name):
            if unset == NULL:
                data[name] = None
            continue
        value = getattr(message, name)
        if kind == SCALAR:
            data[name] = value
        elif kind == MESSAGE:
            data[name] = _json_form(value)
        elif kind == REPEATED_SCALAR:
            data[name] = list(value)
        elif kind == REPEATED_MESSAGE:
            data[name] = [_json_form(item) for item in value]
        elif kind == MAP_SCALAR:
            data[name] = {str(key): item for key, item in value.items()}
        else:
            data[name] = {str(key): _json_form(item) for key, item in value.items()}
    return data


def game_view_dict(state: views_pb2.GameView) -> Dict:
    """The JSON form of a typed game's view of a hand."""
    return _game_view_dict(state)


def view_dict(state: views_pb2.TableViewState) -> Dict:
    """The JSON form of a typed view (as ``TableView.view_json`` holds it)."""
    data = _as_dict(state)
    if data.pop("windows_left_out"):
        del data["ready_kick"], data["reconnect_by_ms"]
    return data


def event_dict(typed: events_pb2.TypedEvent) -> tuple[str, Dict]:
    """The type and JSON form of a typed event (as ``Event.type`` and ``payload_json`` hold them)."""
    source = typed.WhichOneof("source")
    if source is None:
        raise ValueError("a TypedEvent names no source")
    events = getattr(typed, source)
    event_type = events.WhichOneof("event")
    if event_type is None:
        raise ValueError(f"a {source} event names no type")
    return event_type, _json_form(getattr(events, event_type))




def view_of(message: Any) -> Dict:
    """The JSON form of a ``TableView``: from its typed ``state``, or from ``view_json`` when the
    server sent JSON (asked for, or a server from before typed views)."""
    if message.HasField("state"):
        return view_dict(message.state)
    return json.loads(message.view_json)


def payload_of(message: Any) -> Dict:
    """The JSON form of an ``Event``'s fields: from its ``typed`` message, or ``payload_json``."""
    if message.HasField("typed"):
        return event_dict(message.typed)[1]
    return json.loads(message.payload_json)

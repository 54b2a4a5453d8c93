"""Checks and encodings of what callers hand the table store: clear errors, never a crash."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .records import (
    EncodedEvent,
    acked_outbox_member,
    encode_deadline,
    encode_netstrings,
    encode_visibility,
)

_MAX_NAME = 128


def check_int(value: object, what: str, *, minimum: int = 0) -> int:
    """``value`` if it is an int (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{what} must be >= {minimum}, not {value}")
    return value


def check_bytes(value: object, what: str) -> bytes:
    """``value`` as bytes (bytes, bytearray or memoryview accepted; str refused)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    raise TypeError(f"{what} must be bytes, not {type(value).__name__}")


def check_name(value: object, what: str) -> str:
    """A non-empty str of at most 128 characters."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    if not value or len(value) > _MAX_NAME:
        raise ValueError(f"{what} must be 1-{_MAX_NAME} characters, not {len(value)}")
    return value


def check_seat(value: object) -> int:
    return check_int(value, "a seat in visible_to")


def _items(value: object, what: str) -> list[Any]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise TypeError(f"{what} must be a list of tuples, not {type(value).__name__}")
    return list(value)


def _tuple(item: object, size: int, what: str) -> tuple[Any, ...]:
    if not isinstance(item, tuple | list) or len(item) != size:
        raise TypeError(f"each of {what} must be a tuple of {size}, not {item!r:.80}")
    return tuple(item)


def encode_events(events: object) -> list[EncodedEvent]:
    """``events`` checked and encoded: ``(visible_to, type, payload)`` each, or with a fourth
    item, the number of the hand the event belongs to (0, the default: a table event)."""
    encoded: list[EncodedEvent] = []
    for item in _items(events, "events"):
        if isinstance(item, tuple | list) and len(item) == 4:
            *item, hand = item
        else:
            hand = 0
        visible_to, event_type, payload = _tuple(item, 3, "events (visible_to, type, payload[, hand])")
        if visible_to is not None:
            if not isinstance(visible_to, tuple | list):
                raise TypeError(
                    f"visible_to must be None (public) or a tuple of seats, "
                    f"not {type(visible_to).__name__}"
                )
            visible_to = tuple(check_seat(seat) for seat in visible_to)
        encoded.append((
            encode_visibility(visible_to),
            check_name(event_type, "an event type"),
            check_bytes(payload, "an event payload"),
            check_int(hand, "an event's hand number", minimum=0),
        ))
    return encoded


def encode_deadline_changes(deadlines_set: object, deadlines_clear: object) -> list[str]:
    """The flat ARGV of the deadlines to set ``(name, due_ms, version_set_for)`` and clear."""
    set_flat: list[str] = []
    names_set: set[str] = set()
    for item in _items(deadlines_set, "deadlines_set"):
        name, due_ms, version_set_for = _tuple(
            item, 3, "deadlines_set (name, due_ms, version_set_for)"
        )
        name = check_name(name, "a deadline name")
        if name in names_set:
            raise ValueError(f"deadline {name!r} is set twice in one commit")
        names_set.add(name)
        set_flat += [
            name,
            encode_deadline(
                check_int(due_ms, "a deadline's due_ms"),
                check_int(version_set_for, "a deadline's version_set_for", minimum=1),
            ),
        ]
    clear = [
        check_name(name, "a deadline name to clear")
        for name in _items(deadlines_clear, "deadlines_clear")
    ]
    both = names_set.intersection(clear)
    if both:
        raise ValueError(f"deadlines {sorted(both)} are both set and cleared in one commit")
    return [str(len(set_flat) // 2), *set_flat, str(len(clear)), *clear]


def encode_outbox(outbox: object) -> tuple[list[bytes | str], str | None]:
    """The flat ARGV of ``outbox`` entries ``(key, payload)`` with the member each key's
    acknowledgement will leave (``acked_outbox_member``), and a key given twice if any."""
    flat: list[bytes | str] = []
    seen: set[str] = set()
    repeated: str | None = None
    for item in _items(outbox, "outbox"):
        key, payload = _tuple(item, 2, "outbox (key, payload)")
        key = check_name(key, "an outbox key")
        if key in seen and repeated is None:
            repeated = key
        seen.add(key)
        flat += [key, check_bytes(payload, "an outbox payload"), acked_outbox_member(key)]
    return [str(len(flat) // 3), *flat], repeated


def encode_meta(meta: object) -> bytes:
    """A table's meta (``dict[str, str]``) as stored: netstrings of each name and value."""
    if meta is None:
        return b""
    if not isinstance(meta, Mapping):
        raise TypeError(f"meta must be a dict of str to str, not {type(meta).__name__}")
    flat: list[str] = []
    for name, value in meta.items():
        flat.append(check_name(name, "a meta name"))
        if not isinstance(value, str):
            raise TypeError(f"meta value of {name!r} must be a str, not {type(value).__name__}")
        flat.append(value)
    return encode_netstrings(flat)

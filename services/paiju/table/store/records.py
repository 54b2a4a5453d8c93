"""The values the table store hands out, and the small encodings it keeps in Redis."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Final, Literal

from paiju.quoting import quoted

SeatFilter = int | None | Literal["all"]
"""Who reads events: a seat number, ``None`` for a spectator (public events only), or
``"all"`` for the server itself (every event, e.g. to replay a hand)."""

ALL_SEATS: Final = "all"

PUBLIC_MARK: Final = "*"
"""The stored visibility of a public event (``visible_to=None``)."""

_STREAM_ID = re.compile(r"^(\d{1,20})-(\d{1,20})$")


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A table's state as of one version, and the id of the last event that version wrote.

    Readers send the view of ``state`` first, then events after ``last_event_id``.
    """

    version: int
    state: bytes
    last_event_id: str


@dataclass(frozen=True, slots=True)
class TableChange:
    """What one commit writes, all or nothing: the new ``state``; ``events`` as
    ``(visible_to, type, payload[, hand])``, ``visible_to`` None (public) or a tuple of seats;
    ``deadlines_set`` as ``(name, due_ms, version_set_for)``, ``deadlines_clear`` as names; and
    ``outbox`` entries as ``(key, payload)``. ``counts_outbox``: the commit also tells the store
    how many entries the outbox holds after it, whoever queued or acknowledged them (a press of
    start waiting for the last settlement learns so that it landed, without a read)."""

    state: bytes
    events: Any = ()
    deadlines_set: Any = ()
    deadlines_clear: Any = ()
    outbox: Any = ()
    counts_outbox: bool = False


@dataclass(frozen=True, slots=True)
class CommitReceipt:
    """What one commit wrote, as the committing process can know it without reading back.

    ``previous_event_id`` is the table's last event id before the commit: a reader that had
    read up to it may take ``events`` as the very next entries of the stream.
    """

    version: int
    previous_event_id: str
    last_event_id: str
    events: tuple[StoredEvent, ...]
    deadlines: tuple[Deadline, ...] = ()
    """The table's deadlines after the commit, earliest first."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One entry of a table's event stream.

    ``id`` is the Redis stream id a reader resumes from; ``version`` the table version the
    commit that wrote it produced; ``visible_to`` is ``None`` for a public event; ``hand`` the
    number of the hand it belongs to (the table's ``hands_played`` count of it), 0 for a table
    event outside a hand.
    """

    id: str
    version: int
    visible_to: tuple[int, ...] | None
    type: str
    payload: bytes
    hand: int = 0

    def visible(self, seat: SeatFilter) -> bool:
        """Whether ``seat`` may see this event.

        >>> e = StoredEvent("1-0", 2, (1,), "cards", b"AS")
        >>> e.visible(1), e.visible(0), e.visible(None), e.visible("all")
        (True, False, False, True)
        """
        if seat == ALL_SEATS or self.visible_to is None:
            return True
        return seat is not None and seat in self.visible_to


@dataclass(frozen=True, slots=True)
class Deadline:
    """A table deadline: ``name`` (e.g. ``"turn"``) falls due at ``due_ms`` (epoch ms).

    ``version_set_for`` is the table version it was set for; its expiry is a no-op when the
    table has moved on.
    """

    name: str
    due_ms: int
    version_set_for: int


@dataclass(frozen=True, slots=True)
class DueDeadline:
    """A deadline that is due, with the table it belongs to (``TableStore.due_deadlines``)."""

    table_id: str
    name: str
    due_ms: int
    version_set_for: int


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    """A pending settlement (or other message) a table queued for delivery."""

    table_id: str
    key: str
    payload: bytes


@dataclass(frozen=True, slots=True)
class MemoryUsage:
    """The bytes a table's keys take in Redis.

    ``exact`` is ``True`` when Redis measured them (``MEMORY USAGE``), ``False`` for an
    estimate (servers without that command, such as the in-process emulation).
    """

    total_bytes: int
    exact: bool
    by_key: dict[str, int]


def parse_stream_id(stream_id: str) -> tuple[int, int]:
    """The two numbers of a stream id; ``"0"`` means the start.

    >>> parse_stream_id("1700000000000-3")
    (1700000000000, 3)
    >>> parse_stream_id("0")
    (0, 0)
    >>> parse_stream_id("latest")
    Traceback (most recent call last):
    ...
    ValueError: 'latest' is not a stream id (like '1700000000000-0', or '0-0' for the start)
    """
    if not isinstance(stream_id, str):
        raise TypeError(f"a stream id is a str, not {type(stream_id).__name__}")
    if stream_id == "0":
        return (0, 0)
    match = _STREAM_ID.match(stream_id)
    if match is None:
        raise ValueError(
            f"{quoted(stream_id)} is not a stream id (like '1700000000000-0', or '0-0' for the start)"
        )
    return (int(match.group(1)), int(match.group(2)))


def encode_visibility(visible_to: tuple[int, ...] | None) -> str:
    """The stored form of an event's visibility.

    >>> encode_visibility(None), encode_visibility((2, 0)), encode_visibility(())
    ('*', '2,0', '')
    """
    if visible_to is None:
        return PUBLIC_MARK
    return ",".join(str(seat) for seat in visible_to)


def decode_visibility(stored: str) -> tuple[int, ...] | None:
    """The inverse of ``encode_visibility``.

    >>> decode_visibility("*"), decode_visibility("2,0"), decode_visibility("")
    (None, (2, 0), ())
    """
    if stored == PUBLIC_MARK:
        return None
    if stored == "":
        return ()
    return tuple(int(seat) for seat in stored.split(","))


EncodedEvent = tuple[str, str, bytes, int]
"""An event as stored: its visibility (:func:`encode_visibility`), type, payload and hand number."""


def pack_events(events: list[EncodedEvent]) -> bytes:
    """One commit's events as the single stream entry that holds them (field ``e``): each
    event's visibility, type, payload and hand number as netstrings, one event after another.

    >>> pack_events([("*", "bet", b'{"seat":1}', 3), ("0", "cards", b"AS", 3)])
    b'1:*3:bet10:{"seat":1}1:31:05:cards2:AS1:3'
    """
    return b"".join(
        b"%d:%s%d:%s%d:%s%d:%d" % (len(visibility), visibility.encode(), len(kind), kind.encode(),
                                   len(payload), payload, len(str(hand)), hand)
        for visibility, kind, payload, hand in events
    )


def unpack_events(packed: bytes) -> list[EncodedEvent]:
    """The inverse of :func:`pack_events`.

    >>> unpack_events(pack_events([("*", "bet", b"10", 3), ("", "note", b"", 0)]))
    [('*', 'bet', b'10', 3), ('', 'note', b'', 0)]
    """
    values, at = [], 0
    while at < len(packed):
        colon = packed.index(b":", at)
        end = colon + 1 + int(packed[at:colon])
        values.append(packed[colon + 1 : end])
        at = end
    return [(values[i].decode(), values[i + 1].decode(), values[i + 2], int(values[i + 3]))
            for i in range(0, len(values), 4)]


def event_ids(last_id: str, count: int) -> list[str]:
    """The ids of the ``count`` events of the entry whose id is ``last_id``: the entry takes the
    id of its last event, and its events the sequence numbers just before it.

    >>> event_ids("1700000000000-12", 3)
    ['1700000000000-10', '1700000000000-11', '1700000000000-12']
    """
    ms, seq = parse_stream_id(last_id)
    return [f"{ms}-{seq - count + 1 + at}" for at in range(count)]


def encode_deadline(due_ms: int, version_set_for: int) -> str:
    """The stored value of a deadline (its name is the hash field).

    >>> encode_deadline(1700000000000, 7)
    '1700000000000:7'
    """
    return f"{due_ms}:{version_set_for}"


def decode_deadline(name: str, stored: str) -> Deadline:
    """The inverse of ``encode_deadline``."""
    due, _, version = stored.partition(":")
    return Deadline(name=name, due_ms=int(due), version_set_for=int(version))


def acked_outbox_member(key: str) -> bytes:
    """What the acknowledged-keys set holds for outbox ``key``: 6 bytes of its hash.

    A table remembers its latest 64 acknowledged keys; as themselves (a settlement key is ~40
    bytes) they would be a table's largest key after 64 hands, as 6 bytes they take ~850 bytes.
    A new key matches one of the 64 with odds of about 2**-42, which would refuse its commit.

    >>> acked_outbox_member("settle:t1-1-0a1b2c3d").hex()
    'b1d1a00f8bdc'
    """
    return hashlib.blake2b(key.encode(), digest_size=6).digest()


TABLE_STATE_HEADER_BYTES: Final = 128
"""The header line of a stored table state fits in this many bytes (four numbers, two ids)."""


@dataclass(frozen=True, slots=True)
class StoredTableState:
    """What a table's state key holds (written by ``lua/table_state.lua``)."""

    version: int
    last_event_id: str
    trim_mark: str
    meta: dict[str, str]
    state: bytes
    ring: bytes | None = b""
    """The latest commits' events (see :func:`ring_entries`); None in a state an older store
    wrote, whose events are in the table's stream until its next commit."""
    deadlines: tuple[Deadline, ...] | None = ()
    """The table's deadlines, earliest first; None in a state an older store wrote, whose
    deadlines are in the table's deadlines hash until its next commit."""


def encode_netstrings(values: list[str]) -> bytes:
    """Values one after another, each as ``length:bytes``: any text, no escaping.

    >>> encode_netstrings(["game", "zhajinhua", "note", "a:b"])
    b'4:game9:zhajinhua4:note3:a:b'
    """
    return b"".join(b"%d:%s" % (len(raw), raw) for raw in (value.encode() for value in values))


def decode_netstrings(stored: bytes) -> list[str]:
    """The inverse of ``encode_netstrings``."""
    values, at = [], 0
    while at < len(stored):
        colon = stored.index(b":", at)
        end = colon + 1 + int(stored[at:colon])
        values.append(stored[colon + 1 : end].decode())
        at = end
    return values


def decode_table_state(stored: bytes) -> StoredTableState:
    """A state key's string (see ``lua/table_state.lua``) read back: its header line (version,
    last event id, trim mark, then the lengths of the meta, the ring's entries, the ring and the
    deadlines; a state an older store wrote lacks the last one, or the last three), the meta, the
    deadlines, the ring, the state.

    >>> decode_table_state(b"7 0-2 0-0 12 1 19 17\\n4:game4:free4:turn9:1700000:73:0-21:79:AnyEventsSTATE")
    StoredTableState(version=7, last_event_id='0-2', trim_mark='0-0', meta={'game': 'free'}, state=b'STATE', ring=b'3:0-21:79:AnyEvents', deadlines=(Deadline(name='turn', due_ms=1700000, version_set_for=7),))
    """
    header_end = stored.index(b"\n")
    fields = stored[:header_end].split(b" ")
    meta_at = header_end + 1
    deadlines_at = meta_at + int(fields[3])
    ring_length = int(fields[5]) if len(fields) >= 6 else -1
    deadlines_length = int(fields[6]) if len(fields) >= 7 else -1
    ring_at = deadlines_at + max(0, deadlines_length)
    meta = decode_netstrings(stored[meta_at:deadlines_at])
    return StoredTableState(
        version=int(fields[0]),
        last_event_id=fields[1].decode(),
        trim_mark=fields[2].decode(),
        meta=dict(zip(meta[::2], meta[1::2], strict=True)),
        state=stored[ring_at + max(0, ring_length) :],
        ring=stored[ring_at : ring_at + ring_length] if ring_length >= 0 else None,
        deadlines=deadlines_of(decode_netstrings(stored[deadlines_at:ring_at])) if deadlines_length >= 0 else None,
    )


def deadlines_of(flat: list[str]) -> tuple[Deadline, ...]:
    """Deadlines from their stored names and values, one after the other, earliest first.

    >>> deadlines_of(["turn", "2000:3", "kick", "1000:2"])
    (Deadline(name='kick', due_ms=1000, version_set_for=2), Deadline(name='turn', due_ms=2000, version_set_for=3))
    """
    found = [decode_deadline(name, value) for name, value in zip(flat[::2], flat[1::2], strict=True)]
    return tuple(sorted(found, key=lambda deadline: (deadline.due_ms, deadline.name)))


def ring_entries(ring: bytes) -> list[tuple[str, int, bytes]]:
    """The commits a state's ring holds, oldest first: each one's last event id, version and
    packed events (:func:`pack_events`).

    >>> ring_entries(b"3:0-21:7" + b"%d:%s" % (len(pack_events([("*", "bet", b"1", 0)])), pack_events([("*", "bet", b"1", 0)])))
    [('0-2', 7, b'1:*3:bet1:11:0')]
    """
    entries, at = [], 0
    values: list[bytes] = []
    while at < len(ring):
        colon = ring.index(b":", at)
        end = colon + 1 + int(ring[at:colon])
        values.append(ring[colon + 1 : end])
        at = end
    for i in range(0, len(values), 3):
        entries.append((values[i].decode(), int(values[i + 1]), values[i + 2]))
    return entries


def parse_commit_notice(data: bytes | str) -> tuple[str, str]:
    """The table id and last event id a commit notice carries (see ``TableStore.commit_notices``).

    >>> parse_commit_notice(b"zhajinhua-free-01\\n1700000000000-3")
    ('zhajinhua-free-01', '1700000000000-3')
    """
    text = data.decode() if isinstance(data, bytes) else data
    table_id, _, last_event_id = text.partition("\n")
    return table_id, last_event_id


def parse_settled_notice(data: bytes | str) -> tuple[str, str]:
    """The table id and the acknowledged outbox key a ``settled`` notice carries (the key ``''``
    from a store of the version before, which sent the table id alone).

    >>> parse_settled_notice(b"zhajinhua-free-01\\nsettle:zhajinhua-free-01-3-0a1b2c3d")
    ('zhajinhua-free-01', 'settle:zhajinhua-free-01-3-0a1b2c3d')
    >>> parse_settled_notice("zhajinhua-free-01")
    ('zhajinhua-free-01', '')
    """
    text = data.decode() if isinstance(data, bytes) else data
    table_id, _, key = text.partition("\n")
    return table_id, key


def as_text(raw: bytes | str) -> str:
    """A Redis reply as text (the store's client answers bytes)."""
    return raw.decode() if isinstance(raw, bytes) else raw


def snapshot_of(stored: StoredTableState) -> Snapshot:
    """What a reader of a stored state is given: its version, state and last event id."""
    return Snapshot(version=stored.version, state=stored.state, last_event_id=stored.last_event_id)

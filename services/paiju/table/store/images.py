"""A table's stored string as the process that last read or wrote it knows it, and the next one
made from it, so a commit can send Redis the new string whole.

A commit made in Lua reads and parses the table's kilobyte or two, trims its ring of events,
makes a new string and writes it: Lua making strings the committing process already knows, and
most of the time Redis spends on an action. A process that holds the stored string (it wrote or
read it) makes the next one here, byte for byte what ``lua/commit.lua`` would write, and
``lua/commit_known.lua`` only checks that the table still begins with the prefix this process
knows, then sets the new string.

The prefix is the header line, the meta and the deadlines. Whatever rewrites a table changes
it: a commit moves the version in the header; the claims and marks that rewrite the table at
the same version change only its deadlines; dropping the events moves the trim mark and the
ring's length in the header. So a table that begins with the prefix is the string known here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .records import Deadline, EncodedEvent, deadlines_of, decode_netstrings, pack_events

_FIELDS_OF_CURRENT_HEADER: Final = 7


@dataclass(frozen=True, slots=True)
class StoredImage:
    """A table's stored string, in the parts a commit changes (see ``lua/table_state.lua``)."""

    version: int
    last_event_id: str
    trim_mark: str
    meta: bytes
    """The meta as stored (netstrings of each name and value)."""
    deadlines: tuple[str, ...]
    """The deadlines as stored, in their stored order: name, ``due_ms:version_set_for``, ..."""
    ring: bytes
    """The ring of the latest commits' events, as stored."""
    ring_entries: int
    state: bytes
    prefix: bytes
    """The header line, the meta and the deadlines as stored: what a commit checks is still there."""

    @property
    def stored(self) -> bytes:
        """The whole stored string."""
        return b"".join((self.prefix, self.ring, self.state))

    def with_deadline(self, name: str, value: str) -> StoredImage:
        """This table after one deadline is set (``value`` ``'due_ms:version'``) or cleared
        (``value`` ``''``) outside a commit, as ``lua/set_deadline.lua`` writes it.

        >>> image = image_of(b"3 0-4 0-0 0 0 0 0\\nSTATE")
        >>> marked = image.with_deadline("start", "1700:3")
        >>> marked.stored
        b'3 0-4 0-0 0 0 0 15\\n5:start6:1700:3STATE'
        >>> marked.with_deadline("start", "").stored == image.stored
        True
        """
        deadlines = list(self.deadlines)
        _put_deadline(deadlines, name, value or None)
        return _made(self.version, self.last_event_id, self.trim_mark, self.meta, tuple(deadlines), self.ring,
                     self.ring_entries, self.state)


@dataclass(frozen=True, slots=True)
class NextImage:
    """What a commit on a known image writes, and what the deadline index must say after it."""

    image: StoredImage
    index_entry: str
    """For ``lua/commit_known.lua``: ``''`` leaves the table's deadline index entry as it stands
    (it may run early, never late: see ``lua/commit.lua``), ``'-'`` removes it, else the new
    earliest due time."""

    @property
    def deadlines(self) -> tuple[Deadline, ...]:
        """The table's deadlines after the commit, earliest first."""
        return deadlines_of(list(self.image.deadlines))


def image_of(stored: bytes) -> StoredImage | None:
    """The image of a state key's string; None for a string an older store wrote (its header
    lacks the ring or the deadlines), which only ``lua/commit.lua`` rewrites.

    >>> image = image_of(b"7 0-2 0-0 12 1 19 17\\n4:game4:free4:turn9:1700000:73:0-21:79:AnyEventsSTATE")
    >>> image.version, image.deadlines, image.ring, image.ring_entries, image.state
    (7, ('turn', '1700000:7'), b'3:0-21:79:AnyEvents', 1, b'STATE')
    >>> image.stored == b"7 0-2 0-0 12 1 19 17\\n4:game4:free4:turn9:1700000:73:0-21:79:AnyEventsSTATE"
    True
    >>> image_of(b"7 0-2 0-0 12 1 19\\n4:game4:free3:0-21:79:AnyEventsSTATE") is None
    True
    """
    header_end = stored.index(b"\n")
    fields = stored[:header_end].split(b" ")
    if len(fields) != _FIELDS_OF_CURRENT_HEADER:
        return None
    meta_at = header_end + 1
    deadlines_at = meta_at + int(fields[3])
    ring_at = deadlines_at + int(fields[6])
    state_at = ring_at + int(fields[5])
    return StoredImage(
        version=int(fields[0]),
        last_event_id=fields[1].decode(),
        trim_mark=fields[2].decode(),
        meta=stored[meta_at:deadlines_at],
        deadlines=tuple(decode_netstrings(stored[deadlines_at:ring_at])),
        ring=stored[ring_at:state_at],
        ring_entries=int(fields[4]),
        state=stored[state_at:],
        prefix=stored[:ring_at],
    )


def next_image(
    image: StoredImage,
    state: bytes,
    events: list[EncodedEvent],
    deadlines_set: list[str],
    deadlines_clear: list[str],
    keep_entries: int,
) -> NextImage:
    """The table after a commit of ``state``, ``events``, the deadlines to set (flat: name, stored
    value, ...) and those to clear, keeping the newest ``keep_entries`` commits' events: as
    ``lua/commit.lua`` writes it.

    >>> image = image_of(b"1 0-0 0-0 0 0 0 0\\nDEALT")
    >>> after = next_image(image, b"BET", [("*", "bet", b"10", 1)], ["turn", "5000:2"], [], keep_entries=8)
    >>> after.image.stored
    b'2 0-1 0-0 0 1 26 14\\n4:turn6:5000:23:0-11:215:1:*3:bet2:101:1BET'
    >>> after.index_entry, [d.name for d in after.deadlines]
    ('5000', ['turn'])
    """
    version = image.version + 1
    last_event_id, trim_mark, ring, entries = image.last_event_id, image.trim_mark, image.ring, image.ring_entries
    if events:
        ms, _, seq = last_event_id.partition("-")
        last_event_id = f"{ms}-{int(seq) + len(events)}"
        packed = pack_events(events)
        at = 0
        while entries + 1 > keep_entries:  # the oldest entries go; the last one gone is the trim mark
            trim_mark, at = _dropped_entry(ring, at)
            entries -= 1
        ring = b"%s%d:%s%d:%d%d:%s" % (ring[at:], len(last_event_id), last_event_id.encode(), len(str(version)),
                                       version, len(packed), packed)
        entries += 1
    deadlines = list(image.deadlines)
    earliest_before = _earliest_due(deadlines)
    removed = False
    for name in deadlines_clear:
        removed = _put_deadline(deadlines, name, None) or removed
    for at in range(0, len(deadlines_set), 2):
        _put_deadline(deadlines, deadlines_set[at], deadlines_set[at + 1])
    earliest = _earliest_due(deadlines)
    index_entry = ""
    if earliest != earliest_before and (removed or earliest is None or earliest_before is None
                                        or earliest < earliest_before):
        index_entry = "-" if earliest is None else str(earliest)
    return NextImage(_made(version, last_event_id, trim_mark, image.meta, tuple(deadlines), ring, entries, state),
                     index_entry)


def _made(version: int, last_event_id: str, trim_mark: str, meta: bytes, deadlines: tuple[str, ...],
          ring: bytes, ring_entries: int, state: bytes) -> StoredImage:
    stored_deadlines = b"".join(b"%d:%s" % (len(raw), raw) for raw in (value.encode() for value in deadlines))
    header = b"%d %s %s %d %d %d %d\n" % (version, last_event_id.encode(), trim_mark.encode(), len(meta),
                                          ring_entries, len(ring), len(stored_deadlines))
    return StoredImage(version, last_event_id, trim_mark, meta, deadlines, ring, ring_entries, state,
                       b"".join((header, meta, stored_deadlines)))


def _put_deadline(deadlines: list[str], name: str, value: str | None) -> bool:
    """Set (``value``) or remove (``value`` None) one deadline of a flat list in place, as
    ``put_deadline`` in ``lua/table_state.lua`` does; True if it removed one."""
    for at in range(0, len(deadlines), 2):
        if deadlines[at] == name:
            if value is not None:
                deadlines[at + 1] = value
                return False
            del deadlines[at : at + 2]
            return True
    if value is not None:
        deadlines += [name, value]
    return False


def _earliest_due(deadlines: list[str] | tuple[str, ...]) -> int | None:
    dues = [int(value.partition(":")[0]) for value in deadlines[1::2]]
    return min(dues) if dues else None


def _dropped_entry(ring: bytes, at: int) -> tuple[str, int]:
    """The id of the ring's entry at ``at``, and where the next one begins."""
    colon = ring.index(b":", at)
    id_end = colon + 1 + int(ring[at:colon])
    entry_id = ring[colon + 1 : id_end].decode()
    at = id_end
    for _ in range(2):  # the entry's version and events
        colon = ring.index(b":", at)
        at = colon + 1 + int(ring[at:colon])
    return entry_id, at

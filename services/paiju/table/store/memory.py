"""A rough estimate of a key's memory, for servers without ``MEMORY USAGE`` (fakeredis).

The figures follow Redis 7 with its default settings: a key costs its name plus about 60 bytes
of bookkeeping; each element of a compact (listpack) hash or sorted set its bytes plus a few
bytes of header, of a hash table about 48 bytes more; a stream its entries (the store keeps its
nodes at their exact size, see ``commit.lua``) plus the stream's own structures. Tests compare
the estimate with a real server's ``MEMORY USAGE`` so it cannot drift far.
"""

from __future__ import annotations

from typing import Any

KEY_OVERHEAD = 60
ELEMENT_OVERHEAD = 4
HASHTABLE_FIELD_OVERHEAD = 48
COMPACT_VALUE_LIMIT = 64
ZSET_ELEMENT_OVERHEAD = 6
STREAM_OVERHEAD = 560
STREAM_ENTRY_OVERHEAD = 12


def _type_name(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def estimate_key_bytes(client: Any, key: str) -> int:
    """Approximate bytes used by ``key`` (0 if it does not exist)."""
    kind = _type_name(client.type(key))
    if kind == "none":
        return 0
    size = KEY_OVERHEAD + len(key)
    if kind == "hash":
        fields = client.hgetall(key)
        # A value over 64 bytes turns Redis's compact listpack into a real hash table.
        compact = all(len(value) <= COMPACT_VALUE_LIMIT for value in fields.values())
        per_field = 2 * ELEMENT_OVERHEAD if compact else HASHTABLE_FIELD_OVERHEAD
        for field, value in fields.items():
            size += len(field) + len(value) + per_field
    elif kind == "zset":
        for member, _ in client.zscan_iter(key):
            size += len(member) + ZSET_ELEMENT_OVERHEAD  # the member, its score, two headers
    elif kind == "stream":
        size += STREAM_OVERHEAD + sum(
            STREAM_ENTRY_OVERHEAD + sum(len(value) + ELEMENT_OVERHEAD for value in fields.values())
            for _, fields in client.xrange(key)
        )
    elif kind == "string":
        size += client.strlen(key)  # a dump would be compressed: the state's ring compresses well
    else:
        size += len(client.dump(key) or b"")
    return size

"""Redis key names of the table store.

Every key of one table carries the ``{table_id}`` hash tag, so under Redis Cluster they all live
in one slot and one Lua script may touch them together. The two global indexes (tables with
deadlines, tables with pending outbox entries) are outside any table's slot and are therefore
never written by a table's script.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from paiju.quoting import quoted

_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
_PREFIX = re.compile(r"^[A-Za-z0-9_.:\-]{1,64}$")

TABLE_KEY_SUFFIXES = ("state", "events", "deadlines", "outbox", "outbox-acked")


def check_table_id(table_id: object) -> str:
    """``table_id`` if it is a usable id, else a clear TypeError/ValueError.

    Braces would break the hash tag and ``:`` the key layout, so ids are limited to letters,
    digits, ``_``, ``.`` and ``-`` (1 to 64 characters).

    >>> check_table_id("t42")
    't42'
    >>> check_table_id("a}b")
    Traceback (most recent call last):
    ...
    ValueError: table id 'a}b' must be 1-64 of letters, digits, '_', '.', '-'
    """
    if not isinstance(table_id, str):
        raise TypeError(f"a table id is a str, not {type(table_id).__name__}")
    if not _NAME.match(table_id):
        raise ValueError(f"table id {quoted(table_id)} must be 1-64 of letters, digits, '_', '.', '-'")
    return table_id


def check_prefix(prefix: object) -> str:
    """``prefix`` if it is a usable key prefix (no braces, no glob characters)."""
    if not isinstance(prefix, str):
        raise TypeError(f"a key prefix is a str, not {type(prefix).__name__}")
    if not _PREFIX.match(prefix):
        raise ValueError(
            f"key prefix {prefix!r} must be 1-64 of letters, digits, '_', '.', ':', '-'"
        )
    return prefix


@dataclass(frozen=True, slots=True)
class TableKeys:
    """The keys of one table.

    >>> TableKeys.of("paiju", "t42").state
    'paiju:{t42}:state'
    """

    state: str
    events: str
    deadlines: str
    outbox: str
    outbox_acked: str
    watching: str
    """The listeners that hear of the table's commits (``lua/commit_parts.lua``): it runs out on its
    own, so it is not among :meth:`all`."""

    @classmethod
    def of(cls, prefix: str, table_id: str) -> TableKeys:
        base = f"{prefix}:{{{table_id}}}:"
        return cls(*(base + suffix for suffix in TABLE_KEY_SUFFIXES), base + "watching")

    def all(self) -> list[str]:
        """Every key, in the order the Lua scripts take them as KEYS."""
        return [self.state, self.events, self.deadlines, self.outbox, self.outbox_acked]


@dataclass(frozen=True, slots=True)
class IndexKeys:
    """The global index keys (sorted sets of table ids).

    ``deadlines``: score = the table's earliest deadline (epoch ms).
    ``outbox``: score = how many outbox entries the table has pending.
    """

    deadlines: str
    outbox: str

    @classmethod
    def of(cls, prefix: str) -> IndexKeys:
        return cls(deadlines=f"{prefix}:index:deadlines", outbox=f"{prefix}:index:outbox")


def table_key_pattern(prefix: str) -> str:
    """The SCAN pattern matching every per-table key under ``prefix``."""
    return f"{prefix}:{{*}}:*"


def table_id_of_key(prefix: str, key: str) -> str | None:
    """The table id inside a per-table key, or None if ``key`` is not one.

    >>> table_id_of_key("paiju", "paiju:{t42}:events")
    't42'
    >>> table_id_of_key("paiju", "paiju:index:outbox") is None
    True
    """
    head = prefix + ":{"
    if not key.startswith(head):
        return None
    table_id, closing, suffix = key[len(head) :].partition("}:")
    if not closing or suffix not in TABLE_KEY_SUFFIXES or not _NAME.match(table_id):
        return None
    return table_id

"""The Lua scripts of the table store, read from ``lua/`` and registered once per client.

Each script goes by its SHA (EVALSHA) and is loaded on the first NOSCRIPT (``RegisteredScript``),
so a server restart or a new cluster node costs one extra round trip, never a failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from paiju.common.redis_clients import RegisteredScript

SCRIPT_NAMES = ("create", "commit", "commit_known", "claim_deadline", "ack_outbox", "delete", "drop_events", "set_deadline",
                "reindex")
READING_TABLE_STATE = ("create", "commit", "drop_events", "claim_deadline", "set_deadline", "reindex")
"""The scripts that read or write the state key: ``lua/table_state.lua`` is prepended to them."""
KEEPING_INDEXES = ("commit", "commit_known", "claim_deadline", "ack_outbox", "set_deadline", "reindex")
"""The scripts that keep the global indexes on a single Redis: ``lua/index_entries.lua`` is
prepended to them."""
COMMITTING = ("commit", "commit_known")
"""The scripts that commit (queue outbox entries, tell a table's listeners): ``lua/commit_parts.lua``
is prepended to them."""


def _lua(name: str) -> str:
    return files(__package__).joinpath("lua", f"{name}.lua").read_text(encoding="utf-8")


@cache
def script_source(name: str) -> str:
    """The text of ``lua/<name>.lua``, after the shared functions it needs (the indexes', then
    the state key's, which use them); read once per process."""
    if name not in SCRIPT_NAMES:
        raise ValueError(f"no table-store script named {name!r}")
    preludes = [_lua(prelude) for prelude, users in (("index_entries", KEEPING_INDEXES),
                                                       ("table_state", READING_TABLE_STATE),
                                                       ("commit_parts", COMMITTING)) if name in users]
    return "\n".join([*preludes, _lua(name)])


@dataclass(frozen=True, slots=True)
class StoreScripts:
    """The registered scripts, callable as ``script(keys=[...], args=[...])``."""

    create: RegisteredScript
    commit: RegisteredScript
    commit_known: RegisteredScript
    claim_deadline: RegisteredScript
    ack_outbox: RegisteredScript
    delete: RegisteredScript
    drop_events: RegisteredScript
    set_deadline: RegisteredScript
    reindex: RegisteredScript

    @classmethod
    def register(cls, client: Any) -> StoreScripts:
        return cls(*(RegisteredScript(client, script_source(name)) for name in SCRIPT_NAMES))

"""What every part of a table's store shares: the Redis client and key prefix, the global
indexes, the registered scripts, and whether the indexes are one script away (a single Redis)
or in other slots (a cluster). ``TableStore.__init__`` sets them; each part reads them."""

from __future__ import annotations

from typing import Any

from .images import StoredImage
from .indexes import GlobalIndexes
from .keys import TableKeys
from .records import StoredTableState
from .scripts import StoreScripts


class StoreParts:
    """The base of the store's parts (state, event stream, deadlines, outbox)."""

    _client: Any
    prefix: str
    indexes: GlobalIndexes
    _scripts: StoreScripts
    _one_redis: bool
    _indexes_reachable_from_scripts: bool
    _images: dict[str, StoredImage]
    """The stored string of each table whose state the store remembers, where it knows it."""

    # The store's own (store.py), which the parts call:
    def keys(self, table_id: str) -> TableKeys:
        raise NotImplementedError  # each table's keys, made once

    def _stored_state(self, key: str, raw: Any = ...) -> StoredTableState | None:
        raise NotImplementedError  # what a state key holds (its GET reply, when read already)

    def forget(self, table_id: str) -> None:
        raise NotImplementedError  # drop what the store remembers of a table

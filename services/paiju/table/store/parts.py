"""What every part of a table's store shares: the Redis client and key prefix, the global
indexes, the registered scripts, and whether the indexes are one script away (a single Redis)
or in other slots (a cluster). ``TableStore.__init__`` sets them; each part reads them."""

from __future__ import annotations

from typing import Any

from .indexes import GlobalIndexes
from .keys import TableKeys
from .scripts import StoreScripts


class StoreParts:
    """The base of the store's parts (state, event stream, deadlines, outbox)."""

    _client: Any
    prefix: str
    indexes: GlobalIndexes
    _scripts: StoreScripts
    _one_redis: bool
    _indexes_reachable_from_scripts: bool

    def keys(self, table_id: str) -> TableKeys:
        raise NotImplementedError  # the store's own, which remembers each table's keys

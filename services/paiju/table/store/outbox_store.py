"""The outbox of a table's store: what a commit queued for the ledger (a hand's settlement, the
release of its holds, its points), listed for the relay, acknowledged once applied, and what
this store knows of a table's pending keys without asking."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from paiju.common.redis_clients import queue_script

from .inputs import check_int, check_name
from .keys import TableKeys
from .parts import StoreParts
from .records import (
    OutboxEntry,
    acked_outbox_member,
    as_text,
)


class OutboxStore(StoreParts):
    """:class:`~paiju.table.store.TableStore`'s outbox (see the module)."""

    _outbox_known: dict[str, frozenset[str]]
    acked_outbox_memory: int
    settled_channel: str

    def outbox_pending(self, limit: int = 100, table_ids: Collection[str] | None = None) -> list[OutboxEntry]:
        """Pending outbox entries of any table (deleted ones included), at most ``limit``;
        with ``table_ids``, of those tables only, without reading the index (one round trip:
        a relay woken by the notices of the commits that queued them)."""
        check_int(limit, "limit", minimum=1)
        from_index = table_ids is None
        if table_ids is None:
            table_ids = [
                as_text(raw) for raw in self._client.zrange(self.indexes.keys.outbox, 0, limit - 1)
            ]
        else:
            table_ids = sorted(table_ids)
        pipe = self._client.pipeline(transaction=False)
        for table_id in table_ids:
            pipe.hgetall(TableKeys.of(self.prefix, table_id).outbox)
        found: list[OutboxEntry] = []
        for table_id, stored in zip(table_ids, pipe.execute(), strict=True):
            if not stored and from_index:  # listed, yet empty: the index is behind
                self.indexes.sync(table_id)
            found += [
                OutboxEntry(table_id, as_text(key), payload)
                for key, payload in sorted(stored.items())
            ]
        return found[:limit]

    def outbox_entry(self, table_id: str, key: str) -> OutboxEntry | None:
        """One table's pending entry under ``key``, or ``None`` (never queued, or acknowledged)."""
        payload = self._client.hget(self.keys(table_id).outbox, check_name(key, "an outbox key"))
        return None if payload is None else OutboxEntry(table_id, key, payload)

    def outbox_keys(self, table_id: str) -> list[str]:
        """The keys of one table's pending outbox entries."""
        keys = sorted(as_text(key) for key in self._client.hkeys(self.keys(table_id).outbox))
        self._note_outbox(table_id, frozenset(keys), len(keys))
        return keys

    def _note_outbox(self, table_id: str, keys: Any, count: int) -> None:
        """Remember ``keys`` as the table's outbox, when Redis's ``count`` of it agrees."""
        if keys is not None and len(keys) == count:
            self._outbox_known[table_id] = frozenset(as_text(key) for key in keys)
        else:
            self._outbox_known.pop(table_id, None)

    def outbox_keys_known(self, table_id: str) -> list[str]:
        """:meth:`outbox_keys`, without a round trip when this store knows them.

        It knows them from a read, and then from its own commits (what each adds, checked
        against the count the commit script answers) and acknowledgements (likewise).

        Only a commit adds to an outbox: one made elsewhere moves the version on, which forgets
        what this store knew as soon as it sees the new version (a read, or its own next commit
        refused). So an answer from here may lack keys only until this process's next commit on
        the table, which is refused: use it only to decide a change that is committed on the
        version it was decided on. It may also still list a key that another process acknowledged
        since; that only makes a change wait for a settlement already made, as a read just
        before the acknowledgement would have.
        """
        known = self._outbox_known.get(table_id)
        if known is not None:
            return sorted(known)
        return self.outbox_keys(table_id)

    def note_acknowledged(self, table_id: str, key: str) -> None:
        """Another process acknowledged the table's outbox entry ``key`` (its ``settled`` notice,
        :func:`parse_settled_notice`): what this store knows of the outbox no longer lists it,
        so a start need not read the outbox to learn that its settlement landed. An
        acknowledgement only ever takes a key away, so the rest of what is known stands."""
        known = self._outbox_known.get(table_id)
        if known is not None and key in known:
            self._outbox_known[table_id] = known - {key}

    def outbox_ack(self, table_id: str, key: str) -> bool:
        """Acknowledge a delivered outbox entry; True if it was pending (a repeat is False)."""
        script_keys, args = self._ack_call(table_id, key)
        return self._acknowledged(table_id, key, self._scripts.ack_outbox(keys=script_keys, args=args))

    def queue_ack(self, pipe: Any, table_id: str, key: str) -> Callable[[Any], bool]:
        """:meth:`outbox_ack` into ``pipe``, a pipeline of this store's client that the caller
        executes without raising on errors (with other writes: one round trip for all); the
        function returned takes the reply and answers what :meth:`outbox_ack` would. A Redis
        that lost the script (a restart) is sent it then, and the entry acknowledged anew."""
        reply_of = queue_script(pipe, self._scripts.ack_outbox, *self._ack_call(table_id, key))
        return lambda reply: self._acknowledged(table_id, key, reply_of(reply))

    def _ack_call(self, table_id: str, key: str) -> tuple[list[str], list[Any]]:
        keys = self.keys(table_id)
        script_keys = [keys.state, keys.outbox, keys.outbox_acked]
        args = [check_name(key, "an outbox key"), acked_outbox_member(key), self.acked_outbox_memory, table_id,
                self.settled_channel]
        if self._indexes_reachable_from_scripts:  # one Redis: the script keeps the outbox index too
            script_keys.append(self.indexes.keys.outbox)
        return script_keys, args

    def _acknowledged(self, table_id: str, key: str, reply: Any) -> bool:
        acked, left = reply
        known = self._outbox_known.get(table_id)
        self._note_outbox(table_id, None if known is None else known - {key}, int(left))
        if acked and not self._indexes_reachable_from_scripts:
            self.indexes.sync(table_id)
        return bool(acked)

    def repair_indexes(self) -> int:
        """Rebuild the global deadline and outbox indexes by scanning every table's keys."""
        return self.indexes.repair()

"""The deadlines of a table's store: listed when due across all tables, claimed by exactly one
of many claimers, and set outside a commit (a start's mark).

A table's deadlines live in its state key (``lua/table_state.lua``), written by the commit that
changes them with the SET it makes anyway; beside them only the global deadline index, which
holds each table's earliest. A table an older store wrote keeps them in a hash of their own until
the next script that writes the table moves them in."""

from __future__ import annotations

from typing import Any

from paiju.common.redis_clients import queue_script

from .inputs import check_int, check_name, encode_deadline
from .parts import StoreParts
from .records import (
    Deadline,
    DueDeadline,
    Snapshot,
    StoredTableState,
    as_text,
    deadlines_of,
    snapshot_of,
)


class DeadlineStore(StoreParts):
    """:class:`~paiju.table.store.TableStore`'s deadlines (see the module)."""

    def deadlines(self, table_id: str) -> list[Deadline]:
        """The table's deadlines, earliest first."""
        return self.load_with_deadlines(table_id)[1]

    def load_with_deadlines(self, table_id: str) -> tuple[Snapshot | None, list[Deadline]]:
        """:meth:`load` and :meth:`deadlines` in one round trip (two for a table an older store
        wrote)."""
        keys = self.keys(table_id)
        stored = self._stored_state(keys.state)
        return (None if stored is None else snapshot_of(stored)), self._deadlines_in(keys.deadlines, stored)

    def _deadlines_in(self, deadlines_key: str, stored: StoredTableState | None, hashed: Any = None) -> list[Deadline]:
        """The deadlines of a stored state; those of a table an older store wrote from its hash
        (``hashed``: its HGETALL reply when read already)."""
        if stored is None:
            return []
        if stored.deadlines is not None:
            return list(stored.deadlines)
        if hashed is None:
            hashed = self._client.hgetall(deadlines_key)
        return list(deadlines_of([as_text(raw) for pair in hashed.items() for raw in pair]))

    def due_deadlines(self, now_ms: int, limit: int = 100) -> list[DueDeadline]:
        """Deadlines of any table due at ``now_ms``, earliest first, at most ``limit``.

        Listing claims nothing: call ``claim_deadline`` for each before acting on it.
        """
        check_int(now_ms, "now_ms")
        check_int(limit, "limit", minimum=1)
        tables = self._client.zrangebyscore(
            self.indexes.keys.deadlines, "-inf", now_ms, start=0, num=limit
        )
        table_ids = [as_text(raw) for raw in tables]
        pipe = self._client.pipeline(transaction=False)
        for table_id in table_ids:
            pipe.get(self.keys(table_id).state)
        found: list[DueDeadline] = []
        early: list[str] = []
        for table_id, raw in zip(table_ids, pipe.execute(raise_on_error=False), strict=True):
            keys = self.keys(table_id)
            due = [
                DueDeadline(table_id, d.name, d.due_ms, d.version_set_for)
                for d in self._deadlines_in(keys.deadlines, self._stored_state(keys.state, raw))
                if d.due_ms <= now_ms
            ]
            if not due:
                early.append(table_id)
            found += due
        self._reindex(early)
        found.sort(key=lambda d: (d.due_ms, d.table_id, d.name))
        return found[:limit]

    def _reindex(self, table_ids: list[str]) -> None:
        """Put right the index entries of tables listed with nothing due, so the next listing
        does not find them again: commits that push a deadline later leave the entry early (see
        ``commit.lua``), and under a cluster a claim's or a commit's note may have run ahead."""
        if not self._indexes_reachable_from_scripts:
            for table_id in table_ids:
                self.indexes.sync(table_id)
            return
        if not table_ids:
            return
        pipe = self._client.pipeline(transaction=False)
        replies = []
        for table_id in table_ids:
            keys = self.keys(table_id)
            replies.append(queue_script(pipe, self._scripts.reindex,
                                        [keys.state, keys.events, keys.deadlines, self.indexes.keys.deadlines], [table_id]))
        for reply_of, reply in zip(replies, pipe.execute(raise_on_error=False), strict=True):
            reply_of(reply)

    def set_deadline(self, table_id: str, name: str, due_ms: int, version_set_for: int) -> None:
        """Set (or replace) one deadline without a commit: the table's version, state and events
        stay as they are. For a mark that guards a change still to come, which that change's
        commit clears by name (``deadlines_clear``); if it never commits, the mark falls due."""
        value = encode_deadline(check_int(due_ms, "due_ms"), check_int(version_set_for, "version_set_for", minimum=1))
        self._write_deadline(table_id, check_name(name, "a deadline name"), value)

    def _write_deadline(self, table_id: str, name: str, value: str) -> None:
        """Store one deadline's value ('' removes it) and keep the table's index entry exact."""
        keys = self.keys(table_id)
        image = self._images.get(table_id)
        script_keys = [keys.state, keys.events, keys.deadlines]
        if self._indexes_reachable_from_scripts:  # one Redis: the script keeps the index too
            script_keys.append(self.indexes.keys.deadlines)
        written = self._scripts.set_deadline(keys=script_keys,
                                             args=[name, value, table_id, b"" if image is None else image.prefix])
        if image is not None:
            # The mark of a hand's start, by the process that commits the deal next: knowing the
            # string it wrote spares that commit a second try.
            self._images.pop(table_id, None)
            if written == 2:
                self._images[table_id] = image.with_deadline(name, value)
        if not self._indexes_reachable_from_scripts:
            self.indexes.sync(table_id)

    def clear_deadline(self, table_id: str, name: str) -> None:
        """Remove one deadline without a commit (a mark whose change is known not to come)."""
        self._write_deadline(table_id, check_name(name, "a deadline name"), "")

    def claim_deadline(
        self,
        table_id: str,
        name: str,
        version_set_for: int,
        now_ms: int,
        lease_ms: int | None = None,
    ) -> bool:
        """Claim a due deadline; True for exactly one of any number of concurrent claimers.

        False if it is gone, not yet due at ``now_ms``, or was replaced (another
        ``version_set_for``). Without ``lease_ms`` the claimed deadline is removed (at most
        once). With ``lease_ms`` it stays, due again at ``now_ms + lease_ms``, so it fires again
        if the claimer dies before the table's commit clears it (at least once).
        """
        keys = self.keys(table_id)
        name = check_name(name, "a deadline name")
        check_int(version_set_for, "version_set_for", minimum=1)
        check_int(now_ms, "now_ms")
        leased = ""
        if lease_ms is not None:
            leased = encode_deadline(
                now_ms + check_int(lease_ms, "lease_ms", minimum=1), version_set_for
            )
        script_keys, args = [keys.state, keys.events, keys.deadlines], [name, str(version_set_for), now_ms, leased]
        if self._indexes_reachable_from_scripts:  # one Redis: the script keeps the index too
            script_keys.append(self.indexes.keys.deadlines)
            args.append(table_id)
        claimed = self._scripts.claim_deadline(keys=script_keys, args=args)
        if claimed and not self._indexes_reachable_from_scripts:
            self.indexes.sync(table_id)
        return bool(claimed)

"""The deadlines of a table's store: listed when due across all tables, claimed by exactly one
of many claimers, set outside a commit (a start's mark), and what this store knows of a table's
deadlines after its own commit (so a commit need not clear deadlines that do not exist)."""

from __future__ import annotations

from typing import Any

from .inputs import check_int, check_name, encode_deadline
from .keys import TableKeys
from .parts import StoreParts
from .records import (
    Deadline,
    DueDeadline,
    Snapshot,
    as_text,
    decode_deadline,
    snapshot_of,
)


def deadlines_of(stored: dict[bytes, bytes]) -> list[Deadline]:
    found = [decode_deadline(as_text(name), as_text(value)) for name, value in stored.items()]
    return sorted(found, key=lambda deadline: (deadline.due_ms, deadline.name))



class DeadlineStore(StoreParts):
    """:class:`~paiju.table.store.TableStore`'s deadlines (see the module)."""

    _deadlines_known: dict[str, tuple[int, set[str]]]

    def deadlines(self, table_id: str) -> list[Deadline]:
        """The table's deadlines, earliest first."""
        return deadlines_of(self._client.hgetall(self.keys(table_id).deadlines))

    def load_with_deadlines(self, table_id: str) -> tuple[Snapshot | None, list[Deadline]]:
        """:meth:`load` and :meth:`deadlines` in one round trip."""
        keys = self.keys(table_id)
        pipe = self._client.pipeline(transaction=False)
        pipe.get(keys.state)
        pipe.hgetall(keys.deadlines)
        raw, deadlines = pipe.execute(raise_on_error=False)
        stored = self._stored_state(keys.state, raw)
        if isinstance(deadlines, Exception):
            raise deadlines
        return (None if stored is None else snapshot_of(stored)), deadlines_of(deadlines)

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
            pipe.hgetall(TableKeys.of(self.prefix, table_id).deadlines)
        found: list[DueDeadline] = []
        for table_id, stored in zip(table_ids, pipe.execute(), strict=True):
            due = [
                DueDeadline(table_id, d.name, d.due_ms, d.version_set_for)
                for d in (decode_deadline(as_text(n), as_text(v)) for n, v in stored.items())
                if d.due_ms <= now_ms
            ]
            if not due:
                # The index was behind (a claim or commit whose sync has not landed, or a
                # crash): put it right so the next call does not list this table again.
                self.indexes.sync(table_id)
            found += due
        found.sort(key=lambda d: (d.due_ms, d.table_id, d.name))
        return found[:limit]

    def set_deadline(self, table_id: str, name: str, due_ms: int, version_set_for: int) -> None:
        """Set (or replace) one deadline without a commit: the table's version, state and events
        stay as they are. For a mark that guards a change still to come, which that change's
        commit clears by name (``deadlines_clear``); if it never commits, the mark falls due."""
        value = encode_deadline(check_int(due_ms, "due_ms"), check_int(version_set_for, "version_set_for", minimum=1))
        self._write_deadline(table_id, check_name(name, "a deadline name"), value)
        known = self._deadlines_known.get(table_id)
        if known is not None:
            known[1].add(name)

    def _write_deadline(self, table_id: str, name: str, value: str) -> None:
        """Store one deadline's value ('' removes it) and keep the table's index entry exact."""
        keys = self.keys(table_id)
        script_keys, args = [keys.deadlines], [name, value]
        if self._indexes_reachable_from_scripts:  # one Redis: the script keeps the index too
            script_keys.append(self.indexes.keys.deadlines)
            args.append(table_id)
        self._scripts.set_deadline(keys=script_keys, args=args)
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
        script_keys, args = [keys.deadlines], [name, str(version_set_for), now_ms, leased]
        if self._indexes_reachable_from_scripts:  # one Redis: the script keeps the index too
            script_keys.append(self.indexes.keys.deadlines)
            args.append(table_id)
        claimed = self._scripts.claim_deadline(keys=script_keys, args=args)
        if claimed and not self._indexes_reachable_from_scripts:
            self.indexes.sync(table_id)
        return bool(claimed)

    def _worth_clearing(self, table_id: str, expected_version: int, names: Any) -> Any:
        """The deadlines of ``names`` that may exist: a commit on the version this store last
        committed knows the deadlines it left (only this process's own marks are added outside a
        commit, and a claim only takes one away), so it need not ask Redis to clear the others."""
        known = self._deadlines_known.get(table_id)
        if known is None or known[0] != expected_version or isinstance(names, str):
            return names
        return [name for name in names if name in known[1]]

"""What each seat may do, remembered in the table's record: a move made on an older view is
refused as stale only when the mover's options changed since (another seat's look does not)."""

from __future__ import annotations

from paiju.games.engine import HandState
from paiju.table.record import TableRecord


def hand_seat_of(record: TableRecord, table_seat: int) -> int:
    return record.hand.hand_seat(table_seat)  # type: ignore[union-attr,return-value]


def note_options(record: TableRecord, hand: HandState, version: int) -> None:
    """Before committing ``version`` with ``hand``: each dealt-in seat's key of what it may do,
    and since when it has held (a new key holds from this version on)."""
    assert record.hand is not None
    for hand_seat, table_seat in enumerate(record.hand.seats):
        taken = record.seats[table_seat]
        if taken is None:
            continue
        key = hand.options_key(hand_seat)
        if key != taken.options_key or taken.options_since is None:
            taken.options_key, taken.options_since = key, version


def options_unchanged(record: TableRecord, seat: int | None, seen_version: int, current_version: int) -> bool:
    """Whether what ``seat`` may do is the same at ``current_version`` as on the view of
    ``seen_version`` (an older version of this hand): then a move made on that view is no
    stale one."""
    if seat is None or record.hand is None or not 0 < seen_version < current_version:
        return False
    taken = record.seats[seat]
    return taken is not None and taken.options_since is not None and taken.options_since <= seen_version

"""Releasing holds that no hand will ever settle or release.

A table holds its players' coins, then commits the hand's start: a crash between the two (or a
start whose reply was lost) leaves holds for a hand that never started, and a hand whose table
is gone leaves holds nobody will settle. A sweep asks the table of every hand held for longer
than a bound whether that hand is still owed its holds — it is the table's hand in play, or its
settlement or release waits in the table's outbox — and releases the holds of every other.

A start can still be on its way when the sweep looks (the table's record does not show it yet).
Before releasing such a hand the sweep moves the table to a new version with its record
unchanged, so that start's compare-and-set fails instead of committing a hand without holds.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from paiju.table.outbox_contract import OWED_PREFIXES
from paiju.table.record import TableRecord, hand_place
from paiju.table.store import StaleVersion, TableStore
from paiju.wallet.errors import HandAlreadySettled
from paiju.wallet.store import Wallet

DEFAULT_SWEEP_BATCH = 100

log = logging.getLogger(__name__)


@dataclass(slots=True)
class SweepReport:
    """What one sweep did."""

    released: dict[str, int] = field(default_factory=dict)
    """The hands whose holds were released, with the coins each held."""
    kept: int = 0
    """Hands held for longer than the bound that are still owed their holds."""


def sweep_orphan_holds(
    wallet: Wallet, store: TableStore, older_than: timedelta, batch: int = DEFAULT_SWEEP_BATCH
) -> SweepReport:
    """Release the holds of every hand held for longer than ``older_than`` (by the wallet's
    clock) that its table no longer owes them, reading ``batch`` hands at a time; what it did.

    Hands in play for longer than the bound are looked at too (and kept), so the sweep pages
    through all of them: an orphan is never hidden behind many long hands.
    """
    report = SweepReport()
    after = ""
    while page := wallet.hands_held_longer_than(older_than, batch, after):
        for hand_id in page:
            if owed_its_holds(store, hand_id):
                report.kept += 1
                continue
            try:
                coins = wallet.release(hand_id)
            except HandAlreadySettled:
                continue  # settled meanwhile: the settlement took the holds
            if coins:  # none: released meanwhile by its table's outbox
                report.released[hand_id] = coins
                log.warning("released the holds of hand %s (%d coins): no table owes them", hand_id, coins)
        if len(page) < batch:
            break
        after = page[-1]
    return report


def owed_its_holds(store: TableStore, hand_id: str) -> bool:
    """Whether ``hand_id`` is in play at its table or its settlement or release is queued
    there; when its start might still commit, the table is moved on first so that it cannot."""
    place = hand_place(hand_id)
    if place is None:
        return False
    table_id, number = place
    try:
        snapshot = store.load(table_id)
    except ValueError:  # no table could have this id
        return False
    if snapshot is None:
        return False
    record = TableRecord.from_bytes(snapshot.state)
    if record.hand is not None and record.hand.hand_id == hand_id:
        return True
    queued = {prefix + hand_id for prefix in OWED_PREFIXES}
    if queued.intersection(store.outbox_keys(table_id)):
        return True
    if record.hand is None and record.hands_played < number:
        # Nothing committed since this hand's start read the table, perhaps: fence it off.
        try:
            store.commit(table_id, snapshot.version, snapshot.state)
        except StaleVersion:
            return True  # the table moved meanwhile: look again at the next sweep
    return False

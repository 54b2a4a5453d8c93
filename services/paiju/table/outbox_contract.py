"""The table's contract with the wallet: what it queues in a table's outbox, under which key and
in which shape, for the settlement relay to apply once and acknowledge.

``settle:<hand_id>``   a hand's settlement: its ledger lines (coins won and lost, the fee),
                       and the hand's record for its players' history
``release:<hand_id>``  a hand that ended without one (炒地皮: void before the first card): its
                       holds go back as they were
``score:<hand_id>``    a score-channel hand's points (积分): no coin moves

The table queues each in the commit that ends its hand (:func:`hand_end_outbox`); the wallet
side parses them (``paiju.wallet.relay``) and never writes them. A ledger line's reason is the
rules' own word (``LedgerLine.reason``), checked by the wallet against its ``Reason``s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from paiju.games.engine import Settlement

SETTLEMENT_PREFIX = "settle:"
RELEASE_PREFIX = "release:"
SCORE_PREFIX = "score:"
OWED_PREFIXES = (SETTLEMENT_PREFIX, RELEASE_PREFIX)
"""Outbox entries the ledger must apply before the table's next hand may hold coins."""


@dataclass(frozen=True, slots=True)
class EndedHand:
    """A hand as it ended at its table: what its outbox entries are made of."""

    hand_id: str
    table_id: str
    game: str
    ended_ms: int
    accounts: Sequence[str]
    """The players' accounts by hand seat."""
    held: bool
    """Whether the hand's start held coins (a hand without a settlement gives them back)."""
    record: dict[str, Any] | None
    """The hand for its players' history (``tier``, ``accounts``, ``names``, ``start``), if kept."""


def hand_end_outbox(hand: EndedHand, result: Settlement) -> list[tuple[str, bytes]]:
    """The outbox entries a hand's end queues: its settlement when coins move; else the release
    of its holds when it held any; and a score channel's points (积分) when it has them.

    >>> from paiju.games.engine import LedgerLine
    >>> ended = EndedHand("t-1-ab", "t", "zhajinhua", 5, ["7", "8"], True, None)
    >>> won = Settlement((10, -10), (LedgerLine(0, 10, "pot"), LedgerLine(1, -10, "stake")), winners=(0,))
    >>> [key for key, _ in hand_end_outbox(ended, won)]
    ['settle:t-1-ab']
    """
    settlement = {
        "ended_ms": hand.ended_ms, "hand_id": hand.hand_id, "table_id": hand.table_id, "game": hand.game,
        "lines": [[hand.accounts[line.seat], line.amount, line.reason] for line in result.lines],
        "fee": result.fee,
    }
    if hand.record is not None:
        settlement["record"] = hand.record
    outbox = []
    if settlement["lines"]:
        outbox.append((SETTLEMENT_PREFIX + hand.hand_id, _payload(settlement)))
    elif hand.held:
        # Nothing to settle (炒地皮: void before the first card): the holds go back, once.
        outbox.append(release_entry(hand.hand_id, hand.table_id))
    if not settlement["lines"] and result.scores is not None and any(result.scores):
        # A score channel: no coins move; its points (积分) are kept per account instead.
        points = {"hand_id": hand.hand_id, "table_id": hand.table_id, "game": hand.game,
                  "scores": dict(zip(hand.accounts, result.scores)), "ended_ms": hand.ended_ms}
        if hand.record is not None:
            points["record"] = hand.record
        outbox.append((SCORE_PREFIX + hand.hand_id, _payload(points)))
    return outbox


def release_entry(hand_id: str, table_id: str) -> tuple[str, bytes]:
    """The outbox entry that gives back every hold of ``hand_id``, which will not be settled.

    >>> release_entry("t-1-ab", "t")
    ('release:t-1-ab', b'{"hand_id":"t-1-ab","table_id":"t"}')
    """
    return RELEASE_PREFIX + hand_id, _payload({"hand_id": hand_id, "table_id": table_id})


def _payload(data: dict[str, Any]) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)

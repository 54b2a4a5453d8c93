"""The table's half of its contract with the wallet: what it queues in a table's outbox, under
which key, for the settlement relay to apply once and acknowledge.

``settle:<hand_id>``   a hand's settlement: its ledger lines (coins won and lost, the fee),
                       and the hand's record for its players' history
``release:<hand_id>``  a hand that ended without one (炒地皮: void before the first card): its
                       holds go back as they were
``score:<hand_id>``    a score-channel hand's points (积分): no coin moves

The table queues each in the commit that ends its hand; the wallet side parses them
(``paiju.wallet.relay``) and never writes them.
"""

from __future__ import annotations

SETTLEMENT_PREFIX = "settle:"
RELEASE_PREFIX = "release:"
SCORE_PREFIX = "score:"
OWED_PREFIXES = (SETTLEMENT_PREFIX, RELEASE_PREFIX)
"""Outbox entries the ledger must apply before the table's next hand may hold coins."""

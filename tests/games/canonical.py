"""What a hand's bytes must be: the canonical JSON of its envelope, as the standard library writes
it. The engines write it with a faster encoder; the playouts hold it to this."""

from __future__ import annotations

import json
from typing import Any


def canonical_bytes(hand: Any) -> bytes:
    envelope = {"game": hand.GAME, "format": hand.FORMAT, "state": hand.to_data()}
    return json.dumps(envelope, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

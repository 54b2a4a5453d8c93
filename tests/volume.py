"""How much a volume-bound test does: a share of it in `make test`, all of it under `make soak`.

A property's examples or a playout's hands are volume: every such test runs in the suite, with
enough volume to reach every case it checks (its seeds are fixed), and the soak run
(``--soak``, set before the test modules are imported) gives each its full volume.
"""

from __future__ import annotations

SOAK = False
"""Whether this run is the soak run; the root ``conftest.py`` sets it from ``--soak``."""


def volume(suite: int, soak: int) -> int:
    """``soak`` under ``make soak``, ``suite`` otherwise."""
    if not 0 < suite <= soak:
        raise ValueError(f"the suite's volume is a positive share of the soak's, not {suite} of {soak}")
    return soak if SOAK else suite

"""The garbage collector of a serving process, set for a server that holds many open streams.

CPython frees almost everything a call makes by reference counting; its cycle collector is for
the rest. A collection holds the interpreter, so every collection pauses the event loop, and a
full one walks every tracked object. A server with a thousand open Watch streams tracks about
140,000 objects (some 130 per stream: the call's coroutines, tasks, futures and frames), and
on this project's 2-core machine a full collection of them took 75–180 ms, a few times a
minute: the longest pauses in the players' Act tail.

:func:`settle_after_start_up` does two things:

- It **freezes** what start-up made (modules, message descriptors, the platform's objects):
  those live as long as the process, and no collection walks them again.
- It **collects less often**: a young collection after 10,000 new tracked objects, not 700,
  and a full one after 100 middle ones, not 10 (CPython's defaults). Most cycles are young when
  they die (a call's), and a young collection finds them; the rest wait longer for a full one.

Measured A B A B with ``bench/tablegen.py --tables 200 --think-ms 4000 --ledger-process``: pauses
11.2–11.6 → 1.5–2.4 ms per second of play, no full collection within a 30 s run (one before),
Act p99 20–32 → 16–18 ms.
"""

from __future__ import annotations

import gc

YOUNG_COLLECTION_AFTER = 10_000
"""New tracked objects (allocations less deallocations) between young collections."""
YOUNG_COLLECTIONS_PER_MIDDLE = 10
"""CPython's default: a middle collection after every 10 young ones."""
FULL_COLLECTION_AFTER = 100
"""Middle collections between full ones; CPython also waits until the objects that survived
into the oldest generation since the last full collection are a quarter of those there then."""


def settle_after_start_up() -> None:
    """Freeze the objects start-up made and collect less often (see the module's doc); call once
    the process serves, before the players come.

    >>> import gc
    >>> before = gc.get_threshold()
    >>> settle_after_start_up()
    >>> gc.get_threshold(), gc.get_freeze_count() > 0
    ((10000, 10, 100), True)
    >>> gc.unfreeze(); gc.set_threshold(*before)
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_AFTER, YOUNG_COLLECTIONS_PER_MIDDLE, FULL_COLLECTION_AFTER)

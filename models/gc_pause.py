"""Python's cyclic garbage collector paused around the engine's bulk bookkeeping.

An eval of N items builds N items, N requests, N samples, N answer rows and N report rows, and
keeps nearly all of them alive to the end. Each burst of allocations starts a collection, and
the oldest generation's collections walk the whole live heap, so at 100,000 items the collector
took more time than the work: reading the JSONL into items took 2.5-2.8x the CPU with it on
(benchmarks/gc_pause.py). These objects hold no reference cycles; reference counting frees
them as before. The pause is only put around the engine's own code (reading, scoring,
metrics, recording, reports), never around generation, whose model code may make cycles.

Everything made during a pause sits in the collector's youngest generation, so the first
collection after it walked all of it (0.9 s of CPU per million containers; 4.3 s in a
100,000-sample eval's profile, spread over the ends of its pauses). A pause therefore ends by
moving every tracked object to the oldest generation (``gc.freeze()`` then ``gc.unfreeze()``,
two list splices), as if it had survived the young collections: a full collection still
walks it, so a cycle made during a pause is still freed. A process that keeps objects frozen
itself (``gc.freeze()``) keeps the plain pause: the move would unfreeze them.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The block runs with the cyclic collector off; it is on again afterwards if it was on
    before (a pause inside a pause leaves it to the outer one)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            # only when nothing else is frozen: unfreeze would give back what a caller set
            # aside on purpose (a fork server's imports, a Spark worker's modules)
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


__all__ = ["paused_gc"]

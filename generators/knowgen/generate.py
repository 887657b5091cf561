"""Generate one KnowGen batch: read, plan, apply, find KA chains, build and store questions.

Round trips to Neo4j per batch: 2 batch checks + 3 reads of inputs + 1 name stream + 1 batch
node + ceil(n / 1000) applies + 4 * ceil(n / 250) KA reads + ceil(questions / 2000) question
writes: a constant per batch plus a constant per 250-1000 entities, never one per entity.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone

from knowforge.errors import InputError
from knowforge.kg.store import Store, chunked, in_parallel
from knowforge.models.questions import source_graph_hash, write_benchmark, write_questions

from .apply import apply_plan
from .drop import drop_batch
from .names import NameIndex
from .params import KnowGenParams
from .plan import PlannedEntity, iter_plan_entities
from .questions import build_specs, iter_items, pick_ka_groups
from .read import read_inputs, read_name_index_names

log = logging.getLogger(__name__)

# Rows per question statement: one statement holds all its rows' new nodes and links in its
# transaction state. With two in flight, 1,000 rows wrote 10k entities' questions in 27 s
# where 2,000 took 29-32 s and 4,000 ran into the heap (1 GB; docs/knowgen.md).
QUESTION_BATCH_SIZE = 1000
# Question statements in flight at once: the server runs a transaction on one core, so a
# second statement keeps another busy (3k entities' 107k questions: 7.5-7.9 s instead of
# 11.7-12.5 s).
QUESTION_WRITERS = 2


@dataclass
class GenerationSummary:
    batch: str
    entities: int
    facts: int
    questions: int
    by_type: dict[str, int]
    timings: dict[str, float] = field(default_factory=dict)
    source_hash: str = ""
    # CPU seconds of this process per stage (timings are wall seconds): on a shared machine
    # the wall time of a stage says more about the other processes than about this one
    cpu: dict[str, float] = field(default_factory=dict)


KA_BATCH_SIZE = 250
# KA chunks read at once: the server answers each read on one core.
KA_READERS = 2


def read_chains(store: Store, params: KnowGenParams, entities: list[PlannedEntity]):
    """KA chains of the chosen relation paths, in a constant number of round trips per
    KA_BATCH_SIZE entities: path keys (2 reads), the seeded pick, then answers + chains (2 reads).
    KA_READERS chunks are read at once; their results are taken in chunk order, so the dicts
    equal one reader's, key order included."""
    chains2: dict[str, list[dict]] = {}
    chains3: dict[str, list[dict]] = {}
    for _, (part2, part3) in in_parallel(lambda chunk: _read_chunk_chains(store, params, chunk),
                                         chunked(entities, KA_BATCH_SIZE), KA_READERS):
        chains2.update(part2)  # an entity is in one chunk only
        chains3.update(part3)
    return chains2, chains3


def _read_chunk_chains(store: Store, params: KnowGenParams, chunk: list[PlannedEntity]):
    ids = [e.id for e in chunk]
    groups2: dict[str, list[dict]] = {}
    groups3: dict[str, list[dict]] = {}
    if params.max_ka2:
        for r in store.read("knowgen/read_ka_groups2", batch={"ids": ids}, parent_rel=params.parent_rel):
            groups2.setdefault(r["entity_id"], []).append(r)
    if params.max_ka3:
        for r in store.read("knowgen/read_ka_groups3", batch={"ids": ids}, parent_rel=params.parent_rel):
            groups3.setdefault(r["entity_id"], []).append(r)
    rows2, rows3 = [], []
    for e in chunk:
        p2, p3 = pick_ka_groups(params, e.index, groups2.get(e.id, []), groups3.get(e.id, []))
        rows2.extend({"entity_id": e.id, "r1": g["r1"], "r2": g["r2"]} for g in p2)
        rows3.extend({"entity_id": e.id, "r1": g["r1"], "r2": g["r2"], "r3": g["r3"]} for g in p3)
    chains2: dict[str, list[dict]] = {}
    chains3: dict[str, list[dict]] = {}
    if rows2:
        for r in store.read("knowgen/read_ka_chains2", batch={"rows": rows2}, max_chains=params.max_hop_triplets):
            chains2.setdefault(r["entity_id"], []).append(r)
    if rows3:
        for r in store.read("knowgen/read_ka_chains3", batch={"rows": rows3}, max_chains=params.max_hop_triplets):
            chains3.setdefault(r["entity_id"], []).append(r)
    return chains2, chains3


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block.

    A batch builds hundreds of thousands of long-lived objects (the read taxonomy, the plan,
    ~36 items per entity and their rows), none of them garbage; every full collection walks
    all of them, which took about half of the question build's CPU (1k entities: 3.3 s with
    the collector, 1.5 s without). Reference counting still frees everything that is not in a
    cycle, and the collector runs again when the batch is done.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def generate_batch(store: Store, params: KnowGenParams, *,
                   progress: Callable[[str, int, int | None], None] | None = None) -> GenerationSummary:
    """Generate, write and question one batch. ``progress(stage, n, total)`` reports work done."""
    with gc_paused():
        return _generate_batch(store, params, progress)


def _generate_batch(store: Store, params: KnowGenParams,
                    progress: Callable[[str, int, int | None], None] | None) -> GenerationSummary:
    timings: dict[str, float] = {}
    cpu: dict[str, float] = {}
    t0, c0 = time.perf_counter(), time.process_time()
    clock = [t0, c0]

    def lap(stage: str) -> None:
        now, now_cpu = time.perf_counter(), time.process_time()
        timings[stage], cpu[stage] = now - clock[0], now_cpu - clock[1]
        clock[:] = [now, now_cpu]

    if store.read("knowgen/read_batch", batch=params.batch):
        raise InputError(f"batch {params.batch!r} already exists; drop it first "
                         f"(knowforge generate knowgen --drop {params.batch}) or choose another --name")
    source_hash = source_graph_hash(store)
    lap("source_hash")
    inputs = read_inputs(store, params)
    names = NameIndex(read_name_index_names(store), cutoff=params.name_cutoff)
    lap("read")

    # Planned lazily: the first 1,000 entities are applied while the next are planned. An input
    # with nothing to plan is refused here, before anything is written.
    planned = iter_plan_entities(inputs, params, names)
    store.run("knowgen/create_batch", batch=params.batch, seed=params.seed, params=params.to_json(),
              created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
              source_hash=source_hash)
    entities: list[PlannedEntity] = []

    def collect() -> Iterator[PlannedEntity]:
        for entity in planned:
            entities.append(entity)
            yield entity

    try:
        apply_plan(store, params, collect(),
                   progress=(lambda n: progress("entities", n, params.n)) if progress else None)
    except Exception:
        # a failed plan or apply leaves no partial batch behind (a re-run would be refused)
        try:
            drop_batch(store, params.batch)
        except Exception:
            log.exception("could not drop the partial batch %s; drop it with "
                          "`knowforge generate knowgen --drop %s`", params.batch, params.batch)
        raise
    lap("plan_apply")

    chains2, chains3 = read_chains(store, params, entities)
    lap("ka_read")
    specs = build_specs(entities, inputs, params, chains2, chains3)
    lap("questions_build")
    write_benchmark(store, method="knowgen", name=params.batch, seed=params.seed,
                    params=params.model_dump(mode="json"), source_hash=source_hash)
    # the items are made (in the writer's prefetch thread) while the earlier ones are written
    write_questions(store, iter_items(specs, params), new=True, extra_props={"batch": params.batch},
                    batch_size=QUESTION_BATCH_SIZE, workers=QUESTION_WRITERS,
                    progress=(lambda n: progress("questions", n, len(specs))) if progress else None)
    lap("questions_write")
    timings["total"], cpu["total"] = time.perf_counter() - t0, time.process_time() - c0
    by_type: dict[str, int] = {}
    for s in specs:
        by_type[s.qtype] = by_type.get(s.qtype, 0) + 1
    log.info("knowgen batch %s: %d entities, %d questions in %.1fs", params.batch, len(entities),
             len(specs), timings["total"])
    return GenerationSummary(batch=params.batch, entities=len(entities),
                             facts=sum(len(e.facts) for e in entities), questions=len(specs),
                             by_type=by_type, timings=timings, source_hash=source_hash, cpu=cpu)


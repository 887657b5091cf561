"""Batched, idempotent writes of loader records into the store.

Facts go one of three ways, chosen per batch:

- facts already in the graph with the same subject and object and no release years:
  ``store/update_facts`` sets their properties (their edges were written with them);
- new facts: ``store/merge_stubs``, then ``store/create_facts`` (CREATE, no locking MERGE,
  no eager passes);
- anything else (a changed subject or object, release years to accumulate, an id twice in
  one batch, a fact another writer created meanwhile): ``store/upsert_facts``, the general
  MERGE statement, which the other two must leave the graph identical to.

Which facts exist is learnt in one of two ways, whichever the previous batch says is
cheaper: when most facts were new (a first load), ``store/existing_facts`` sends only the ids;
when most existed (a reload), ``store/update_facts`` is sent the whole batch at once and
returns the facts it left alone, so that a reload is one statement per batch.
Several batches are in flight at once (``FACT_WRITERS``, see ``write_facts``): lookups,
property updates and creates of different batches run in their own transactions, so the
server works on more than one core; batches that share a fact id never overlap, and the
statements that create entities (stubs, the general merge) run in batch order.
``benchmarks/store_write_rate.py`` measures the writer against a plain CREATE, against
``store/upsert_facts`` alone and against itself with one batch at a time.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Sized
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from knowforge.errors import ConfigError
from knowforge.kg.driver import neo4j
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Progress, Store, WriteSummary, chunked, prefetched, refused_rows

PROBE_SIZE = 100
# Batches in flight at once, unless KNOWFORGE_FACT_WRITERS says otherwise; see write_facts.
# Three beat two for reloads on 2 cores; creates are held to one fewer (a third create in
# flight was slower than two there). A server with more cores may take more.
FACT_WRITERS = 3
# Below this many rows a batch is not split among the writers: a small write stays one statement.
SPLIT_FLOOR = 500


def write_entities(store: Store, records: Iterable[EntityRecord], *,
                   progress: Progress | None = None) -> WriteSummary:
    return store.write("store/upsert_entities", (r.to_row() for r in records), progress=progress)


def fact_writers() -> int:
    """How many fact batches ``write_facts`` keeps in flight: ``KNOWFORGE_FACT_WRITERS``, else
    ``FACT_WRITERS``; 1 writes one batch at a time."""
    raw = os.environ.get("KNOWFORGE_FACT_WRITERS", "").strip()
    if not raw:
        return FACT_WRITERS
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(f"KNOWFORGE_FACT_WRITERS must be a whole number of at least 1, not {raw!r}")
    return int(raw)


def write_facts(store: Store, records: Iterable[FactRecord], *,
                progress: Progress | None = None, workers: int | None = None) -> WriteSummary:
    """Write ``records`` in batches. ``_sort_batch`` finds which facts of a batch exist and
    sets the properties of those whose edges stand; then the stubs the new facts point at are
    merged, the new facts created (``_create_facts``) and the rest merged.

    ``store.batch_size`` rows are in flight at a time, as ``workers`` (``fact_writers()`` by
    default) batches of an equal share (``_batch_rows``), each statement in its own transaction,
    so that the server, which runs a transaction on one core, uses several: the lookups and
    property updates of the next batches (all of a reload) run while a batch is finished, and
    up to ``workers - 1`` batches' creates (most of a first load) run while the next are
    sorted out. That holds even when a loader hands over one buffer at a time. A batch that
    shares a fact id with one still in flight waits for it, so the later record still wins.
    Stubs and the general merge, which create entities, run one at a time in batch order, so a
    stub is named by its first reference as in one serial pass.
    """
    summary = WriteSummary()
    mostly_new: bool | None = None
    workers = max(1, fact_writers() if workers is None else workers)
    # The next batch's rows (stable ids, property maps) are built in a thread while the server
    # runs this batch's statements.
    size = _batch_rows(store.batch_size, workers, len(records) if isinstance(records, Sized) else None)
    chunks = chunked(prefetched((r.to_row() for r in records), size), size)
    sorting: deque[tuple[set, Future]] = deque()   # first steps, in batch order
    creating: deque[tuple[set, Future]] = deque()  # creates of new facts, in batch order

    def take_create() -> None:
        _merge_counters(summary, creating.popleft()[1].result())

    def finish_next() -> None:
        nonlocal mostly_new
        ids, first_step = sorting.popleft()
        batch = first_step.result()
        _merge_counters(summary, batch.summary)
        if batch.new:
            stubs = _stub_rows(batch.new)  # up to two a fact: one statement, whatever their number
            _merge_counters(summary, store.write("store/merge_stubs", stubs, batch_size=len(stubs)))
            creating.append((ids, creators.submit(_create_facts, store, batch.new)))
            while len(creating) > workers - 1:
                take_create()
        if batch.other:
            while creating:  # the general merge creates stubs: after every earlier batch
                take_create()
            _merge_counters(summary, store.write("store/upsert_facts", batch.other,
                                                 batch_size=len(batch.other)))
        mostly_new = batch.existed * 2 < len(batch.rows)
        summary.rows += len(batch.rows)
        summary.batches += 1
        if progress:
            progress(len(batch.rows))

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="knowforge-facts") as pool, \
            ThreadPoolExecutor(max_workers=max(1, workers - 1),
                               thread_name_prefix="knowforge-creates") as creators:
        while True:
            try:
                chunk = next(chunks, None)
            except Exception:
                while sorting:  # the batches read before a bad record are written, as before
                    finish_next()
                while creating:
                    take_create()
                raise
            if chunk is None:
                break
            if mostly_new is None:  # a first guess from a few ids; later batches go by the last one
                probe = [row["id"] for row in chunk[:PROBE_SIZE]]
                mostly_new = len(store.run_read_write("store/existing_facts", batch={"ids": probe})) * 2 < len(probe)
            ids = {row["id"] for row in chunk}
            while sorting and (len(sorting) >= workers or _shares(sorting, ids)):
                finish_next()
            while _shares(creating, ids):
                take_create()
            sorting.append((ids, pool.submit(_sort_batch, store, chunk, ids, mostly_new)))
        while sorting:
            finish_next()
        while creating:
            take_create()
    return summary


def _shares(in_flight: deque[tuple[set, Future]], ids: set) -> bool:
    return any(not ids.isdisjoint(other) for other, _ in in_flight)


def _batch_rows(batch_size: int, workers: int, total: int | None) -> int:
    """Rows per batch: a share of ``batch_size`` (or of ``total``, when a caller hands over
    fewer rows, as a loader does with each buffer) for each worker, never split below
    ``SPLIT_FLOOR`` rows (a small write stays one statement)."""
    rows = min(batch_size, total) if total else batch_size
    return max(min(batch_size, SPLIT_FLOOR), -(-rows // workers))


# A batch whose parts fail one by one this many times, with nothing written, fails on something
# other than its rows (its statement, the database): the first error is raised.
ISOLATION_GIVE_UP = 16


def write_isolating(write: Callable[[list], WriteSummary], items: list,
                    refused: Callable[[object, BaseException], None]) -> int:
    """``write(items)``, and how many were written. Only when it fails on what its rows hold
    (``refused_rows``) are the items written again, in halves and then halves of the half that
    fails, down to single items: each item that fails alone goes to ``refused`` with its error
    and every other item is written. Writes are idempotent (MERGE on stable ids), so items that a
    failed call wrote before it failed are written again harmlessly.

    This is the failure path only: a batch that is written costs nothing more. Halving finds a
    few bad items among n in about 2·log2(n) statements each, where writing item by item would
    take n. When ``ISOLATION_GIVE_UP`` single items have failed and none was written, the
    statement, not the rows, is at fault and the first error is raised.
    """
    try:
        return write(items).rows
    except Exception as exc:  # noqa: BLE001 - refused_rows decides; anything else is re-raised
        if not refused_rows(exc):
            raise
        first = exc
    state = {"written": 0, "failed": 0}
    failures: list[tuple[object, BaseException]] = []

    def attempt(part: list) -> None:
        try:
            state["written"] += write(part).rows
            return
        except Exception as exc:  # noqa: BLE001 - as above
            if not refused_rows(exc):
                raise
            if len(part) == 1:
                failures.append((part[0], exc))
                state["failed"] += 1
                if state["failed"] >= ISOLATION_GIVE_UP and not state["written"]:
                    raise first from exc
                return
        middle = len(part) // 2
        attempt(part[:middle])
        attempt(part[middle:])

    if len(items) == 1:
        failures.append((items[0], first))
    else:
        middle = len(items) // 2
        attempt(items[:middle])
        attempt(items[middle:])
    for item, exc in failures:
        refused(item, exc)
    return state["written"]


def write_relations(store: Store, records: Iterable[RelationRecord]) -> WriteSummary:
    return store.write("store/upsert_relations", (r.to_row() for r in records))


@dataclass
class _SortedBatch:
    """One batch after its first step: the facts still to write, and how many existed."""

    rows: list[dict]
    new: list[dict] = field(default_factory=list)
    other: list[dict] = field(default_factory=list)
    existed: int = 0
    summary: WriteSummary = field(default_factory=WriteSummary)


def _sort_batch(store: Store, rows: list[dict], ids: set[str], mostly_new: bool) -> _SortedBatch:
    """First step: which facts are new, which exist with the same subject and object (their
    properties are set here, by ``store/update_facts``), and which need the general MERGE.
    It writes only the properties of facts of this batch (``ids``, its distinct fact ids), so
    that batches with distinct fact ids can take it at the same time."""
    batch = _SortedBatch(rows)
    if len(ids) != len(rows):
        # upsert_facts merges repeated ids row by row (properties and release years).
        batch.other = rows
        return batch
    same: list[dict] = []
    if mostly_new:
        existing = {r["id"]: r for r in store.run_read_write("store/existing_facts", batch={"ids": list(ids)})}
        for row in rows:
            found = existing.get(row["id"])
            if found is None:
                batch.new.append(row)
            elif (not row["seen_in"] and found["subject_id"] == row["subject_id"]
                  and found["object_id"] == row["object_id"]):
                same.append(row)
            else:
                batch.other.append(row)
        batch.existed = len(existing)
    else:
        same = [row for row in rows if not row["seen_in"]]
        batch.other = [row for row in rows if row["seen_in"]]
        batch.existed = len(rows)
    if same:
        # The rows as they are: their other keys cost less to send than new maps cost to build.
        left, part = store.write_returning("store/update_facts", batch={"rows": same})
        _merge_counters(batch.summary, part)
        if left:
            by_id = {row["id"]: row for row in same}
            new = [by_id[r["id"]] for r in left if r["new"]]
            batch.new += new
            batch.other += [by_id[r["id"]] for r in left if not r["new"]]
            if not mostly_new:
                batch.existed -= len(new)
    return batch


def _create_facts(store: Store, rows: list[dict]) -> WriteSummary:
    """Create facts that the lookup found new, their stubs merged: CREATE, no locking MERGE.
    One that another writer created since the lookup fails the unique constraint; then the
    batch goes to the general merge, which leaves the same graph."""
    try:
        return store.write("store/create_facts", [fact_node_properties(row) for row in rows],
                           batch_size=len(rows))
    except neo4j.exceptions.ConstraintError:
        return store.write("store/upsert_facts", rows, batch_size=len(rows))


def _merge_counters(summary: WriteSummary, part: WriteSummary) -> None:
    for key, value in part.counters.items():
        summary.counters[key] = summary.counters.get(key, 0) + value


def _stub_rows(rows: list[dict]) -> list[dict]:
    """Subject and object ids in reference order (first reference names the stub)."""
    stubs: dict[str, dict] = {}
    for row in rows:
        for key, name in ((row["subject_id"], row["subject_name"]), (row["object_id"], row["object_name"])):
            if key is not None and key not in stubs:
                stubs[key] = {"id": key, "name": name if name is not None else key}
    return list(stubs.values())


def fact_node_properties(row: dict) -> dict:
    """``{subject_id, object_id, props}``: the properties upsert_facts leaves on a fact it
    creates, as one map (create_facts and the bulk layout write exactly these)."""
    props = dict(row["props"])
    props["id"] = row["id"]
    props["subject_id"] = row["subject_id"]
    if row["object_id"] is not None:
        props["object_id"] = row["object_id"]
    years = row["seen_in"]
    if years:  # to_row gives them sorted and distinct
        props.update(seen_in=years, first_seen=years[0], last_seen=years[-1],
                     start_year=years[0], end_year=years[-1])
    return {"subject_id": row["subject_id"], "object_id": row["object_id"], "props": props}

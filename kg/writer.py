"""Batched, idempotent writes of loader records into the store.

Facts go one of three ways, chosen per batch:

- facts already in the graph with the same subject and object and no release years:
  ``store/update_facts`` sets their properties (their edges were written with them);
- new facts: ``store/merge_stubs`` + ``store/create_facts`` in one transaction (CREATE, no
  locking MERGE, no eager passes);
- anything else (a changed subject or object, release years to accumulate, an id twice in
  one batch, a fact another writer created meanwhile): ``store/upsert_facts``, the general
  MERGE statement, which the other two must leave the graph identical to.

Which facts exist is learnt in one of two ways, whichever the previous batch says is
cheaper: when most facts were new (a first load), ``store/existing_facts`` sends only the ids;
when most existed (a reload), ``store/update_facts`` is sent the whole batch at once and
returns the facts it left alone, so that a reload is one statement per batch.
Each batch is written in two steps: the lookup and property update above, then the creates
and general merges. The first step of the next batches runs while a batch finishes, each in
its own transaction (``FACT_WRITERS``), so a reload keeps several server cores busy; batches
that share a fact id never overlap, and the second steps run in batch order.
``benchmarks/store_write_rate.py`` measures both against a plain CREATE and against
``store/upsert_facts`` alone.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sized
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import neo4j

from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Progress, Store, WriteSummary, chunked, prefetched

PROBE_SIZE = 100
# Batches whose first step (lookup, property update) may be in flight at once; see write_facts.
FACT_WRITERS = 3
SPLIT_FLOOR = 500


def write_entities(store: Store, records: Iterable[EntityRecord], *,
                   progress: Progress | None = None) -> WriteSummary:
    return store.write("store/upsert_entities", (r.to_row() for r in records), progress=progress)


def write_facts(store: Store, records: Iterable[FactRecord], *,
                progress: Progress | None = None, workers: int = FACT_WRITERS) -> WriteSummary:
    """Write ``records`` in batches, each in two steps: ``_sort_batch`` finds which facts
    exist and sets the properties of those whose edges stand, then ``_finish_batch`` creates
    the new ones and merges the rest.

    ``store.batch_size`` rows are in flight at a time, as ``workers`` batches of an equal
    share (``_batch_rows``): the first step of the next batches runs, each in its own transaction, while this
    one finishes, so a reload, which is all first step, keeps ``workers`` server transactions
    busy (the server runs one on one core), even when a loader hands over one buffer at a time.
    A batch that shares a fact id with one still in flight waits for it, so the later record
    still wins; second steps run one at a time in batch order, so stubs are named by their
    first reference.
    """
    summary = WriteSummary()
    mostly_new: bool | None = None
    workers = max(1, workers)
    # The next batch's rows (stable ids, property maps) are built in a thread while the server
    # runs this batch's statements.
    size = _batch_rows(store.batch_size, workers, len(records) if isinstance(records, Sized) else None)
    chunks = chunked(prefetched((r.to_row() for r in records), size), size)
    ahead: deque[tuple[set, Future]] = deque()

    def finish_first() -> None:
        nonlocal mostly_new
        _, sorting = ahead.popleft()
        batch = sorting.result()
        part = _finish_batch(store, batch)
        mostly_new = batch.existed * 2 < len(batch.rows)
        _merge_counters(summary, part)
        summary.rows += len(batch.rows)
        summary.batches += 1
        if progress:
            progress(len(batch.rows))

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="knowforge-facts") as pool:
        while True:
            try:
                chunk = next(chunks, None)
            except Exception:
                while ahead:  # the batches read before a bad record are written, as before
                    finish_first()
                raise
            if chunk is None:
                break
            if mostly_new is None:  # a first guess from a few ids; later batches go by the last one
                probe = [row["id"] for row in chunk[:PROBE_SIZE]]
                mostly_new = len(store.run_read_write("store/existing_facts", ids=probe)) * 2 < len(probe)
            ids = {row["id"] for row in chunk}
            while ahead and (len(ahead) >= workers or any(not ids.isdisjoint(other) for other, _ in ahead)):
                finish_first()
            ahead.append((ids, pool.submit(_sort_batch, store, chunk, mostly_new)))
        while ahead:
            finish_first()
    return summary


def _batch_rows(batch_size: int, workers: int, total: int | None) -> int:
    """Rows per batch: a share of ``batch_size`` (or of ``total``, when a caller hands over
    fewer rows, as a loader does with each buffer) for each worker, never split below
    ``SPLIT_FLOOR`` rows (a small write stays one statement)."""
    rows = min(batch_size, total) if total else batch_size
    return max(min(batch_size, SPLIT_FLOOR), -(-rows // workers))


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


def _sort_batch(store: Store, rows: list[dict], mostly_new: bool) -> _SortedBatch:
    """First step: which facts are new, which exist with the same subject and object (their
    properties are set here, by ``store/update_facts``), and which need the general MERGE.
    It writes only the properties of facts of this batch, so that batches with distinct fact
    ids can take it at the same time."""
    batch = _SortedBatch(rows)
    ids = [row["id"] for row in rows]
    if len(set(ids)) != len(ids):
        # upsert_facts merges repeated ids row by row (properties and release years).
        batch.other = rows
        return batch
    same: list[dict] = []
    if mostly_new:
        existing = {r["id"]: r for r in store.run_read_write("store/existing_facts", ids=ids)}
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
        left, part = store.write_returning("store/update_facts", rows=same)
        _merge_counters(batch.summary, part)
        if left:
            by_id = {row["id"]: row for row in same}
            new = [by_id[r["id"]] for r in left if r["new"]]
            batch.new += new
            batch.other += [by_id[r["id"]] for r in left if not r["new"]]
            if not mostly_new:
                batch.existed -= len(new)
    return batch


def _finish_batch(store: Store, batch: _SortedBatch) -> WriteSummary:
    """Second step: create the new facts (with their stubs and edges) and merge the others."""
    summary = batch.summary
    other = batch.other
    if batch.new:
        try:
            _merge_counters(summary, store.write_together([
                ("store/merge_stubs", {"rows": _stub_rows(batch.new)}),
                ("store/create_facts", {"rows": [fact_node_properties(row) for row in batch.new]})]))
        except neo4j.exceptions.ConstraintError:
            other = batch.new + other  # created by another writer since we looked
    if other:
        _merge_counters(summary, store.write("store/upsert_facts", other, batch_size=len(other)))
    return summary


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

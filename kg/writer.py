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
``benchmarks/store_write_rate.py`` measures both against a plain CREATE and against
``store/upsert_facts`` alone.
"""

from __future__ import annotations

from collections.abc import Iterable

import neo4j

from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Progress, Store, WriteSummary, chunked, prefetched

PROBE_SIZE = 100


def write_entities(store: Store, records: Iterable[EntityRecord], *,
                   progress: Progress | None = None) -> WriteSummary:
    return store.write("store/upsert_entities", (r.to_row() for r in records), progress=progress)


def write_facts(store: Store, records: Iterable[FactRecord], *,
                progress: Progress | None = None) -> WriteSummary:
    summary = WriteSummary()
    mostly_new: bool | None = None
    # The next batch's rows (stable ids, property maps) are built in a thread while the server
    # runs this batch's statements.
    rows = prefetched((r.to_row() for r in records), store.batch_size)
    for chunk in chunked(rows, store.batch_size):
        if mostly_new is None:  # a first guess from a few ids; later batches go by the last one
            probe = [row["id"] for row in chunk[:PROBE_SIZE]]
            mostly_new = len(store.run_read_write("store/existing_facts", ids=probe)) * 2 < len(probe)
        part, existed = _write_fact_batch(store, chunk, mostly_new)
        mostly_new = existed * 2 < len(chunk)
        _merge_counters(summary, part)
        summary.rows += len(chunk)
        summary.batches += 1
        if progress:
            progress(len(chunk))
    return summary


def write_relations(store: Store, records: Iterable[RelationRecord]) -> WriteSummary:
    return store.write("store/upsert_relations", (r.to_row() for r in records))


def _write_fact_batch(store: Store, rows: list[dict], mostly_new: bool) -> tuple[WriteSummary, int]:
    """Write one batch; also returns how many of its facts were already in the graph."""
    summary = WriteSummary()
    ids = [row["id"] for row in rows]
    if len(set(ids)) != len(ids):
        # upsert_facts merges repeated ids row by row (properties and release years).
        return store.write("store/upsert_facts", rows, batch_size=len(rows)), 0
    new: list[dict] = []
    same: list[dict] = []
    other: list[dict] = []
    if mostly_new:
        existing = {r["id"]: r for r in store.run_read_write("store/existing_facts", ids=ids)}
        for row in rows:
            found = existing.get(row["id"])
            if found is None:
                new.append(row)
            elif (not row["seen_in"] and found["subject_id"] == row["subject_id"]
                  and found["object_id"] == row["object_id"]):
                same.append(row)
            else:
                other.append(row)
        existed = len(existing)
    else:
        same = [row for row in rows if not row["seen_in"]]
        other = [row for row in rows if row["seen_in"]]
        existed = len(rows)
    if same:
        left, part = store.write_returning("store/update_facts", rows=[
            {"id": r["id"], "subject_id": r["subject_id"], "object_id": r["object_id"], "props": r["props"]}
            for r in same])
        _merge_counters(summary, part)
        if left:
            by_id = {row["id"]: row for row in same}
            new += [by_id[r["id"]] for r in left if r["new"]]
            other += [by_id[r["id"]] for r in left if not r["new"]]
    if not mostly_new:
        existed -= len(new)
    if new:
        try:
            _merge_counters(summary, store.write_together([
                ("store/merge_stubs", {"rows": _stub_rows(new)}),
                ("store/create_facts", {"rows": [fact_node_properties(row) for row in new]})]))
        except neo4j.exceptions.ConstraintError:
            other = new + other  # created by another writer since we looked
    if other:
        _merge_counters(summary, store.write("store/upsert_facts", other, batch_size=len(other)))
    return summary, existed


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

"""Batched, idempotent writes of loader records into the store."""

from __future__ import annotations

from collections.abc import Iterable

from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Progress, Store, WriteSummary


def write_entities(store: Store, records: Iterable[EntityRecord], *,
                   progress: Progress | None = None) -> WriteSummary:
    return store.write("store/upsert_entities", (r.to_row() for r in records), progress=progress)


def write_facts(store: Store, records: Iterable[FactRecord], *,
                progress: Progress | None = None) -> WriteSummary:
    return store.write("store/upsert_facts", (r.to_row() for r in records), progress=progress)


def write_relations(store: Store, records: Iterable[RelationRecord]) -> WriteSummary:
    return store.write("store/upsert_relations", (r.to_row() for r in records))

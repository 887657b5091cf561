"""One batched apply: planned entities become ``:Artificial`` entities, generated facts and
provenance edges in a single named statement (``cypher/knowgen/apply_entities.cypher``)."""

from __future__ import annotations

from knowforge.kg.cypher import validate_labels
from collections.abc import Iterable

from knowforge.kg.store import Progress, Store, WriteSummary, prefetched

from .params import KnowGenParams
from .plan import PlannedEntity, PlannedFact

# Entities per transaction: each row carries ~10-20 facts and their provenance edges.
APPLY_BATCH_SIZE = 1000


def fact_row(entity: PlannedEntity, f: PlannedFact, params: KnowGenParams) -> dict:
    props = {"kind": f.kind, "relation": f.relation, "relation_label": f.relation_label,
             "value": f.value, "value_num": f.value_num, "unit": f.unit, "datatype": f.datatype,
             "object_id": f.object_id, "subject_id": entity.id, "layer": "generated",
             "batch": params.batch, "op": f.op, "source": "knowgen", "temporal": False,
             "class_level": f.class_level}
    return {"id": f.id, "op": f.op, "object_id": f.object_id,
            "props": {k: v for k, v in props.items() if v is not None},
            "sources": [{"fact_id": fid, "role": role} for fid, role in f.sources]}


def entity_row(entity: PlannedEntity, params: KnowGenParams) -> dict:
    props = {"name": entity.name, "alias_text": "", "batch": params.batch,
             "seed": params.seed, "parent_id": entity.cls.id, "parent_entity_id": entity.parent.id,
             "class_id": entity.cls.id, "rank": entity.rank, "alcuna_id": entity.alcuna_id,
             "source": "knowgen", "domain": "artificial", "stub": False,
             "description": f"artificial {entity.rank or 'entity'} derived from {entity.parent.name}"}
    return {"id": entity.id, "labels": validate_labels(entity.labels),
            "parent_entity_id": entity.parent.id,
            "props": {k: v for k, v in props.items() if v is not None},
            "facts": [fact_row(entity, f, params) for f in entity.facts],
            "dropout": [f.id for f in entity.dropout]}


def apply_plan(store: Store, params: KnowGenParams, entities: Iterable[PlannedEntity], *,
               progress: Progress | None = None) -> WriteSummary:
    """Write every planned entity of the batch (the Batch node must exist). The rows of the
    next statement (and, when ``entities`` is a lazy plan, the planning itself) are made in a
    thread while the server runs the current statement."""
    rows = prefetched((entity_row(e, params) for e in entities), APPLY_BATCH_SIZE)
    return store.write("knowgen/apply_entities", rows, batch_size=APPLY_BATCH_SIZE,
                       progress=progress, batch_id=params.batch)

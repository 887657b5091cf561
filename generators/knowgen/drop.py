"""Delete one KnowGen batch: its questions (with the eval engine's answers to them and runs left
empty), generated facts, artificial entities and the Batch node. Source nodes are never touched, so the graph is as before."""

from __future__ import annotations

from dataclasses import dataclass

from knowforge.errors import InputError
from knowforge.kg.store import Store


DELETE_CHUNK = 5000


@dataclass(frozen=True)
class DropSummary:
    batch: str
    nodes_deleted: int
    relationships_deleted: int


def drop_batch(store: Store, batch: str) -> DropSummary:
    if not store.read("knowgen/read_batch", batch=batch):
        raise InputError(f"no KnowGen batch {batch!r} in the graph")
    nodes = rels = 0
    for name, params in (("knowgen/delete_batch_questions", {"benchmark": f"knowgen:{batch}"}),
                         ("knowgen/delete_batch_runs", {"benchmark": f"knowgen:{batch}"}),
                         ("knowgen/delete_batch_facts", {"batch": batch}),
                         ("knowgen/delete_batch_entities", {"batch": batch})):
        # Bounded transactions, repeated until a pass deletes nothing (the entity step also
        # deletes the Batch node on its last pass).
        while True:
            s = store.run(name, limit=DELETE_CHUNK, **params)
            nodes += s["nodes_deleted"]
            rels += s["relationships_deleted"]
            if s["nodes_deleted"] == 0:
                break
    s = store.run("benchmark/delete_benchmark", id=f"knowgen:{batch}")
    nodes += s["nodes_deleted"]
    rels += s["relationships_deleted"]
    return DropSummary(batch=batch, nodes_deleted=nodes, relationships_deleted=rels)

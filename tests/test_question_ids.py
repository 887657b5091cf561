"""Question ids are unique per benchmark: the same generation under two names, or the same
release imported twice, never gives two benchmarks a question id in common (a run's answers are
attached by question id). chrono, link and newterm ids start with the benchmark id; an events
id is a hash over its event, whose id hashes the batch; a KnowGen id names its batch."""

from __future__ import annotations

from events_subgraph import build_subgraph

from knowforge.generators.events.build import generate_events, read_batch
from knowforge.generators.knowgen import KnowGenParams, generate_batch
from knowforge.generators.knowgen.method import METHOD as KNOWGEN
from knowforge.generators.knowgen.synthetic import synthetic_taxonomy, write_taxonomy


def test_events_batches_of_the_same_inputs_share_no_question_id(store):
    build_subgraph(store)
    ids = {}
    for batch in ("a", "b"):
        generate_events(store, types=["transfer-player", "win-election"], n=2, seed=3, batch=batch)
        items = [i for _, its in read_batch(store, batch) for i in its]
        assert items and {i.benchmark for i in items} == {f"events:{batch}"}
        ids[batch] = {i.id for i in items}
        assert len(ids[batch]) == len(items)
    assert not ids["a"] & ids["b"]


def test_knowgen_batches_of_the_same_inputs_share_no_question_id(store):
    entities, facts = synthetic_taxonomy(30, seed=2)
    write_taxonomy(store, entities, facts)
    ids = {}
    for batch in ("a", "b"):
        generate_batch(store, KnowGenParams(batch=batch, seed=4, n=5))
        items = KNOWGEN.items(store, batch)
        assert items and all(i.id.startswith(f"gen:{batch}:") for i in items)
        ids[batch] = {i.id for i in items}
    assert not ids["a"] & ids["b"]

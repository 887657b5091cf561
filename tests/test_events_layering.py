"""Layering: before/after reads, stacking and unstacking, source facts untouched."""

from __future__ import annotations

import pytest
from events_subgraph import build_subgraph

from knowforge.errors import KnowforgeError
from knowforge.generators.events.instantiate import Planner
from knowforge.generators.events.layering import (apply_events, facts_as_of, source_checksum,
                                                  unapply_batch, unapply_last)
from knowforge.generators.events.paths import read_current
from knowforge.generators.events.templates import load_templates


def _objects(rows, subject, relation):
    return sorted((r["object_id"] or r["object"]) for r in rows
                  if r["subject_id"] == subject and r["relation"] == relation)


def _current(store, subject, relation):
    return sorted((r["object_id"] or ("unknown" if r["unknown"] else r["object_name"]))
                  for r in read_current(store, [(subject, relation)]).get((subject, relation), []))


@pytest.fixture
def planner(store):
    build_subgraph(store)
    return Planner(store, load_templates(), seed=0, batch="L", date="2025-01-01")


def test_before_and_after_reads(store, planner):
    plan = planner.plan_fixed(planner.templates["transfer-player"], {"A": "Q11571", "B": "Q8682"})
    apply_events(store, [plan])
    before = facts_as_of(store, plan.id, ["Q11571"], after=False)
    after = facts_as_of(store, plan.id, ["Q11571"], after=True)
    assert _objects(before, "Q11571", "P54") == ["Q1104"]
    assert _objects(after, "Q11571", "P54") == ["Q8682"]
    assert _objects(before, "Q11571", "P1618") == ["7"]
    unknown = [r for r in after if r["relation"] == "P1618"]
    assert len(unknown) == 1 and unknown[0]["unknown"] is True and unknown[0]["layer"] == "edit"
    assert _objects(after, "Q11571", "residence_country") == ["Q29"]
    assert _objects(before, "Q11571", "residence_country") == []


def test_stack_and_unstack_in_order(store, planner):
    checksum = source_checksum(store)
    first = planner.plan_fixed(planner.templates["transfer-player"], {"A": "Q11571", "B": "Q8682"})
    apply_events(store, [first])
    assert _current(store, "Q11571", "P54") == ["Q8682"]
    # planned on top of the first event: Ronaldo now leaves Real Madrid
    second = Planner(store, planner.templates, seed=0, batch="L2").plan_fixed(
        planner.templates["transfer-player"], {"A": "Q11571", "B": "Q9616"})
    assert {r.object_id for r in second.retractions if r.relation == "P54"} == {"Q8682"}
    seqs = apply_events(store, [second])
    assert seqs == [1]
    assert _current(store, "Q11571", "P54") == ["Q9616"]
    assert _current(store, "Q11571", "P118") == ["Q9448"]
    # the first event still reads as it was
    after_first = facts_as_of(store, first.id, ["Q11571"], after=True)
    assert _objects(after_first, "Q11571", "P54") == ["Q8682"]
    with pytest.raises(KnowforgeError, match="not the last applied"):
        unapply_last(store, batch="L")
    assert unapply_last(store) == second.id
    assert _current(store, "Q11571", "P54") == ["Q8682"]
    assert unapply_last(store) == first.id
    assert _current(store, "Q11571", "P54") == ["Q1104"]
    assert _current(store, "Q11571", "P1618") == ["7"]
    assert unapply_last(store) is None
    assert source_checksum(store) == checksum


def test_source_checksum_unchanged_by_a_batch(store, planner):
    checksum = source_checksum(store)
    plans = [planner.plan_fixed(planner.templates[t], f, i) for i, (t, f) in enumerate([
        ("win-election", {"B": "Q30", "A": "Q22686"}), ("death", {"A": "Q76"}),
        ("acquire", {"A": "Q312", "B": "Q380"}), ("divorce", {"A": "Q36215"})])]
    apply_events(store, plans)
    assert source_checksum(store) == checksum
    assert _current(store, "Q30", "P35") == ["Q22686"]
    assert _current(store, "Q13133", "P26") == ["unknown"]
    counts = store.user_query("MATCH (e:Event {batch: 'L'}) RETURN count(e) AS n, "
                              "count { (:Event)-[:SLOT]->() } AS slots, "
                              "count { (:Event)-[:RETRACTS]->() } AS retracts")[0]
    assert counts["n"] == 4 and counts["slots"] == 3 + 1 + 2 + 2 and counts["retracts"] > 0
    assert unapply_batch(store, "L") == 4
    assert source_checksum(store) == checksum
    assert _current(store, "Q30", "P35") == ["Q6279"]
    left = store.user_query("MATCH (f:Fact {layer: 'edit'}) RETURN count(f) AS n")[0]["n"]
    assert left == 0

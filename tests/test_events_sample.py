"""Every event type on the bundled Wikidata sample (loaded by the real loader), end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowforge.generators.events.build import generate_events
from knowforge.generators.events.instantiate import Planner
from knowforge.generators.events.layering import source_checksum, unapply_batch
from knowforge.kg.ripple import ripple_event
from knowforge.generators.events.templates import load_templates
from knowforge.methods import get_method
from knowforge.workflow import export

SAMPLE = Path(__file__).resolve().parents[1] / "kg" / "samples" / "wikidata" / "entities.json"


@pytest.fixture
def wikidata(store):
    assert SAMPLE.is_file(), f"the bundled Wikidata sample is missing: {SAMPLE}"
    from knowforge.kg.loaders.wikidata_json import load_wikidata_json

    load_wikidata_json(store, [SAMPLE])
    return store


def test_every_type_on_the_sample_with_questions_and_export(wikidata, tmp_path):
    store = wikidata
    checksum = source_checksum(store)
    templates = load_templates()
    summary = generate_events(store, types=None, n=2, seed=0, batch="s")
    assert {t for t, made in summary.made.items() if made} == set(templates), summary.made
    for plan in summary.plans:
        items = summary.items[plan.id]
        assert any(i.slices["scope"] == "in" for i in items), plan.text
    with_locality = {p.type for p in summary.plans
                     if any(i.slices["scope"] == "out" for i in summary.items[p.id])}
    assert len(with_locality) >= 10
    # ELKEN's metric.py pairs out-of-scope answers by question text and stops on a repeat:
    # a batch asks each out-of-scope question once
    local = [i.question for items in summary.items.values() for i in items if i.slices["scope"] == "out"]
    assert local and len(local) == len(set(local))
    export(get_method("events"), store, "s", "elken", tmp_path / "s.json")
    events = json.loads((tmp_path / "s.json").read_text())
    assert len(events) == len(summary.plans)
    assert source_checksum(store) == checksum
    # a two-hop declared ripple: the new head of state's residence is read through
    # country -> head-of-state office -> official residence
    win = next(p for p in summary.plans if p.type == "win-election")
    report = ripple_event(store, win.id, hops=2)
    residence = next(i for i in win.impacts if i.relation == "P263" and not i.unknown)
    assert [h.relation for h in residence.answer.path] == ["P1906", "P263"]
    assert {f.fact.fact_id for f in report.declared} >= {h.fact_id for h in residence.answer.path}
    assert unapply_batch(store, "s") == len(summary.plans)


def test_hand_checked_events_on_the_sample(wikidata):
    planner = Planner(wikidata, load_templates(), seed=0, batch="h")
    transfer = planner.plan_fixed(planner.templates["transfer-player"], {"A": "Q11571", "B": "Q8682"})
    got = {(i.relation, i.answer.name) for i in transfer.impacts}
    assert ("P54", "Real Madrid CF") in got and ("P1618", "unknown") in got
    al_nassr = wikidata.user_query("MATCH (c:Club {name: 'Al Nassr FC'}) RETURN c.id AS id")[0]["id"]
    assert {r.object_id for r in transfer.retractions if r.relation == "P54"} == {al_nassr}
    win = planner.plan_fixed(planner.templates["win-election"], {"B": "Q30", "A": "Q76"})
    got = {(i.subject.id, i.relation, i.answer.name) for i in win.impacts}
    assert ("Q30", "previous_head_of_state", "Donald Trump") in got
    assert ("Q76", "P39", "President of the United States") in got
    assert ("Q76", "P551", "Washington, D.C.") in got
    assert ("Q76", "P263", "White House") in got
    assert ("Q22686", "P263", "unknown") in got
    # the office's officeholder: a ripple `knowforge ripple` found missing, now declared
    assert ("Q11696", "P1308", "Barack Obama") in got
    assert any(r.relation == "P1308" and r.object_id == "Q22686" for r in win.retractions)

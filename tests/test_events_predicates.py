"""The closed predicate vocabulary of event templates: what each kind means on the hand-built
subgraph, and that a hostile ``--templates-dir`` is refused before anything reaches Neo4j."""

from __future__ import annotations

import pytest
import yaml
from click.testing import CliRunner
from events_subgraph import build_subgraph

from knowforge.cli.main import cli
from knowforge.errors import InputError, UnsafeIdentifier
from knowforge.generators.events.build import generate_events
from knowforge.generators.events.instantiate import Planner, plan_events
from knowforge.generators.events.layering import apply_events
from knowforge.generators.events.predicates import FactTest, Predicate, PredicateCache, evaluate
from knowforge.generators.events.templates import EventTemplate, load_templates

INJECT = "true} WITH 1 AS x MATCH (n) DETACH DELETE n //"

RETIRE = {
    "version": 1, "type": "retire", "split": "custom", "text": "{A} retired from {B}.",
    "slots": {"A": {"label": "Person", "where": [
                  {"name": "A plays somewhere", "has_fact": {"subject": "A", "relation": "P54", "current": True}}]},
              "B": {"derive": {"from": "A", "path": ["P54"]}}},
    "impacts": [{"subject": "A", "relation": "P54", "object": "unknown", "replace": True}],
}


def _holds(store, spec: dict, filling: dict) -> bool:
    return evaluate(store, Predicate(name="t", **spec), [filling])[0]


def test_fact_predicates(store):
    build_subgraph(store)
    alive = {"lacks_fact": {"subject": "A", "relation": "P570"}}
    assert _holds(store, alive, {"A": "Q76"}) and not _holds(store, alive, {"A": "Q99001"})
    held = {"has_fact": {"subject": "A", "relation": "P39"}}
    holds = {"has_fact": {"subject": "A", "relation": "P39", "current": True}}
    assert _holds(store, held, {"A": "Q76"}) and not _holds(store, holds, {"A": "Q76"})   # ended 2017
    assert _holds(store, holds, {"A": "Q6279"})
    club = {"has_fact": {"subject": "A", "relation": "P54", "object": "B", "current": True}}
    assert _holds(store, club, {"A": "Q11571", "B": "Q1104"})
    assert not _holds(store, club, {"A": "Q11571", "B": "Q8682"})       # Real Madrid: ended 2018
    any_job = {"has_fact": {"subject": "A", "relation": ["P39", "P108"], "current": True}}
    assert _holds(store, any_job, {"A": "Q3503829"}) and not _holds(store, any_job, {"A": "Q76"})
    # one call answers many fillings, in order; repeated fillings are asked once
    got = evaluate(store, Predicate(name="t", **alive),
                   [{"A": "Q76"}, {"A": "Q99001"}, {"A": "Q615"}, {"A": "Q76"}])
    assert got == [True, False, True, True]
    assert evaluate(store, Predicate(name="t", **alive), []) == []


def test_retracted_facts_are_skipped_unless_asked_for(store):
    build_subgraph(store)
    married = {"has_fact": {"subject": "A", "relation": "P26", "object": "B", "current": True}}
    ever = {"has_fact": {"subject": "A", "relation": "P26", "object": "B", "current": True,
                         "include_retracted": True}}
    pair = {"A": "Q76", "B": "Q13133"}
    assert _holds(store, married, pair) and _holds(store, ever, pair)
    templates = load_templates()
    divorce = Planner(store, templates, seed=0, batch="p").plan_fixed(templates["divorce"], {"A": "Q76"})
    apply_events(store, [divorce])
    assert not _holds(store, married, pair) and _holds(store, ever, pair)


def test_shared_object_terms_and_any_of(store):
    build_subgraph(store)
    office = {"shares_object": {"subject": "B", "relations": ["P1906", "P1313"], "current": True}}
    person = {"shares_object": {"subject": "B", "relations": ["P35", "P6"], "current": True}}
    assert _holds(store, office, {"B": "Q30"}) and _holds(store, person, {"B": "Q30"})
    assert not _holds(store, office, {"B": "Q145"}) and not _holds(store, office, {"B": "Q183"})
    terms = {"terms_within": {"subject": "B", "relation": "P35", "max_years": 15}}
    assert _holds(store, terms, {"B": "Q30"})                      # Obama 2009-2017
    assert not _holds(store, {"terms_within": {**terms["terms_within"], "max_years": 7}}, {"B": "Q30"})
    assert not _holds(store, terms, {"B": "Q145"})                 # no ended reign on record
    either = {"any_of": [office, {"has_fact": {"subject": "B", "relation": "P36"}}]}
    fillings = [{"B": "Q30"}, {"B": "Q145"}, {"B": "Q851"}]
    assert evaluate(store, Predicate(name="t", **either), fillings) == [True, True, False]
    cache = PredicateCache(store)
    predicate = Predicate(name="t", **either)
    assert cache.evaluate(predicate, fillings) == cache.evaluate(predicate, fillings[::-1])[::-1]


def test_values_reach_the_graph_only_as_parameters(store):
    """Even a predicate built around validation (model_construct) cannot change a query."""
    build_subgraph(store)
    before = store.user_query("MATCH (n) RETURN count(n) AS n")[0]["n"]
    rogue = Predicate.model_construct(name="x", has_fact=FactTest.model_construct(
        subject="A", relation=(INJECT,), object=None, current=False, include_retracted=False),
        lacks_fact=None, shares_object=None, terms_within=None, any_of=None)
    assert evaluate(store, rogue, [{"A": f"Q76'}}) {INJECT}"}]) == [False]
    assert store.user_query("MATCH (n) RETURN count(n) AS n")[0]["n"] == before


def test_the_planner_checks_a_label_again_before_it_reaches_cypher(store):
    """A template built in Python without ``parse_template`` still cannot pass a bad label."""
    build_subgraph(store)
    before = store.user_query("MATCH (n) RETURN count(n) AS n")[0]["n"]
    data = {**RETIRE, "slots": {**RETIRE["slots"], "A": {"label": f"Person) {INJECT}"}}}
    template = EventTemplate(**data)
    with pytest.raises(UnsafeIdentifier):
        plan_events(store, {"retire": template}, ["retire"], 1, seed=0, batch="x")
    assert store.user_query("MATCH (n) RETURN count(n) AS n")[0]["n"] == before


HOSTILE = [  # (what the file does, patch to RETIRE, the field the error must name)
    ("where is Cypher text", {"slots": {**RETIRE["slots"], "A": {"label": "Person", "where": INJECT}}},
     "slots.A.where"),
    ("a where entry is Cypher", {"slots": {**RETIRE["slots"], "A": {"label": "Person", "where": [
        {"name": "x", "cypher": INJECT}]}}}, "slots.A.where[0]"),
    ("when is Cypher text", {"impacts": [{**RETIRE["impacts"][0], "when": INJECT}]}, "impacts[0].when"),
    ("a relation carries Cypher", {"slots": {**RETIRE["slots"], "A": {"label": "Person", "where": [
        {"name": "x", "has_fact": {"subject": "A", "relation": f"P54'}}) {INJECT}"}}]}}},
     "slots.A.where[0].has_fact.relation[0]"),
    ("a slot reference carries Cypher", {"slots": {**RETIRE["slots"], "A": {"label": "Person", "where": [
        {"name": "x", "lacks_fact": {"subject": f"A}}) {INJECT}", "relation": "P570"}}]}}},
     "slots.A.where[0].lacks_fact.subject"),
    ("the label carries Cypher", {"slots": {**RETIRE["slots"], "A": {"label": f"Person) {INJECT}"}}},
     "slots.A.label"),
    ("a path hop carries Cypher", {"slots": {**RETIRE["slots"], "B": {"derive": {"from": "A", "path": [
        f"P54 {INJECT}"]}}}}, "slots.B.derive.path"),
    ("the max_years is Cypher", {"slots": {**RETIRE["slots"], "A": {"label": "Person", "where": [
        {"name": "x", "terms_within": {"subject": "A", "relation": "P35", "max_years": INJECT}}]}}},
     "slots.A.where[0].terms_within.max_years"),
]


@pytest.mark.parametrize("what,patch,field", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_template_is_refused_naming_file_and_field(what, patch, field, store, graph_env, tmp_path):
    build_subgraph(store)
    count = "MATCH (n) RETURN count(n) AS n"
    nodes = store.user_query(count)[0]["n"]
    folder = tmp_path / "templates"
    folder.mkdir()
    path = folder / "retire.yaml"
    path.write_text(yaml.safe_dump({**RETIRE, **patch}), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_templates(folder)
    assert str(path) in str(info.value) and f"field {field}" in str(info.value), str(info.value)
    with pytest.raises(InputError):
        generate_events(store, types=["retire"], n=1, seed=0, batch="x", templates_dir=str(folder))
    result = CliRunner().invoke(cli, ["generate", "events", "--types", "retire", "--n", "1", "--seed", "0",
                                      "--name", "x", "--templates-dir", str(folder), "--silent"])
    assert result.exit_code != 0
    assert str(path) in result.output and field in result.output, result.output
    assert "Traceback" not in result.output
    assert store.user_query(count)[0]["n"] == nodes

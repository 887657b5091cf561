"""Ripple analysis on hand-built subgraphs with known k-hop answers."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner
from events_subgraph import build_subgraph

from knowforge.cli.main import cli
from knowforge.errors import ConfigError, InputError
from knowforge.generators.events.instantiate import Planner
from knowforge.generators.events.layering import apply_events
from knowforge.kg.ripple import parse_edit, ripple_edit, ripple_event, ripple_graph
from knowforge.generators.events.templates import load_templates
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.writer import write_entities, write_facts, write_relations

SAMPLE = Path(__file__).resolve().parents[1] / "kg" / "samples" / "wikidata" / "entities.json"

# X -r1-> Y -r2-> Z -r3-> W -r9-> R ;  X -r4-> V ;  U -r5-> X ;  U -r7-> S ;  T -r6-> Y
# Y2 -r2-> Z2 ;  Q -r8-> Z (incoming at depth 2: not followed) ; an ended fact X -r4-> OLD
# U is reached backwards (U -r5-> X), so it is listed but not walked through: no (U, r7, S).
CHAIN = [("X", "r1", "Y"), ("Y", "r2", "Z"), ("Z", "r3", "W"), ("W", "r9", "R"), ("X", "r4", "V"),
         ("U", "r5", "X"), ("U", "r7", "S"), ("T", "r6", "Y"), ("Y2", "r2", "Z2"), ("Q", "r8", "Z")]


def _chain(store):
    ids = sorted({x for s, _, o in CHAIN for x in (s, o)} | {"OLD"})
    write_entities(store, [EntityRecord(id=f"c:{i}", name=i, labels=("Item",)) for i in ids])
    facts = [FactRecord(subject_id=f"c:{s}", relation=r, object_id=f"c:{o}", source="test")
             for s, r, o in CHAIN]
    facts.append(FactRecord(subject_id="c:X", relation="r4", object_id="c:OLD", source="test",
                            start_year=2000, end_year=2001))
    write_facts(store, facts)


def _found(report, kind=None):
    return {(f.fact.subject, f.fact.relation, f.fact.object, f.depth) for f in report.facts
            if kind is None or f.kind == kind}


@pytest.mark.parametrize("hops,expected", [
    (1, {("X", "r4", "V", 1), ("U", "r5", "X", 1), ("Y", "r2", "Z", 1), ("T", "r6", "Y", 1),
         ("Y2", "r2", "Z2", 1)}),
    (2, {("X", "r4", "V", 1), ("U", "r5", "X", 1), ("Y", "r2", "Z", 1), ("T", "r6", "Y", 1),
         ("Y2", "r2", "Z2", 1), ("Z", "r3", "W", 2)}),
    (3, {("X", "r4", "V", 1), ("U", "r5", "X", 1), ("Y", "r2", "Z", 1), ("T", "r6", "Y", 1),
         ("Y2", "r2", "Z2", 1), ("Z", "r3", "W", 2), ("W", "r9", "R", 3)}),
])
def test_ad_hoc_edit_k_hop_answer(store, hops, expected):
    _chain(store)
    report = ripple_edit(store, "c:X,r1,c:Y->c:Y2", hops)
    assert _found(report) == expected
    assert all(f.kind == "candidate" for f in report.facts)
    assert [(c, f.subject, f.object) for c, f in report.edited] == [("retracted", "X", "Y"),
                                                                    ("asserted", "X", "Y2")]
    deepest = max(report.facts, key=lambda f: f.depth)
    # every listed fact comes with the path that reached it, ending in the fact itself
    assert len(deepest.path) == deepest.depth and deepest.path[-1] == deepest.fact


def test_edit_syntax_and_errors(store):
    _chain(store)
    assert parse_edit("Q76,P39,Q11696->Q30") == ("Q76", "P39", "Q11696", "Q30")
    assert parse_edit("Q76, P39, -> unknown") == ("Q76", "P39", None, "unknown")
    with pytest.raises(InputError):
        parse_edit("Q76 P39 Q30")
    with pytest.raises(ConfigError, match="not a current fact"):
        ripple_edit(store, "c:X,r1,c:Z->c:Y2", 1)
    with pytest.raises(ConfigError, match="no entity"):
        ripple_edit(store, "c:X,r1,c:Y->c:NOPE", 1)


def test_event_ripple_separates_declared_from_candidates(store):
    build_subgraph(store)
    planner = Planner(store, load_templates(), seed=0, batch="rp")
    plan = planner.plan_fixed(planner.templates["transfer-player"], {"A": "Q11571", "B": "Q8682"})
    apply_events(store, [plan])
    report = ripple_event(store, plan.id, hops=2)
    assert _found(report, "declared") == {
        ("Real Madrid CF", "P118", "La Liga", 1), ("Real Madrid CF", "P286", "Carlo Ancelotti", 1),
        ("Real Madrid CF", "P159", "Madrid", 1), ("Madrid", "P17", "Spain", 1)}
    assert _found(report, "candidate") == {
        ("Real Madrid CF", "P17", "Spain", 1), ("Al Nassr FC", "P159", "Riyadh", 1),
        ("Al Nassr FC", "P17", "Saudi Arabia", 1), ("Riyadh", "P17", "Saudi Arabia", 1)}
    assert {c for c, _ in report.edited} == {"asserted", "retracted"}
    assert len(report.changes) == 6


def test_cli_formats(store, graph_env, monkeypatch):
    _chain(store)
    # r1 and r2 in the relation vocabulary (as every loader writes it); r4 only on its fact
    write_relations(store, [RelationRecord(id="r1", label="first link", source="test"),
                            RelationRecord(id="r2", label="second link", source="test")])
    store.user_query("MATCH (f:Fact {relation: 'r4'}) SET f.relation_label = 'fourth link'", write=True)
    runner = CliRunner()
    result = runner.invoke(cli, ["ripple", "--edit", "c:X,r1,c:Y->c:Y2", "--hops", "2", "--format", "json"],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{"):])
    assert len(data["candidates"]) == 6 and data["hops"] == 2
    # every relation comes with its label where the graph has one
    assert {(f["change"], f["relation"], f["relation_label"]) for f in data["edited"]} == {
        ("retracted", "r1", "first link"), ("asserted", "r1", "first link")}
    labels = {f["fact"]["relation"]: f["fact"]["relation_label"] for f in data["candidates"]}
    assert labels["r2"] == "second link" and labels["r4"] == "fourth link" and labels["r3"] is None
    assert data["changes"][0]["relation_label"] == "first link"
    result = runner.invoke(cli, ["ripple", "--edit", "c:X,r1,c:Y->c:Y2", "--format", "cypher"],
                           catch_exceptions=False)
    assert result.exit_code == 0
    param, query = result.output.split("\n\n", 1)
    ids = json.loads(param.removeprefix(":param fact_ids => "))
    assert len(ids) == 5 + 1   # 5 one-hop facts + the retracted edited fact
    rows = store.user_query(query, {"fact_ids": ids})
    assert len(rows) == 6
    monkeypatch.setenv("COLUMNS", "80")
    result = runner.invoke(cli, ["ripple", "--edit", "c:X,r1,c:Y->c:Y2"], catch_exceptions=False)
    assert result.exit_code == 0 and "0 declared, 5 candidate ripples" in result.output
    assert "first" in result.output and "fourth" in result.output      # folded to fit 80 columns
    assert "…" not in result.output and max(len(line) for line in result.output.splitlines()) <= 80


def test_graphml_of_a_transfer_on_the_sample(store, graph_env, tmp_path):
    if not SAMPLE.is_file():
        pytest.skip("the Wikidata sample is not in this checkout")
    from knowforge.kg.loaders.wikidata_json import load_wikidata_json

    load_wikidata_json(store, [SAMPLE])
    planner = Planner(store, load_templates(), seed=0, batch="gx")
    plan = planner.plan_fixed(planner.templates["transfer-player"], {"A": "Q11571", "B": "Q8682"})
    apply_events(store, [plan])
    out = tmp_path / "ripple" / "transfer.graphml"
    result = CliRunner().invoke(cli, ["ripple", plan.id, "--hops", "1", "--format", "json",
                                      "--graphml", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    graph = nx.read_graphml(out, force_multigraph=True, edge_key_type=str)
    assert graph.is_directed() and graph.is_multigraph()
    assert (graph.graph["target"], graph.graph["hops"]) == (plan.id, 1)
    named = {(graph.nodes[u]["name"], d["relation"], graph.nodes[v]["name"], d["kind"], d["depth"])
             for u, v, d in graph.edges(data=True)}
    # relations carry their labels (the sample's property labels), and both for Gephi's edge label
    shown = {(d["relation"], d.get("relation_label"), d["label"]) for _, _, d in graph.edges(data=True)}
    assert {("P54", "member of sports team", "P54 (member of sports team)"),
            ("P159", "headquarters location", "P159 (headquarters location)")} <= shown
    assert all(d.get("relation_label") for _, _, d in graph.edges(data=True))
    assert {(c["relation"], c["relation_label"]) for c in report["changes"]} >= {("P54", "member of sports team")}
    assert {("Cristiano Ronaldo", "P54", "Real Madrid CF", "asserted", 0),
            ("Cristiano Ronaldo", "P54", "Al Nassr FC", "retracted", 0),
            ("Cristiano Ronaldo", "P1618", "unknown", "asserted", 0),     # shirt number unknown
            ("Cristiano Ronaldo", "P1618", "7", "retracted", 0),
            ("Real Madrid CF", "P118", "La Liga", "declared", 1),          # the new league's source
            ("Madrid", "P17", "Spain", "declared", 1),
            ("Kylian Mbappé", "P54", "Real Madrid CF", "candidate", 1)} <= named
    # one edge per listed fact, keyed by its fact id, and nothing else
    listed = [f["fact_id"] for f in report["edited"]] + [
        f["fact"]["fact_id"] for part in ("declared", "candidates") for f in report[part]]
    assert sorted(k for _, _, k in graph.edges(keys=True)) == sorted(listed)
    assert all(d["fact_id"] == k for _, _, k, d in graph.edges(keys=True, data=True))
    assert graph.nodes["Q11571"]["edited"] and graph.nodes["Q8682"]["edited"]
    assert graph.nodes["Q11571"]["kind"] == "entity"
    assert {d["kind"] for n, d in graph.nodes(data=True) if n.startswith("value:")} == {"value"}
    assert f"to {out}" in result.output


def test_graph_of_an_ad_hoc_edit(store):
    _chain(store)
    graph = ripple_graph(ripple_edit(store, "c:X,r1,c:Y->c:Y2", 2))
    edges = {(u, d["relation"], v, d["kind"]) for u, v, d in graph.edges(data=True)}
    assert ("c:X", "r1", "c:Y2", "asserted") in edges and ("c:X", "r1", "c:Y", "retracted") in edges
    assert graph.number_of_edges() == 2 + 6
    # the asserted fact does not exist in the graph yet: no fact id, a key that names it
    new = next(d for _, _, d in graph.edges(data=True) if d["kind"] == "asserted")
    assert "fact_id" not in new
    assert nx.shortest_path(graph, "c:X", "c:W") == ["c:X", "c:Y", "c:Z", "c:W"]

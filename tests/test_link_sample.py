"""LINK on the bundled samples (Wikidata, CSKG, UMLS), in the real Neo4j, with no model: the
fully grounded rules give the statements the sample facts imply, the inferred layer holds
their chains, a rerun is identical, and dropping the batch restores the graph exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import wipe
from scripted_openai import serving
from test_link_probe import Probe
from knowforge.cli.main import cli
from knowforge.generators.link.generate import drop_link, generate_link
from knowforge.generators.link.params import LinkParams
from knowforge.generators.link.probe import TEMPLATES
from knowforge.kg.cypher import load_cypher
from knowforge.kg.loaders.registry import load_source
from knowforge.kg.loaders.samples import sample_paths
from knowforge.models.questions import read_items, source_graph_hash
from knowforge.workflow import export

GROUNDED = ("outcome_allergy_dish", "locational_currency", "temporal_contemporary_invention", "outcome_treatment",
            "natural_material_property", "outcome_allergy_menu")


@pytest.fixture(scope="module")
def graph(session_store):
    wipe(session_store)
    paths = sample_paths()
    for source in ("wikidata", "cskg", "umls"):
        load_source(session_store, source, paths[source])
    return session_store


def counts(store) -> tuple[int, int]:
    row = store.user_query("MATCH (n) WITH count(n) AS nodes "
                           "OPTIONAL MATCH ()-[r]->() RETURN nodes, count(r) AS rels")[0]
    return row["nodes"], row["rels"]


def pairs(result, rule: str, distribution: str) -> set[tuple[str, str]]:
    return {(s.premise, s.conclusion) for s in result.statements
            if s.rule.id == rule and s.distribution == distribution}


def test_grounded_rules_give_the_statements_the_sample_implies(graph):
    before_hash, before_counts = source_graph_hash(graph), counts(graph)
    result = generate_link(graph, LinkParams(name="s", n=30, rule_ids=GROUNDED, chain_depth=2))
    assert result.stats.generate_requests == 0 and result.stats.loglikelihood_requests == 0
    assert set(GROUNDED) <= {r.split(" ")[0] for r in result.rules_searched}
    both = lambda rule: pairs(result, rule, "head") | pairs(result, rule, "longtail")  # noqa: E731
    # pine nut IsA tree nut, pesto MadeOf pine nut (CSKG)
    assert ("PersonX is allergic to tree nut", "PersonX is not able to eat pesto.") in both("outcome_allergy_dish")
    assert ("PersonX is allergic to shellfish", "PersonX is not able to eat paella.") in both("outcome_allergy_dish")
    # nothing the sample does not imply: cashew is a tree nut, not shellfish
    assert not any("shellfish" in p and "korma" in c for p, c in both("outcome_allergy_dish"))
    # Akaroa -P131-> Canterbury Region -P17-> New Zealand -P38-> New Zealand dollar: a small
    # town, in the long tail; London in the head
    assert ("PersonX lives in Akaroa", "PersonX usually pays for groceries with the New Zealand dollar.") \
        in pairs(result, "locational_currency", "longtail")
    assert ("PersonX lives in London", "PersonX usually pays for groceries with the pound sterling.") \
        in pairs(result, "locational_currency", "head")
    # Napoleon died in 1821, the television dates from 1927; Mansa Musa died in 1337
    assert ("PersonX is a contemporary of Napoleon", "PersonX could not have used the television.") \
        in pairs(result, "temporal_contemporary_invention", "head")
    assert ("PersonX is a contemporary of Mansa Musa", "PersonX could not have used the mechanical calculator.") \
        in pairs(result, "temporal_contemporary_invention", "longtail")
    assert not any("Isaac Newton" in p and "telescope" in c for p, c in both("temporal_contemporary_invention"))
    # UMLS (invented): Figmentol may_treat Figment fungal infection
    assert ("PersonX has Figment fungal infection (invented)", "PersonX may be prescribed Figmentol (invented).") \
        in both("outcome_treatment")
    assert ("ObjectX is made of glass", "ObjectX is transparent.") in both("natural_material_property")
    # a chain of two rules: allergy -> dish -> where the dish is served
    chained = [s for s in result.statements if s.rule.id == "outcome_allergy_menu"]
    assert chained and all(s.depth == 2 and s.grounding == "graph" and s.premises == 3 for s in chained)
    texts = [(s.distribution, s.premise, s.conclusion) for s in result.statements]
    assert len(texts) == len(set(texts))          # one statement per premise and conclusion
    assert any(s.premise == "PersonX is allergic to tree nut" and "italian restaurant" in s.conclusion for s in chained)
    # the head is the popular side: the distribution check by popularity is positive per rule
    assert all(row["delta"] > 0 for row in result.delta["rules"].values() if row["delta"] is not None)

    # the inferred layer: a conclusion rests on the source facts it was derived from
    rows = graph.user_query(
        "MATCH (c:Fact {benchmark: 'link:s', op: 'conclusion', rule: 'outcome_allergy_dish'})"
        "-[:OBJECT]->(:Entity {name: 'pesto'}) "
        "MATCH (c)-[:DERIVED_FROM {role: 'premise'}]->(f:Fact)<-[:HAS_FACT]-(s:Entity) "
        "MATCH (c)-[:DERIVED_FROM {role: 'assumption'}]->(a:Fact) "
        "RETURN a.text AS assumed, f.layer AS layer, s.name + ' ' + f.relation AS fact ORDER BY assumed, fact")
    facts = {(r["assumed"], r["fact"]) for r in rows}
    assert ("PersonX is allergic to tree nut", "pine nut IsA") in facts
    assert ("PersonX is allergic to tree nut", "pesto MadeOf") in facts
    assert {r["layer"] for r in rows} == {"source"}
    # a chain is a path: depth-2 conclusion -> depth-1 conclusion -> source facts
    paths = graph.user_query(
        "MATCH p = (c:Fact {benchmark: 'link:s', depth: 2})-[:DERIVED_FROM {role: 'chain'}]->(:Fact {op: 'conclusion'})"
        "-[:DERIVED_FROM {role: 'premise'}]->(src:Fact {layer: 'source'}) RETURN count(p) AS n")[0]["n"]
    assert paths > 0
    # the recipes of docs/link.md
    target = next(s for s in chained if "italian restaurant" in s.conclusion)
    rows = graph.read("queries/link_chains_to_conclusion", benchmark="link:s", conclusion=target.conclusion)
    assert {tuple(r["roles"]) for r in rows} >= {("chain", "premise"), ("chain", "assumption"), ("premise",)}
    assert any(r["chain"][1] == "PersonX is not able to eat pesto." and r["chain"][-1] == "pesto made of pine nut"
               for r in rows)
    grounded = graph.read("queries/link_graph_grounded_statements", benchmark="link:s")
    assert {(r["rule"], r["premise"], r["conclusion"]) for r in grounded} == \
        {(s.rule.id, s.premise, s.conclusion) for s in result.statements}
    # 13 questions per statement, with the labels of the templates
    items = read_items(graph, "link:s")
    assert len(items) == 13 * len(result.statements)
    first = [i for i in items if i.metadata["statement_id"] == items[0].metadata["statement_id"]]
    assert [i.slices["template"] for i in first] == [f"{t.number:02d}" for t in TEMPLATES]
    # nothing of the source layer changed; dropping the batch restores the graph exactly
    assert source_graph_hash(graph) == before_hash
    dropped = drop_link(graph, "s")
    assert dropped["nodes"] > 0
    assert source_graph_hash(graph) == before_hash and counts(graph) == before_counts


def test_pattern_relations_are_checked_against_the_graph(graph, tmp_path):
    """A relation a pattern names but the graph does not hold is reported absent and dropped; a
    pattern left with none leaves its predicate to the model, so with no model its rule is
    skipped while the other rules run."""
    import yaml

    from knowforge.generators.link.grounding import Grounder, bundled_patterns_path, load_patterns

    data = yaml.safe_load(bundled_patterns_path().read_text(encoding="utf-8"))
    data["predicates"]["is_ingredient_in"]["edges"] = [{"relation": "NotInTheGraph", "subject": "second"}]
    data["predicates"]["is_one_type_of"]["edges"].append({"relation": "AlsoNotInTheGraph", "subject": "first"})
    path = tmp_path / "patterns.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    grounder = Grounder.for_graph(graph, load_patterns(path))
    assert grounder.absent["is_ingredient_in"] == ("NotInTheGraph",)
    assert not grounder.predicate_available("is_ingredient_in")
    assert "AlsoNotInTheGraph" in grounder.absent["is_one_type_of"] and "IsA" not in grounder.absent["is_one_type_of"]
    assert grounder.predicate_available("is_one_type_of")
    described = grounder.describe("is_one_type_of")
    assert "IsA" in described.split("(absent:")[0] and "AlsoNotInTheGraph" in described.split("(absent:")[1]
    assert grounder.describe("is_ingredient_in") == "is_ingredient_in: nothing in this graph (absent: NotInTheGraph)"

    before = counts(graph)
    result = generate_link(graph, LinkParams(name="pt", n=3, patterns=str(path),
                                             rule_ids=("outcome_allergy_dish", "locational_currency")))
    assert "needs a model" in result.skipped["outcome_allergy_dish"]
    assert "is_ingredient_in" in result.skipped["outcome_allergy_dish"]
    assert {s.rule.id for s in result.statements} == {"locational_currency"}
    drop_link(graph, "pt")
    assert counts(graph) == before


def test_every_datatype_pattern_runs_one_plan_and_the_filter_agrees_with_the_members(graph):
    """link/type_members and link/type_filter take a pattern's lists in one map: Neo4j keys its plan
    cache on each parameter's type and size, and six lists, some empty, made 7 plans of one
    statement for 8 patterns. Every bundled pattern's members run on one plan of each statement
    (db.stats groups the invocations by plan), and type_filter admits exactly the members."""
    from knowforge.generators.link.grounding import Grounder

    names = sorted(Grounder.for_graph(graph).patterns.datatypes)
    with graph.driver.session(database=graph.database) as session:
        # benchmarks/plan_counts.py may be collecting the whole session: then leave it running
        collecting = session.run("CALL db.stats.status() YIELD section, status WHERE section = 'QUERIES' "
                                 "RETURN status").single()["status"] == "collecting"
        if not collecting:
            session.run("CALL db.stats.collect('QUERIES', {durationSeconds: 600})").consume()
        # the collector also hands over earlier tests' queries: only this test's count
        since = session.run("RETURN datetime.realtime().epochMillis AS t").single()["t"]
    try:
        grounder = Grounder.for_graph(graph)
        members = {name: grounder.members(name, limit=1_000_000) for name in names}
        everyone = sorted({c.id for found in members.values() for c in found})
        admitted = {name: grounder.admits(name, everyone) for name in names}
    finally:
        with graph.driver.session(database=graph.database) as session:
            if not collecting:
                session.run("CALL db.stats.stop('QUERIES')").consume()
            rows = session.run("CALL db.stats.retrieve('QUERIES')").data()
            if not collecting:
                session.run("CALL db.stats.clear('QUERIES')").consume()
    for statement in ("link/type_members", "link/type_filter"):
        text = load_cypher(statement)
        plans = [[i for i in r["data"]["invocations"] if i["startTimestampMillis"] >= since]
                 for r in rows if r["data"]["query"] == text]
        plans = [p for p in plans if p]
        assert sum(len(p) for p in plans) == len(names), statement
        # one plan; a second only when Neo4j replans a stale one (its index statistics sampled
        # anew after the load). Lists as parameters of their own made one per shape: 6 or more.
        assert len(plans) <= 2, (statement, len(plans))
    assert all(members[name] for name in names), [name for name in names if not members[name]]
    assert {name: {c.id for c in found} for name, found in members.items()} == admitted
    country = {c.id: c for c in members["country"]}
    assert country["Q142"].name == "France" and country["Q142"].sitelinks and country["Q142"].degree > 0
    assert "cskg:/c/en/peanut" in {c.id for c in members["food_allergen"]}
    assert "cskg:/c/en/peanut" not in {c.id for c in members["material"]}
    disease = members["disease"][0]
    assert disease.sitelinks is None and disease.popularity == disease.degree > 0


def test_same_graph_and_seed_give_the_same_benchmark(graph, tmp_path):
    before = counts(graph)
    params = LinkParams(name="d", n=4, seed=3, rule_ids=("locational_currency", "outcome_allergy_dish"))
    generate_link(graph, params)
    export(_method(), graph, "d", "lint", tmp_path / "a")
    export(_method(), graph, "d", "jsonl", tmp_path / "a.jsonl")
    generate_link(graph, params)          # the same name again: replaced, not duplicated
    export(_method(), graph, "d", "lint", tmp_path / "b")
    export(_method(), graph, "d", "jsonl", tmp_path / "b.jsonl")
    for name in ("lint_head.jsonl", "lint_longtail.jsonl"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    record = json.loads((tmp_path / "a" / "lint_longtail.jsonl").read_text().splitlines()[0])
    assert {"rule", "domain", "variables", "premise", "conclusion", "distribution", "provenance"} <= set(record)
    assert record["provenance"]["source_graph_sha256"] == source_graph_hash(graph)
    drop_link(graph, "d")
    assert counts(graph) == before


def test_the_command_line(graph, graph_env, tmp_path, monkeypatch):
    """generate --rules FILE, export the LINT JSONL, eval through the probe solver against a
    scripted server on 127.0.0.1, then --drop: the graph is as before, answers and runs gone."""
    before = counts(graph)
    rules = tmp_path / "rules.yaml"
    rules.write_text(Path(__file__).resolve().parents[1].joinpath(
        "generators/link/rules/locational.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(cli, ["generate", "link", "--rules", str(rules), "--n", "3", "--distribution", "longtail",
                                 "--name", "cli", "--silent"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "link:cli" in result.output and "longtail statements" in result.output
    assert "locational_forbidden_food skipped: needs a model" in " ".join(result.output.split())
    out = tmp_path / "lint"
    result = runner.invoke(cli, ["export", "link", "--name", "link:cli", "--format", "lint", "--out", str(out)],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert not (out / "lint_head.jsonl").exists()
    lines = (out / "lint_longtail.jsonl").read_text().splitlines()
    assert len(lines) == 3 * 4           # four grounded locational rules, three statements each
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    Probe.answers = {i.question: i.answers[0] for i in read_items(graph, "link:cli")}   # always right
    with serving(Probe) as url:
        result = runner.invoke(cli, ["eval", "--benchmark", "link:cli", "--backend", "openai", "--base-url",
                                     url, "--model", "scripted",
                                     "--limit", "2", "--out", str(tmp_path / "runs"), "--cache-dir",
                                     str(tmp_path / "cache"), "--bootstrap", "50", "--silent"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "runs" / "link-cli" / "summary.json").read_text())
    metrics = summary["runs"]["link-probe"]["metrics"]["link/entailment"]
    assert metrics["accuracy"] == 1.0 and metrics["link_known"]["statements"] == 2
    assert metrics["link_known"]["rate"] == 1.0 and metrics["link_head_tail"]["accuracy"]["longtail"] == 1.0
    assert set(metrics["link_templates"]) == {str(n) for n in range(1, 14)}
    # every rate has its interval over the two statements, with its chance level
    intervals = {r["name"]: r for r in summary["runs"]["link-probe"]["intervals"]["link/entailment"]}
    rate = intervals["link_known.rate"]
    assert (rate["units"], rate["unit"], rate["resamples"], rate["ci"]) == (2, "statement_id", 50, [1.0, 1.0])
    assert rate["chance"] == 0.5 ** 13 and rate["excludes_chance"] is False     # two statements cannot tell
    assert intervals["link_templates.1.accuracy"]["chance"] == 0.5
    drop = intervals["link_head_tail.accuracy.relative_drop"]          # no head statements: no drop, no test
    assert drop["value"] is None and not drop["paired"] and "a side is empty" in drop["note"]
    assert graph.user_query("MATCH (a:Answer) RETURN count(a) AS n")[0]["n"] == 26
    # the docs' recipes over a run's answers agree with the metrics
    run_id = summary["runs"]["link-probe"]["run_id"]
    assert graph.read("queries/link_known_by_distribution", run=run_id) == [
        {"distribution": "longtail", "statements": 2, "known": 2, "known_rate": 1.0}]
    per_template = graph.read("queries/link_accuracy_by_template", run=run_id)
    assert sorted(r["template"] for r in per_template) == [f"{n:02d}" for n in range(1, 14)]
    assert all(r["accuracy"] == 1.0 and r["answers"] == 2 and r["distribution"] == "longtail" for r in per_template)
    result = runner.invoke(cli, ["generate", "link", "--drop", "cli"], catch_exceptions=False)
    assert result.exit_code == 0 and "dropped link:cli" in result.output
    assert graph.user_query("MATCH (n) WHERE n:Answer OR n:Run OR n:Question RETURN count(n) AS n")[0]["n"] == 0
    assert counts(graph) == before


def _method():
    from knowforge.generators.link.method import METHOD

    return METHOD

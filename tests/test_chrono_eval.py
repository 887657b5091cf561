"""ChroKnow evaluation end to end with the tiny local transformers model (real hf backend):
the knowledge check recorded as a run in the graph with a report and plots, and ChroKnowPrompt
driving the real model through its traversal."""

from __future__ import annotations

import json

import pytest

from knowforge.eval.chrono.categories import CORRECT, INCORRECT, PARTIAL_GREEDY, classify_timeline
from knowforge.eval.chrono.check import CheckResult, FactCheck, YearCheck
from knowforge.eval.chrono.prompt import run_chronoprompt
from knowforge.models.types import BenchmarkItem
from knowforge.eval.types import EvalOptions
from knowforge.generators.chrono.build import ChronoConfig, build_benchmark
from knowforge.kg.records import EntityRecord, FactRecord
from knowforge.kg.writer import write_entities, write_facts

pytestmark = pytest.mark.hf

TEAMS = ["Ajax", "Benfica", "Celtic", "Dynamo Kyiv", "Espanyol", "Fiorentina", "Galatasaray", "Hertha BSC",
         "Inter Milan", "Juventus"]


def _players(store):
    ents = [EntityRecord(id=f"Q{i}", name=f"Player {i}", labels=("Person",), source="wikidata") for i in range(6)]
    ents += [EntityRecord(id=f"QT{j}", name=t, labels=("Club",), source="wikidata") for j, t in enumerate(TEAMS)]
    facts = []
    for i in range(6):
        facts.append(FactRecord(subject_id=f"Q{i}", relation="P54", object_id=f"QT{i}", source="wikidata",
                                start_year=2018, end_year=2019 if i % 2 == 0 else None))
        if i % 2 == 0:
            facts.append(FactRecord(subject_id=f"Q{i}", relation="P54", object_id=f"QT{i + 1}", source="wikidata",
                                    start_year=2020))
    write_entities(store, ents)
    write_facts(store, facts)


def test_knowledge_check_with_the_tiny_model_records_run_and_report(store, graph_env, tiny_model_dir, tmp_path):
    from knowforge import workflow
    from knowforge.models.task import Component

    _players(store)
    build_benchmark(store, ChronoConfig(domain="general", name="tiny", seed=0, from_year=2018, to_year=2021,
                                        fewshot_pool=2))
    options = EvalOptions(backend="hf", model=str(tiny_model_dir), device="cpu", cache=False, seed=0,
                          out_dir=tmp_path / "runs", silent=True, limit=2)
    # every task of the benchmark under ChroKnowPrompt with both spans, 2 facts (--limit counts facts)
    evaluation = workflow.evaluate(store, "chrono:tiny", options,
                                   solver=Component(name="chronoprompt", args={"span": "both", "max_tokens": 6}))
    [run] = evaluation.runs
    report_dir = run.report_dir
    chrono = json.loads((report_dir / "chrono.json").read_text())
    facts = chrono["facts"]
    assert len(facts) == 2 * 3                                  # two facts x three templates
    assert all(f["category"] in ("Known", "Unknown", "Cut-off", "Partial Known") for f in facts)
    n_items = sum(len(f["categories"]) for f in facts)
    assert chrono["check_requests_before_dedup"] == n_items * 5 * 2   # greedy + sampled per shot set
    assert 0 < chrono["requests"] <= n_items * 5 * 2 + 6 * n_items     # identical requests sent once
    for name in ("report.json", "report.md", "plots/chrono_years.svg", "plots/chrono_categories.svg"):
        assert (report_dir / name).is_file(), name
    assert "Chronological categories" in (report_dir / "report.md").read_text()
    # the Known % of each (domain, template, change) has the engine's cluster-bootstrap interval over
    # the two records, and the solver's table shows the very same interval
    known = [r for task, rows in run.intervals.items() for r in rows
             if r["metric"] == "chrono_categories" and r["path"][-1] == "Known %"]
    assert len(known) >= 3 and all(r["units"] == 2 and r["unit"] == "record_id" for r in known)
    section = json.loads((report_dir / "report.json").read_text())["extra"][
        "Chronological categories (facts per template and temporal state)"]
    for r in known:
        # (a zero-width interval reads "0.0, no variation": every record scored the same)
        cell = (f"{r['value']:.1f}, no variation" if r["ci"] and r["ci"][0] == r["ci"][1]
                else f"{r['value']:.1f}" + (f" ± {(r['ci'][1] - r['ci'][0]) / 2:.1f}" if r["ci"] else ""))
        assert f"| {cell} |" in section, (cell, section)
    # every sample is an Answer in the graph, sliceable by year
    run_id = chrono["run_id"]
    rows = store.user_query(
        "MATCH (r:Run {id:$run})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question) RETURN q.slice_year AS year, count(a) AS n "
        "ORDER BY year", {"run": run_id})
    assert sum(r["n"] for r in rows) == n_items * 10 and {r["year"] for r in rows} == {2018, 2019, 2020, 2021}


def test_chronoprompt_drives_the_tiny_model_through_the_traversal(tiny_model_dir):
    from knowforge.models.backends.hf import HFBackend

    years = {2018: CORRECT, 2019: INCORRECT, 2020: PARTIAL_GREEDY, 2021: CORRECT}
    items = [BenchmarkItem(id=f"b:r:{y}:generation", benchmark="chrono:t", task="chrono/generation",
                           form="generation", question=f"In {y}, Player 0, member of sports team, [Object]",
                           answers=["Ajax"], slices={"domain": "general", "relation": "P54", "year": y,
                                                     "change": "static", "template": "generation"},
                           metadata={"record_id": "r", "subject": "Player 0"}) for y in years]
    ycs = [YearCheck(item_id=i.id, record_id="r", template="generation", year=y, domain="general", relation="P54",
                     change="static", golds=("Ajax",), greedy=("Ajax",) * 5 if c != INCORRECT else ("x",) * 5,
                     sampled=(), category=c) for i, (y, c) in zip(items, years.items())]
    fact = FactCheck(record_id="r", template="generation", domain="general", relation="P54", change="static",
                     subject="Player 0", categories=years, category=classify_timeline(years))
    backend = HFBackend(str(tiny_model_dir), device="cpu")
    res = run_chronoprompt(CheckResult(years=ycs, facts=[fact], samples=[]), items, backend, span="total",
                           max_tokens=6)
    by_target = {t.target: t for t in res.traversals}
    assert sorted(by_target) == [2019, 2020]
    assert [s.year for s in by_target[2019].steps] == [2018, 2020, 2021]
    assert [s.year for s in by_target[2020].steps] == [2018, 2021]      # 2019 was wrong: not context
    for t in res.traversals:
        assert len(t.candidates) == len(t.steps) == len(t.prompts)
        assert t.prompts[0].count("Candidate A. [Object]") == 1
    assert res.requests == sum(len(t.steps) for t in res.traversals)

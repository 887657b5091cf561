"""Runs and answers written to the real Neo4j and read back by slicing queries; reports."""

from __future__ import annotations

import json

import pytest

from knowforge.errors import ConfigError, InputError
from knowforge.eval.report import build_report, headline_table, write_report
from knowforge.eval.results import (RunNotFound, _answer_row, check_questions, list_runs, record_run, results_by,
                                    run_answers)
from knowforge.eval.file_benchmark import ensure_questions
from knowforge.eval.types import EvalOptions
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.writer import write_entities, write_facts, write_relations
from test_runner import SCRIPT, ScriptedBackend, evaluate_items, make_items
from svg_check import assert_svg


def _graph(store):
    """Two entities and one fact, so some questions can link to them."""
    write_entities(store, [EntityRecord(id="Q90", name="Paris", domain="general", popularity=300, source="test"),
                           EntityRecord(id="Q142", name="France", domain="general", popularity=5000,
                                        source="test")])
    fact = FactRecord(subject_id="Q142", relation="P36", object_id="Q90", source="test")
    write_facts(store, [fact])
    return fact.id


def _run(store, items, script=SCRIPT, n=1, **kw):
    options = EvalOptions(model="scripted-1", n=n, seed=3, temperature=0.0)
    ensure_questions(store, items, "test items")      # a run never writes questions
    results = evaluate_items(items, ScriptedBackend(script), options)
    return record_run(store, options, items, results, **kw), results


def test_record_run_and_slice(store):
    fact_id = _graph(store)
    items = make_items()
    items[0] = items[0].model_copy(update={"fact_ids": [fact_id, "missing-fact"], "entity_ids": ["Q142"]})
    items[4] = items[4].model_copy(update={"slices": {"year": 2022}, "entity_ids": ["Q90"]})
    run_id, results = _run(store, items, name="smoke", extra={"note": "x", "shots": [1, 2]})

    run = store.user_query("MATCH (r:Run {id: $id}) RETURN r", {"id": run_id})[0]["r"]
    assert run["model"] == "scripted-1" and run["seed"] == 3 and run["name"] == "smoke"
    assert run["template_version"] and run["knowforge_version"] and run["started_at"]
    assert run["samples"] == 5 and run["note"] == "x" and run["shots"] == [1, 2]

    links = store.user_query(
        "MATCH (q:Question {id: 'q1'}) RETURN COUNT { (q)-[:TESTS]->(:Fact) } AS facts, "
        "COUNT { (q)-[:ABOUT]->(:Entity) } AS entities")[0]
    assert links == {"facts": 1, "entities": 1}          # the missing fact is not invented
    answers = store.user_query(
        "MATCH (:Run {id: $id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question) "
        "RETURN q.id AS q, a.raw AS raw, a.parsed AS parsed, a.score AS score ORDER BY q", {"id": run_id})
    assert [a["q"] for a in answers] == ["q1", "q2", "q3", "q4", "q5"]
    assert answers[0] == {"q": "q1", "raw": "Paris", "parsed": "Paris", "score": 1.0}

    by_relation_year = results_by(store, run_id, ["relation", "year"])
    table = {(r["relation"], r["year"]): (r["samples"], r["accuracy"]) for r in by_relation_year}
    assert table == {("P2067", 2020): (1, 1.0), ("P2067", 2021): (1, 1.0), ("P36", 2020): (1, 1.0),
                     ("P36", 2021): (1, 0.0), (None, 2022): (1, 1.0)}
    # q5 had no relation slice: domain and popularity bucket were derived from its entity
    derived = store.user_query("MATCH (q:Question {id: 'q5'}) RETURN q.slice_domain AS d, "
                               "q.slice_popularity_bucket AS p, q.slice_relation AS r")[0]
    assert derived == {"d": "general", "p": 2, "r": None}
    by_task = {r["task"]: r["accuracy"] for r in results_by(store, run_id, ["task"])}
    assert by_task == {"b/bool": 1.0, "b/gen": pytest.approx(2 / 3), "b/mc": 1.0}

    # the same slicing, written by a user in Cypher
    cypher = store.user_query(
        "MATCH (:Run {id: $id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question) "
        "RETURN q.slice_year AS year, avg(a.score) AS acc ORDER BY year", {"id": run_id})
    assert [(r["year"], r["acc"]) for r in cypher] == [(2020, 1.0), (2021, 0.5), (2022, 1.0)]


def test_questions_are_merged_across_runs(store):
    items = make_items()
    first, _ = _run(store, items)
    second, _ = _run(store, items, script={**SCRIPT, "Capital of Peru?": "Lima"})
    assert first != second
    counts = store.user_query("MATCH (q:Question) WITH count(q) AS q MATCH (r:Run) WITH q, count(r) AS r "
                              "MATCH (a:Answer) RETURN q, r, count(a) AS a")[0]
    assert counts == {"q": 5, "r": 2, "a": 10}
    assert {r["id"] for r in list_runs(store)} == {first, second}
    # --list tells runs apart and filters them: by benchmark, by method (benchmarks "method:name")
    rows = list_runs(store, benchmark="b")
    assert {r["id"] for r in rows} == {first, second} and {r["scoring"] for r in rows} == {"knowforge"}
    assert {"solver", "limit", "ci"} <= set(rows[0])
    assert list_runs(store, benchmark="other") == [] and list_runs(store, method="b") == []
    assert len(run_answers(store, second)) == 5
    # the same run recorded again (a re-run after a crash): nothing is doubled, and the answers
    # take the new values
    options = EvalOptions(model="scripted-1", seed=3)
    redo = evaluate_items(items, ScriptedBackend({**SCRIPT, "Capital of Peru?": "Quito"}), options)
    assert record_run(store, options, items, redo, run_id=second) == second
    again = store.user_query("MATCH (:Run {id: $id})-[g:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question) "
                             "RETURN q.id AS q, count(g) AS links, collect(a.raw) AS raw ORDER BY q", {"id": second})
    assert [r["links"] for r in again] == [1] * 5
    assert store.user_query("MATCH (a:Answer) RETURN count(a) AS a")[0]["a"] == 10
    assert any(r["raw"] == ["Quito"] for r in again)


def test_a_new_runs_answers_are_created_and_a_batch_that_exists_falls_back_to_the_merge(store):
    items = make_items()
    run_id, results = _run(store, items)          # a new run: the create-only statement
    shape = ("MATCH (a:Answer) OPTIONAL MATCH (:Run)-[g:GAVE]->(a) WITH a, count(g) AS gave "
             "MATCH (a)-[l:ANSWERS]->(:Question) RETURN count(a) AS answers, sum(gave) AS gave, count(l) AS links")
    assert store.user_query(shape)[0] == {"answers": 5, "gave": 5, "links": 5}
    # the same rows sent to it again (one of them exists): nothing written by it, the MERGE takes them
    rows = [_answer_row(run_id, r) for r in results]
    summary = store.write_new("eval/create_new_answers", "eval/create_answers", rows, run_id=run_id)
    assert summary.counters["fallbacks"] == 1
    assert store.user_query(shape)[0] == {"answers": 5, "gave": 5, "links": 5}


def test_a_run_never_writes_questions_nor_answers_another_benchmarks(store):
    items = make_items()
    options = EvalOptions(model="scripted-1")
    results = evaluate_items(items, ScriptedBackend(SCRIPT), options)
    with pytest.raises(InputError, match="not in the graph"):
        record_run(store, options, items, results)
    assert store.user_query("MATCH (q:Question) RETURN count(q) AS n")[0]["n"] == 0
    ensure_questions(store, items, "test items")
    with pytest.raises(InputError, match="belongs to benchmark 'b', not 'other'"):
        record_run(store, options, items, results, benchmark="other")
    # a file cannot add a question to a registered benchmark, nor change one
    store.run("benchmark/upsert_benchmark", id="b", props={"method": "test"})
    extra = items[0].model_copy(update={"id": "q1#copy"})
    with pytest.raises(InputError, match="cannot add questions"):
        ensure_questions(store, [extra], "f.jsonl")
    changed = items[0].model_copy(update={"question": "Capital of Spain?"})
    with pytest.raises(InputError, match="differs from question 'q1'"):
        ensure_questions(store, [changed], "f.jsonl")


def test_question_reads_collect_every_chunk(store):
    """The question reads return one record per chunk of ids: every question comes back once
    whatever the chunk size, a missing one is left out, and no ids read nothing."""
    items = make_items()
    ensure_questions(store, items, "test items")
    ids = [i.id for i in items] + ["missing"]
    whole = store.read_collected("eval/question_benchmarks", ids)
    for chunk in (1, 2, 4):
        assert store.read_collected("eval/question_benchmarks", ids, chunk=chunk) == whole
    assert sorted(r[0] for r in whole) == sorted(i.id for i in items)
    q3 = next(r for r in whole if r[0] == "q3")
    assert q3[1:4] == ["b", "b/mc", "multi-choice"]
    assert dict(map(tuple, q3[6])) == {"slice_relation": "P2067", "slice_year": 2021}
    stored = {r[1]: r for r in store.read_collected("eval/question_items", ids, chunk=3)}
    assert set(stored) == {i.id for i in items}
    assert stored["q1"][:3] == [items[0].model_dump_json(), "q1", "b"]
    # and after the stored item, the report's fields as eval/question_benchmarks reads them
    assert sorted(r[1:] for r in store.read_collected("eval/question_items", ids)) == sorted(whole)
    assert store.read_collected("eval/question_items", []) == []


def test_a_file_benchmarks_questions_are_read_once_and_give_what_a_second_read_gives(store):
    """ensure_questions hands the questions it read (or, new ones, read back once written) to
    write_run: the same report fields as check_questions reading them, and the benchmark check
    still refuses another benchmark's questions."""
    items = make_items()
    first = ensure_questions(store, items, "test items")            # every question new
    again = ensure_questions(store, items, "test items")            # every question there
    read = check_questions(store, items, None)
    assert first == again == read
    assert check_questions(store, items, None, known=again) == read
    assert check_questions(store, items, None, known={k: again[k] for k in ("q1", "q3")}) == read
    with pytest.raises(InputError, match="belongs to benchmark 'b', not 'other'"):
        check_questions(store, items, "other", known=again)


def test_a_file_whose_item_differs_from_its_question_stops_its_eval_and_records_nothing(store, tmp_path):
    """The file's questions are checked beside the solver (``QuestionCheck``): a failed check
    raises through the eval, no Run is written, and once it has failed the solver's next
    progress tick raises it (the generation stops there, not at the end)."""
    from knowforge.eval.results import QuestionCheck
    from knowforge.eval.tasks import CheckedProgress
    from knowforge.models.items_io import write_items
    from knowforge.workflow import evaluate_file

    items = make_items()
    ensure_questions(store, items, "test items")
    changed = [items[0].model_copy(update={"question": "Capital of Spain?"}), *items[1:]]
    path = tmp_path / "b.jsonl"
    write_items(path, changed)
    options = EvalOptions(model="scripted-1", cache=False, out_dir=tmp_path / "runs")
    with pytest.raises(InputError, match=r"b\.jsonl: item 'q1' differs from question 'q1'"):
        evaluate_file(store, path, options, backend=ScriptedBackend(SCRIPT))
    assert store.user_query("MATCH (r:Run) RETURN count(r) AS n")[0]["n"] == 0
    assert store.user_query("MATCH (a:Answer) RETURN count(a) AS n")[0]["n"] == 0
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())

    ticks, totals = [], []

    class Bar:
        def __call__(self, n):
            ticks.append(n)

        def expect(self, n):
            totals.append(n)

    check = QuestionCheck(store, [items[0].model_copy(update={"id": "nowhere"})], None)
    check.settle()
    progress = CheckedProgress(Bar(), check)
    progress.expect(7)                              # a bar's total still reaches the bar
    with pytest.raises(InputError, match="not in the graph"):
        progress(1)
    assert (ticks, totals) == ([], [7])
    passed = QuestionCheck(store, items, None)
    passed.settle()
    CheckedProgress(Bar(), passed)(2)
    assert ticks == [2] and passed.questions(items, None) == check_questions(store, items, None)


def test_an_eval_that_fails_before_its_check_leaves_no_thread_behind(store, tmp_path, monkeypatch):
    """A file's questions are written and checked in a thread while the eval goes on: an eval
    that fails first (a backend it cannot make) waits for that thread, so nothing is left
    writing questions, or logging to a stream its caller has closed, after the error."""
    import threading

    from knowforge.models.items_io import write_items
    from knowforge.workflow import evaluate_file

    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "b.jsonl"
    write_items(path, make_items())
    options = EvalOptions(backend="openai", model="m", cache=False, out_dir=tmp_path / "runs")
    with pytest.raises(ConfigError, match="needs a server"):
        evaluate_file(store, path, options)
    assert [t.name for t in threading.enumerate() if t.name.startswith("knowforge-")] == []
    # and the questions it was writing are all there, none half-written
    assert check_questions(store, make_items(), None).keys() == {i.id for i in make_items()}


def test_a_run_of_joined_benchmarks_answers_each_part(store):
    """``newterm:2022+2024`` evaluates two yearly benchmarks in one run: a question of either
    belongs to the run, a question of a third does not."""
    items = [i.model_copy(update={"id": f"{i.id}-{year}", "benchmark": f"t:{year}"})
             for year in (2022, 2024) for i in make_items()[:2]]
    options = EvalOptions(model="scripted-1")
    ensure_questions(store, items, "test items")
    results = evaluate_items(items, ScriptedBackend(SCRIPT), options)
    run_id = record_run(store, options, items, results, benchmark="t:2022+2024")
    assert store.user_query("MATCH (r:Run {id: $id}) RETURN r.benchmark AS b", {"id": run_id}) == [{"b": "t:2022+2024"}]
    with pytest.raises(InputError, match="belongs to benchmark 't:2024', not 't:2022, t:2023'"):
        record_run(store, options, items, results, benchmark="t:2022+2023")


def test_unknown_run_and_bad_keys(store):
    with pytest.raises(RunNotFound):
        results_by(store, "run-nope", ["year"])
    run_id, _ = _run(store, make_items())
    with pytest.raises(ConfigError):
        results_by(store, run_id, ["year; DROP"])
    with pytest.raises(ConfigError):
        results_by(store, run_id, [])
    # a key no question of the run has is a typo, not one "-" bucket: the error lists the run's keys
    with pytest.raises(ConfigError, match=r"slice key\(s\) relaton; its keys: .*\brelation\b.*\btask\b.*\byear\b"):
        results_by(store, run_id, ["relaton", "year"])


def test_results_cli_names_an_unknown_slice_key(store, graph_env, monkeypatch):
    from click.testing import CliRunner

    from knowforge.cli.main import cli

    write_relations(store, [RelationRecord(id="P2067", label="mass", source="test")])
    run_id, _ = _run(store, make_items())
    result = CliRunner().invoke(cli, ["results", run_id, "--by", "relaton"])
    assert result.exit_code == 1
    assert "relaton" in result.output and "its keys:" in result.output and "Traceback" not in result.output
    # by relation: the id beside its label in the table, and in the json rows
    rows = results_by(store, run_id, ["relation"])
    assert {(r["relation"], r["relation_label"]) for r in rows} == {("P2067", "mass"), ("P31", None), ("P36", None)}
    result = CliRunner().invoke(cli, ["results", run_id, "--by", "relation"], catch_exceptions=False)
    assert result.exit_code == 0 and "P2067 (mass)" in result.output and "│ P36 " in result.output
    # an 80-column terminal: the run id is listed whole, so it can be copied
    monkeypatch.setenv("COLUMNS", "80")
    result = CliRunner().invoke(cli, ["results", "--list"], catch_exceptions=False)
    assert result.exit_code == 0 and run_id in result.output and "…" not in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80


def test_report_files_plots_and_comparison(store, tmp_path):
    write_relations(store, [RelationRecord(id="P36", label="capital", source="test")])
    items = make_items()
    a, _ = _run(store, items, n=2)
    b, _ = _run(store, items, script={**SCRIPT, "Capital of Peru?": "Lima"})
    out = write_report(store, a, tmp_path / "rep", compare=b,
                       extra_sections={"Notes": "hello", "Table": [{"k": 1, "v": 2}]})
    report = json.loads((out / "report.json").read_text())
    assert report["version"] == "2" and report["run_id"] == a
    assert report["overall"]["samples"] == 10 and report["overall"]["items"] == 5
    assert report["overall"]["accuracy"] == pytest.approx(0.4)     # odd samples are "wrong"
    assert set(report["by_year"]) == {"b/gen", "b/mc", "b/bool"}
    assert report["compare"]["run_id"] == b
    assert report["extra"]["Notes"] == "hello"
    for plot in ("accuracy_by_task", "accuracy_by_year", "accuracy_by_relation", "comparison"):
        assert_svg(out / "plots" / f"{plot}.svg")
    md = (out / "report.md").read_text()
    # relations beside their labels where the graph has them (P2067 has no :Relation here)
    assert report["relation_labels"] == {"P36": "capital"}
    assert "| P36 (capital) | 4 |" in md and "| P2067 | 4 |" in md
    assert "## By task" in md and "## Notes" in md and "| k | v |" in md and "plots/comparison.svg" in md
    assert report["balanced_accuracy"]["b/bool"]["value"] == 0.5    # gold yes: 1 of 2 samples said yes
    table = headline_table(build_report(store, a), build_report(store, b))
    assert table.row_count == 4 and len(table.columns) == 8     # + the compared run, Δ, p


def test_every_eval_statement_compiles(store):
    from importlib import resources

    from knowforge.kg.cypher import load_cypher

    folder = resources.files("knowforge.cypher").joinpath("eval")
    names = sorted(p.name[:-len(".cypher")] for p in folder.iterdir() if p.name.endswith(".cypher"))
    assert {"results_by_slice", "create_answers", "upsert_run", "create_variant_answers"} <= set(names)
    for name in names:
        assert store.query_type(load_cypher(f"eval/{name}")) in ("r", "rw", "w")


def test_report_trend_over_several_compared_runs(store, tmp_path):
    items = make_items()
    a, _ = _run(store, items)
    b, _ = _run(store, items, script={**SCRIPT, "Capital of Peru?": "Lima"})
    c, _ = _run(store, items, script={k: "no idea" for k in SCRIPT})
    out = write_report(store, a, tmp_path / "trend", compare=[b, c])
    report = json.loads((out / "report.json").read_text())
    assert report["compare"]["run_id"] == b                      # the first is still side by side
    rows = report["trend"]
    assert [r["run_id"] for r in rows] == [a, b, c]               # the order given
    for row, run in zip(rows, (a, b, c)):
        built = build_report(store, run)
        assert row["(all)"] == pytest.approx(built["overall"]["accuracy"])
        assert {t: row[t] for t in built["by_task"]} == pytest.approx(
            {t: s["accuracy"] for t, s in built["by_task"].items()})
    assert rows[2]["(all)"] < rows[0]["(all)"]
    assert_svg(out / "plots" / "trend.svg")
    md = (out / "report.md").read_text()
    assert "## Trend over the compared runs" in md and f"| {c} |" in md
    # one compared run: no trend
    single = json.loads((write_report(store, a, tmp_path / "one", compare=b) / "report.json").read_text())
    assert "trend" not in single


def test_results_lists_a_benchmarks_events(store, graph_env):
    """Issue 34: no command listed a benchmark's events; the Cypher had to be written by hand."""
    from click.testing import CliRunner
    from events_subgraph import build_subgraph

    from knowforge.cli.main import cli
    from knowforge.generators.events.build import generate_events

    build_subgraph(store)
    generate_events(store, types=["transfer-player"], n=2, seed=0, batch="lst")
    planned = store.user_query("MATCH (e:Event {batch: 'lst'}) RETURN e.id AS id, e.type AS type ORDER BY e.seq")
    runner = CliRunner()
    result = runner.invoke(cli, ["results", "--units", "events:lst", "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [(r["id"], r["type"]) for r in rows] == [(p["id"], p["type"]) for p in planned] and len(rows) == 2
    assert all(r["questions"] > 0 and any(s.startswith("A: ") for s in r["slots"]) for r in rows)
    table = runner.invoke(cli, ["results", "--units", "events:lst"], catch_exceptions=False)
    assert table.exit_code == 0 and all(r["id"] in table.output for r in rows)
    missing = runner.invoke(cli, ["results", "--units", "events:nosuch"])
    assert missing.exit_code != 0 and "no benchmark 'events:nosuch'" in missing.output
    # the listing is the method's (declared through its evaluation unit): a method without one says so
    other = runner.invoke(cli, ["results", "--units", "knowgen:x"])
    assert other.exit_code != 0 and "declares no listing" in other.output and "events" in other.output

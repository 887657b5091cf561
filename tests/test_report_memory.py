"""The eval writes its run's report from the answers it holds; ``knowforge report RUN`` reads
them back from the graph. Both must give the same report, byte for byte (issue 33 item 6)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from neo4j.exceptions import CypherTypeError

from knowforge.errors import InputError
from knowforge.eval import report as report_module
from knowforge.eval.file_benchmark import ensure_questions, file_task
from knowforge.eval.report import write_report
from knowforge.eval import tasks as tasks_module
from knowforge.eval.results import RunWrite, report_samples, run_answers, write_run
from knowforge.eval.tasks import record_output, run_tasks
from knowforge.eval.types import EvalOptions, SampleResult
from knowforge.eval.unit import SolverOutput
from knowforge.kg.records import EntityRecord, FactRecord
from knowforge.kg.writer import write_entities, write_facts
from test_runner import SCRIPT, ScriptedBackend, make_items


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _items(store):
    """The runner's five items, two of them linked to the graph so that slices are derived
    (relation from the tested fact, domain and popularity from the entity) and grouped
    (``metadata.group``) so that the report clusters."""
    write_entities(store, [EntityRecord(id="Q90", name="Paris", domain="general", popularity=300, source="test"),
                           EntityRecord(id="Q142", name="France", domain="general", popularity=5000,
                                        source="test")])
    # dated after the runs' cutoff (2021): the cutoff slices have an "after" side to get right
    fact = FactRecord(subject_id="Q142", relation="P36", object_id="Q90", source="test", start="2022",
                      start_year=2022)
    write_facts(store, [fact])
    items = make_items()
    groups = ["a", "a", "b", "b", None]
    items = [i.model_copy(update={"metadata": {"group": g} if g else {}}) for i, g in zip(items, groups)]
    items[0] = items[0].model_copy(update={"fact_ids": [fact.id], "entity_ids": ["Q142"]})
    items[4] = items[4].model_copy(update={"slices": {"year": 2022}, "entity_ids": ["Q90"]})
    ensure_questions(store, items, "test items")
    return items


def test_the_evals_report_from_memory_equals_the_report_read_back(store, tmp_path, monkeypatch):
    items = _items(store)
    options = EvalOptions(model="scripted-1", n=2, temperature=0.7, seed=3, cache=False, bootstrap=50,
                          model_cutoff="2021", out_dir=tmp_path / "runs")

    def no_read_back(*args, **kwargs):
        raise AssertionError("the eval read its answers back from the graph")

    monkeypatch.setattr(report_module, "run_answers", no_read_back)
    # the answers' write held until the report is written: nothing in the report may come from
    # the run's answers in the graph, which the eval writes beside it (the cutoff slices once
    # read them through the run, and got the sides of those written so far)
    reported = threading.Event()

    def report_then_release(*args, **kwargs):
        try:
            return real_write_report(*args, **kwargs)
        finally:
            reported.set()

    def held_write(self, store, run_id, questions, write):
        real_init(self, store, run_id, questions, lambda: (reported.wait(120), write()))

    real_write_report, real_init = tasks_module.write_report, RunWrite.__init__
    monkeypatch.setattr(tasks_module, "write_report", report_then_release)
    monkeypatch.setattr(RunWrite, "__init__", held_write)
    [run] = run_tasks(store, "b", items, [file_task("b")], options, backend=ScriptedBackend(SCRIPT),
                      cluster_key="group")
    monkeypatch.undo()
    assert reported.is_set()

    # what `knowforge report RUN` writes: the same run read back from the graph
    again = write_report(store, run.run_id, tmp_path / "again")
    memory, graph = _files(run.report_dir), _files(again)
    assert set(memory) >= {"report.json", "report.md", "plots/accuracy_by_task.svg", "plots/accuracy_by_year.svg"}
    assert memory == graph
    text = memory["report.json"].decode()
    # the report covered what makes the two paths differ if anything does: derived slices,
    # clusters, two samples per item, yes/no items, the cutoff sides
    assert '"domain"' in text and '"popularity_bucket"' in text and '"unit": "group"' in text
    assert '"balanced_accuracy"' in text and '"by_model_cutoff"' in text and '"samples": 10' in text
    assert json.loads(text)["by_model_cutoff"]["all"]["after"]["items"] == 1


def test_report_samples_are_the_pairs_the_graph_gives_back(store, tmp_path):
    items = _items(store)
    options = EvalOptions(model="scripted-1", n=2, temperature=0.7, seed=3, out_dir=tmp_path / "runs")
    results = [SampleResult(i.id, k, raw=f"r{k}", parsed=None if k else "x", score=0.5 * k, cached=bool(k),
                            error="timeout" if (i.id, k) == ("q2", 1) else None, prompt="P")
               for i in reversed(items) for k in (1, 0)]
    variant = [SampleResult("q1", 0, "v", "v", 1.0, variant="other")]
    recorded = write_run(store, options, items, results, variants=variant)
    graph = [(r["question"], r["answer"]) for r in run_answers(store, recorded.run_id)]
    memory = report_samples(recorded.run_id, recorded.questions, [*results, *variant])
    assert [(q["id"], a) for q, a in memory] == [(q["id"], a) for q, a in graph]
    # the question's fields a report reads, as properties(q) holds them (derived slices too)
    for (q, _), (full, _) in zip(memory, graph):
        assert q == {k: full[k] for k in q}
        assert {k for k in full if k.startswith("slice_")} <= set(q)
    assert memory[-1][0]["slice_domain"] == "general" and "slice_relation" not in memory[-1][0]


def test_an_answer_of_an_unasked_question_is_refused_by_name(store, tmp_path):
    items = _items(store)
    options = EvalOptions(model="scripted-1", out_dir=tmp_path / "runs")
    recorded = write_run(store, options, items[:2], [SampleResult("q1", 0, "a", "a", 1.0)])
    with pytest.raises(InputError, match="question 'q2', which the run did not record"):
        report_samples(recorded.run_id, recorded.questions, [SampleResult("q2", 0, "a", "a", 1.0)])


def test_a_refused_answer_write_raises_and_leaves_no_report(store, tmp_path):
    """The report is built while the answers are written (issue 33): when the server refuses
    the answers, the eval raises its error and leaves no report of answers it does not hold."""
    items = _items(store)
    options = EvalOptions(model="scripted-1", out_dir=tmp_path / "runs")
    # a map is no property value Neo4j stores: the server refuses the batch
    output = SolverOutput(items=items[:1], samples=[SampleResult("q1", 0, "a", "a", 1.0, explanation={"a": 1})])
    with pytest.raises(CypherTypeError, match="Property values can only be of primitive types"):
        record_output(store, options, output, benchmark="b", name="b:refused")
    [run] = store.user_query("MATCH (r:Run {name: 'b:refused'}) RETURN r.id AS id, COUNT { (r)-[:GAVE]->() } AS answers")
    assert run["answers"] == 0
    assert not (tmp_path / "runs" / run["id"]).exists()

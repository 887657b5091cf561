"""ELKEN with editors that change weights (``--solver rome|memit``) on the small hand-built
subgraph and the tiny local Llama: an event's asserted and retracted facts become the right
requests; a ROME and a MEMIT run through the method seam record answers and leave the base
model's weights exactly as they were; the run's numbers equal metric.py's on the exported
files; and the validity section checks the weight editors as issue 32 expects."""

from __future__ import annotations

import re

import json

import pytest
from click.testing import CliRunner
from events_subgraph import build_subgraph
from test_elken_roundtrip import ours, reference
from test_validity import _graph, _items

from knowforge.cli.main import cli
from knowforge.errors import ConfigError
from knowforge.eval.events.editing import memory_of
from knowforge.eval.events.weight_edit import UNKNOWN, event_requests, relation_template
from knowforge.eval.types import EvalOptions, SampleResult
from knowforge.eval.validity import validity_report
from knowforge.generators.events.build import generate_events, read_batch
from knowforge.models.control_data import SourceFact


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def items(store):
    build_subgraph(store)
    generate_events(store, types=["transfer-player", "win-election"], n=1, seed=0, batch="we")
    return [i for _, its in read_batch(store, "we") for i in its]


def test_an_events_facts_become_its_requests(store, items):
    memory = memory_of(items)
    edits = event_requests(store, memory.ids)
    assert set(edits) == set(memory.ids)
    for event_id in memory.ids:
        e = edits[event_id]
        requests = {(r.subject, r.prompt): r for r in e.requests}
        assert len(requests) == len(e.requests)             # one request per (subject, relation)
        assert all(r.key.startswith(f"{event_id}/f:") and r.prompt.count("{}") == 1 for r in e.requests)
        # every in-scope question is the question of one request, whose target answers it
        for item in items:
            if item.metadata["event_id"] != event_id or item.slices["scope"] != "in":
                continue
            subject = item.metadata["subject"]["name"]
            [request] = [r for (s, p), r in requests.items() if s == subject
                         and p == relation_template(_fact(item), "statement")]
            assert request.target == UNKNOWN if item.unknown else request.target in item.answers
        # a retracted fact is covered by the asserted fact of its slot, or becomes "unknown"
        retracted = store.user_query("MATCH (:Event {id: $e})-[:RETRACTS]->(f:Fact)<-[:HAS_FACT]-(s:Entity) "
                                     "RETURN f.id AS id, s.name AS subject ORDER BY id", {"e": event_id})
        assert retracted
        keys = {r.key for r in e.requests} | {k for k, _ in e.covered}
        assert all(f"{event_id}/{row['id']}" in keys for row in retracted)
    transfer = next(i for i in items if i.slices["event_type"] == "transfer-player" and i.slices["relation"] == "P54")
    e = edits[transfer.metadata["event_id"]]
    [club] = [r for r in e.requests if r.prompt == "{}, member of sports team:"]
    assert club.subject == transfer.metadata["subject"]["name"] and club.target == transfer.answers[0]
    assert any("replaced by" in why for _, why in e.covered)                # the old club
    question = event_requests(store, [transfer.metadata["event_id"]], template="question")
    assert "Question: Which club does {} play for?\nAnswer:" in {r.prompt for r in
                                                                 question[transfer.metadata["event_id"]].requests}


def _fact(item) -> SourceFact:
    """The relation's label as the graph's edit facts carry it (relations.yaml)."""
    from knowforge.generators.events.templates import load_relations

    relation = item.slices["relation"]
    return SourceFact(id="", subject_id="", subject="", relation=relation, label=load_relations()[relation].label,
                      kind="relation", object="")


def test_bad_arguments_are_named(store, items, tiny_model_dir, tmp_path):
    from knowforge.eval.solvers import make_solver
    from knowforge.eval.unit import SolveContext
    from knowforge.models.backends.hf import HFBackend

    with pytest.raises(ConfigError, match="layers"):
        make_solver(_component("rome", layers="one"))
    with pytest.raises(ConfigError, match="mode"):
        make_solver(_component("memit", mode="batch"))
    base = HFBackend(str(tiny_model_dir), device="cpu")
    ctx = SolveContext(backend=base, options=EvalOptions(model=str(tiny_model_dir), out_dir=tmp_path, cache=False),
                       store=store)
    with pytest.raises(ConfigError, match="stats_corpus"):     # MEMIT needs covariance; not a control model
        make_solver(_component("memit")).solve(items, ctx)
    with pytest.raises(ConfigError, match="bad hyperparameters: no_such"):
        make_solver(_component("rome", stats_corpus=_corpus(tmp_path), hparams='{"no_such": 1}')).solve(items, ctx)


def _component(name, **args):
    from knowforge.models.task import Component

    return Component(name=name, args=args)


def _corpus(tmp_path) -> str:
    path = tmp_path / "corpus.txt"
    from events_subgraph import E, F

    names = {e[0]: e[1] for e in E}
    path.write_text("\n".join(f"{names[s]}, {r}: {names[o]}." for s, r, o, *_ in F) + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.hf
@pytest.mark.parametrize("method,mode", [("rome", "per-event"), ("memit", "sequential")])
def test_weight_edit_runs_restore_the_model_and_score_as_metric_py(method, mode, store, graph_env, items,
                                                                   tiny_model_dir, tmp_path):
    from knowforge import workflow
    from knowforge.models.backends.hf import HFBackend
    from knowforge.models.editing import weights_digest

    base = HFBackend(str(tiny_model_dir), device="cpu")
    digest = weights_digest(base.lm)
    options = EvalOptions(backend="hf", model=str(tiny_model_dir), max_tokens=6, cache=False, device="cpu",
                          out_dir=tmp_path / "runs", silent=True, scoring="official", bootstrap=0)
    # few optimisation steps: the seam is under test here, the editors' quality in edit-core's tests
    evaluation = workflow.evaluate(store, "events:we", options, backend=base,
                                   solver=_component(method, mode=mode, stats_corpus=_corpus(tmp_path),
                                                     hparams='{"v_num_grad_steps": 4}'))
    [run] = evaluation.runs
    assert weights_digest(base.lm) == digest                                # restored exactly
    props = store.user_query("MATCH (r:Run {id: $id}) RETURN properties(r) AS p", {"id": run.run_id})[0]["p"]
    assert props["editing_method"] == method and props["edit_mode"] == mode and props["weights_restored"]
    requests = sum(len(e.requests) for e in event_requests(store, memory_of(items).ids).values())
    assert props["edit_requests"] == requests
    assert props["edit_requests_applied"] + props["edit_requests_skipped"] == requests
    answered = store.user_query("MATCH (:Run {id: $id})-[:GAVE]->(a:Answer) RETURN count(a) AS n",
                                {"id": run.run_id})[0]["n"]
    assert answered == len(items)
    report = json.loads((run.report_dir / "report.json").read_text())
    sections = report["extra"]
    assert sections[f"ELKEN weight edits ({method})"]["rows"][0]["requests"] == requests
    if mode == "sequential":
        decay = sections[f"ELKEN sequential edits: reliability as edits accumulate ({method})"]["rows"]
        assert [d["events edited"] for d in decay] == [1, 2]
        # the last point is the run's own reliability: every edit of the batch in the weights
        assert decay[-1]["question-level reliability"] == pytest.approx(
            run.metrics["events/fact"]["edit_reliability"]["question_level"])
    out = tmp_path / "helm"
    exported = invoke("export", "run", run.run_id, "--format", "helm", "--out", out)
    assert exported.exit_code == 0, exported.output
    summary = json.loads((tmp_path / "runs" / "events-we" / "summary.json").read_text())
    mine = ours(next(r for r in summary["runs"].values() if r["run_id"] == run.run_id))
    theirs = reference(out)
    assert {k: mine[k] for k in theirs} == pytest.approx(theirs, abs=1e-12)
    scored = invoke("score", "elken", *sorted(out.glob("*.json")), "--json")
    assert scored.exit_code == 0, scored.output
    fact = {r["kind"]: r for r in json.loads(scored.stdout)}["fact"]
    assert fact["accuracy"]["overall_correct"] / fact["accuracy"]["overall_total"] == pytest.approx(
        mine["question_level"])


def test_validity_checks_the_weight_editors(store, tmp_path):
    """Twelve one-question events: ROME right on all (no edit on none) and local; MEMIT no
    better than no edit and half its out-of-scope answers changed; SERAC less local than FT.
    Each expectation is met or flagged as the issue states it."""
    model_dir = _graph(store, tmp_path)
    inside = [i for n in range(12) for i in _items(f"in{n}-", [[]], benchmark="events:w", task="events/fact",
                                                   slices={"scope": "in"}, metadata={"event_id": f"ev{n}"})]
    outside = [i for n in range(12) for i in _items(f"out{n}-", [[]], benchmark="events:w",
                                                    task="events/locality", slices={"scope": "out"},
                                                    metadata={"event_id": f"ev{n}"})]

    def run(method, right, changed):
        results = [SampleResult(item_id=i.id, sample_index=0, raw="a" if r else "b", parsed=None, score=float(r))
                   for i, r in zip(inside, right)]
        results += [SampleResult(item_id=i.id, sample_index=0, raw="z" if n < changed else "a", parsed=None,
                                 score=1.0) for n, i in enumerate(outside)]
        variants = [SampleResult(item_id=i.id, sample_index=0, raw="a", parsed=None, score=1.0, variant="no-edit")
                    for i in outside]
        from knowforge.eval.file_benchmark import ensure_questions
        from knowforge.eval.results import record_run

        ensure_questions(store, inside + outside, "test items")
        return record_run(store, EvalOptions(backend="hf", model=str(model_dir)), inside + outside, results,
                          variants=variants, extra={"editing_method": method, "locality": 1 - changed / 12})

    none = run("none", [0] * 12, 0)
    rome = run("rome", [1] * 12, 0)

    def probes(run_id, moved_hop1, moved_hop2, collateral):
        # as ripple_probe records them: one probe of each kind per event
        rows = [{"id": f"{run_id}:{n}:{kind}", "props": {"event_id": f"ev{n}", "hop": hop, "expectation": exp,
                                                          "moved": n < k}}
                for n in range(12) for kind, hop, exp, k in (("h1", 1, "move", moved_hop1), ("h2", 2, "move", moved_hop2),
                                                             ("s", 1, "stay", collateral))]
        store.user_query("MATCH (r:Run {id: $run}) UNWIND $rows AS row CREATE (r)-[:PROBED]->(p:RippleProbe) "
                         "SET p = row.props, p.id = row.id", {"run": run_id, "rows": rows}, write=True)

    probes(none, 0, 0, 0)
    probes(rome, 12, 6, 3)
    run("memit", [0] * 12, 6)
    run("ft", [1] * 12, 0)
    last = run("serac", [1] * 12, 3)
    report = validity_report(store, last)
    section = report["sections"]["elken"]
    checks = {c["check"]: c for c in section["data"]["checks"]}
    assert checks["ROME reliability above no-edit, interval excludes 0"]["result"] == "met"
    assert checks["ROME locality >= 90.0%"]["result"] == "met"
    assert checks["MEMIT reliability above no-edit, interval excludes 0"]["result"] == "MISSED"
    assert checks["MEMIT locality >= 90.0%"] == {"benchmark": "events:w", "check": "MEMIT locality >= 90.0%",
                                                 "value": "50.0", "result": "MISSED"}
    assert checks["SERAC locality exceeds FT's"]["result"] == "MISSED"
    flags = [f for f in report["flags"] if f.startswith("ELKEN events:w")]
    assert any("MEMIT − no edit" in f for f in flags) and any("MEMIT locality 50.0%" in f for f in flags)
    assert any("SERAC's locality (75.0%) does not exceed FT's (100.0%)" in f for f in flags)
    assert not any("ROME" in f for f in flags)
    methods = {m["method"]: m for m in section["data"]["methods"]}
    assert [m["name"] for m in section["data"]["methods"]] == ["no-edit", "FT", "SERAC", "ROME", "MEMIT"]
    assert methods["rome"]["reliability"]["value"] == 1.0 and methods["rome"]["reliability − no edit"]["value"] == 1.0
    assert methods["memit"]["locality"]["value"] == 0.5 and methods["memit"]["locality"]["ci"][0] < 0.5
    from knowforge.eval.validity import render_validity_markdown

    ripple = methods["rome"]["ripple"]
    assert ripple["hop 1 moved"]["value"] == 1.0 and ripple["hop 2 moved"]["value"] == 0.5
    assert ripple["collateral"]["value"] == 0.25 and ripple["hop 1 moved"]["− no edit"]["value"] == 1.0
    assert methods["memit"]["ripple"] == {}                                 # not probed
    md = render_validity_markdown(report)
    # each row names the run it reads (the validity report's stated rule picks it)
    # (locality, then the same questions' accuracy against the gold, then the ripple columns)
    assert re.search(r"\| events:w \| ROME \| run-[0-9T]+-[0-9a-f]+ \| 100\.0 \[100\.0, 100\.0\] \| \+100\.0 ± 0\.0 "
                     r"\| 100\.0 \[100\.0, 100\.0\] \| [^|]+ \| 100\.0 \[100\.0, 100\.0\] \| \+100\.0 ± 0\.0 \| 50\.0 \[",
                     md)
    assert re.search(r"\| events:w \| MEMIT \| run-[0-9T]+-[0-9a-f]+ \| 0\.0 \[0\.0, 0\.0\] \| \+0\.0 ± 0\.0 \| 50\.0 \[", md)
    assert "| - | - | - | - | - | - |" in md


@pytest.mark.hf
def test_skipped_and_refused_requests_are_named_with_their_event_and_fact(tiny_model_dir, tmp_path, monkeypatch):
    """Issue 32's bad input at the solver's level: a request the editor skips, and every request
    of an event whose edit is refused (not finite), come back counted and named by event and
    fact, with the weights as they were."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from knowforge.eval.events.weight_edit import EventEdits, _apply
    from knowforge.models.editing import EditRequest, WeightEditor, compute, default_hparams, rome, weights_digest

    torch.set_num_threads(1)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    hparams = default_hparams("rome", model).model_copy(update={"v_num_grad_steps": 2, "mom2_adjustment": False})
    editor = WeightEditor(model, tokenizer, "rome", hparams=hparams)
    digest = weights_digest(model)
    good = EditRequest("{}, member of sports team:", "Cristiano Ronaldo", "Chelsea", key="ev1/f:Q1-P54-Q2")
    blank = EditRequest("{}, member of sports team:", " ", "Chelsea", key="ev1/f:Q3-P54-Q2")
    applied, skipped = _apply(editor, EventEdits("ev1", (good, blank)))
    assert applied == 1
    assert skipped == [{"event": "ev1", "fact": "f:Q3-P54-Q2", "subject": " ", "target": "Chelsea",
                        "reason": "subject tokens not found"}]
    editor.restore()

    def poisoned(*args, **kwargs):
        values = compute.optimise_values(*args, **kwargs)
        return compute.Values(init=values.init, delta=values.delta * float("nan"), losses=values.losses)

    monkeypatch.setattr(rome, "optimise_values", poisoned)
    applied, skipped = _apply(editor, EventEdits("ev2", (good, blank)))
    assert applied == 0 and [(s["event"], s["fact"]) for s in skipped] == [("ev2", "f:Q1-P54-Q2"),
                                                                           ("ev2", "f:Q3-P54-Q2")]
    assert all(s["reason"].startswith("edit refused:") and "not finite" in s["reason"] for s in skipped)
    assert weights_digest(model) == digest

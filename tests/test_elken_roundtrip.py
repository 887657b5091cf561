"""An ELKEN release end to end: `generate events --import` the released fact part (40 events with
every variant the real files carry) → `eval` under every editing solver, official scoring,
answers in varied forms from a scripted OpenAI-compatible server (ft: the tiny transformers
model) → `export run --format helm` → the official metric.py (transliterated in
tests/test_compat_differential.py) on the exported files → the same numbers as our report:
question- and edit-level reliability, locality, tendency accuracy and tendency locality."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import SHARED, wipe
from knowforge.cli.main import cli
from knowforge.generators.events.elken_release import read_elken_release
from scripted_openai import ScriptedCompletions, serving
from test_compat_differential import (TENDENCY_FORMS, fact_forms, ref_event_acc, ref_event_score,
                                      ref_fact_compute_acc, ref_fact_item_correct, ref_fact_locality,
                                      ref_overall_event_level, ref_tendency_acc, ref_tendency_item_correct,
                                      ref_tendency_locality)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


class Varied(ScriptedCompletions):
    """Answers a fact question with one of the forms its gold can take (cases, periods, first
    lines, "unknown" phrasings, "United States" for Q30) and a tendency question with one of the
    letter forms the parsers read differently; the form hangs on the whole prompt, so a question
    asked with and without the event gets different answers (locality varies)."""

    calls: list[str] = []
    forms: dict[str, list[str]] = {}

    def reply(self, prompt: str) -> str:
        h = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
        if prompt.startswith(JUDGE_PREFIX):
            return JUDGEMENTS[h % len(JUDGEMENTS)]
        found = [q for q in self.forms if q in prompt]
        forms = self.forms[max(found, key=len)] if found else TENDENCY_FORMS
        return forms[h % len(forms)] or "unknown"          # a token-less reply would leave nothing to read


JUDGE_PREFIX = "You are a fair assessor"
# a Tendency-G judge's replies: full marks, a capped overall, and two that fail to parse
JUDGEMENTS = ["correctness: 5\ncoherence: 5\ncomprehensiveness: 5\noverall: 5",
              "correctness: 5\ncoherence: 4\ncomprehensiveness: 5\noverall: 5",
              "correctness: 3\ncoherence: 4\ncomprehensiveness: 2\noverall: 4",
              "I cannot rate this answer.", "correctness: 9\ncoherence: 4\ncomprehensiveness: 2\noverall: 4"]


def reference(folder) -> dict[str, float]:
    """metric.py's numbers on the exported files."""
    files = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*.json")}
    fact, local = files["fact"], files["fact_local"]
    acc = ref_fact_compute_acc(fact)
    events = ref_event_acc(fact, ref_fact_item_correct)
    locality, _ = ref_fact_locality(fact, local)
    out = {"question_level": acc["overall_correct"] / acc["overall_total"],
           "edit_level": events["overall_correct"] / events["overall_total"],
           "locality": locality["overall_same"] / locality["overall_total"]}
    if acc["1_total"]:           # a --limit run may hold no type-1 question with a known gold
        out["type1_known_gold"] = acc["1_correct"] / acc["1_total"]
    if "tendency_mc" in files:
        tend_events = ref_event_acc(files["tendency_mc"], ref_tendency_item_correct)
        out["tendency_edit_level"] = tend_events["overall_correct"] / tend_events["overall_total"]
        tend = ref_tendency_acc(files["tendency_mc"])
        tend_local = ref_tendency_locality(files["tendency_mc"], files["tendency_mc_local"])
        out["tendency_accuracy"] = tend["overall_correct"] / tend["overall_total"]
        out["tendency_locality"] = tend_local["overall_same"] / tend_local["overall_total"]
    return out


def ours(run: dict) -> dict[str, float]:
    m = run["metrics"]
    return {"question_level": m["events/fact"]["edit_reliability"]["question_level"],
            "edit_level": m["events/fact"]["edit_reliability"]["edit_level"],
            "type1_known_gold": m["events/fact"]["edit_reliability"]["question_level_needs_background"],
            "tendency_edit_level": m["events/tendency"]["tendency_edit_level"]["edit_level"],
            "locality": m["events/locality"]["locality"]["question_level"],
            "tendency_accuracy": m["events/tendency"]["tendency_accuracy"]["accuracy"],
            "tendency_locality": m["events/tendency"]["tendency_locality"]["question_level"]}


def forms_of(items) -> dict[str, list[str]]:
    return {i.question: fact_forms(i.metadata["answer"]) for i in items if "answer" in i.metadata
            and isinstance(i.metadata["answer"], dict)}


@pytest.fixture(scope="module")
def release(neo4j_server, session_store):
    """The released fact part imported once for the module: the solvers only read it (no eval
    changes a benchmark, tests/test_benchmark_immutable.py), each run is told apart by its id."""
    shared = SHARED / "formats"
    if not shared.is_dir():
        pytest.skip("../shared/formats is not present")
    path = shared / "elken" / "train_fact_sample.json"
    _, settings = neo4j_server
    wipe(session_store)
    with pytest.MonkeyPatch.context() as env:
        for key, value in (("NEO4J_URI", settings.uri), ("NEO4J_USER", settings.user),
                           ("NEO4J_PASSWORD", settings.password)):
            env.setenv(key, value)
        result = invoke("generate", "events", "--import", path, "--name", "rt-fact", "--silent")
        assert result.exit_code == 0, result.output
        _, items, _ = read_elken_release(path, benchmark="events:rt-fact")
        yield items


# Resamples of each run's intervals: these tests compare point numbers with metric.py's; a few
# resamples run the same code. (The events' metrics were resampled as objects, 1,000 times by
# default: 85% of a run's time. Since they declare per-event totals, issue 33, 1,000 resamples
# of this release's metrics over arrays take about 0.1 s: benchmarks/RESULTS.md.)
BOOTSTRAP = "20"


@pytest.mark.parametrize("solver", ["ice", "bm25", "no-edit", "dense", "serac"])
def test_every_prompting_solver_scores_as_metric_py(solver, release, tiny_sentence_model, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    Varied.forms = forms_of(release)
    args = {"dense": ["-S", f"dense_model={tiny_sentence_model}"],
            "serac": ["-S", f"encoder={tiny_sentence_model}"]}.get(solver, [])
    with serving(Varied) as url:
        result = invoke("eval", "--benchmark", "events:rt-fact", "--solver", solver, *args, "--backend", "openai",
                        "--model", "scripted", "--base-url", url, "--scoring", "official", "--no-cache",
                        "--max-tokens", "8", "--bootstrap", BOOTSTRAP, "--out", tmp_path / "runs", "--silent")
    assert result.exit_code == 0, result.output
    [run] = json.loads((tmp_path / "runs" / "events-rt-fact" / "summary.json").read_text())["runs"].values()
    assert run["items"] == len(release)
    if solver == "serac":       # --no-cache: the classifiers (2 folds x fact and tendency) are kept beside the runs
        assert len(list((tmp_path / "runs" / "serac").glob("scope-*.npz"))) == 4
    out = tmp_path / "helm"
    result = invoke("export", "run", run["run_id"], "--format", "helm", "--out", out)
    assert result.exit_code == 0, result.output
    theirs, mine = reference(out), ours(run)
    if solver == "no-edit":
        # without an edit the answers before and after are the same answers
        assert mine["locality"] == theirs["locality"] == 1.0
    assert mine == pytest.approx(theirs, abs=1e-12), (mine, theirs)
    # every request state is exported: each question once, out-of-scope ones also without the edit
    states = {p.stem: len(json.loads(p.read_text())["request_states"]) for p in out.glob("*.json")}
    outside = [i for i in release if i.slices["scope"] == "out"]
    assert states["fact"] + states["tendency_mc"] == len(release)
    assert states["fact_local"] + states["tendency_mc_local"] == len(outside)


@pytest.mark.hf
def test_fine_tuning_scores_as_metric_py(release, tiny_model_dir, tmp_path):
    result = invoke("eval", "--benchmark", "events:rt-fact", "--solver", "ft", "-S", "epochs=1", "--limit", "3",
                    "--backend", "hf", "--model", tiny_model_dir, "--scoring", "official", "--no-cache",
                    "--max-tokens", "6", "--bootstrap", BOOTSTRAP, "--out", tmp_path / "runs", "--silent")
    assert result.exit_code == 0, result.output
    [run] = json.loads((tmp_path / "runs" / "events-rt-fact" / "summary.json").read_text())["runs"].values()
    out = tmp_path / "helm"
    assert invoke("export", "run", run["run_id"], "--format", "helm", "--out", out).exit_code == 0
    theirs, mine = reference(out), ours(run)
    assert {k: mine[k] for k in theirs} == pytest.approx(theirs, abs=1e-12)


@pytest.fixture
def unknown_type1_release(shared_formats, store, graph_env, tmp_path):
    """The released fact part's first 12 events, every third type-1 question's gold deleted (made unknown, as
    the released files write a deleted fact): metric.py's 1_acc leaves those out."""
    events = json.loads((shared_formats / "elken" / "train_fact_sample.json").read_text(encoding="utf-8"))
    type1 = [qa for event in events[:12] for qa in event["fact"]["qas"] if qa["type"] == 1]
    for qa in type1[::3]:
        qa["answer"] = {"id": "NA", "name": "unknown", "alias": ["unknown"]}
    assert 0 < len(type1[::3]) < len(type1)
    path = tmp_path / "unknown_type1.json"
    path.write_text(json.dumps(events[:12]), encoding="utf-8")
    result = invoke("generate", "events", "--import", path, "--name", "rt-unknown", "--silent")
    assert result.exit_code == 0, result.output
    _, items, _ = read_elken_release(path, benchmark="events:rt-unknown")
    Varied.forms = forms_of(items)
    return items


def test_official_report_numbers_with_a_judge_are_the_scripts(unknown_type1_release, tmp_path, monkeypatch):
    """Every number of an official run that has an official counterpart is that counterpart:
    type-1 accuracy over known golds, tendency edit level, the judge's means and full marks with
    its failed judgements counted as -1, its event level, and the overall event level, read from
    the exported files (tendency_gen_exam.json included) by the scripts' rules."""
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    with serving(Varied) as url:
        result = invoke("eval", "--benchmark", "events:rt-unknown", "--solver", "ice", "--backend", "openai",
                        "--model", "scripted", "--base-url", url, "--scoring", "official", "--no-cache",
                        "--max-tokens", "8", "--bootstrap", "0", "--out", tmp_path / "runs", "--silent",
                        "-S", "judge_model=scripted",
                        "-S", "judge_backend=openai", "-S", f"judge_base_url={url}")
    assert result.exit_code == 0, result.output
    [run] = json.loads((tmp_path / "runs" / "events-rt-unknown" / "summary.json").read_text())["runs"].values()
    out = tmp_path / "helm"
    result = invoke("export", "run", run["run_id"], "--format", "helm", "--out", out)
    assert result.exit_code == 0, result.output
    theirs, mine = reference(out), ours(run)
    assert mine == pytest.approx(theirs, abs=1e-12), (mine, theirs)
    # the unknown type-1 golds are really there, and left out of type 1 (not of the overall)
    fact = json.loads((out / "fact.json").read_text())
    assert any(s["instance"].get("question_type") == 1 and s["instance"]["answer"]["name"] == "unknown"
               for s in fact["request_states"])

    report = json.loads((Path(run["report"]) / "report.json").read_text())
    judged = report["extra"]["Tendency-G (LLM judge)"]
    assert judged["scoring"] == "official" and 0 < judged["unparsed"] < judged["cases"]
    exam = json.loads((out / "tendency_gen_exam.json").read_text())
    assert len(exam["request_states"]) == judged["cases"]
    assert sum(s["scores"]["overall"] == -1 for s in exam["request_states"]) == judged["unparsed"]
    # the event level, as metric.py's compute_event_score computes it on the exam file
    events = ref_event_score(exam)
    assert judged["event_full_mark_overall"] == pytest.approx(events["full_mark"])
    assert judged["event_mean_overall"] == pytest.approx(events["overall"])
    # overall_event_level_metric.py on fact.json + the exam file
    right, total = ref_overall_event_level(fact, exam)
    assert (judged["overall_event_level"]["correct"], judged["overall_event_level"]["events"]) == (right, total)
    # knowforge score elken on the exported files prints the same judge numbers (one implementation)
    scored = invoke("score", "elken", *sorted(out.glob("*.json")), "--json")
    assert scored.exit_code == 0, scored.output
    [row] = [r for r in json.loads(scored.output) if r["kind"] == "tendency_gen_exam"]
    overall = [s["scores"]["overall"] for s in exam["request_states"]]
    assert row["judge"]["overall"] == pytest.approx(sum(overall) / len(overall))   # the -1s count
    assert judged["mean_overall"] == pytest.approx(row["judge"]["overall"])
    assert judged["full_mark_overall"] == pytest.approx(row["judge"]["full_mark"])
    assert judged["mean_correctness"] == pytest.approx(row["judge"]["accuracy"])
    assert judged["event_full_mark_overall"] == pytest.approx(row["judge_events"]["full_mark"])
    [fact_row] = [r for r in json.loads(scored.output) if r["kind"] == "fact"]
    assert fact_row["overall_event_level"]["correct"] == right
    # the report prints the judge's numbers as a table, not a JSON dump
    md = (Path(run["report"]) / "report.md").read_text()
    assert "| measure | value | over |" in md and "compute_score" in md

"""`knowforge score elken|newterm` on official-layout files and `knowforge export run` from a run
recorded in the real Neo4j; the exported files are read back the way the official scripts read
them (record shapes as in tests/test_compat_differential.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.eval.events import helm
from knowforge.eval.newterm import rules as newterm
from knowforge.eval.file_benchmark import ensure_questions
from knowforge.eval.results import record_run
from knowforge.eval.types import SampleResult
from knowforge.eval.scoring import score_item
from knowforge.eval.types import EvalOptions
from released import elken_items, newterm_items

RELEASE = [
    {"event_type": "win-election", "event": "Ann Lee wins the election in Freedonia.", "id": 0,
     "fact": {"qas": [
         {"question": "Who is the head of state of Freedonia?", "subject": {"id": "Q1", "name": "Freedonia"},
          "answer": {"id": "Q7", "name": "Ann Lee", "alias": ["Lee"]}, "type": 0, "rel_id": "P35"},
         {"question": "Where does Ann Lee live?", "subject": {"id": "Q7", "name": "Ann Lee"},
          "answer": {"id": "Q30", "name": "United States of America", "alias": ["USA"]}, "type": 1,
          "rel_id": "P551"},
         {"question": "What office does Bob Roe hold?", "subject": {"id": "Q8", "name": "Bob Roe"},
          "answer": {"id": "NA", "name": "unknown", "alias": ["unknown"]}, "type": 0, "rel_id": "P39"}],
         "local_qas": [
         {"question": "What is the capital of Freedonia?", "subject": {"id": "Q1", "name": "Freedonia"},
          "answer": {"id": "Q9", "name": "Fredville", "alias": ["fred city", "Fred City"]}, "type": 0,
          "rel_id": "P36"}]},
     "tendency": {"qas": [{"question": "How may trade change?", "candidate": "(A) Grow (B) Shrink (C) Stay",
                           "answer": "A"}],
                  "local_qas": [{"question": "How may rainfall change?",
                                 "candidate": "(A) Rise (B) Fall (C) No significant change", "answer": "C"}]}},
    {"event_type": "death", "event": "Carl Diaz dies.", "id": 1,
     "fact": {"qas": [{"question": "Is Carl Diaz alive?", "subject": {"id": "Q3", "name": "Carl Diaz"},
                       "answer": {"id": "Q4", "name": "no", "alias": []}, "type": 0, "rel_id": "P570"}],
              "local_qas": []},
     "tendency": {"qas": [], "local_qas": []}},
]
AFTER = {"fact:qas:0": "Lee.", "fact:qas:1": "United States", "fact:qas:2": "It is unknown",
         "fact:local_qas:0": "fred city", "tendency:qas:0": " A. grow", "tendency:local_qas:0": "(C)",
         "1:fact:qas:0": "No"}
BEFORE = {"fact:local_qas:0": "Fred City", "tendency:local_qas:0": "C."}


def _answers(items, table):
    out = {}
    for item in items:      # events:<name>:<event>:<part>:<in|out>:<n>, as the importer names them
        e, part, scope, q = item.id.split(":")[-4:]
        scope = "qas" if scope == "in" else "local_qas"
        key = f"{part}:{scope}:{int(q)}" if int(e) == 0 else f"{int(e)}:{part}:{scope}:{int(q)}"
        if key in table:
            out[item.id] = table[key]
    return out


@pytest.fixture
def release_items(tmp_path):
    path = tmp_path / "release.json"
    path.write_text(json.dumps(RELEASE), encoding="utf-8")
    return elken_items(path)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_score_elken_files_in_both_modes(release_items, tmp_path):
    files = helm.write_item_files(tmp_path / "helm", release_items, _answers(release_items, AFTER),
                                  _answers(release_items, BEFORE))
    assert sorted(files) == [helm.FACT, helm.FACT_LOCAL, helm.TENDENCY, helm.TENDENCY_LOCAL]
    official = invoke("score", "elken", *files.values(), "--json")
    assert official.exit_code == 0, official.output
    rows = {r["kind"]: r for r in json.loads(official.stdout)}
    fact = rows[helm.FACT]
    # "Lee." right; "United States" right only through the Q30 label; "It is unknown" right; "No" right
    assert (fact["accuracy"]["overall_correct"], fact["accuracy"]["overall_total"]) == (4, 4)
    assert fact["accuracy"]["unknown_acc"] == 1.0 and fact["accuracy"]["1_total"] == 1
    assert fact["event_accuracy"] == {"overall_correct": 2, "overall_total": 2, "overall_acc": 1.0}
    # "fred city" maps to alias[0]; "Fred City" lower-cases to "fred city" too: unchanged
    assert fact["locality"]["overall_same"] == 1
    tendency = rows[helm.TENDENCY]
    assert tendency["accuracy"]["overall_correct"] == 1            # " A. grow" reads A
    assert tendency["locality"]["overall_same"] == 0               # "(c)" vs "c"
    ours = invoke("score", "elken", *files.values(), "--json", "--scoring", "knowforge")
    rows = {r["kind"]: r for r in json.loads(ours.stdout)}
    assert rows[helm.FACT]["accuracy"]["overall_correct"] == 3     # no Q30 label
    assert rows[helm.TENDENCY]["locality"]["overall_same"] == 1    # both pick C
    table = invoke("score", "elken", *files.values())
    assert table.exit_code == 0 and "scoring official" in table.output


def test_score_elken_bad_file_names_file_and_record(tmp_path):
    bad = tmp_path / "fact.json"
    bad.write_text(json.dumps({"request_states": [{"instance": {"input": {"text": "q"}}}]}))
    result = CliRunner().invoke(cli, ["score", "elken", str(bad)])
    assert result.exit_code == 1 and "fact.json" in result.output and "request_states[0]" in result.output


def test_score_newterm_files(tmp_path):
    choices = ["w", "x", "y", "z"]
    coma = [{"choices": choices, "gold": 1, "question": "q", "split": "cause", "term": "t", "meaning": "m",
             "type": "new words not deduced", "prompt_id": 0, "response": r} for r in ("B", "Answer: B", "A", "")]
    csj = [{"gold": g, "question": "q", "term": "t", "meaning": "m", "type": "x", "prompt_id": 0, "response": r}
           for g, r in ((True, "Yes"), (True, "yes"), (True, "correct."), (False, "Not sure"), (False, "NO"))]
    a = newterm.write_results(tmp_path / "results_2022" / "COMA_my-model.jsonl", coma)
    b = newterm.write_results(tmp_path / "results_2022" / "CSJ_my-model.jsonl", csj)
    result = invoke("score", "newterm", a, b, "--json")
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    assert row["model"] == "my-model" and row["prompt"] == "base"
    # official: "yes" and "correct." have no answer (case-sensitive), "Not sure" reads as No
    assert row["COMA"] == 50.0 and row["CSJ"] == pytest.approx(50 * (1 / 3 + 1))
    assert row["average"] == pytest.approx((50 + 50 * (1 / 3 + 1)) / 2)
    kf = json.loads(invoke("score", "newterm", a, b, "--json", "--scoring", "knowforge").stdout)[0]
    assert kf["CSJ"] == pytest.approx(50 * (1 + 1 / 2))      # whole words in any case
    table = invoke("score", "newterm", a, b)
    assert "my-model" in table.output and "58.33" in table.output


def test_results_file_names_split_like_get_results():
    assert newterm.results_model_name("meta-llama/Llama_3.1-8B") == "Llama-3.1-8B"
    assert newterm.results_path("out", 2022, "COST", "org/m_x", "few_gold") == Path(
        "out/results_2022/COST_m-x_few_gold.jsonl")
    assert newterm.parse_results_name("results_2022/COST_m-x_few_gold.jsonl") == ("COST", "m-x", "few_gold")


def _record(store, items, texts, *, extra=None, variants=None, **options):
    """A run with the answers ``texts`` (and variant answers ``variants``: name -> texts)."""
    scoring = options.get("scoring", "knowforge")

    def scored(item, text, variant=None):
        score = score_item(item, text, scoring)
        return SampleResult(item.id, 0, text, score.answer, score.value, variant=variant)

    results = [scored(i, texts.get(i.id, "")) for i in items]
    others = [scored(i, text, name) for name, answers in (variants or {}).items()
              for i in items for text in [answers.get(i.id)] if text is not None]
    ensure_questions(store, items, "release")
    return record_run(store, EvalOptions(backend="openai", model="org/some_model", **options), items, results,
                      variants=others, extra=extra)


def test_export_run_helm_with_before_run(store, graph_env, release_items, tmp_path):
    after_run = _record(store, release_items, _answers(release_items, AFTER), scoring="official")
    local = [i for i in release_items if i.slices["scope"] == "out"]
    before_run = _record(store, local, _answers(release_items, BEFORE))
    out = tmp_path / "exported"
    result = invoke("export", "run", after_run, "--format", "helm", "--out", out, "-O", f"before={before_run}")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["fact.json", "fact_local.json", "tendency_mc.json",
                                                     "tendency_mc_local.json"]
    fact = json.loads((out / "fact.json").read_text())["request_states"]
    # the fields metric.py and processor.py use, in processor.py's order (local questions first)
    assert [s["instance"]["local"] for s in fact] == [True, False, False, False, False]
    first = fact[1]["instance"]
    assert first["input"]["text"] == ("Event: Ann Lee wins the election in Freedonia.\n"
                                      "Question: Who is the head of state of Freedonia?\nAnswer:")
    assert first["answer"] == {"id": "Q7", "name": "Ann Lee", "alias": ["Lee"]} and first["question_type"] == 0
    assert fact[1]["request"]["result"]["completions"][0]["text"] == "Lee."
    before = json.loads((out / "fact_local.json").read_text())["request_states"]
    assert before[0]["instance"]["input"]["text"] == "Question: What is the capital of Freedonia?\nAnswer:"
    # the exported files give the same numbers as the run's own scores and as scoring the files
    scored = {r["kind"]: r for r in helm.score_files(out.iterdir(), "official")}
    assert scored[helm.FACT]["accuracy"]["overall_correct"] == 4
    assert scored[helm.FACT]["locality"]["overall_total"] == 1
    without = invoke("export", "run", after_run, "--format", "helm", "--out", tmp_path / "no-before")
    assert without.exit_code == 0 and "-O before=RUN" in without.output
    assert not (tmp_path / "no-before" / "fact_local.json").exists()
    # a run that recorded its answers without the edit (an editing solver's variants) needs no second run
    one_run = _record(store, release_items, _answers(release_items, AFTER), scoring="official",
                      variants={"no-edit": _answers(local, BEFORE)})
    both = tmp_path / "one-run"
    assert invoke("export", "run", one_run, "--format", "helm", "--out", both).exit_code == 0
    for name in ("fact.json", "fact_local.json", "tendency_mc.json", "tendency_mc_local.json"):
        assert (both / name).read_text() == (out / name).read_text(), name


def test_export_run_newterm_results(store, graph_env, tmp_path):
    rows = [{"choices": ["w", "x", "y", "z"], "gold": 2, "meaning": "m", "question": f"q{i} _", "term": "t",
             "type": "new words not deduced"} for i in range(3)]
    src = tmp_path / "COST.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    items = newterm_items(src, year=2022)
    run = _record(store, items, {items[0].id: "C", items[1].id: "Answer: A", items[2].id: "y"},
                  extra={"newterm_setting": "gold"})
    out = tmp_path / "nt"
    result = invoke("export", "run", run, "--format", "newterm-results", "--out", out)
    assert result.exit_code == 0, result.output
    path = out / "raw" / "results_2022" / "COST_some-model_gold.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["response"] for line in lines] == ["C", "Answer: A", "y"]
    assert all({"response", "gold", "choices", "prompt_id", "term", "meaning", "type"} <= set(line) for line in lines)
    assert newterm.score_results([path], "official") == [
        {"model": "some-model", "prompt": "gold", "COST": pytest.approx(200 / 3), "average": pytest.approx(200 / 3)}]
    not_newterm = invoke("export", "run", run, "--format", "helm", "--out", tmp_path / "x")
    assert not_newterm.exit_code == 1 and "no ELKEN" in not_newterm.output


class _Answering:
    """A local OpenAI-compatible server that answers every completion with ``reply``."""

    def __init__(self, reply: str):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                payload = json.dumps({"id": "c", "object": "text_completion", "created": 0, "model": body["model"],
                                      "choices": [{"index": 0, "text": reply, "finish_reason": "stop",
                                                   "logprobs": None}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def test_eval_scoring_option_reaches_runs_and_reports(store, graph_env, release_items, tmp_path, monkeypatch):
    """A reply opening with a blank line is wrong under the official rule (first line) and
    right under ours (first non-empty line); the mode is on the Run and in every report."""
    from knowforge.models.items_io import write_items

    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
    tendency = [i for i in release_items if i.scorer == "elken-tendency" and i.answers == ["A"]]
    bench = tmp_path / "elken.jsonl"
    write_items(bench, tendency)
    server = _Answering("\n(A) Grow")
    try:
        accuracy = {}
        for mode in ("official", "knowforge"):
            result = invoke("eval", "--benchmark", bench, "--backend", "openai", "--model", "m", "--base-url",
                            server.url, "--scoring", mode, "--cache-dir", tmp_path / "cache",
                            "--out", tmp_path / "runs", "--silent")
            assert result.exit_code == 0, result.output
            run_id = result.stdout.strip().splitlines()[-1]
            report = json.loads((tmp_path / "runs" / run_id / "report.json").read_text())
            assert report["scoring"]["mode"] == mode and report["run"]["scoring"] == mode
            assert report["scoring"]["rules"] == [f"elken-tendency:{mode}"]
            assert f"- scoring: {mode} (elken-tendency:{mode})" in (tmp_path / "runs" / run_id / "report.md").read_text()
            assert re.search(rf"scoring\s+{mode}", result.output)      # the terminal table's title
            accuracy[mode] = report["overall"]["accuracy"]
    finally:
        server.httpd.shutdown()
    assert accuracy == {"official": 0.0, "knowforge": 1.0}


def test_unknown_scoring_mode_is_refused():
    from knowforge.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown scoring mode 'strict'"):
        EvalOptions.make(scoring="strict")
    result = CliRunner().invoke(cli, ["eval", "--benchmark", "x.jsonl", "--model", "m", "--scoring", "strict"])
    assert result.exit_code == 2 and "strict" in result.output


def test_method_summary_names_the_scoring_mode(tmp_path):
    from knowforge.eval.tasks import write_summary

    out = write_summary(tmp_path / "s", benchmark="events:e0", method="events",
                        options=EvalOptions(model="m", scoring="official"), items=3, runs=[], report_slices=())
    assert json.loads((out / "summary.json").read_text())["scoring"] == "official"
    assert "scoring official" in (out / "summary.md").read_text()


def test_an_export_never_silently_replaces_another_runs_files(store, graph_env, tmp_path):
    """Two runs exported into one folder (NewTerm's 2024 run and its multilingual twin both write
    results_2024/*): the second export refuses, names the files and writes nothing; --overwrite
    replaces them."""
    rows = [{"choices": ["w", "x", "y", "z"], "gold": 2, "meaning": "m", "question": f"q{i} _", "term": "t",
             "type": "new words not deduced"} for i in range(3)]
    src = tmp_path / "COST.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    items = newterm_items(src, year=2022)
    first = _record(store, items, {items[0].id: "C", items[1].id: "A", items[2].id: "y"},
                    extra={"newterm_setting": "gold"})
    second = _record(store, items, {i.id: "B" for i in items}, extra={"newterm_setting": "gold"})
    out = tmp_path / "nt"
    assert invoke("export", "run", first, "--format", "newterm-results", "--out", out).exit_code == 0
    path = out / "raw" / "results_2022" / "COST_some-model_gold.jsonl"
    before = path.read_text()
    refused = invoke("export", "run", second, "--format", "newterm-results", "--out", out)
    assert refused.exit_code != 0 and "--overwrite" in refused.output and "COST_some-model_gold.jsonl" in refused.output
    assert path.read_text() == before and not list(tmp_path.glob(".nt.export-*"))
    assert invoke("export", "run", second, "--format", "newterm-results", "--out", out, "--overwrite").exit_code == 0
    assert [json.loads(line)["response"] for line in path.read_text().splitlines()] == ["B", "B", "B"]

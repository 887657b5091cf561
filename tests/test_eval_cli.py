"""`knowforge eval / results / report / tiny-model` end to end: real transformers backend on a
tiny random model, real response cache, real Neo4j."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.errors import BackendError
from knowforge.models.items_io import read_items, write_items
from knowforge.models.types import BenchmarkItem
from knowforge.eval.types import EvalOptions
from svg_check import assert_svg

pytestmark = pytest.mark.hf


def bench_items() -> list[BenchmarkItem]:
    items = []
    for i, year in enumerate([2019, 2020, 2021, 2022]):
        items.append(BenchmarkItem(id=f"g{i}", benchmark="cli-test", task="t/generation", form="generation",
                                   question=f"In {year}, who coached club {i}?", answers=[f"Coach {i}"],
                                   slices={"relation": "P286", "year": year}))
    items.append(BenchmarkItem(id="m0", benchmark="cli-test", task="t/mc", form="multi-choice",
                               question="Pick one", choices=["x", "y", "z", "w"], answer_index=2,
                               scorer="multi-choice", slices={"relation": "P31", "year": 2020}))
    items.append(BenchmarkItem(id="b0", benchmark="cli-test", task="t/bool", form="boolean",
                               question="Is it so?", answers=["no"], scorer="boolean",
                               slices={"relation": "P31", "year": 2021}))
    return items


@pytest.fixture
def bench_file(tmp_path) -> Path:
    path = tmp_path / "bench.jsonl"
    write_items(path, bench_items())
    return path


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result


def run_eval(bench_file, model_dir, tmp_path, *extra):
    return invoke("eval", "--benchmark", str(bench_file), "--backend", "hf", "--model", str(model_dir),
                  "--max-tokens", "6", "--n", "2", "--temperature", "0.7", "--seed", "1",
                  "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "runs"), "--silent", *extra)


def test_help_of_every_command():
    for command in ("eval", "results", "report", "tiny-model"):
        result = invoke(command, "--help")
        assert result.exit_code == 0 and "Example" in result.output


def test_eval_report_rerun_from_cache(graph_env, store, tiny_model_dir, bench_file, tmp_path):
    first = run_eval(bench_file, tiny_model_dir, tmp_path, "--log-samples")
    assert first.exit_code == 0, first.output
    run1 = first.stdout.strip().splitlines()[-1]
    run_dir = tmp_path / "runs" / run1
    report = json.loads((run_dir / "report.json").read_text())
    assert report["overall"] == {**report["overall"], "items": 6, "samples": 12, "errors": 0, "cached": 0}
    for plot in ("accuracy_by_task", "accuracy_by_year", "accuracy_by_relation"):
        assert_svg(run_dir / "plots" / f"{plot}.svg")
    assert "# Run" in (run_dir / "report.md").read_text()
    samples = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == 12 and {"prompt", "raw", "parsed", "score"} <= set(samples[0])
    assert re.search(r"0 hits, 12 misses", first.output)

    second = run_eval(bench_file, tiny_model_dir, tmp_path)
    assert second.exit_code == 0, second.output
    run2 = second.stdout.strip().splitlines()[-1]
    assert run2 != run1
    assert "12 hits, 0 misses (hit rate 100.0%), 0 requests sent to the model" in second.output
    runs = {r["id"]: r for r in store.user_query(
        "MATCH (r:Run) RETURN r.id AS id, r.cache_hit_rate AS rate, r.cached_samples AS cached")}
    assert runs[run2]["rate"] == 1.0 and runs[run2]["cached"] == 12 and runs[run1]["rate"] == 0.0
    same = store.user_query(
        "MATCH (:Run {id: $a})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question)<-[:ANSWERS]-(b:Answer)<-[:GAVE]-(:Run {id: $b}) "
        "WHERE a.sample_index = b.sample_index RETURN count(*) AS n, sum(CASE WHEN a.raw = b.raw THEN 1 ELSE 0 END) AS equal",
        {"a": run1, "b": run2})[0]
    assert same == {"n": 12, "equal": 12}

    sliced = invoke("results", run1, "--by", "relation,year", "--format", "json")
    rows = json.loads(sliced.stdout)
    assert {(r["relation"], r["year"]) for r in rows} == {("P286", 2019), ("P286", 2020), ("P286", 2021),
                                                          ("P286", 2022), ("P31", 2020), ("P31", 2021)}
    assert sum(r["samples"] for r in rows) == 12
    table = invoke("results", run1, "--by", "task")
    assert table.exit_code == 0 and "t/generation" in table.output
    listed = invoke("results", "--list", "--format", "json")
    assert {r["id"] for r in json.loads(listed.stdout)} == {run1, run2}

    compared = invoke("report", run1, "--compare", run2, "--out", str(tmp_path / "cmp"))
    assert compared.exit_code == 0
    assert_svg(tmp_path / "cmp" / "plots" / "comparison.svg")
    assert json.loads((tmp_path / "cmp" / "report.json").read_text())["compare"]["run_id"] == run2
    trend = invoke("report", run2, "--compare", run1, "--compare", run2, "--out", str(tmp_path / "trend"))
    assert trend.exit_code == 0 and "Trend over the compared runs" in trend.output
    rows = json.loads((tmp_path / "trend" / "report.json").read_text())["trend"]
    assert [r["run_id"] for r in rows] == [run2, run1, run2]


@dataclass
class CrashAfter:
    """The real backend, crashing once ``limit`` requests have been answered (a killed run)."""

    inner: object
    limit: int | None
    asked: list = field(default_factory=list)

    def __post_init__(self):
        self.name, self.model = self.inner.name, self.inner.model
        self.capabilities, self.revision = self.inner.capabilities, getattr(self.inner, "revision", None)

    def generate(self, requests):
        if self.limit is not None and len(self.asked) + len(requests) > self.limit:
            raise BackendError("simulated crash")
        self.asked.extend(requests)
        return self.inner.generate(requests)

    def loglikelihood(self, requests):
        return self.inner.loglikelihood(requests)


def test_interrupted_hf_run_resumes(store, tiny_model_dir, bench_file, tmp_path):
    from knowforge.models.backends import cached
    from knowforge.models.backends.hf import HFBackend
    from knowforge.models.cache import ResponseCache
    from knowforge.eval.results import run_answers
    from knowforge.workflow import evaluate_file

    options = EvalOptions(backend="hf", model=str(tiny_model_dir), max_tokens=5, out_dir=tmp_path / "runs")
    hf = HFBackend.from_options(options)
    crashing = CrashAfter(hf, limit=3)
    with pytest.raises(BackendError, match="simulated crash"):
        evaluate_file(store, bench_file, options,
                      backend=cached(crashing, ResponseCache(tmp_path / "c"), chunk_size=1))
    answered = {r.prompt for r in crashing.asked}
    assert len(answered) == 3

    resumed = CrashAfter(hf, limit=None)
    outcome = evaluate_file(store, bench_file, options,
                            backend=cached(resumed, ResponseCache(tmp_path / "c"), chunk_size=1))
    [run] = outcome.runs
    assert len(resumed.asked) == 3 and not answered & {r.prompt for r in resumed.asked}
    assert run.cache == {"hits": 3, "misses": 3}
    assert (run.report_dir / "report.json").is_file()

    # greedy answers after a crash are the answers of an uninterrupted run
    plain = [row["answer"]["raw"] for row in run_answers(store, run.run_id)]
    direct = hf.generate([r for r in crashing.asked + resumed.asked])
    by_prompt = {(q.prompt or ""): a.texts[0] for q, a in zip(crashing.asked + resumed.asked, direct)}
    assert sorted(plain) == sorted(by_prompt.values())


def test_named_benchmark_errors(graph_env):
    bad = CliRunner().invoke(cli, ["eval", "--benchmark", "nosuch:x", "--model", "m", "--silent"])
    assert bad.exit_code != 0 and "unknown method 'nosuch'" in bad.output
    bad = CliRunner().invoke(cli, ["eval", "--benchmark", "no-such-file.jsonl", "--model", "m", "--silent"])
    assert bad.exit_code != 0 and "neither a file nor METHOD:NAME" in bad.output


@pytest.mark.parametrize("setting", ["few-shot", "chain-of-thought"])
def test_chat_settings_through_the_tiny_model(graph_env, store, tiny_model_dir, bench_file, tmp_path, setting):
    result = run_eval(bench_file, tiny_model_dir, tmp_path, "--chat", "--setting", setting, "--limit", "2",
                      "--no-cache", "--log-samples")
    assert result.exit_code == 0, result.output
    run = result.stdout.strip().splitlines()[-1]
    samples = [json.loads(x) for x in (tmp_path / "runs" / run / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == 4 and all(s["prompt"].startswith("[system]") for s in samples)
    props = store.user_query("MATCH (r:Run {id: $id}) RETURN r.setting AS s, r.chat AS c", {"id": run})[0]
    assert props == {"s": setting, "c": True}


def test_bad_benchmark_file_names_file_and_line(graph_env, tmp_path):
    path = tmp_path / "bad.jsonl"
    good = bench_items()[0].model_dump(mode="json")
    path.write_text(json.dumps(good) + "\n\n" + json.dumps({**good, "id": "x", "form": "essay"}) + "\n")
    result = CliRunner().invoke(cli, ["eval", "--benchmark", str(path), "--model", "m", "--silent"])
    assert result.exit_code != 0 and "bad.jsonl:line 3" in result.output and "form" in result.output


def test_items_io_round_trip_and_errors(tmp_path):
    path = tmp_path / "items.jsonl"
    assert write_items(path, bench_items()) == 6
    assert read_items(path) == bench_items()
    assert len(read_items(path, limit=2)) == 2
    from knowforge.errors import InputError

    path.write_text(path.read_text() + "{not json\n")
    with pytest.raises(InputError, match="items.jsonl:line 7.*not valid JSON"):
        read_items(path)
    path.write_text(json.dumps({**bench_items()[0].model_dump(mode="json"), "version": "99"}) + "\n")
    with pytest.raises(InputError, match="line 1.*version '99'"):
        read_items(path)
    dup = bench_items()[0].model_dump(mode="json")
    path.write_text(json.dumps(dup) + "\n" + json.dumps(dup) + "\n")
    with pytest.raises(InputError, match="line 2.*duplicate item id"):
        read_items(path)


def test_tiny_model_command(tmp_path):
    result = invoke("tiny-model", str(tmp_path / "tiny"), "--seed", "1")
    assert result.exit_code == 0
    assert (tmp_path / "tiny" / "config.json").is_file()

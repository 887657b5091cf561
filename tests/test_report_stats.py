"""Reports with uncertainty, against the real Neo4j: every number's stderr and interval, units
(samples of an item, a method's item groups), paired comparisons, planning, the header that
identifies a run, and `knowforge report RUN` writing the eval's own sections again."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scripted_openai import ScriptedCompletions

from knowforge.cli.main import cli
from knowforge.eval.file_benchmark import ensure_questions
from knowforge.eval.report import build_report, headline_table, write_report
from knowforge.eval.results import record_run, results_by
from knowforge.eval.stats import cluster_mean, mean_stderr, units_for_gap
from knowforge.eval.types import EvalOptions, SampleResult
from knowforge.models.types import BenchmarkItem

scipy_stats = pytest.importorskip("scipy.stats")


def make_items(prefix: str = "s") -> list[BenchmarkItem]:
    """40 open items in 10 groups of 4 (``metadata.group``) and 20 yes/no items."""
    items = [BenchmarkItem(id=f"{prefix}-g{i:02d}", benchmark="stats-bench", task="s/gen", form="generation",
                           question=f"Q{i}?", answers=["x"], slices={"year": 2020 + i % 3},
                           metadata={"group": f"e{i // 4}"}) for i in range(40)]
    items += [BenchmarkItem(id=f"{prefix}-b{i:02d}", benchmark="stats-bench", task="s/bool", form="boolean",
                            question=f"B{i}?", answers=["yes" if i % 2 else "no"], scorer="boolean",
                            slices={"year": 2020 + i % 3}, metadata={"group": f"f{i // 4}"})
              for i in range(20)]
    return items


def record(store, items, scores: dict[str, list[float]], tmp_path: Path, *, limit=None, extra=None,
           model_cutoff=None) -> str:
    options = EvalOptions(model="scripted-1", n=max(len(v) for v in scores.values()), seed=3, limit=limit,
                          out_dir=tmp_path / "runs", model_cutoff=model_cutoff)
    ensure_questions(store, items, "test items")          # a run never writes questions
    results = []
    for item in items:
        for k, score in enumerate(scores[item.id]):
            parsed = None
            if item.form == "boolean":        # a right answer says the gold, a wrong one the other
                gold = item.answers[0]
                parsed = gold if score else ("yes" if gold == "no" else "no")
            results.append(SampleResult(item.id, k, parsed or "x", parsed, float(score)))
    return record_run(store, options, items, results, extra=extra)


def grouped_scores(items, seed=0) -> dict[str, list[float]]:
    """One score per item; the items of a group share it (so groups are the real units)."""
    rng = np.random.default_rng(seed)
    by_group: dict[str, float] = {}
    out = {}
    for item in items:
        group = item.metadata["group"]
        by_group.setdefault(group, float(rng.random() < 0.5))
        out[item.id] = [by_group[group]]
    return out


def _has_uncertainty(stats: dict) -> bool:
    return stats["stderr"] is not None and len(stats["ci"]) == 2 and stats["ci"][0] <= stats["ci"][1]


def test_every_number_carries_stderr_and_ci(store, tmp_path):
    items = make_items()
    rng = np.random.default_rng(1)
    scores = {i.id: [float(rng.random() < 0.6)] for i in items}
    run = record(store, items, scores, tmp_path, model_cutoff="2021")
    out = write_report(store, run, tmp_path / "rep", resamples=300)
    report = json.loads((out / "report.json").read_text())
    overall = report["overall"]
    flat = [s[0] for s in scores.values()]
    assert overall["accuracy"] == pytest.approx(np.mean(flat))
    assert abs(overall["stderr"] - mean_stderr(flat)) < 1e-12            # lm-eval's formula
    assert overall["units"] == 60 and overall["ci_method"] == "analytic"
    assert overall["item_accuracy_ci"] and overall["all_samples_correct_ci"]
    groups = [*report["by_task"].values(), *report["by_form"].values(),
              *(g for s in report["slices"].values() for g in s.values()),
              *(g for c in report["by_year"].values() for g in c.values()),
              *report["by_model_cutoff"]["all"].values(),
              *(g for t in report["by_model_cutoff"]["by_task"].values() for g in t.values())]
    assert len(groups) > 10 and all(_has_uncertainty(g) for g in groups)
    balanced = report["balanced_accuracy"]["s/bool"]
    assert balanced["ci_method"] == "bootstrap" and balanced["resamples"] == 300 and _has_uncertainty(balanced)
    assert report["uncertainty"]["unit"] == "item"
    md = (out / "report.md").read_text()
    task = report["by_task"]["s/gen"]
    half = 100 * (task["ci"][1] - task["ci"][0]) / 2
    assert f"| s/gen | 40 | {100 * task['accuracy']:.1f} ± {half:.1f} |" in md
    for line in (f"- run: `{run}`", "- benchmark: stats-bench · tasks: s/bool, s/gen (all 2 tasks of the benchmark)",
                 "- solver: zero-shot",
                 "- items: 60 evaluated of 60 questions of these tasks in the graph · no --limit",
                 "- scoring: knowforge", "- numbers: accuracies in %, shown as estimate ± half the width"):
        assert line in md, line
    assert "## Balanced accuracy" in md and f"{100 * balanced['value']:.1f} ± " in md


def test_samples_of_an_item_and_items_of_a_group_are_one_unit(store, tmp_path):
    items = make_items()
    # three samples per item: the unit is the item, not the sample
    rng = np.random.default_rng(2)
    scores = {i.id: [float(rng.random() < 0.5) for _ in range(3)] for i in items}
    run = record(store, items, scores, tmp_path)
    overall = build_report(store, run, resamples=200)["overall"]
    expected = cluster_mean([sum(v) for v in scores.values()], [3] * len(scores))
    assert overall["units"] == 60 and overall["samples"] == 180
    assert overall["stderr"] == pytest.approx(expected.stderr)
    assert overall["stderr"] != pytest.approx(mean_stderr([s for v in scores.values() for s in v]))

    # items of one group share their outcome: clustering by the group widens the interval
    shared = record(store, items, grouped_scores(items), tmp_path)
    by_item = build_report(store, shared, resamples=200)
    by_group = build_report(store, shared, cluster_key="group", resamples=200)
    assert by_group["overall"]["units"] == 15 and by_group["uncertainty"]["unit"] == "group"
    assert by_group["overall"]["accuracy"] == pytest.approx(by_item["overall"]["accuracy"])
    width = lambda r: r["ci"][1] - r["ci"][0]  # noqa: E731
    assert width(by_group["overall"]) > 1.5 * width(by_item["overall"])
    assert width(by_group["by_task"]["s/gen"]) > 1.5 * width(by_item["by_task"]["s/gen"])
    # a Run that records its item group is clustered by it without being told
    recorded = record(store, items, grouped_scores(items), tmp_path, extra={"cluster_key": "group"})
    assert build_report(store, recorded, resamples=200)["overall"]["units"] == 15
    rows = {r["task"]: r for r in results_by(store, shared, ["task"], cluster_key="group")}
    assert rows["s/gen"]["units"] == 10 and rows["s/gen"]["unit"] == "group"
    assert rows["s/gen"]["ci"] == pytest.approx(by_group["by_task"]["s/gen"]["ci"])


def test_compare_gives_paired_differences_and_says_when_nothing_is_shared(store, tmp_path):
    items = make_items()
    rng = np.random.default_rng(3)
    a_scores = {i.id: [float(rng.random() < 0.7)] for i in items}
    b_scores = {k: [v[0] if rng.random() < 0.7 else 1.0 - v[0]] for k, v in a_scores.items()}
    a = record(store, items, a_scores, tmp_path)
    b = record(store, items[:50], b_scores, tmp_path)
    out = write_report(store, a, tmp_path / "cmp", compare=b, resamples=300)
    paired = json.loads((out / "report.json").read_text())["compare"]["paired"]
    shared = [i.id for i in items[:50]]
    assert paired["shared_items"] == 50 and paired["items_only_in_this_run"] == 10
    overall = paired["overall"]
    right_a = sum(a_scores[i][0] == 1 and b_scores[i][0] == 0 for i in shared)
    right_b = sum(a_scores[i][0] == 0 and b_scores[i][0] == 1 for i in shared)
    assert overall["discordant"] == [right_a, right_b]
    assert overall["difference"] == pytest.approx((right_a - right_b) / 50)
    reference = (scipy_stats.binomtest(min(right_a, right_b), right_a + right_b, 0.5).pvalue
                 if right_a + right_b < 25 else
                 scipy_stats.chi2.sf((abs(right_a - right_b) - 1) ** 2 / (right_a + right_b), 1))
    assert overall["p_value"] == pytest.approx(reference)
    assert overall["ci"][0] <= overall["difference"] <= overall["ci"][1]
    assert set(paired["by_task"]) == {"s/gen", "s/bool"} and paired["by_task"]["s/bool"]["shared_items"] == 10
    assert set(paired["slices"]["year"]) == {"2020", "2021", "2022"}
    md = (out / "report.md").read_text()
    assert f"## Paired comparison with {b}" in md and "Over the 50 items both runs answered" in md
    # several samples per item: the units are not binary, so a sign-flip test
    c = record(store, items, {k: v * 2 for k, v in b_scores.items()}, tmp_path)
    d = record(store, items, {k: [v[0], 1.0 - v[0]] for k, v in a_scores.items()}, tmp_path)
    assert json.loads((write_report(store, c, tmp_path / "cd", compare=d, resamples=200) / "report.json")
                      .read_text())["compare"]["paired"]["overall"]["test"] == "sign-flip"
    # no shared items
    other = record(store, make_items("t"), {i.id: [1.0] for i in make_items("t")}, tmp_path)
    none = write_report(store, a, tmp_path / "none", compare=other, resamples=200)
    assert json.loads((none / "report.json").read_text())["compare"]["paired"]["note"] == \
        "the runs share no items: no paired comparison"
    assert "The runs share no items: no paired comparison" in (none / "report.md").read_text()


def test_planning_from_the_observed_variance(store, tmp_path):
    items = make_items()
    scores = grouped_scores(items, seed=4)
    run = record(store, items, scores, tmp_path)
    planning = json.loads((write_report(store, run, tmp_path / "plan", plan_gap=0.1, resamples=200)
                           / "report.json").read_text())["planning"]
    gen = [scores[i.id][0] for i in items if i.task == "s/gen"]
    row = planning["by_task"]["s/gen"]["independent"]
    assert row["variance"] == pytest.approx(np.var(gen, ddof=1))
    assert row["items_needed"] == units_for_gap(0.1, np.var(gen, ddof=1))
    clustered = json.loads((write_report(store, run, tmp_path / "plan2", plan_gap=0.1, cluster_key="group",
                                         resamples=200) / "report.json").read_text())["planning"]
    crow = clustered["by_task"]["s/gen"]["independent"]
    assert crow["icc"] == pytest.approx(1.0) and crow["design_effect"] == pytest.approx(4.0)
    assert crow["items_needed"] == 4 * row["items_needed"] and crow["clusters_needed"] == row["items_needed"]
    assert "paired" not in clustered["by_task"]["s/gen"]


def test_header_names_limit_and_task_filter(store, tmp_path):
    items = make_items()
    record(store, items, {i.id: [1.0] for i in items}, tmp_path)          # every question in the graph
    limited = record(store, items[:10], {i.id: [1.0] for i in items[:10]}, tmp_path, limit=10,
                     extra={"task_filter": ["s/gen"]})
    md = (write_report(store, limited, tmp_path / "lim", resamples=200) / "report.md").read_text()
    assert "- items: 10 evaluated of 40 questions of these tasks in the graph · --limit 10" in md
    assert "tasks: s/gen (--task s/gen)" in md
    unrecorded = record(store, items[:10], {i.id: [1.0] for i in items[:10]}, tmp_path)
    md = (write_report(store, unrecorded, tmp_path / "unrec", resamples=200) / "report.md").read_text()
    assert ("10 evaluated of 40 questions of these tasks in the graph · narrowed by a --limit the run "
            "did not record") in md


def test_knowforge_report_writes_the_evals_sections_again(store, graph_env, tmp_path):
    items = make_items()
    run = record(store, items, grouped_scores(items), tmp_path)
    run_dir = tmp_path / "runs" / run
    sections = {"Task metrics": [{"task": "s/gen", "metric": "gap", "value": -0.125}],
                "Notes": "from the solver", "Raw": {"counts": (1, 2)}}
    write_report(store, run, run_dir, extra_sections=sections)          # what the eval writes
    eval_md = (run_dir / "report.md").read_text()
    assert "| s/gen | gap | -12.5 |" in eval_md and "## Notes" in eval_md
    result = CliRunner().invoke(cli, ["report", run], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1] == str(run_dir)      # the run's own folder
    assert (run_dir / "report.md").read_text() == eval_md
    result = CliRunner().invoke(cli, ["report", run, "--out", str(tmp_path / "elsewhere"), "--plan-gap", "0.1"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "Units needed to detect a gap of 10.0 points" in result.output
    elsewhere = (tmp_path / "elsewhere" / "report.md").read_text()
    assert "## Notes\n\nfrom the solver" in elsewhere and "| s/gen | gap | -12.5 |" in elsewhere
    assert "## Planning: units to detect a gap of 10.0 points" in elsewhere
    # the terminal title names the run and its scoring; the table shows intervals
    assert run in result.output and re.search(r"scoring\s+knowforge", result.output) and " ± " in result.output
    # a run recorded before runs stored their sections: its earlier report.json still has them
    # (in its sections' own column order: report.json keeps the order its sections give)
    store.user_query("MATCH (r:Run {id: $id}) REMOVE r.report_sections_json", {"id": run}, write=True)
    assert CliRunner().invoke(cli, ["report", run], catch_exceptions=False).exit_code == 0
    again = (run_dir / "report.md").read_text()
    assert "## Notes\n\nfrom the solver" in again and "| s/gen | gap | -12.5 |" in again and "## Raw" in again
    table = CliRunner().invoke(cli, ["results", run, "--by", "year"], catch_exceptions=False)
    assert table.exit_code == 0 and " ± " in table.output and "unit: item" in table.output


def test_cli_clusters_by_the_item_group_of_the_runs_method(store, graph_env, tmp_path):
    """A run of an ELKEN benchmark is clustered by event; a benchmark of no installed method by item."""
    def items_of(benchmark: str) -> list[BenchmarkItem]:
        return [i.model_copy(update={"benchmark": benchmark, "id": f"{benchmark}-{i.id}",
                                     "metadata": {"event_id": i.metadata["group"]}}) for i in make_items()]

    events = items_of("events:stats")
    run = record(store, events, grouped_scores([i.model_copy(update={"metadata": {"group": i.metadata["event_id"]}})
                                                for i in events]), tmp_path)
    rows = json.loads(CliRunner().invoke(cli, ["results", run, "--by", "task", "--format", "json"],
                                         catch_exceptions=False).stdout)
    assert {r["task"]: (r["unit"], r["units"]) for r in rows} == {"s/gen": ("event_id", 10), "s/bool": ("event_id", 5)}
    result = CliRunner().invoke(cli, ["report", run, "--out", str(tmp_path / "ev"), "--bootstrap", "200"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "ev" / "report.json").read_text())
    assert report["uncertainty"]["unit"] == "event_id" and report["overall"]["units"] == 15
    unknown = items_of("nomethod:stats")
    other = record(store, unknown, {i.id: [1.0] for i in unknown}, tmp_path)
    rows = json.loads(CliRunner().invoke(cli, ["results", other, "--by", "task", "--format", "json"],
                                         catch_exceptions=False).stdout)
    assert {r["unit"] for r in rows} == {"item"} and sum(r["units"] for r in rows) == 60


class _Alternate(ScriptedCompletions):
    """Right on every other question (the gold is the question's number), wrong otherwise."""

    calls: list[str] = []

    def reply(self, prompt: str) -> str:
        number = int(re.findall(r"Q(\d+)\?", prompt)[-1])
        return f"a{number}" if number % 3 else "wrong"


def _table_cell(md: str, title: str, row: str, column: str) -> str:
    """One cell of a markdown table of report.md: the row whose first cell is ``row``."""
    block = md.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in block.splitlines() if line.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == row:
            return cells[head.index(column)]
    raise AssertionError(f"no row {row!r} in {title}")


def test_a_task_accuracy_has_one_interval_in_every_table(store, graph_env, tmp_path):
    """Issue 34: the run report printed a task's accuracy twice, with an analytic interval (By
    task) and the eval's bootstrap one (Task metrics): 37.4 ± 5.0 and 37.4 ± 5.1. Every table
    now prints the engine's interval, and says which method made it."""
    from scripted_openai import serving
    from knowforge.models.items_io import write_items

    bench = tmp_path / "bench.jsonl"
    write_items(bench, [BenchmarkItem(id=f"one-{i:02d}", benchmark="one", task="one/gen", form="generation",
                                      question=f"Q{i}?", answers=[f"a{i}"], slices={"kind": "ab"[i % 2]})
                        for i in range(30)])
    with serving(_Alternate) as url:
        result = CliRunner().invoke(cli, ["eval", "--benchmark", str(bench), "--backend", "openai", "--model", "m",
                                          "--base-url", url, "--no-cache", "--out", str(tmp_path / "runs"),
                                          "--bootstrap", "200", "--silent"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    [run_dir] = [p for p in (tmp_path / "runs").iterdir() if p.name.startswith("run-")]
    report = json.loads((run_dir / "report.json").read_text())
    md = (run_dir / "report.md").read_text()
    engine = _table_cell(md, "Task metrics", "file/bench", "value")     # the engine names a file's task so
    # one task: the headline, its By task row (and any group of all its items) are the same number
    assert _table_cell(md, "By task", "one/gen", "accuracy vs gold") == engine
    assert report["by_form"]["generation"]["ci"] == report["by_task"]["one/gen"]["ci"] == report["overall"]["ci"]
    assert f"Accuracy {engine} (interval: bootstrap over item (task metric))" in md
    assert _table_cell(md, "By task", "one/gen", "interval") == "bootstrap over item (task metric)"
    assert report["overall"]["ci_method"] == "bootstrap" and report["overall"]["resamples"] == 200
    assert report["by_task"]["one/gen"]["interval_source"] == "task metric"
    # a group that is not one task's items keeps its own interval, and says its method
    assert _table_cell(md, "By kind", "a", "interval") == "analytic over item"
    assert "interval: how that interval was made" in md.split("## By task", 1)[1].split("## ", 1)[0]
    assert "interval of one/gen, (all): bootstrap over item (task metric)" in headline_table(report).caption
    # `knowforge results RUN` (by task) prints the same interval
    rows = json.loads(CliRunner().invoke(cli, ["results", report["run_id"], "--format", "json"],
                                         catch_exceptions=False).stdout)
    assert [(r["task"], r["ci"], r["ci_method"]) for r in rows] == [
        ("one/gen", report["by_task"]["one/gen"]["ci"], "bootstrap")]
    kinds = json.loads(CliRunner().invoke(cli, ["results", report["run_id"], "--by", "kind", "--format", "json"],
                                          catch_exceptions=False).stdout)
    assert {r["ci_method"] for r in kinds} == {"analytic"}


def test_the_header_lists_the_tasks_that_had_questions_and_tables_explain_their_columns(store, tmp_path):
    """Issue 34: the header read "events/fact, events/locality, events/tendency (all 2 tasks of
    the benchmark)"; the task-metric columns and metrics were explained nowhere."""
    items = make_items()
    run = record(store, items, grouped_scores(items), tmp_path,
                 extra={"run_tasks": ["s/gen", "s/bool", "s/none"],
                        "task_sizes": {"s/gen": 40, "s/bool": 20, "s/none": 0}})
    sections = {"Task metrics": [{"task": "s/gen", "metric": "accuracy", "number": "", "value": "50.0 ± 10.0"}],
                "Task metric counts": [{"task": "s/gen", "metric": "x", "count of": "questions", "count": 40}]}
    md = (write_report(store, run, tmp_path / "rep", extra_sections=sections, resamples=100) / "report.md").read_text()
    assert ("tasks: s/gen, s/bool (all 2 tasks of the benchmark); s/none: no questions in this run, left out of "
            "the tables") in md
    legend = md.split("## Task metrics\n", 1)[1].split("## ", 1)[0]
    assert "number: which number of the metric's value" in legend and "Metrics: accuracy: mean score over every " \
        "sample" in legend
    assert "a count with no interval" in md.split("## Task metric counts\n", 1)[1].split("## ", 1)[0]
    assert "Columns as under By task" in md.split("## By year\n", 1)[1].split("## ", 1)[0]

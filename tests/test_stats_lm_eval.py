"""Our analytic standard error is lm-eval's ``acc_stderr``: lm-evaluation-harness runs our
lm-eval export of 48 multiple-choice items on the tiny model, knowforge evaluates the same
items by likelihood, and the stderr in our report equals the one lm-eval prints (to 1e-9),
item by item on the same verdicts."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.eval.lm_eval_export import benchmark_prefix, write_lm_eval_tasks
from knowforge.eval.stats import cluster_mean
from knowforge.models.items_io import write_items
from knowforge.models.task import Component, ItemFilter, Task
from knowforge.models.types import BenchmarkItem

pytest.importorskip("lm_eval")
pytestmark = [pytest.mark.hf, pytest.mark.slow]

BENCH = "se:mc"
WORDS = ["river", "stone", "cloud", "apple", "engine", "violet", "winter", "copper", "garden", "falcon",
         "harbor", "pencil", "meadow", "lantern", "orbit", "canyon"]


def mc_items() -> list[BenchmarkItem]:
    items = []
    for i in range(48):
        choices = [WORDS[(i + k * 5) % len(WORDS)] for k in range(4)]
        items.append(BenchmarkItem(id=f"mc{i:02d}", benchmark=BENCH, task="se/mc", form="multi-choice",
                                   question=f"Which word is number {i}?", choices=choices, answer_index=i % 4,
                                   answers=[choices[i % 4]], scorer="multi-choice"))
    return items


@pytest.mark.timeout(1200)
def test_report_stderr_equals_lm_evals_acc_stderr(graph_env, tiny_model_dir, tmp_path):
    items = mc_items()
    tasks = (Task(name="se/mc", dataset=ItemFilter(tasks=("se/mc",)), solver=Component(name="zero-shot")),)
    write_lm_eval_tasks(items, tmp_path / "lm", benchmark=BENCH, tasks=tasks)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_DATASETS_CACHE": str(tmp_path / "hf-cache")}
    command = [sys.executable, "-m", "lm_eval", "--model", "hf",
               "--model_args", f"pretrained={tiny_model_dir},dtype=float32", "--device", "cpu",
               "--include_path", str(tmp_path / "lm"), "--tasks", benchmark_prefix(BENCH), "--batch_size", "8",
               "--log_samples", "--output_path", str(tmp_path / "lm-out")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1100, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    (samples_file,) = (tmp_path / "lm-out").rglob("samples_*.jsonl")
    leaf = samples_file.name[len("samples_"):].rsplit("_", 1)[0]
    (results_file,) = (tmp_path / "lm-out").rglob("results_*.json")
    lm = json.loads(results_file.read_text())["results"][leaf]
    theirs = {s["doc"]["id"]: float(s["acc"]) for s in map(json.loads, samples_file.read_text().splitlines())}
    assert set(theirs) == {i.id for i in items}
    assert 0 < lm["acc,none"] < 1                      # both verdicts occur: a stderr worth comparing

    bench = tmp_path / "items.jsonl"
    write_items(bench, items)
    result = CliRunner().invoke(cli, ["eval", "--benchmark", str(bench), "--backend", "hf", "--model",
                                      str(tiny_model_dir), "--mc-scoring", "likelihood", "--no-cache",
                                      "--log-samples", "--out", str(tmp_path / "runs"), "--silent"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    run_id = result.stdout.strip().splitlines()[-1]
    ours = {s["item_id"]: s["score"] for s in map(json.loads, (tmp_path / "runs" / run_id / "samples.jsonl")
                                                  .read_text().splitlines())}
    assert ours == theirs                               # the same items, the same verdicts
    report = json.loads((tmp_path / "runs" / run_id / "report.json").read_text())
    task = report["by_task"]["se/mc"]
    # the report prints the eval's bootstrap interval for a task's accuracy (one number, one
    # interval) and keeps the analytic standard error beside it: that one is lm-eval's formula
    assert task["interval_source"] == "task metric"
    analytic = task["analytic_stderr"]
    print(f"\nlm-eval acc {lm['acc,none']} ± {lm['acc_stderr,none']}; ours {task['accuracy']} ± {analytic}")
    assert task["accuracy"] == pytest.approx(lm["acc,none"], abs=1e-12)
    assert abs(analytic - lm["acc_stderr,none"]) < 1e-9
    overall = report["overall"]
    assert abs(overall.get("analytic_stderr", overall["stderr"]) - lm["acc_stderr,none"]) < 1e-9
    # and the library function on lm-eval's own per-item verdicts
    assert abs(cluster_mean(list(theirs.values())).stderr - lm["acc_stderr,none"]) < 1e-9

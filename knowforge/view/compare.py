"""Two or more runs of one benchmark side by side: accuracy per task with paired differences,
the reports' task metrics with their deltas, and the items whose scores differ."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .errors import BadRequest
from .numbers import Estimate
from .runs import PAGE_SIZE, empty_tasks, read_report, read_run


@dataclass(frozen=True)
class Delta:
    """Accuracy of each run on one group of items, and each later run's paired difference with
    the first on the items both answered (mean of per-item differences, its interval)."""

    group: str
    accuracies: list[Estimate]
    differences: list[Estimate | None]


@dataclass(frozen=True)
class Comparison:
    runs: list[dict]
    benchmark: str
    deltas: list[Delta]
    disagreements: list[dict]           # one page: {question, scores: [..], answers: [..]}
    disagreeing: int
    shared: int
    page: int
    has_next: bool
    metrics: list[dict] = field(default_factory=list)   # the reports' task metrics side by side


def compare_runs(store, run_ids: Sequence[str], page: int = 1, page_size: int = PAGE_SIZE) -> Comparison:
    """Two or more runs of one benchmark side by side: accuracy overall and per task, the
    paired differences against the first run, and the items whose scores differ."""
    run_ids = list(dict.fromkeys(run_ids))
    if len(run_ids) < 2:
        raise BadRequest("compare needs two or more runs (run=A&run=B)")
    runs = [read_run(store, rid)[0] for rid in run_ids]
    benchmarks = {r.get("benchmark") for r in runs}
    if len(benchmarks) != 1:
        listed = ", ".join(f"{r['id']} ({r.get('benchmark')})" for r in runs)
        raise BadRequest(f"runs of different benchmarks cannot be compared: {listed}")
    scores: dict[str, dict[str, float]] = defaultdict(dict)     # question -> run -> mean score
    tasks: dict[str, str] = {}
    for row in store.read("view/compare_scores", run_ids=run_ids):
        scores[row["question_id"]][row["run_id"]] = row["score"]
        tasks[row["question_id"]] = row["task"]
    deltas = [_delta("(all)", list(scores), scores, run_ids)]
    by_task: dict[str, list[str]] = defaultdict(list)
    for qid, task in tasks.items():
        by_task[str(task)].append(qid)
    deltas += [_delta(task, qids, scores, run_ids) for task, qids in sorted(by_task.items())]
    shared = [q for q, s in scores.items() if len(s) == len(run_ids)]
    disagreeing = sorted(q for q in shared if len({round(v, 9) for v in scores[q].values()}) > 1)
    chosen = disagreeing[(page - 1) * page_size: page * page_size]
    details = {r["question_id"]: r for r in store.read("view/compare_answers", run_ids=run_ids,
                                                      question_ids=chosen)} if chosen else {}
    rows = []
    for qid in chosen:
        detail = details.get(qid, {})
        answers = {a["run_id"]: a["parsed"] for a in detail.get("answers", [])}
        rows.append({"question_id": qid, "task": tasks.get(qid), "text": detail.get("text"),
                     "gold": detail.get("gold"), "scores": [scores[qid].get(r) for r in run_ids],
                     "answers": [answers.get(r) for r in run_ids]})
    return Comparison(runs=runs, benchmark=next(iter(benchmarks)) or "", deltas=deltas, disagreements=rows,
                      disagreeing=len(disagreeing), shared=len(shared), page=page,
                      has_next=page * page_size < len(disagreeing), metrics=metric_deltas(runs))


@dataclass(frozen=True)
class MetricValue:
    """One task metric of one run as the run recorded it: its value, its own 95% interval (the
    eval's cluster bootstrap over the run's units, ``task_metric_values``; none where the run
    recorded none) and its declared scale, which the display follows as the run page does: a
    share (or a float in [-1, 1] of a metric that declares no scale) in %, its bounds clipped to
    the metric's range; other numbers as they are, with their unit."""

    value: float
    low: float | None = None
    high: float | None = None
    scale: str | None = None
    method: str = ""                     # how the interval was made ("bootstrap over 12 event units")

    @property
    def is_share(self) -> bool:
        if self.scale is None:
            return -1.0 <= self.value <= 1.0
        return self.scale in ("share", "percent")

    @property
    def factor(self) -> float:
        return 1.0 if self.scale == "percent" else 100.0

    def text(self) -> str:
        """``41.0 [38.2, 43.8]`` in % for a share; ``2.13 [1.9, 2.4] years`` otherwise."""
        if self.is_share:
            value = f"{self.factor * self.value:.1f}"
            bounds = (f" [{self.factor * self.low:.1f}, {self.factor * self.high:.1f}]"
                      if self.low is not None and self.high is not None else "")
            return value + bounds
        unit = f" {self.scale}" if self.scale not in (None, "count") else ""
        bounds = f" [{self.low:.3g}, {self.high:.3g}]" if self.low is not None and self.high is not None else ""
        return f"{self.value:.3g}{bounds}{unit}"

    def minus(self, other: MetricValue) -> str:
        """This value − ``other``'s: in points for shares, else in the metric's unit."""
        if self.is_share and other.is_share:
            return f"{self.factor * self.value - other.factor * other.value:+.1f}"
        return f"{self.value - other.value:+.3g}"


def _metric_value(row: Mapping) -> MetricValue | None:
    value = row.get("value") if isinstance(row, Mapping) else None
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return None
    scale = row.get("scale")
    ci = row.get("ci")
    low = high = None
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(isinstance(v, (int, float)) for v in ci):
        low, high = float(ci[0]), float(ci[1])
        if scale in ("share", "percent") or (scale is None and -1.0 <= value <= 1.0):
            # a share, or a difference of shares, lies in [-1, 1] ([-100, 100] in %); the eval's
            # percentile bootstrap keeps within a share's own [0, 1] already
            top = 100.0 if scale == "percent" else 1.0
            low, high = min(max(low, -top), top), max(min(high, top), -top)
    method = ""
    if low is not None:
        method = str(row.get("ci_method") or "bootstrap")
        if row.get("units") is not None:
            method += f" over {row['units']} {row.get('unit') or 'unit'} units"
    return MetricValue(float(value), low, high, scale if isinstance(scale, str) else None, method)


def task_metrics(run: Mapping, report: Mapping | None) -> dict[tuple[str, str], MetricValue]:
    """The numeric task metrics of a run, by (task, metric number), with their intervals: the
    values the engine records on the Run (``task_metric_values``), or, for a run recorded before
    it did, the numeric rows of its report's "Task metrics" table (no interval); tables and text
    are left to the run page. A task the run has no items of (``task_sizes`` 0) has no row."""
    recorded = run.get("task_metric_values")
    if recorded:
        try:
            rows = json.loads(recorded) if isinstance(recorded, str) else recorded
        except ValueError:
            rows = []
    else:
        rows = [{k: v for k, v in r.items() if k != "ci"} for r in
                ((report or {}).get("extra") or {}).get("Task metrics") or [] if isinstance(r, Mapping)]
    empty = empty_tasks(run, report)
    out = {}
    for row in rows if isinstance(rows, list) else []:
        shown = _metric_value(row)
        if shown is not None and str(row.get("task")) not in empty:
            out[(str(row.get("task")), str(row.get("metric")))] = shown
    return out


def metric_deltas(runs: Sequence[Mapping]) -> list[dict]:
    """Each task metric the runs recorded, per run (with its own interval), and each later run's
    difference with the first (None where either lacks it)."""
    values = [task_metrics(run, read_report(run)) for run in runs]
    keys = sorted({k for v in values for k in v})
    return [{"task": task, "metric": metric, "values": [v.get((task, metric)) for v in values],
             "deltas": [None if v.get((task, metric)) is None or values[0].get((task, metric)) is None
                        else v[(task, metric)].minus(values[0][(task, metric)]) for v in values[1:]]}
            for task, metric in keys]


def _delta(group: str, qids: Sequence[str], scores: Mapping[str, Mapping[str, float]],
           run_ids: Sequence[str]) -> Delta:
    accuracies = [Estimate.from_values([scores[q][r] for q in qids if r in scores[q]]) for r in run_ids]
    differences: list[Estimate | None] = []
    first = run_ids[0]
    for other in run_ids[1:]:
        paired = [scores[q][other] - scores[q][first] for q in qids if first in scores[q] and other in scores[q]]
        differences.append(Estimate.from_values(paired) if paired else None)
    return Delta(group, accuracies, differences)



__all__ = ["Comparison", "Delta", "MetricValue", "compare_runs", "metric_deltas", "task_metrics"]

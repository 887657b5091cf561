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
from .runs import PAGE_SIZE, read_report, read_run


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


def task_metrics(run: Mapping, report: Mapping | None) -> dict[tuple[str, str], float]:
    """The numeric task metrics of a run, by (task, metric number): the values the engine
    records on the Run (``task_metric_values``), or, for a run recorded before it did, the
    numeric rows of its report's "Task metrics" table; tables and text are left to the run page."""
    recorded = run.get("task_metric_values")
    if recorded:
        try:
            rows = json.loads(recorded) if isinstance(recorded, str) else recorded
        except ValueError:
            rows = []
    else:
        rows = ((report or {}).get("extra") or {}).get("Task metrics") or []
    out = {}
    for row in rows if isinstance(rows, list) else []:
        value = row.get("value") if isinstance(row, Mapping) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            out[(str(row.get("task")), str(row.get("metric")))] = float(value)
    return out


def metric_deltas(runs: Sequence[Mapping]) -> list[dict]:
    """Each task metric the runs' reports hold, per run, and each later run's difference with
    the first (None where either lacks it)."""
    values = [task_metrics(run, read_report(run)) for run in runs]
    keys = sorted({k for v in values for k in v})
    return [{"task": task, "metric": metric, "values": [v.get((task, metric)) for v in values],
             "deltas": [None if v.get((task, metric)) is None or values[0].get((task, metric)) is None
                        else v[(task, metric)] - values[0][(task, metric)] for v in values[1:]]}
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



__all__ = ["Comparison", "Delta", "compare_runs", "metric_deltas", "task_metrics"]

"""The one engine: items → solver → scores → metrics → a Run in the graph and its report.

Every evaluation goes through ``run_tasks``: a benchmark in the graph, a JSONL file benchmark
(an anonymous method with one task, ``knowforge.eval.file_benchmark``), an imported release,
the demo. One *run* is one solver over the items of one or more tasks of a benchmark (ALCUNA's
KU, KD and KA share a run per prompting setting, as the paper reports them). ``plan_runs``
groups the tasks by solver; ``run_tasks`` executes the plan and writes

    OUT/<run_id>/                       the engine's report of each run (report.md, plots/)
    OUT/<method>-<name>/summary.{json,md}   every run side by side, per task and per slice

Methods never appear here by name: a task says which items, which solver, which scorer and
which metrics, and the registry resolves the names. ``check_tasks`` checks all of it (every
name, and that each metric's solver provides what the metric reads) before a model is made.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from knowforge.errors import ConfigError, InputError
from knowforge.eval.ask import cache_stats
from knowforge.eval.registry import metric_spec, scorer_spec, solver_spec
from knowforge.eval.report import write_report
from knowforge.eval.results import record_run, write_samples_log
from knowforge.eval.solvers import make_solver
from knowforge.eval.types import EvalOptions
from knowforge.eval.unit import MetricInput, SolveContext, SolverOutput
from knowforge.models.backends import make_backend
from knowforge.models.task import Component, Task
from knowforge.models.types import Backend, BenchmarkItem

log = logging.getLogger(__name__)

SUMMARY_VERSION = "2"


@dataclass(frozen=True)
class PlannedRun:
    solver: Component
    tasks: tuple[Task, ...]


@dataclass(frozen=True)
class TaskRun:
    run_id: str
    solver: str                           # the solver's label
    tasks: tuple[str, ...]
    report_dir: Path
    items: int
    samples: int
    accuracy: float | None
    metrics: dict[str, dict[str, Any]]    # task -> metric -> value
    by: dict[str, dict[str, dict]] = field(default_factory=dict)   # slice -> value -> {accuracy, samples}
    cache: dict[str, int] | None = None   # this run's response-cache hits and misses (None: no cache)


def plan_runs(tasks: Sequence[Task], solver: Component | None = None) -> list[PlannedRun]:
    """Group tasks by solver, in the order tasks and their sweeps name them. With ``solver``
    every task runs under it alone."""
    if not tasks:
        raise ConfigError("no tasks to run")
    groups: dict[str, PlannedRun] = {}
    for task in tasks:
        for component in ((solver,) if solver is not None else task.solvers()):
            key = component.label
            planned = groups.get(key)
            groups[key] = PlannedRun(component, (*planned.tasks, task) if planned else (task,))
    return list(groups.values())


def limit_units(items: Sequence[BenchmarkItem], limit: int | None, group_key: str | None) -> list[BenchmarkItem]:
    """The first ``limit`` units of ``items`` in the benchmark's order: items, or whole groups of
    items sharing ``metadata[group_key]`` (all years of a ChroKnow fact, all questions of an
    ELKEN event). The one ``--limit`` rule of every evaluation."""
    if limit is None:
        return list(items)
    if limit < 1:
        raise ConfigError(f"--limit must be at least 1, not {limit}")
    if group_key is None:
        return list(items)[:limit]
    keep: dict[str, None] = {}
    for item in items:
        unit = str(item.metadata.get(group_key, item.id))
        if unit not in keep and len(keep) < limit:
            keep[unit] = None
    return [i for i in items if str(i.metadata.get(group_key, i.id)) in keep]


def check_tasks(tasks: Sequence[Task], plan: Sequence[PlannedRun] | None = None) -> None:
    """Every name a task gives (solver, scorer, metrics) resolves in the registry, and every
    metric gets the solver detail it reads, so a typo or a solver that cannot feed a metric
    fails before the model is asked anything rather than after the first run."""
    for task in tasks:
        if task.scorer is not None:
            if task.scorer.args:
                raise ConfigError(f"task {task.name}: scorers take no arguments ({task.scorer.label})")
            scorer_spec(task.scorer.name)
        for name in task.metrics:
            try:
                metric_spec(name)
            except ConfigError as exc:
                raise ConfigError(f"task {task.name}: {exc}") from None
    for planned in plan or plan_runs(tasks):
        spec = solver_spec(planned.solver.name)
        for task in planned.tasks:
            for name in task.metrics:
                needs = metric_spec(name).needs
                if needs is not None and needs not in spec.provides:
                    raise ConfigError(
                        f"task {task.name}: metric {name!r} reads the solver detail {needs!r}, which solver "
                        f"{planned.solver.name!r} does not provide; run the task with its own solver "
                        f"({', '.join(c.label for c in task.solvers())}) or choose metrics it can feed "
                        "(e.g. --metric accuracy)")


def select_items(items: Sequence[BenchmarkItem], tasks: Sequence[Task]) -> list[BenchmarkItem]:
    """The items any of ``tasks`` takes, in the benchmark's order, each once; a task's fixed
    scorer replaces the items' own."""
    out = []
    for item in items:
        owner = next((t for t in tasks if t.dataset.matches(item)), None)
        if owner is None:
            continue
        if owner.scorer is not None:       # checked by check_tasks
            item = item.model_copy(update={"scorer": owner.scorer.name})
        out.append(item)
    return out


def task_metrics(tasks: Sequence[Task], output: SolverOutput, scoring: str) -> dict[str, dict[str, Any]]:
    """Each task's metrics over its own items' answers."""
    out = {}
    for task in tasks:
        mine = [i for i in output.items if task.dataset.matches(i)]
        ids = {i.id for i in mine}
        samples = [s for s in output.samples if s.item_id in ids]
        values = {}
        for name in task.metrics:
            spec = metric_spec(name)
            detail = output.details.get(spec.needs) if spec.needs is not None else None
            values[name] = spec.compute(MetricInput(mine, samples, detail, scoring))
        out[task.name] = values
    return out


def accuracy_by(items: Sequence[BenchmarkItem], samples, key: str) -> dict[str, dict]:
    """{slice value: {accuracy, samples}} of one run's samples."""
    by_id = {it.id: it for it in items}
    groups: dict[str, list[float]] = defaultdict(list)
    for r in samples:
        groups[str(by_id[r.item_id].slices.get(key))].append(r.score)
    return {k: {"accuracy": sum(v) / len(v), "samples": len(v)} for k, v in sorted(groups.items())}


def record_output(store, options: EvalOptions, output: SolverOutput, *, benchmark: str, name: str | None,
                  started_at: str | None = None, extra: dict | None = None,
                  sections: dict | None = None) -> tuple[str, Path]:
    """Record a solver's answers as a Run in the graph and write its report; (run id, dir)."""
    run_id = record_run(store, options, output.items, output.samples, benchmark=benchmark, name=name,
                        variants=output.variants, extra={**output.run_extra, **(extra or {})},
                        started_at=started_at)
    run_dir = Path(options.out_dir) / run_id
    if options.log_samples:
        write_samples_log(run_dir / "samples.jsonl", output.items, [*output.samples, *output.variants])
    write_report(store, run_id, run_dir, extra_sections={**output.sections, **(sections or {})})
    if output.finalize is not None:
        output.finalize(run_dir, run_id)
    return run_id, run_dir


def run_tasks(store, benchmark: str, items: Sequence[BenchmarkItem], tasks: Sequence[Task],
              options: EvalOptions, *, solver: Component | None = None, backend: Backend | None = None,
              group_key: str | None = None, report_slices: Sequence[str] = (),
              progress: Callable[[int], None] | None = None, run_name: str | None = None,
              cluster_key: str | None = None, task_filter: Sequence[str] = ()) -> list[TaskRun]:
    """Evaluate ``tasks`` of ``benchmark`` (its ``items``) and record one run per solver, named
    ``run_name`` (default ``<benchmark>:<solver>``). The Run records ``cluster_key`` (the
    metadata key of the unit its intervals resample; default ``group_key``) and the
    ``--task`` filter it was given."""
    plan = plan_runs(tasks, solver)
    check_tasks(tasks, plan)
    solvers = [(p, make_solver(p.solver)) for p in plan]        # bad solver arguments fail here
    if backend is None:
        backend = make_backend(options)
    runs = []
    before = cache_stats(backend) or {"hits": 0, "misses": 0}
    for planned, solver_obj in solvers:
        chosen = limit_units(select_items(items, planned.tasks), options.limit, group_key)
        if not chosen:
            names = ", ".join(t.name for t in planned.tasks)
            raise InputError(f"{benchmark}: no items for {names}")
        label = solver_obj.component.label
        started = datetime.now(UTC).isoformat(timespec="seconds")
        output = solver_obj.solve(chosen, SolveContext(backend=backend, options=options, store=store,
                                                       progress=progress))
        metrics = task_metrics(planned.tasks, output, options.scoring)
        stats = cache_stats(backend)
        # one backend (and cache) serves every run: record each run's own share of hits
        cache = {}
        if stats:
            hits, misses = stats["hits"] - before["hits"], stats["misses"] - before["misses"]
            cache = {"cache_hits": hits, "cache_misses": misses,
                     "cache_hit_rate": hits / (hits + misses) if hits + misses else 0.0}
        before = stats or before
        task_names = tuple(t.name for t in planned.tasks)
        extra = {"solver": label, "setting": label, "run_tasks": list(task_names), "limit": options.limit,
                 "cluster_key": cluster_key or group_key, "task_filter": list(task_filter) or None, **cache}
        sections = {"Task metrics": _metric_rows(metrics)}
        run_id, run_dir = record_output(store, options, output, benchmark=benchmark, name=run_name or f"{benchmark}:{label}",
                                        started_at=started, extra=extra, sections=sections)
        n = len(output.samples)
        runs.append(TaskRun(run_id=run_id, solver=label, tasks=task_names, report_dir=run_dir,
                            items=len({s.item_id for s in output.samples}), samples=n,
                            accuracy=(sum(s.score for s in output.samples) / n) if n else None,
                            metrics=metrics,
                            by={key: accuracy_by(output.items, output.samples, key) for key in report_slices},
                            cache={"hits": cache["cache_hits"], "misses": cache["cache_misses"]} if cache else None))
        log.info("%s %s: accuracy %s over %d samples", benchmark, label, runs[-1].accuracy, n)
    return runs


def _metric_rows(metrics: dict[str, dict[str, Any]]) -> list[dict]:
    rows = []
    for task, values in metrics.items():
        for name, value in values.items():
            rows.append({"task": task, "metric": name,
                         "value": value if not isinstance(value, (dict, list)) else json.dumps(value, default=str)})
    return rows


# --- the summary of one evaluation -----------------------------------------------------------------
def write_summary(out_dir: Path, *, benchmark: str, method: str, options: EvalOptions,
                  items: int, runs: Sequence[TaskRun], report_slices: Sequence[str]) -> Path:
    """``summary.json`` and ``summary.md``: every run (solver) side by side."""
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = {"version": SUMMARY_VERSION, "benchmark": benchmark, "method": method,
               "model": options.model, "backend": options.backend, "items": items, "scoring": options.scoring,
               "limit": options.limit,
               "runs": {r.solver: {"run_id": r.run_id, "tasks": list(r.tasks), "accuracy": r.accuracy,
                                   "items": r.items, "samples": r.samples, "report": str(r.report_dir),
                                   "metrics": r.metrics, "by": r.by} for r in runs}}
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True, default=str) + "\n",
                                          encoding="utf-8")
    (out_dir / "summary.md").write_text(render_summary(summary, report_slices), encoding="utf-8")
    return out_dir


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{100 * value:.1f}" if 0.0 <= value <= 1.0 else f"{value:.3g}"
    return str(value)


def _scalars(metrics: dict[str, Any]):
    """(name, number) pairs of a task's metrics; a dict metric gives its numeric members
    (``edit_reliability.question_level``); lists (category tables) stay in the run reports."""
    for name, value in metrics.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)) or value is None:
            yield name, value
        elif isinstance(value, dict):
            for key, inner in value.items():
                if isinstance(inner, (int, float)) and not isinstance(inner, bool):
                    yield f"{name}.{key}", inner


def render_summary(summary: dict, report_slices: Sequence[str]) -> str:
    runs = summary["runs"]
    solvers = list(runs)
    evaluated = max((r["items"] for r in runs.values()), default=0)
    limit = summary.get("limit")
    lines = [f"# Evaluation of `{summary['benchmark']}`", "",
             f"model `{summary['model']}` ({summary['backend']}), {evaluated} of {summary['items']} items "
             f"evaluated{f' (--limit {limit})' if limit else ''}, scoring {summary.get('scoring', 'unrecorded')}; "
             "accuracies in %", ""]

    def table(title: str, key: str, rows: list[tuple[str, list[Any]]]) -> None:
        lines.extend([f"## {title}", "", "| " + " | ".join([key, *solvers]) + " |",
                      "|" + "---|" * (len(solvers) + 1)])
        for label, cells in rows:
            lines.append("| " + " | ".join([label, *(_cell(c) for c in cells)]) + " |")
        lines.append("")

    table("Accuracy", "run", [("all", [runs[s]["accuracy"] for s in solvers])])
    flat = {s: {(t, m): v for t, ms in runs[s]["metrics"].items() for m, v in _scalars(ms)} for s in solvers}
    metric_keys = sorted({k for s in solvers for k in flat[s]})
    if metric_keys:
        table("Task metrics", "task / metric",
              [(f"{t} · {m}", [flat[s].get((t, m)) for s in solvers]) for t, m in metric_keys])
    for key in report_slices:
        values = sorted({v for s in solvers for v in runs[s]["by"].get(key, {})})
        if values:
            table(f"Accuracy by {key}", key,
                  [(v, [(runs[s]["by"].get(key, {}).get(v) or {}).get("accuracy") for s in solvers])
                   for v in values])
    lines.append("Runs: " + ", ".join(f"{s}: `{runs[s]['run_id']}`" for s in solvers))
    lines.append("")
    return "\n".join(lines)

"""The one engine: items → solver → scores → metrics → a Run in the graph and its report.

Every evaluation goes through ``run_tasks``: a benchmark in the graph, a JSONL file benchmark
(an anonymous method with one task, ``knowforge.eval.file_benchmark``), an imported release,
the demo. One *run* is one solver over the items of one or more tasks of a benchmark (ALCUNA's
KU, KD and KA share a run per prompting setting, as the paper reports them). ``plan_runs``
groups the tasks by solver; ``run_tasks`` executes the plan and writes

    OUT/<run_id>/                       the engine's report of each run (report.md, plots/)
    OUT/<method>-<name>/summary.{json,md}   every run side by side, per task and per slice

Every number carries its 95% interval: accuracies from the run's report (``eval.report``), task
metrics from a seeded cluster bootstrap over the run's units (``eval.metric_stats``,
``--bootstrap N`` resamples), each with the chance level where its items have one.

Methods never appear here by name: a task says which items, which solver, which scorer and
which metrics, and the registry resolves the names. ``check_tasks`` checks all of it (every
name, and that each metric's solver provides what the metric reads) before a model is made.
"""

from __future__ import annotations

import json
import logging
import operator
import random
import shutil
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

from knowforge.errors import ConfigError, InputError
from knowforge.eval.ask import cache_stats
from knowforge.eval.metric_stats import (MARKS, chance_mark, chance_of, excludes, format_number, metric_intervals,
                                        row_text)
from knowforge.eval.records import check_solver_extra
from knowforge.eval.registry import check_evaluable, metric_spec, scorer_spec, solver_spec
from knowforge.eval.report import TASK_METRIC_COUNTS, TASK_METRICS, load_report, write_report
from knowforge.eval.background import Background
from knowforge.eval.results import QuestionCheck, RunWrite, report_samples, start_run_write, write_samples_log
from knowforge.eval.shared_intervals import items_key
from knowforge.eval.solvers import make_solver
from knowforge.eval.stats import underpowered_text
from knowforge.eval.types import EvalOptions
from knowforge.eval.unit import MetricInput, SolveContext, SolverOutput
from knowforge.models.backends import make_backend
from knowforge.models.gc_pause import paused_gc
from knowforge.models.task import Component, Task
from knowforge.models.types import Backend, BenchmarkItem

log = logging.getLogger(__name__)

SUMMARY_VERSION = "3"
_ID = operator.attrgetter("id")


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
    # slice -> value -> {accuracy, samples, stderr, ci, units, chance}
    by: dict[str, dict[str, dict]] = field(default_factory=dict)
    cache: dict[str, int] | None = None   # this run's response-cache hits and misses (None: no cache)
    accuracy_stats: dict[str, Any] = field(default_factory=dict)   # stderr, ci, ci_method, units, unit
    chance: float | None = None           # the accuracy of random guesses on these items (None: open ones)
    intervals: dict[str, list[dict]] = field(default_factory=dict)   # task -> one row per metric number
    task_sizes: dict[str, int] = field(default_factory=dict)         # task -> its items in this run
    solver_name: str = ""                 # the registered solver (its label may add its arguments)
    unparsed: int = 0                     # answers nothing was parsed from (no request error): scored 0


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


def sample_units(items: Sequence[BenchmarkItem], k: int | None, group_key: str | None, seed: int) -> list[BenchmarkItem]:
    """``k`` units of ``items`` drawn at random (seeded, so a rerun draws the same ones), kept in
    the benchmark's order; whole groups where ``group_key`` groups items, as ``limit_units``.
    Unlike the first K, a sample does not lean towards whatever the benchmark lists first."""
    if k is None:
        return list(items)
    units = list(dict.fromkeys(str(i.metadata.get(group_key, i.id)) if group_key else i.id for i in items))
    if k >= len(units):
        return list(items)
    keep = set(random.Random(f"{seed}:sample-units").sample(units, k))
    return [i for i in items if (str(i.metadata.get(group_key, i.id)) if group_key else i.id) in keep]


def check_tasks(tasks: Sequence[Task], plan: Sequence[PlannedRun] | None = None) -> None:
    """Every name a task gives (solver, scorer, metrics) resolves in the registry, and every
    metric gets the solver detail it reads, so a typo or a solver that cannot feed a metric
    fails before the model is asked anything rather than after the first run."""
    for task in tasks:
        check_evaluable(task.method)
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
    if tasks and tasks[0].dataset.takes_all:       # the first task owns every item
        scorer = tasks[0].scorer
        if scorer is None:
            return list(items)
        return [item.model_copy(update={"scorer": scorer.name}) for item in items]
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
        mine = task.dataset.select(output.items)      # a filter that takes every item asks none of them
        ids = set(map(_ID, mine))
        samples = [s for s in output.samples if s.item_id in ids]
        values = {}
        for name in task.metrics:
            spec = metric_spec(name)
            detail = output.details.get(spec.needs) if spec.needs is not None else None
            values[name] = spec.compute(MetricInput(mine, samples, detail, scoring))
        out[task.name] = values
    return out


def accuracy_by(items: Sequence[BenchmarkItem], samples, key: str, report: dict | None = None) -> dict[str, dict]:
    """{slice value: {accuracy, samples, chance}} of one run's samples, with the interval of
    each accuracy from the run's ``report`` (its ``slices``)."""
    by_id = {it.id: it for it in items}
    groups: dict[str, list] = defaultdict(list)
    for r in samples:
        groups[_slice_key(by_id[r.item_id].slices.get(key))].append(r)
    report = report or {}
    # the report keeps the item's own fields apart from its slices (by_form, by_task)
    slices = report.get("slices") or {}
    reported = slices[key] if key in slices else (report.get(f"by_{key}") or {}) if key in ("form", "task") else {}
    out = {}
    for k, rows in sorted(groups.items()):
        stats = reported.get(k) or {}
        out[k] = {"accuracy": sum(r.score for r in rows) / len(rows), "samples": len(rows),
                  "stderr": stats.get("stderr"), "ci": stats.get("ci"), "units": stats.get("units"),
                  "chance": chance_of(items, rows)}
    return out


def _slice_key(value: Any) -> str:
    """A slice value as report.json keys it."""
    if value is None:
        return "null"
    return json.dumps(value, sort_keys=True) if isinstance(value, (list, dict)) else str(value)


class CheckedProgress:
    """A solver's progress callback that first raises the question check's error, if it failed
    meanwhile; ``expect`` (a bar's total) is handed to the callback when it takes one."""

    def __init__(self, progress: Callable[[int], None] | None, check: QuestionCheck):
        self.progress, self.check = progress, check

    def __call__(self, n: int) -> None:
        self.check.raise_if_failed()
        if self.progress is not None:
            self.progress(n)

    def expect(self, n: int) -> None:
        announce = getattr(self.progress, "expect", None)
        if announce is not None:
            announce(n)


def record_output(store, options: EvalOptions, output: SolverOutput, *, benchmark: str, name: str | None,
                  started_at: str | None = None, extra: dict | None = None,
                  sections: dict | None = None, questions: Mapping[str, dict] | None = None,
                  pending: RunWrite | None = None) -> tuple[str, Path]:
    """Record a solver's answers as a Run in the graph and write its report; (run id, dir).
    ``questions``: the report fields of questions read already (``write_run``). ``pending``:
    the run as ``start_recording`` began it, whose answers are being written; ``extra`` then
    holds only the Run's properties known since."""
    if pending is None:
        pending = start_recording(store, options, output, benchmark=benchmark, name=name, started_at=started_at,
                                  extra=extra, questions=questions)
    else:
        try:
            pending.add_properties(extra or {})
        except BaseException:
            pending.settle()
            raise
    run_id = pending.run_id
    run_dir = Path(options.out_dir) / run_id
    # the report is built while the answers are written (start_run_write): it reads the Run
    # node and the questions, never the answers
    try:
        if options.log_samples:
            write_samples_log(run_dir / "samples.jsonl", output.items, [*output.samples, *output.variants])
        # the report of the answers just recorded, from memory: reading them back was most of
        # the engine's cost per sample (issue 33); `knowforge report RUN` reads them from the graph
        write_report(store, run_id, run_dir, extra_sections={**output.sections, **(sections or {})},
                     samples=report_samples(run_id, pending.questions, output.samples))
    except BaseException:
        pending.settle()        # no thread left writing behind the error
        raise
    try:
        pending.wait()
    except BaseException:
        # a report of answers the graph does not hold would mislead: a failed write leaves no
        # report, as when the report came after it (the run id is new, so is its folder)
        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    if output.finalize is not None:
        output.finalize(run_dir, run_id)
    return run_id, run_dir


def start_recording(store, options: EvalOptions, output: SolverOutput, *, benchmark: str, name: str | None,
                    started_at: str | None = None, extra: dict | None = None,
                    questions: Mapping[str, dict] | QuestionCheck | None = None) -> RunWrite:
    """The Run of a solver's answers, written as soon as it answered, with its answers being
    written in the background (``results.start_run_write``): the engine computes the run's
    metrics, intervals and report meanwhile, and ``record_output`` finishes it."""
    check_solver_extra(name or benchmark, output.run_extra)
    return start_run_write(store, options, output.items, output.samples, benchmark=benchmark, name=name,
                           variants=output.variants, extra={**output.run_extra, **(extra or {})},
                           started_at=started_at, questions=questions)


def run_tasks(store, benchmark: str, items: Sequence[BenchmarkItem], tasks: Sequence[Task],
              options: EvalOptions, *, solver: Component | None = None, backend: Backend | None = None,
              group_key: str | None = None, report_slices: Sequence[str] = (),
              progress: Callable[[int], None] | None = None, run_name: str | None = None,
              cluster_key: str | None = None, task_filter: Sequence[str] = (),
              questions: Mapping[str, dict] | Background | None = None) -> list[TaskRun]:
    """Evaluate ``tasks`` of ``benchmark`` (its ``items``) and record one run per solver, named
    ``run_name`` (default ``<benchmark>:<solver>``). The Run records ``cluster_key`` (the
    metadata key of the unit its intervals resample; default ``group_key``) and the
    ``--task`` filter it was given. ``questions``: the items' questions as a report reads
    them, when the caller read them already (``write_run``), or the ``Background`` reading
    them."""
    plan = plan_runs(tasks, solver)
    check_tasks(tasks, plan)
    solvers = [(p, make_solver(p.solver)) for p in plan]        # bad solver arguments fail here
    if backend is None:
        backend = make_backend(options)
    runs = []
    before = cache_stats(backend) or {"hits": 0, "misses": 0}
    for planned, solver_obj in solvers:
        chosen = limit_units(sample_units(select_items(items, planned.tasks), options.sample, group_key, options.seed),
                             options.limit, group_key)
        if not chosen:
            names = ", ".join(t.name for t in planned.tasks)
            raise InputError(f"{benchmark}: no items for {names}")
        label = solver_obj.component.label
        # milliseconds: runs recorded in one second (answers from the cache) still sort in the order
        # they ran, which is what "the latest run" and the validity tables read
        started = datetime.now(UTC).isoformat(timespec="milliseconds")
        unit_key = cluster_key or group_key
        # the questions are read and checked while the solver answers; its progress ticks raise
        # a failed check, so a bad question does not wait for the whole generation
        check = QuestionCheck(store, chosen, benchmark, known=questions)
        try:
            output = solver_obj.solve(chosen, SolveContext(backend=backend, options=options, store=store,
                                                           progress=CheckedProgress(progress, check),
                                                           unit_key=unit_key))
        except BaseException:
            check.settle()
            raise
        # the Run, its metrics, intervals and report: the engine's bulk bookkeeping, no model code.
        # One BLAS thread: the server writes the answers on the other core meanwhile, and
        # OpenBLAS's second thread spun against it (harness_overhead at 100,000 samples: the
        # intervals' CPU 2.6 -> 1.5 s, RESULTS.md, "The engine at 100,000")
        with paused_gc(), threadpool_limits(limits=1, user_api="blas"):   # (knowforge.models.gc_pause)
            stats = cache_stats(backend)
            # one backend (and cache) serves every run: record each run's own share of hits
            cache = {}
            if stats:
                hits, misses = stats["hits"] - before["hits"], stats["misses"] - before["misses"]
                cache = {"cache_hits": hits, "cache_misses": misses,
                         "cache_hit_rate": hits / (hits + misses) if hits + misses else 0.0}
            before = stats or before
            task_names = tuple(t.name for t in planned.tasks)
            members = {t.name: list(map(_ID, t.dataset.select(output.items))) for t in planned.tasks}
            extra = {"solver": label, "setting": label, "run_tasks": list(task_names), "limit": options.limit,
                     "sample": options.sample, "cluster_key": unit_key, "task_filter": list(task_filter) or None,
                     "metric_bootstrap": options.bootstrap, **cache,
                     # which items each task's metrics covered, so the report finds its groups of one task's items
                     "task_items": {name: items_key(ids) for name, ids in members.items()},
                     "task_sizes": {name: len(ids) for name, ids in members.items()}}
            name = run_name or f"{benchmark}:{label}"
            # the answers go to the graph while the metrics and the report are computed (issue 33);
            # a metric that fails leaves the run recorded with its answers, without task metrics
            try:
                pending = start_recording(store, options, output, benchmark=benchmark, name=name,
                                          started_at=started, extra=extra, questions=check)
            except BaseException:
                check.settle()          # a solver's extra refused before the check was taken
                raise
            try:
                metrics = task_metrics(planned.tasks, output, options.scoring)
                intervals = metric_intervals(planned.tasks, output, metrics, options.scoring, key=unit_key,
                                             resamples=options.bootstrap, seed=options.seed)
                sizes = extra["task_sizes"]
                sections = {TASK_METRICS: metric_rows(metrics, intervals, sizes)}
                counts = metric_counts(metrics, sizes)
                if counts:
                    sections[TASK_METRIC_COUNTS] = counts
            except BaseException:
                pending.settle()
                raise
            # the numbers behind the "Task metrics" text, for tools that compare runs (knowforge view)
            # and the one interval the run report prints for a number it also computes (a task's accuracy)
            values = {"task_metric_values": [
                {"task": task, "metric": r["name"], "value": r.get("value"), "ci": r.get("ci"), "scale": r.get("scale"),
                 **{k: r[k] for k in ("stderr", "ci_method", "unit", "units", "resamples") if r.get(k) is not None}}
                for task, rows in intervals.items() for r in rows]}
            run_id, run_dir = record_output(store, options, output, benchmark=benchmark, name=name,
                                            started_at=started, extra=values, sections=sections, pending=pending)
            report = load_report(run_dir)
            n = len(output.samples)
            overall = report.get("overall", {})
            runs.append(TaskRun(run_id=run_id, solver=label, tasks=task_names, report_dir=run_dir,
                                items=len({s.item_id for s in output.samples}), samples=n,
                                accuracy=(sum(s.score for s in output.samples) / n) if n else None,
                                metrics=metrics,
                                by={key: accuracy_by(output.items, output.samples, key, report) for key in report_slices},
                                cache={"hits": cache["cache_hits"], "misses": cache["cache_misses"]} if cache else None,
                                accuracy_stats={k: overall.get(k) for k in ("stderr", "ci", "ci_method", "units")}
                                | {"unit": (report.get("uncertainty") or {}).get("unit")},
                                chance=chance_of(output.items, output.samples), intervals=intervals,
                                task_sizes=dict(sizes), solver_name=solver_obj.component.name,
                                unparsed=sum(1 for s in output.samples if s.parsed is None and not s.error)))
            log.info("%s %s: accuracy %s over %d samples", benchmark, label, runs[-1].accuracy, n)
    return runs


def metric_label(name: str) -> str:
    """A metric as the report names it: ``locality (answers unchanged by the edit)`` where its
    spec gives a label, else its name."""
    label = metric_spec(name).label
    return f"{name} ({label})" if label else name


def _shown_tasks(metrics: dict[str, dict[str, Any]], sizes: dict[str, int] | None):
    """The tasks a report table shows: those that had items (a task with no question has no
    number to show, only zero counts)."""
    return [(t, v) for t, v in metrics.items() if sizes is None or sizes.get(t, 0) > 0]


def metric_rows(metrics: dict[str, dict[str, Any]], intervals: dict[str, list[dict]],
                sizes: dict[str, int] | None = None) -> list[dict]:
    """The report's "Task metrics" table: one row per number of each task's metrics (its path
    in the metric's value; value ± half its 95% interval, the interval, the chance level and
    whether the interval excludes it, a gap's p-value), and a value with no number as JSON.
    Counts are apart (``metric_counts``); a task with no items (``sizes``) is left out."""
    rows = []
    for task, values in _shown_tasks(metrics, sizes):
        for name, value in values.items():
            leaves = [r for r in intervals.get(task, ()) if r["metric"] == name]
            if not leaves and not _counts(value):
                rows.append({"task": task, "metric": metric_label(name), "number": "",
                             "value": json.dumps(value, default=str)})
                continue
            for leaf in leaves:
                rows.append({"task": task, "metric": metric_label(name),
                             "number": leaf["name"][len(name):].lstrip("."), **row_text(leaf)})
    return rows


def metric_counts(metrics: dict[str, dict[str, Any]], sizes: dict[str, int] | None = None) -> list[dict]:
    """The report's "Task metric counts" table: the integer members of each task's metrics
    (questions, events ...), apart from the shares; tasks with no items left out."""
    return [{"task": task, "metric": metric_label(name), "count of": label, "count": count}
            for task, values in _shown_tasks(metrics, sizes) for name, value in values.items()
            for label, count in _counts(value)]


def _counts(value: Any, path: str = "") -> list[tuple[str, int]]:
    """The integer members (counts) of a metric's value, one level of dicts deep."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [(path, value)]
    if isinstance(value, dict) and not path:
        return [c for k, v in value.items() if not isinstance(v, dict) for c in _counts(v, str(k))]
    return []


# --- the summary of one evaluation -----------------------------------------------------------------
def write_summary(out_dir: Path, *, benchmark: str, method: str, options: EvalOptions,
                  items: int, runs: Sequence[TaskRun], report_slices: Sequence[str]) -> Path:
    """``summary.json`` and ``summary.md``: every run (solver) side by side, each number with
    its 95% interval and the chance level of its items."""
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = {"version": SUMMARY_VERSION, "benchmark": benchmark, "method": method,
               "model": options.model, "backend": options.backend, "items": items, "scoring": options.scoring,
               "limit": options.limit, "sample": options.sample, "bootstrap": options.bootstrap, "seed": options.seed,
               "runs": {r.solver: {"run_id": r.run_id, "tasks": list(r.tasks), "accuracy": r.accuracy,
                                   **{f"accuracy_{k}": v for k, v in r.accuracy_stats.items()},
                                   "chance": r.chance, "items": r.items, "samples": r.samples,
                                   "report": str(r.report_dir), "metrics": r.metrics, "intervals": r.intervals,
                                   "task_sizes": r.task_sizes, "solver_name": r.solver_name,
                                   "unparsed": r.unparsed,
                                   "by": r.by} for r in runs}}
    summary["all_runs"] = _earlier_runs(out_dir / "summary.json") | {
        r["run_id"]: {"solver": solver, "model": options.model, "backend": options.backend,
                      "scoring": options.scoring, "limit": options.limit, "accuracy": r["accuracy"],
                      "report": r["report"]}
        for solver, r in summary["runs"].items()}
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True, default=str) + "\n",
                                          encoding="utf-8")
    (out_dir / "summary.md").write_text(render_summary(summary, report_slices), encoding="utf-8")
    return out_dir


def _earlier_runs(path: Path) -> dict[str, dict]:
    """Every run an earlier summary in the same folder listed, by run id: a second eval into one
    ``--out`` replaces ``runs`` (this evaluation's solvers) but never drops a run from ``all_runs``."""
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, json.JSONDecodeError) as exc:
        log.warning("%s is not a readable summary (%s); its earlier runs are not carried over", path, exc)
        return {}
    runs = dict(earlier.get("all_runs") or {})
    for solver, r in (earlier.get("runs") or {}).items():     # a summary written before all_runs
        if isinstance(r, dict) and r.get("run_id"):
            runs.setdefault(r["run_id"], {"solver": solver, "model": earlier.get("model"),
                                          "backend": earlier.get("backend"), "scoring": earlier.get("scoring"),
                                          "limit": earlier.get("limit"), "accuracy": r.get("accuracy"),
                                          "report": r.get("report")})
    return runs


def _scalars(metrics: dict[str, Any]):
    """(name, number) pairs of a task's metrics; a dict metric gives its numeric members
    (``edit_reliability.question_level``); deeper numbers and tables (category tables) stay in
    the run reports."""
    for name, value in metrics.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)) or value is None:
            yield name, value
        elif isinstance(value, dict):
            for key, inner in value.items():
                if isinstance(inner, (int, float)) and not isinstance(inner, bool):
                    yield f"{name}.{key}", inner


def _cell(value: Any, stats: dict | None = None) -> str:
    """A number of the summary: a count as it is, a share as ``41.0 ± 2.8`` (``*`` above chance
    and ``↓`` below it when its interval excludes chance; a zero-width interval as "no
    variation (n = ...)"; a gap's p-value)."""
    if value is None:
        return "-"
    if not isinstance(value, float):
        return str(value)
    stats = stats or {}
    text = format_number(value, stats.get("ci"), units=stats.get("units"), scale=stats.get("scale"))
    mark = chance_mark(value, stats.get("chance"), stats.get("excludes_chance"))
    if mark:
        text += f" {mark}"
    if stats.get("p_value") is not None:
        p = stats["p_value"]
        text += f" (p {'<0.001' if p < 0.001 else f'{p:.3f}'}"
        text += f"; {underpowered_text(stats, stats.get('units'))})" if stats.get("underpowered") else ")"
    return text


def _with_chance(stats: dict) -> dict:
    return {**stats, "excludes_chance": excludes(stats.get("ci"), stats.get("chance"), stats.get("units"))}


def _solver_legend(runs: dict) -> list[str]:
    """What each solver column is (its registered description) and how many of its answers had
    nothing it could parse, which it scores 0: a column of 0.0 whose every answer is unparsed
    says the model did not write what the solver reads (a final "Answer: ..." line, a letter),
    not what it knows."""
    lines = ["Solvers (the columns):", ""]
    for label, r in runs.items():
        name = r.get("solver_name") or label.split(" ", 1)[0]
        try:
            text = f"{label}: {solver_spec(name).description}"
        except ConfigError:              # a solver no longer installed: its label is all there is
            text = label
        unparsed, samples = r.get("unparsed") or 0, r.get("samples") or 0
        if unparsed and unparsed == samples:
            text += (f". None of its {samples} answers had what it parses, so every one scored 0: its 0.0 "
                     "measures the answer format, not what the model knows (a small model rarely ends with the "
                     "line or letter this solver reads)")
        elif unparsed:
            text += f". {unparsed} of its {samples} answers had nothing it could parse and scored 0"
        lines.append(f"- {text}.")
    return lines + [""]


def render_summary(summary: dict, report_slices: Sequence[str]) -> str:
    runs = summary["runs"]
    solvers = list(runs)
    evaluated = max((r["items"] for r in runs.values()), default=0)
    limit = summary.get("limit")
    sample = summary.get("sample")
    boot = summary.get("bootstrap")
    lines = [f"# Evaluation of `{summary['benchmark']}`", "",
             f"model `{summary['model']}` ({summary['backend']}), {evaluated} of {summary['items']} items "
             f"evaluated{f' (--limit {limit})' if limit else ''}{f' (--sample {sample})' if sample else ''}, scoring {summary.get('scoring', 'unrecorded')}.",
             "",
             "Numbers in %, as estimate ± half the width of the 95% interval (accuracies: the run report's "
             "interval, over the run's units: the task metric's own where the run is one task's items, else "
             "analytic; task metrics: a cluster bootstrap over them, "
             + (f"{boot} resamples" if boot else "off: --bootstrap 0") + "). "
             "Chance: the accuracy of random guesses (1 in k for k options, 1 in 2 for yes/no; - for open "
             f"questions). {MARKS}. A zero-width interval reads \"no variation (n = units)\". A gap's p comes from "
             "its own test (named) on the same units as its interval; \"underpowered\" marks a gap over fewer units "
             "than `knowforge report --plan-gap` asks for to detect a gap of its size.", ""]

    def table(title: str, key: str, rows: list[tuple[str, Any, list[str]]]) -> None:
        lines.extend([f"## {title}", "", "| " + " | ".join([key, "chance", *solvers]) + " |",
                      "|" + "---|" * (len(solvers) + 2)])
        for label, chance, cells in rows:
            lines.append("| " + " | ".join([label, _cell(chance), *cells]) + " |")
        lines.append("")

    def first(values):
        return next((v for v in values if v is not None), None)

    chance_all = first(runs[s].get("chance") for s in solvers)
    table("Accuracy", "run", [("all", chance_all, [
        _cell(runs[s]["accuracy"], _with_chance({"ci": runs[s].get("accuracy_ci"), "chance": runs[s].get("chance"),
                                                 "units": runs[s].get("accuracy_units")}))
        for s in solvers])])
    # a task with no items in a run has only zero counts to show: left out
    flat = {s: {(t, m): v for t, ms in runs[s]["metrics"].items()
                if (runs[s].get("task_sizes") or {}).get(t, 1) > 0 for m, v in _scalars(ms)} for s in solvers}
    stats = {s: {(t, r["name"]): r for t, rows in (runs[s].get("intervals") or {}).items() for r in rows}
             for s in solvers}
    counted = {k for s in solvers for k, v in flat[s].items() if isinstance(v, int) and not isinstance(v, bool)}
    metric_keys = sorted({k for s in solvers for k in flat[s]} - counted)
    if metric_keys:
        table("Task metrics", "task / metric",
              [(f"{t} · {m}", first((stats[s].get((t, m)) or {}).get("chance") for s in solvers),
                [_cell(flat[s].get((t, m)), stats[s].get((t, m))) for s in solvers]) for t, m in metric_keys])
    if counted:                          # counts apart from the shares, with no chance column
        lines.extend(["## Task metric counts", "", "| " + " | ".join(["task / metric", *solvers]) + " |",
                      "|" + "---|" * (len(solvers) + 1)])
        lines.extend("| " + " | ".join([f"{t} · {m}", *[_cell(flat[s].get((t, m))) for s in solvers]]) + " |"
                     for t, m in sorted(counted))
        lines.append("")
    for key in report_slices:
        values = sorted({v for s in solvers for v in runs[s]["by"].get(key, {})})
        if values:
            groups = {s: runs[s]["by"].get(key, {}) for s in solvers}
            table(f"Accuracy by {key}", key,
                  [(v, first((groups[s].get(v) or {}).get("chance") for s in solvers),
                    [_cell((groups[s].get(v) or {}).get("accuracy"), _with_chance(groups[s].get(v) or {}))
                     for s in solvers]) for v in values])
    lines.append("Runs: " + ", ".join(f"{s}: `{runs[s]['run_id']}`" for s in solvers))
    lines.append("")
    lines += _solver_legend(runs)
    current = {r["run_id"] for r in runs.values()}
    earlier = {k: v for k, v in (summary.get("all_runs") or {}).items() if k not in current}
    if earlier:
        lines.extend(["## Earlier runs in this folder", "",
                      "Evaluations written here before this one (summary.json `all_runs`); their reports are kept.",
                      "", "| run | solver | model | scoring | --limit | accuracy |", "|---|---|---|---|---:|---:|"])
        lines.extend(f"| `{k}` | {v.get('solver')} | {v.get('model')} | {v.get('scoring')} | "
                     f"{v.get('limit') or '-'} | {_cell(v.get('accuracy'))} |" for k, v in earlier.items())
        lines.append("")
    return "\n".join(lines)

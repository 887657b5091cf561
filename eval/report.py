"""Reports of a run read back from the graph: report.json, report.md, plots/*.svg.

Every number carries its uncertainty (``eval.run_stats``): report.json gives each accuracy its
``stderr``, 95% ``ci``, ``ci_method`` and the ``units`` it rests on; report.md and the terminal
show ``41.0 ± 2.8``: accuracy in %, ± half the width of the 95% interval. The unit is the item
(its samples together), or the method's group of items (``cluster_key``: an ELKEN event, a
ChroKnow record) when the caller or the Run names one.

A report identifies itself: run, benchmark, model, solver, tasks and task filter, --limit, the
evaluated item count against the questions of those tasks in the graph, scoring mode.

The sections a solver adds (``extra_sections``) are stored on the Run (``report_sections_json``)
when the eval writes its report, so ``knowforge report RUN`` writes the same sections again
from the graph alone, to any folder.

Plots (SVG drawn by ``svg_plot``, no plotting library), each with 95% error bars:
* ``accuracy_by_task.svg``  — one bar per task;
* ``accuracy_by_year.svg``  — ChroKnowledge-style curves, one line per task (when items carry
  a ``year`` slice);
* ``accuracy_by_<slice>.svg`` — one bar chart per other categorical slice (2–30 values);
* ``comparison.svg``         — two runs side by side per task (``compare=``);
* ``trend.svg``              — accuracy per task over several compared runs.
"""

from __future__ import annotations

import itertools
import json
import logging
import operator
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.table import Table

from knowforge.errors import ConfigError
from knowforge.eval.metric_stats import format_number
from knowforge.eval.registry import metric_spec
from knowforge.eval.records import REPORT_VERSION, Report, RunRecord
from knowforge.eval.results import load_run, run_answers
from knowforge.eval.run_stats import (Sample, SampleColumns, Units, balanced_accuracy_estimate,
                                      paired_runs, plan_for_gap)
from knowforge.eval.shared_intervals import SharedIntervals
from knowforge.eval.stats import DEFAULT_RESAMPLES, child_seed, underpowered_text
from knowforge.eval.svg_plot import Panel, Point, Series, chart, percent_point
from knowforge.eval.validity import UNDATED, question_sides
from knowforge.kg.relations import labelled, relation_labels
from knowforge.models.tables import add_columns, table_of

log = logging.getLogger(__name__)

MAX_CATEGORIES = 30
_BOOL_FORMS = ("boolean", "true-false")
SHOWN = "accuracies in %, shown as estimate ± half the width of its 95% interval"
TASK_METRICS = "Task metrics"              # the engine's sections of a run report
TASK_METRIC_COUNTS = "Task metric counts"
SAME_COLUMNS = "Columns as under By task (n: samples; accuracy vs gold, in %; interval: its method)."


def _as_bool(text: Any) -> bool | None:
    value = str(text).strip().lower() if text is not None else ""
    if value in ("yes", "true"):
        return True
    if value in ("no", "false"):
        return False
    return None


def _json_key(value: Any) -> str:
    return "null" if value is None else str(value)


@dataclass(frozen=True)
class _RunData:
    run: dict
    samples: list[Sample]
    sections: dict | None        # what the solver added to the eval's own report


def _read_run(store, run_id: str, samples: Sequence[Sample] | None = None) -> _RunData:
    """The Run's properties and its answers: read back from the graph, or ``samples`` where the
    caller holds them (``results.report_samples``)."""
    run = dict(load_run(store, run_id))
    stored = run.pop("report_sections_json", None)
    if samples is None:
        samples = [(r["question"], r["answer"]) for r in run_answers(store, run_id)]
    return _RunData(run, list(samples), json.loads(stored) if stored else None)


def build_report(store, run_id: str, *, cluster_key: str | None = None, resamples: int = DEFAULT_RESAMPLES,
                 seed: int = 0) -> dict:
    """All numbers of one run, each with its uncertainty, as a JSON-ready dict.

    ``cluster_key``: the metadata key whose items form one unit (the method's unit: an event,
    a record, a term, a statement, an entity); default: the Run's ``cluster_key`` when recorded,
    else each item is a unit. ``resamples``
    and ``seed``: the bootstrap of balanced accuracies."""
    return _build(store, _read_run(store, run_id), run_id, cluster_key=cluster_key, resamples=resamples, seed=seed)


def _units(data: _RunData, cluster_key: str | None) -> Units:
    return Units(cluster_key if cluster_key is not None else data.run.get("cluster_key"))


def _build(store, data: _RunData, run_id: str, *, cluster_key: str | None, resamples: int, seed: int) -> dict:
    run, samples = data.run, data.samples
    units = _units(data, cluster_key)
    questions = [q for q, _ in samples]
    answers = [a for _, a in samples]
    shared = SharedIntervals(run, units.name, "accuracy")
    # the samples as arrays once: every group below is a set of positions in them, and each key's
    # values are read once (``values``), not once per task or group
    columns = SampleColumns.of(samples, units)
    key_values: dict[str, list] = {}

    def values(key: str) -> list:
        if key not in key_values:
            key_values[key] = [q.get(key) for q in questions]
        return key_values[key]

    acc = columns.estimate()
    item_acc = columns.item_estimate("mean")
    all_right = columns.item_estimate("all")
    item_count = len({q["id"] for q in questions})
    report: dict[str, Any] = {
        "version": REPORT_VERSION, "run_id": run_id, "scoring": scoring_of(run),
        # the typed record: engine keys as fields, a solver's own properties under "extra"
        "run": RunRecord.from_properties(run).model_dump(mode="json"),
        "scope": _scope(store, run, values("task"), item_count),
        "uncertainty": {"unit": units.name, "level": 0.95, "shown": SHOWN,
                        "analytic": "accuracies: cluster-robust standard error over units (lm-eval's "
                                    "mean_stderr when each unit is one sample), normal interval",
                        "bootstrap": {"resamples": resamples, "seed": seed, "interval": "percentile",
                                      "used_for": "balanced accuracy, paired differences"},
                        "task_metrics": "a group holding exactly one task's items (a task, and the headline, a form "
                                        "or a slice value that equals it) carries the eval's cluster bootstrap of "
                                        "that task's accuracy (interval_source: task metric), the interval its "
                                        "Task metrics row prints"},
        "overall": {"items": item_count, "samples": len(samples), "accuracy": acc.estimate, **acc.as_dict(),
                    "unit": units.name,
                    "item_accuracy": item_acc.estimate, "item_accuracy_stderr": item_acc.stderr,
                    "item_accuracy_ci": item_acc.as_dict()["ci"],
                    "all_samples_correct": all_right.estimate, "all_samples_correct_stderr": all_right.stderr,
                    "all_samples_correct_ci": all_right.as_dict()["ci"],
                    "errors": int(columns.error.sum()),
                    "cached": sum(1 for a in answers if a.get("cached"))},
    }
    shared.apply(report["overall"], set(columns.ids))
    report["by_task"] = _groups(values("task"), columns, units, shared)
    report["by_form"] = _groups(values("form"), columns, units, shared)
    tasks = values("task")
    # each task's positions, increasing, for the tasks' own figures below
    task_positions: dict[Any, np.ndarray] = {}

    def positions_of(task) -> np.ndarray:
        if task not in task_positions:
            same = map(operator.eq, tasks, itertools.repeat(task))     # t == task, without a Python loop
            task_positions[task] = np.flatnonzero(np.fromiter(same, dtype=bool, count=len(tasks)))
        return task_positions[task]

    balanced = {}
    balanced_shared = SharedIntervals(run, units.name, "balanced_accuracy")
    for task in sorted({t for t, f in zip(tasks, values("form")) if f in _BOOL_FORMS}, key=str):
        mine = positions_of(task).tolist()
        # units by their code: codes follow the units' names in sorted order, as the names would
        pairs = [(u, _as_bool((questions[i].get("answers") or [None])[0]), _as_bool(answers[i].get("parsed")))
                 for i, u in zip(mine, columns.unit[mine].tolist())]
        pairs = [(u, g, p) for u, g, p in pairs if g is not None]
        if pairs:
            est = balanced_accuracy_estimate(pairs, resamples=resamples,
                                             seed=child_seed(seed, "balanced_accuracy", task))
            ids = {columns.ids[i] for i in _distinct(columns.item[mine], len(columns.ids)).tolist()}
            balanced[str(task)] = balanced_shared.apply({"value": est.estimate, **est.as_dict(), "unit": units.name},
                                                        ids, "value")
    report["balanced_accuracy"] = balanced
    slice_keys = sorted(k for k in set(itertools.chain.from_iterable(questions)) if k.startswith("slice_"))
    report["slices"] = {}
    for key in slice_keys:
        report["slices"][key[len("slice_"):]] = _groups(values(key), columns, units, shared)
    if "relation" in report["slices"]:      # shown beside the ids: P551 (residence)
        report["relation_labels"] = relation_labels(store, report["slices"]["relation"])
    if "slice_year" in slice_keys:
        years = values("slice_year")
        curves: dict[str, dict] = {}
        for task in sorted(set(tasks), key=str):
            subset = [i for i in positions_of(task).tolist() if years[i] is not None]
            if subset:
                curves[task] = _groups([years[i] for i in subset], columns, units, shared,
                                       np.asarray(subset, dtype=np.intp))
        report["by_year"] = curves
    if run.get("model_cutoff"):
        report["by_model_cutoff"] = _cutoff_slices(store, run["model_cutoff"], samples, units, shared,
                                                   columns=columns, tasks=tasks, positions_of=positions_of)
    if data.sections is not None:
        report["extra"] = data.sections
    return report


def _scope(store, run: Mapping, tasks: Sequence, items: int) -> dict:
    """What the run covered: its tasks, the filter and limit that narrowed it, and the evaluated
    item count next to the questions of those tasks in the graph. ``tasks``: each sample's task;
    ``items``: how many items the samples answer."""
    benchmarks = [b for b in str(run.get("benchmark") or "").split(",") if b]
    sizes = store.read("eval/benchmark_task_sizes", benchmarks=benchmarks) if benchmarks else []
    item_tasks = sorted({str(t) for t in tasks})
    benchmark_tasks: dict[str, int] = defaultdict(int)
    for row in sizes:
        benchmark_tasks[str(row["task"])] += row["questions"]
    sizes = run.get("task_sizes")
    try:
        sizes = json.loads(sizes) if isinstance(sizes, str) else sizes
    except ValueError:
        sizes = None
    return {"benchmark": run.get("benchmark"),
            "tasks": list(run.get("run_tasks") or run.get("tasks") or item_tasks),
            "task_sizes": sizes if isinstance(sizes, dict) else None,
            "item_tasks": item_tasks, "task_filter": run.get("task_filter"), "limit": run.get("limit"),
            "items": items, "samples_per_item": run.get("n"),
            "questions_of_these_tasks": sum(benchmark_tasks.get(t, 0) for t in item_tasks),
            "benchmark_tasks": dict(sorted(benchmark_tasks.items()))}


def _cutoff_slices(store, cutoff: str, samples, units: Units, shared: SharedIntervals | None = None,
                   *, columns: SampleColumns | None = None, tasks: Sequence | None = None,
                   positions_of: Callable[[Any], np.ndarray] | None = None) -> dict:
    """Accuracy of items whose tested facts changed before vs after the model's cutoff.
    ``tasks``: each sample's task; ``positions_of``: a task's positions (computed here when not
    given)."""
    sides = question_sides(store, (q["id"] for q, _ in samples), cutoff)
    side = [sides.get(q["id"], UNDATED) for q, _ in samples]
    columns = columns if columns is not None else SampleColumns.of(samples, units)
    tasks = tasks if tasks is not None else [q.get("task") for q, _ in samples]
    if positions_of is None:
        def positions_of(task) -> np.ndarray:
            return np.asarray([i for i, t in enumerate(tasks) if t == task], dtype=np.intp)
    by_task = {}
    for task in sorted(set(tasks), key=str):
        mine = positions_of(task)
        by_task[str(task)] = _groups([side[i] for i in mine.tolist()], columns, units, shared, mine)
    return {"cutoff": cutoff, "all": _groups(side, columns, units, shared), "by_task": by_task}


def scoring_of(run: Mapping) -> dict:
    """Which scoring mode scored a run, and the rule each scorer applied under it. Runs recorded
    before scoring modes existed say so instead of guessing."""
    mode = run.get("scoring")
    if mode is None:
        return {"mode": "unrecorded", "rules": [], "text": "unrecorded (run made before scoring modes)"}
    rules = list(run.get("scoring_rules") or [])
    return {"mode": mode, "rules": rules, "text": f"{mode}" + (f" ({', '.join(rules)})" if rules else "")}


def _hashable(value):
    return json.dumps(value, sort_keys=True) if isinstance(value, (list, dict)) else value


def _codes(values: Sequence) -> tuple[list, np.ndarray]:
    """Each value's group as an integer code, and the groups' values (``_hashable``) in the order
    the values first give them: one dict lookup per value, where a group of Python lists of
    positions cost an append, a key function and ``_hashable`` per sample."""
    seen: dict = {}
    try:
        codes = [seen.setdefault(v, len(seen)) for v in values]
    except TypeError:       # a list or dict among them: grouped by its JSON text
        seen = {}
        codes = [seen.setdefault(_hashable(v), len(seen)) for v in values]
    return list(seen), np.fromiter(codes, dtype=np.intp, count=len(codes))


def _distinct(codes: np.ndarray, size: int) -> np.ndarray:
    """``np.unique(codes)`` of codes in range(size): by a mask where they are many, as a
    group's item codes are (numpy's unique hashes them: 1.9 ms for 7,000 codes, the mask 0.07)."""
    if len(codes) * 32 < size:
        return np.unique(codes)
    seen = np.zeros(size, dtype=bool)
    seen[codes] = True
    return np.flatnonzero(seen)


def _group(samples, key: Callable[[Mapping], Any], units: Units, shared: SharedIntervals | None = None, *,
           columns: SampleColumns | None = None, positions: Sequence[int] | None = None) -> dict:
    """{group: n, correct, accuracy, items, errors, stderr, ci, ci_method, units, unit}, in a
    stable order; a group that holds exactly one task's items carries the engine's interval of
    that task's accuracy (``shared``). ``columns``: ``samples`` as arrays, when the caller groups
    them more than once; ``positions``: the samples to group (default all, else increasing)."""
    cols = columns if columns is not None else SampleColumns.of(samples, units)
    values = [key(q) for q, _ in samples] if positions is None else [key(samples[i][0]) for i in positions]
    return _groups(values, cols, units, shared, None if positions is None else np.asarray(positions, dtype=np.intp))


def _groups(values: Sequence, cols: SampleColumns, units: Units, shared: SharedIntervals | None,
            positions: np.ndarray | None = None) -> dict:
    """``_group`` of the samples at ``positions`` (all by default) by ``values``, one per sample
    grouped."""
    labels, codes = _codes(values)
    # groups ordered as sorted() orders the labels in the order the samples first give them
    ordered = sorted(range(len(labels)), key=lambda c: (labels[c] is None, str(type(labels[c])),
                                                        labels[c] if labels[c] is not None else 0))
    rank = np.zeros(len(labels), dtype=np.intp)
    rank[ordered] = np.arange(len(labels), dtype=np.intp)
    ranks = rank[codes]
    # a stable sort keeps each group's positions increasing, as the figures below want them
    by_group = np.argsort(ranks, kind="stable")
    if positions is not None:
        by_group = positions[by_group]
    ends = np.cumsum(np.bincount(ranks, minlength=len(labels))).tolist()
    out = {}
    start = 0
    for code, end in zip(ordered, ends):
        at = by_group[start:end]
        start = end
        # the figures of accuracy_estimate and metrics.accuracy over the group, from the columns:
        # the same sums in the same order (SampleColumns), so every number stays the same to the bit
        est = cols.estimate(at)
        scored = cols.score[at][cols.scored[at]]
        correct = sum(scored.tolist())
        items = _distinct(cols.item[at], len(cols.ids))
        stats = {"n": len(at), "correct": correct, "accuracy": correct / len(scored) if len(scored) else None,
                 **est.as_dict(), "unit": units.name, "items": len(items), "errors": int(cols.error[at].sum())}
        if shared is not None and shared.may_hold(len(items)):
            stats = shared.apply(stats, {cols.ids[i] for i in items.tolist()})
        out[_json_key(labels[code])] = stats
    return out


# --- comparison and planning -----------------------------------------------------------------------
def _paired(data: _RunData, other: _RunData, units: Units, *, resamples: int, seed: int) -> dict:
    """The paired differences of this run and ``other`` per task (and form, and slice)."""
    def by(key: str) -> dict:
        return paired_runs(data.samples, other.samples, units, group=lambda q: _json_key(_hashable(q.get(key))),
                           resamples=resamples, seed=child_seed(seed, key))

    out = by("task")
    if "by_task" in out:
        out["by_form"] = by("form")["by_task"]
        slice_keys = sorted({k for q, _ in data.samples for k in q if k.startswith("slice_")})
        out["slices"] = {key[len("slice_"):]: by(key)["by_task"] for key in slice_keys}
    return out


# --- text ------------------------------------------------------------------------------------------
def _pct(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}"


def _pm(value: float | None, ci: Sequence[float] | None, signed: bool = False, units: int | None = None) -> str:
    """The report's one number format: ``41.0 ± 2.8`` (%, ± half the 95% interval's width); a
    zero-width interval reads ``0.0, no variation (n = 40)`` (``metric_stats.format_number``)."""
    if value is None:
        return "-"
    if not ci:
        return _pct(value, signed)
    return format_number(value, ci, signed=signed, units=units)


def _pms(stats: Mapping, key: str = "accuracy") -> str:
    """``_pm`` of a group's value with its own interval and units."""
    return _pm(stats.get(key), stats.get("ci"), units=stats.get("units"))


def interval_method(stats: Mapping) -> str:
    """How a number's interval was made, in words a table cell holds: "bootstrap over event_id"
    (a percentile cluster bootstrap; the eval's, shared with the Task metrics table, where
    ``interval_source`` says so) or "analytic over item" (cluster-robust standard error, normal
    interval)."""
    if not stats.get("ci"):
        return "-"
    unit = stats.get("unit") or "item"
    if stats.get("ci_method") == "bootstrap":
        return f"bootstrap over {unit}" + (" (task metric)" if stats.get("interval_source") == "task metric" else "")
    return f"analytic over {unit}"


def interval_legend(unc: Mapping, run: Mapping) -> str:
    """The line under a table of accuracies: what its columns and its interval methods mean."""
    boot = unc.get("bootstrap") or {}
    unit = unc.get("unit", "item")
    task = (f"{run['metric_bootstrap']} resamples, seed {run.get('seed')}" if run.get("metric_bootstrap")
            else "not made")
    return (f"n: samples (a count). accuracy vs gold: share of samples scored right against the gold answer, "
            f"in %, ± half "
            f"its 95% interval. interval: how that interval was made, over units of {unit}: \"bootstrap over "
            f"{unit} (task metric)\" is the eval's cluster bootstrap of the task's accuracy ({task}), the very "
            f"interval the Task metrics table prints, used for every group that holds exactly one task's items; "
            f"\"analytic\" is the cluster-robust standard error with a normal interval; \"bootstrap\" alone is "
            f"the report's percentile bootstrap ({boot.get('resamples')} resamples, seed {boot.get('seed')}).")


def _p(value: float | None) -> str:
    if value is None:
        return "-"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _scoring(report: Mapping) -> dict:
    return report.get("scoring") or scoring_of(report.get("run", {}))


def _scope_of(report: Mapping) -> dict:
    return report.get("scope") or {"benchmark": report["run"].get("benchmark"), "tasks": report["run"].get("tasks"),
                                   "items": report["overall"]["items"]}


def _tasks_text(scope: Mapping) -> str:
    """The run's tasks that had questions, what they cover of the benchmark's question tasks,
    and the run's tasks that had none (left out of every table)."""
    sizes = scope.get("task_sizes") or {}
    named = [str(t) for t in scope.get("tasks") or []]
    empty = [t for t in named if sizes.get(t) == 0]
    tasks = ", ".join(t for t in named if t not in empty) or "-"
    tail = f"; {', '.join(empty)}: no questions in this run, left out of the tables" if empty else ""
    if scope.get("task_filter"):
        return f"{tasks} (--task {', '.join(map(str, scope['task_filter']))}){tail}"
    known = scope.get("benchmark_tasks") or {}
    asked = set(scope.get("item_tasks") or [])
    if known and asked:
        covered = len(asked & set(known))
        return (f"{tasks} (all {len(known)} tasks of the benchmark){tail}" if covered == len(known)
                else f"{tasks} (questions of {covered} of the benchmark's {len(known)} tasks){tail}")
    return tasks + tail


def _items_text(scope: Mapping) -> str:
    items, total = scope.get("items"), scope.get("questions_of_these_tasks")
    text = f"{items} evaluated"
    if total:
        text += f" of {total} questions of these tasks in the graph"
    if scope.get("limit") is not None:
        text += f" · --limit {scope['limit']}"
    elif total and items is not None and items < total:
        text += " · narrowed by a --limit the run did not record"
    elif total:
        text += " · no --limit"
    return text


def describe_run(report: Mapping) -> dict[str, str]:
    """The lines that identify a report: run, benchmark, model, solver, tasks, items, scoring."""
    run, scope = report["run"], _scope_of(report)
    unc = report.get("uncertainty") or {}
    name = f" ({run['name']})" if run.get("name") else ""
    boot = unc.get("bootstrap") or {}
    return {
        "run": f"{report['run_id']}{name}",
        "benchmark": str(scope.get("benchmark")),
        "model": f"{run.get('model')} via {run.get('backend')}",
        "solver": f"{run.get('solver') or run.get('setting')} (setting {run.get('setting')}, "
                  f"template v{run.get('template_version')})",
        "tasks": _tasks_text(scope),
        "items": _items_text(scope) + f" · {run.get('n')} sample(s) per item",
        "scoring": _scoring(report)["text"],
        "numbers": f"{SHOWN}; unit: {unc.get('unit', 'item')}; one interval per number, its method named "
                   "beside it"
                   + (f": a task's accuracy (and balanced accuracy) carries the eval's cluster bootstrap "
                      f"({run['metric_bootstrap']} resamples, seed {run.get('seed')}), as every task metric does"
                      if run.get("metric_bootstrap") else "")
                   + f"; other accuracies: analytic; balanced accuracies and paired differences otherwise: "
                     f"percentile bootstrap ({boot.get('resamples')} resamples, seed {boot.get('seed')})",
    }


def headline_table(report: Mapping, compare: Mapping | None = None) -> Table:
    """The terminal summary: accuracy per task with its 95% interval (and the compared run's,
    with the paired difference and its p-value)."""
    d = describe_run(report)
    title = (f"run {d['run']} · {d['benchmark']} · {d['model']} · solver "
             f"{report['run'].get('solver') or report['run'].get('setting')} · tasks {d['tasks']} · "
             f"items {d['items']} · scoring {_scoring(report)['mode']} · % ± 95% half-width")
    headers = ["task", "items", "samples", "accuracy"]
    paired = (compare or {}).get("paired") or {}
    if compare:
        headers += ["compared", "Δ (paired)" if "paired" in compare else "Δ", "p"]
    headers.append("errors")
    rows: list[tuple[list[str], str | None]] = []
    tasks = list(report["by_task"])
    for task in tasks + ["(all)"]:
        stats = report["overall"] if task == "(all)" else report["by_task"][task]
        row = [task, str(stats["items"]), str(stats.get("samples", stats.get("n"))), _pms(stats)]
        if compare:
            other = compare["overall"] if task == "(all)" else compare["by_task"].get(task, {})
            pair = paired.get("overall") if task == "(all)" else (paired.get("by_task") or {}).get(task)
            row += [_pm(other.get("accuracy"), other.get("ci"))]
            if pair:
                row += [_pm(pair["difference"], pair.get("ci"), signed=True),
                        _p(pair.get("p_value")) + (" (underpowered)" if pair.get("underpowered") else "")]
            elif "paired" in compare:
                row += ["no shared items", "-"]
            else:       # two reports side by side without their answers: the plain difference
                acc, oacc = stats["accuracy"], other.get("accuracy")
                row += [_pct(acc - oacc, signed=True) if acc is not None and oacc is not None else "-", "-"]
        row.append(str(stats.get("errors", 0)))
        rows.append((row, "bold" if task == "(all)" else None))
    # the compared run's id, whole, under the table rather than cut in a column header; and the
    # method of each interval, named once for the rows that share it
    methods: dict[str, list[str]] = defaultdict(list)
    for task in tasks + ["(all)"]:
        stats = report["overall"] if task == "(all)" else report["by_task"][task]
        methods[interval_method(stats)].append(task)
    caption = "; ".join(([f"compared: {compare['run_id']}"] if compare else [])
                        + [f"interval of {', '.join(names)}: {method}" for method, names in methods.items()
                           if method != "-"]) or None
    table = add_columns(Table(title=title, caption=caption), headers, [r for r, _ in rows],
                        right=set(headers) - {"task"}, ids={"task"})
    for row, style in rows:
        table.add_row(*row, style=style)
    return table


def _trend_tasks(rows: Sequence[Mapping]) -> list[str]:
    return [k for k in rows[0] if k not in ("run_id", "benchmark", "setting", "items", "ci", "stderr")]


def trend_table(rows: Sequence[Mapping]) -> Table:
    """The terminal form of ``trend_rows``: one row per run, accuracy overall and per task."""
    tasks = _trend_tasks(rows)
    headers = ["run", "benchmark", "setting", "items", *tasks]
    cells = [[r["run_id"], str(r["benchmark"]), str(r["setting"]), str(r["items"]),
              *[_pm(r[t], (r.get("ci") or {}).get(t)) for t in tasks]] for r in rows]
    return table_of(headers, cells, right=set(headers) - {"run", "benchmark", "setting"}, ids={"run", "benchmark"},
                    title="Trend over the compared runs (% ± 95% half-width)")


def plan_table(planning: Mapping) -> Table:
    """The terminal form of a report's ``planning``."""
    clustered = planning["unit"] != "item"
    table = Table(title=f"Units needed to detect a gap of {100 * planning['gap']:.1f} points "
                        f"({100 * planning['power']:.0f}% power, two-sided α = {planning['alpha']})")
    columns = ["task", "accuracy", "item variance", "items per run (independent)"]
    if clustered:
        columns += [f"{planning['unit']} clusters per run", "ICC", "design effect"]
    columns += ["items (paired)"]
    cells = [_plan_cells(name, row, clustered) for name, row in _plan_rows(planning)]
    add_columns(table, columns, cells, right=set(columns) - {"task"}, ids={"task"})
    for row in cells:
        table.add_row(*row)
    return table


def _plan_rows(planning: Mapping):
    yield from planning["by_task"].items()
    yield "(all)", planning["overall"]


def _plan_cells(name: str, row: Mapping, clustered: bool) -> list[str]:
    ind = row["independent"]
    cells = [name, _pct(row.get("accuracy")),
             "-" if ind.get("variance") is None else f"{ind['variance']:.3f}", _count(ind.get("items_needed"))]
    if clustered:
        icc = ind.get("icc")
        cells += [_count(ind.get("clusters_needed")), "-" if icc is None else f"{icc:.2f}",
                  "-" if ind.get("design_effect") is None else f"{ind['design_effect']:.2f}"]
    paired = row.get("paired")
    cells.append("give --compare RUN" if paired is None else _count(paired.get("items_needed")))
    return cells


def _count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


# --------------------------------------------------------------------------------------------
def render_markdown(report: Mapping, compare: Mapping | None, plots: Sequence[Path],
                    extra_sections: Mapping[str, Any] | None, trend: Sequence[Mapping] | None = None,
                    planning: Mapping | None = None) -> str:
    run = report["run"]
    d = describe_run(report)
    overall = report["overall"]
    lines = [f"# Run {report['run_id']}", "",
             f"- run: `{d['run']}`",
             f"- benchmark: {d['benchmark']} · tasks: {d['tasks']}",
             f"- model: `{run.get('model')}` via `{run.get('backend')}`",
             f"- solver: {d['solver']}",
             f"- items: {d['items']}",
             f"- scoring: {d['scoring']}",
             f"- decoding: temperature {run.get('temperature')}, top_p {run.get('top_p')}, "
             f"n {run.get('n')}, seed {run.get('seed')}, max_tokens {run.get('max_tokens')}",
             f"- numbers: {d['numbers']}",
             f"- knowforge {run.get('knowforge_version')} (git {run.get('git_revision') or 'n/a'}), "
             f"started {run.get('started_at')}", "",
             "## Headline", "",
             f"Accuracy {_pms(overall)} ("
             + (f"interval: {interval_method(overall)}" if overall.get("ci") else "no interval: fewer than two units")
             + f") over {overall['samples']} samples "
             f"of {overall['items']} items ({overall.get('units', overall['items'])} units: "
             f"{(report.get('uncertainty') or {}).get('unit', 'item')}); {overall['errors']} failed samples; "
             f"{overall['cached']} answered from the cache.", ""]
    lines += _md_table("By task", "task", report["by_task"], compare["by_task"] if compare else None,
                       ((compare or {}).get("paired") or {}).get("by_task"),
                       legend=interval_legend(report.get("uncertainty") or {}, run)
                       + (" compared: the other run's accuracy; Δ (paired): see the paired comparison below."
                          if compare else ""))
    if compare:
        lines += _paired_markdown(report, compare)
    if trend:
        lines += _trend_markdown(trend)
    if report.get("balanced_accuracy"):
        lines += ["## Balanced accuracy (true/false tasks)", "", "| task | balanced accuracy | interval |",
                  "|---|---:|---|"]
        lines += [f"| {t} | {_pms(v, 'value')} | {interval_method(v)} |" for t, v in report["balanced_accuracy"].items()]
        lines += ["", "balanced accuracy: the mean over gold classes of the share of that class answered right, "
                      "in %, ± half its 95% interval; interval: as under By task.", ""]
    if report.get("by_model_cutoff"):
        cut = report["by_model_cutoff"]
        lines += _md_table(f"By model cutoff {cut['cutoff']} (facts changed before / after it)", "facts",
                           cut["all"], None)
        lines += ["| task | facts | n | accuracy | interval |", "|---|---|---:|---:|---|"]
        lines += [f"| {task} | {k} | {v['n']} | {_pms(v)} | {interval_method(v)} |"
                  for task, groups in cut["by_task"].items() for k, v in groups.items()] + [""]
    for name, groups in report.get("slices", {}).items():
        if len(groups) <= MAX_CATEGORIES:
            lines += _md_table(f"By {name}", name, groups,
                               compare.get("slices", {}).get(name) if compare else None,
                               (((compare or {}).get("paired") or {}).get("slices") or {}).get(name),
                               names=_slice_names(report, name))
    if planning:
        lines += _plan_markdown(planning)
    for title, body in (extra_sections or {}).items():
        lines += [f"## {title}", ""] + _md_body(body) + [""]
        legend = section_legend(title, body, report)
        if legend:
            lines += [legend, ""]
    if plots:
        lines += ["## Plots", "", "Error bars: 95% intervals.", ""]
        lines += [f"![{p.stem}](plots/{p.name})" for p in plots] + [""]
    return "\n".join(lines)


def _slice_names(report: Mapping, name: str) -> Mapping[str, str] | None:
    """How a slice's values are shown: relations with their labels, ``P551 (residence)``."""
    if name != "relation":
        return None
    labels = report.get("relation_labels") or {}
    return {k: labelled(k, labels.get(k)) for k in report.get("slices", {}).get(name, {})}


def _md_table(title: str, key: str, groups: Mapping, other: Mapping | None,
              paired: Mapping | None = None, names: Mapping[str, str] | None = None,
              legend: str | None = None) -> list[str]:
    head = f"| {key} | n | accuracy vs gold | interval |" + (" compared | Δ (paired) | p |" if other is not None else "")
    sep = "|---|---:|---:|---|" + ("---:|---:|---:|" if other is not None else "")
    lines = [f"## {title}", "", head, sep]
    for k, stats in groups.items():
        row = f"| {(names or {}).get(k, k)} | {stats['n']} | {_pms(stats)} | {interval_method(stats)} |"
        if other is not None:
            o = other.get(k, {})
            pair = (paired or {}).get(k)
            delta = (f"{_pm(pair['difference'], pair.get('ci'), signed=True)} | {_p(pair.get('p_value'))}"
                     if pair else "- | -")
            row += f" {_pm(o.get('accuracy'), o.get('ci'))} | {delta} |"
        lines.append(row)
    return lines + ["", legend or SAME_COLUMNS, ""]


def _paired_markdown(report: Mapping, compare: Mapping) -> list[str]:
    paired = compare.get("paired") or {}
    other = compare["run_id"]
    lines = [f"## Paired comparison with {other}", ""]
    if "overall" not in paired:
        lines += [f"The runs share no items: no paired comparison ({report['overall']['items']} items in this "
                  f"run, {compare['overall']['items']} in {other}).", ""]
        return lines
    lines += [f"Over the {paired['shared_items']} items both runs answered (unit: {paired['unit']}; "
              f"{paired['items_only_in_this_run']} only in this run, {paired['items_only_in_the_other']} only in "
              f"{other}). Δ = this run − {other} in points, ± half the width of its paired bootstrap 95% "
              "interval; p: McNemar's test (exact binomial below 25 discordant items) when every unit is one "
              "right/wrong item in both runs, else a paired sign-flip permutation test. Both pair the same "
              "units; on few units the bootstrap interval can exclude 0 where the exact test cannot reject, "
              "which the power column marks.", "",
              f"| task | shared items | units | this run | {other} | Δ | p | test | power |",
              "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for name, row in [*paired["by_task"].items(), ("(all)", paired["overall"])]:
        lines.append(f"| {name} | {row['shared_items']} | {row['units']} | {_pct(row['a'])} | {_pct(row['b'])} | "
                     f"{_pm(row['difference'], row.get('ci'), signed=True, units=row.get('units'))} | "
                     f"{_p(row.get('p_value'))} | {row.get('test') or '-'} | {_power(row)} |")
    return lines + ["", POWER_LEGEND, ""]


POWER_LEGEND = ("power: \"underpowered\" when the gap rests on fewer units than `knowforge report --plan-gap` asks "
                "for to detect a gap of its size (80% power, two-sided α = 0.05, from the gap's own standard error); "
                "such a gap's interval and p-value decide nothing.")


def _power(row: Mapping) -> str:
    if "underpowered" not in row:
        return "-"
    return underpowered_text(row, row.get("units")) if row["underpowered"] else "enough units"


def _plan_markdown(planning: Mapping) -> list[str]:
    clustered = planning["unit"] != "item"
    head = ["task", "accuracy", "item variance", "items per run (independent)"]
    if clustered:
        head += [f"{planning['unit']} clusters per run", "ICC", "design effect"]
    head += ["items (paired)"]
    lines = [f"## Planning: units to detect a gap of {100 * planning['gap']:.1f} points", "",
             f"{100 * planning['power']:.0f}% power, two-sided α = {planning['alpha']}, from this run's variance "
             "of item scores. Independent: two runs on different items (items each run needs); paired: both "
             "runs on the same items, from the variance of the per-item differences with the compared run."
             + (f" Items come in clusters ({planning['unit']}): the item count is inflated by the design "
                "effect 1 + (m − 1)·ICC." if clustered else ""), "",
             "| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    lines += ["| " + " | ".join(_plan_cells(name, row, clustered)) + " |" for name, row in _plan_rows(planning)]
    return lines + [""]


def _metric_meanings(rows: Sequence[Mapping]) -> list[str]:
    """``name (label): description`` of each metric a Task metrics table names, in its order."""
    out = []
    for shown in dict.fromkeys(str(r.get("metric")) for r in rows if isinstance(r, Mapping)):
        try:
            spec = metric_spec(shown.split(" (", 1)[0])
        except ConfigError:           # a run of a metric no longer installed: its name is all we have
            continue
        if spec.description:
            out.append(f"{shown}: {spec.description}")
    return out


def section_legend(title: str, body: Any, report: Mapping) -> str:
    """The line under a section: what its columns mean. A method's section gives its own
    (``{"rows": [...], "legend": "..."}``); the engine's own sections get theirs here."""
    if isinstance(body, Mapping) and isinstance(body.get("legend"), str):
        return body["legend"]
    if not isinstance(body, list):
        return ""
    run = report.get("run") or {}
    unit = (report.get("uncertainty") or {}).get("unit", "item")
    if title == TASK_METRICS:
        boot = (f"the eval's cluster bootstrap over {unit} ({run['metric_bootstrap']} resamples, seed "
                f"{run.get('seed')})" if run.get("metric_bootstrap") else "none (--bootstrap 0)")
        meanings = _metric_meanings(body)
        return ("task: the eval's task (its name may differ from the questions' own task in By task); metric: "
                "the task's metric, which follows its own rule (not the accuracy against the gold of By task); "
                "number: which number of the metric's value (blank: the value itself); value: in % ± half its "
                f"95% interval; 95% interval: its bounds, by {boot}; chance: the metric's value for random "
                "guesses and whether the interval excludes it (`*` above, `↓` below); p: a gap's own test "
                "(named), on the same units as its interval, with \"underpowered\" where the units are fewer "
                "than `knowforge report --plan-gap` asks for."
                + (" Metrics: " + "; ".join(meanings) + "." if meanings else ""))
    if title == TASK_METRIC_COUNTS:
        return ("count of: which integer member of the metric's value (questions, units, ...); count: that "
                "integer, a count with no interval (kept apart from the shares of Task metrics).")
    return ""


def _md_value(value: Any) -> str:
    """A cell of a section a solver added, in the report's number format: shares and
    differences of shares (floats in [-1, 1]) in %, other floats to three significant digits."""
    if isinstance(value, float):
        return f"{100 * value:.1f}" if -1.0 <= value <= 1.0 else f"{value:.3g}"
    return str(value)


def _md_body(body: Any) -> list[str]:
    if isinstance(body, str):
        return [body]
    if isinstance(body, Mapping) and isinstance(body.get("rows"), list):
        # a section that keeps its full record (for exports) beside the table a reader wants
        rest = set(body) - {"rows", "legend"}
        return _md_body(body["rows"]) + (["", "The section's full record is in report.json."] if rest else [])
    if isinstance(body, list) and body and all(isinstance(r, Mapping) for r in body):
        cols = list(dict.fromkeys(k for r in body for k in r))
        return (["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
                + ["| " + " | ".join(_md_value(r.get(c, "")) for c in cols) + " |" for r in body])
    return ["```json", json.dumps(body, indent=2, sort_keys=True, default=str), "```"]


# --------------------------------------------------------------------------------------------
# Plots are SVG drawn by eval/svg_plot.py: no plotting library in an eval (issue 33's fixed cost per run)
def _points(labels: Sequence, groups: Sequence[Mapping], key: str = "accuracy") -> list[Point]:
    return [percent_point(label, g.get(key), g.get("ci")) for label, g in zip(labels, groups)]


def _write_svg(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _bar(path: Path, title: str, groups: Mapping, ylabel: str = "accuracy (%)") -> Path:
    series = Series("accuracy", _points(list(groups), list(groups.values())))
    return _write_svg(path, chart(Panel(f"{title} (95% intervals)", [series], ylabel=ylabel)))


def _year_curves(path: Path, curves: Mapping[str, Mapping]) -> Path:
    series = []
    for task, groups in curves.items():
        points = sorted((int(float(y)), g) for y, g in groups.items() if y != "null")
        if points:
            series.append(Series(task, _points([p[0] for p in points], [p[1] for p in points]), kind="line"))
    panel = Panel("Accuracy by year (95% intervals)", series, xlabel="year", legend=True)
    return _write_svg(path, chart(panel))


def _comparison(path: Path, report: Mapping, compare: Mapping) -> Path:
    tasks = sorted(set(report["by_task"]) | set(compare["by_task"]))
    series = [Series(str(r["run_id"]), _points(tasks, [r["by_task"].get(t, {}) for t in tasks]))
              for r in (report, compare)]
    return _write_svg(path, chart(Panel("Run comparison by task (95% intervals)", series)))


def write_plots(report: Mapping, plots_dir: Path, compare: Mapping | None = None) -> list[Path]:
    plots_dir.mkdir(parents=True, exist_ok=True)
    written = [_bar(plots_dir / "accuracy_by_task.svg", "Accuracy by task", report["by_task"])]
    if report.get("by_year"):
        written.append(_year_curves(plots_dir / "accuracy_by_year.svg", report["by_year"]))
    for name, groups in report.get("slices", {}).items():
        if name != "year" and 2 <= len(groups) <= MAX_CATEGORIES:
            names = _slice_names(report, name) or {}
            written.append(_bar(plots_dir / f"accuracy_by_{name}.svg", f"Accuracy by {name}",
                                {names.get(k, k): g for k, g in groups.items()}))
    if compare:
        written.append(_comparison(plots_dir / "comparison.svg", report, compare))
    return written


def trend_rows(reports: Sequence[Mapping]) -> list[dict]:
    """One row per run, in the order given: its benchmark, setting and accuracy overall and per
    task (None where a run has no item of a task), with each accuracy's ``stderr`` and ``ci`` —
    e.g. one year's NewTerm run after another."""
    tasks = sorted({t for r in reports for t in r["by_task"]})
    rows = []
    for r in reports:
        row = {"run_id": r["run_id"], "benchmark": r["run"].get("benchmark"), "setting": r["run"].get("setting"),
               "items": r["overall"]["items"], "(all)": r["overall"]["accuracy"]}
        row.update({t: r["by_task"].get(t, {}).get("accuracy") for t in tasks})
        groups = {"(all)": r["overall"], **{t: r["by_task"].get(t, {}) for t in tasks}}
        row["stderr"] = {t: g.get("stderr") for t, g in groups.items()}
        row["ci"] = {t: g.get("ci") for t, g in groups.items()}
        rows.append(row)
    return rows


def _trend_markdown(rows: Sequence[Mapping]) -> list[str]:
    tasks = _trend_tasks(rows)
    lines = ["## Trend over the compared runs", "", "| run | benchmark | setting | items | " + " | ".join(tasks) + " |",
             "|---|---|---|---:|" + "---:|" * len(tasks)]
    lines += [f"| {r['run_id']} | {r['benchmark']} | {r['setting']} | {r['items']} | "
              + " | ".join(_pm(r[t], (r.get("ci") or {}).get(t)) for t in tasks) + " |" for r in rows]
    return lines + [""]


def _trend_plot(path: Path, rows: Sequence[Mapping]) -> Path:
    labels = [str(r["benchmark"] or r["run_id"]) for r in rows]
    series = [Series(task, [percent_point(label, r[task], (r.get("ci") or {}).get(task))
                            for label, r in zip(labels, rows)], kind="line") for task in _trend_tasks(rows)]
    return _write_svg(path, chart(Panel("Accuracy over the compared runs (95% intervals)", series, legend=True)))


def _store_sections(store, run_id: str, sections: Mapping[str, Any]) -> dict:
    """Keep the solver's sections on the Run (as JSON) and return them as JSON gives them back,
    so the eval's report and a later ``knowforge report`` render the very same values."""
    text = json.dumps(dict(sections), ensure_ascii=False, default=str)
    store.run("eval/set_run_report_sections", run_id=run_id, sections_json=text)
    return json.loads(text)


def _sections_of_an_earlier_report(run_id: str, folders: Sequence[Path | str | None]) -> dict | None:
    """The solver's sections of a report written before runs stored them (its report.json's
    "extra", whose keys report.json keeps sorted), so that rewriting such a run's report keeps
    them."""
    for folder in folders:
        path = Path(folder) / "report.json" if folder else None
        if path is None or not path.is_file():
            continue
        try:
            earlier = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if earlier.get("run_id") == run_id and isinstance(earlier.get("extra"), dict):
            return earlier["extra"]
    return None


def write_report(store, run_id: str, out_dir: str | Path, *, compare: str | Sequence[str] | None = None,
                 extra_sections: Mapping[str, Any] | None = None, cluster_key: str | None = None,
                 resamples: int = DEFAULT_RESAMPLES, seed: int = 0, plan_gap: float | None = None,
                 samples: Sequence[Sample] | None = None) -> Path:
    """Write report.json, report.md and plots/*.svg for ``run_id`` into ``out_dir``; return it.

    ``compare`` is a second run id, or several: the first is compared side by side, with the
    paired difference over shared items per task, form and slice; with two or more a trend
    table and plot follow the runs in the order given (``run_id`` first).
    ``extra_sections`` maps a title to markdown text, a list of row dicts (a table) or any JSON
    value; it is stored on the Run and kept under "extra" in report.json. Without it, the
    sections stored on the Run by the eval's own report are written again (for a run recorded
    before runs stored them: those of its earlier report.json in ``out_dir`` or its report_dir).
    ``cluster_key``: see ``build_report``; ``resamples``, ``seed``: the bootstraps.
    ``plan_gap``: add the units needed to detect that gap (a share, 0.05 = 5 points) with 80%
    power, per task ("planning" in report.json).
    ``samples``: the run's (question, answer) pairs where the caller holds them (the eval that
    just recorded the run: ``results.report_samples``); default: read back from the graph, as
    ``knowforge report RUN`` does. Both give the same report.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    compared = [compare] if isinstance(compare, str) else list(compare or ())
    data = _read_run(store, run_id, samples)
    if extra_sections is None and data.sections is None:
        extra_sections = _sections_of_an_earlier_report(run_id, [out, data.run.get("report_dir")])
    if extra_sections is not None:
        data = _RunData(data.run, data.samples, _store_sections(store, run_id, extra_sections))
    report = _build(store, data, run_id, cluster_key=cluster_key, resamples=resamples, seed=seed)
    units = _units(data, cluster_key)
    other_data = [_read_run(store, c) for c in compared]
    others = [_build(store, o, c, cluster_key=cluster_key, resamples=resamples, seed=seed)
              for o, c in zip(other_data, compared)]
    other = others[0] if others else None
    document = dict(report)
    if other:
        document["compare"] = {"run_id": other["run_id"], "overall": other["overall"], "by_task": other["by_task"],
                               "by_form": other["by_form"], "slices": other["slices"],
                               "paired": _paired(data, other_data[0], units, resamples=resamples,
                                                 seed=child_seed(seed, "paired", other["run_id"]))}
    plots = write_plots(report, out / "plots", other)
    trend = None
    if len(others) >= 2:
        trend = trend_rows([report, *others])
        document["trend"] = trend
        plots.append(_trend_plot(out / "plots" / "trend.svg", trend))
    planning = None
    if plan_gap is not None:
        planning = plan_for_gap(data.samples, units, plan_gap, other=other_data[0].samples if other_data else None)
        document["planning"] = planning
    document["plots"] = [f"plots/{p.name}" for p in plots]
    # the published schema (docs/report.schema.json) is a promise: a report that breaks it fails here
    Report.model_validate(json.loads(json.dumps(document, default=str)))
    # keys in the order the report builds them: a table's columns keep the order its section gives
    # them (sorted keys put a task-metric table's columns in alphabetical order in every reader)
    (out / "report.json").write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    (out / "report.md").write_text(render_markdown(document, document.get("compare"), plots, document.get("extra"),
                                                   trend, planning) + "\n", encoding="utf-8")
    log.info("report of %s written to %s", run_id, out)
    return out


def load_report(out_dir: str | Path) -> dict:
    return json.loads((Path(out_dir) / "report.json").read_text(encoding="utf-8"))

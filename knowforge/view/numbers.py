"""A run's numbers with their uncertainty: accuracy overall, per task and per slice value.

A statement returns the moments of a group's sample scores (count, mean, the sample standard
deviation with n - 1 in the denominator, as Cypher's ``stDev`` computes it), so the standard
error is ``sd / sqrt(n)``: the number ``knowforge.eval.stats.mean_stderr`` gives on the scores
themselves (lm-eval's formula), without sending a 100k-sample run's scores over the wire. The
95% interval is ``normal_ci``.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from knowforge.eval.stats import mean_stderr, normal_ci

MAX_SLICE_VALUES = 30          # a slice with more values is listed, not tabulated (as the report does)


@dataclass(frozen=True)
class Estimate:
    """A mean score with its standard error and 95% interval (None where undefined)."""

    n: int
    mean: float | None
    stderr: float | None = None
    low: float | None = None
    high: float | None = None

    @classmethod
    def from_moments(cls, n: int, mean: float | None, sd: float | None) -> Estimate:
        # mean_stderr's definition, sample sd / sqrt(n), from moments; undefined below two values
        stderr = sd / math.sqrt(n) if n >= 2 and sd is not None and mean is not None else None
        ci = normal_ci(mean, stderr)
        return cls(n, mean, stderr, *(ci or (None, None)))

    @classmethod
    def from_values(cls, values: Sequence[float]) -> Estimate:
        mean = sum(values) / len(values) if values else None
        stderr = mean_stderr(values)
        ci = normal_ci(mean, stderr)
        return cls(len(values), mean, stderr, *(ci or (None, None)))


def pooled(groups: Sequence[tuple[int, float | None, float | None]]) -> tuple[int, float | None, float | None]:
    """The (n, mean, sample sd) of the union of groups given by their own (n, mean, sample sd)."""
    groups = [(n, m, sd) for n, m, sd in groups if n and m is not None]
    total = sum(n for n, _, _ in groups)
    if not total:
        return 0, None, None
    mean = sum(n * m for n, m, _ in groups) / total
    if total < 2:
        return total, mean, None
    squares = sum((n - 1) * (sd or 0.0) ** 2 + n * m * m for n, m, sd in groups)
    return total, mean, math.sqrt(max(0.0, (squares - total * mean * mean) / (total - 1)))


@dataclass(frozen=True)
class GroupRow:
    """One row of a task or slice table."""

    value: Any
    accuracy: Estimate
    errors: int
    items: int | None = None
    parse_failures: int | None = None


@dataclass(frozen=True)
class RunStats:
    overall: Estimate
    tasks: list[GroupRow]
    slices: dict[str, list[GroupRow]]          # tabulated slices (2..MAX_SLICE_VALUES values)
    wide_slices: dict[str, int]                # slices with too many values to tabulate: name -> values
    items: int
    errors: int
    parse_failures: int
    # how the intervals were made (shown under the headline): see ``with_run_intervals``
    interval_note: str = "95% normal intervals over the samples, each its own unit"


class StatsCache:
    """Per-run numbers (a run's ``RunStats``, its overall ``Estimate``), kept while the run is
    unchanged: keys hold its answer count and finish time, so going back to a large run does
    not aggregate it again, and a run written again (a resumed run) is computed afresh."""

    def __init__(self, size: int = 256):
        self.size = size
        self._items: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Any:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: tuple, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


def run_stats(store, run_id: str) -> RunStats:
    """Accuracy overall, per task and per slice value, with intervals: two aggregations, run at
    once (the server gives each its own thread)."""
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="knowforge-view") as pool:
        tasks_future = pool.submit(store.read, "view/run_task_stats", run_id=run_id)
        slices_future = pool.submit(store.read, "view/run_slice_stats", run_id=run_id)
        task_rows, slice_rows = tasks_future.result(), slices_future.result()
    tasks = [GroupRow(r["task"], Estimate.from_moments(r["n"], r["mean"], r["sd"]), r["errors"],
                      items=r["items"], parse_failures=r["parse_failures"]) for r in task_rows]
    n, mean, sd = pooled([(r["n"], r["mean"], r["sd"]) for r in task_rows])
    by_slice: dict[str, list[GroupRow]] = defaultdict(list)
    for r in slice_rows:
        by_slice[r["slice"]].append(GroupRow(_cell(r["value"]), Estimate.from_moments(r["n"], r["mean"], r["sd"]),
                                             r["errors"]))
    slices = {k: v for k, v in sorted(by_slice.items()) if 2 <= len(v) <= MAX_SLICE_VALUES}
    wide = {k: len(v) for k, v in sorted(by_slice.items()) if len(v) > MAX_SLICE_VALUES}
    return RunStats(overall=Estimate.from_moments(n, mean, sd), tasks=tasks, slices=slices, wide_slices=wide,
                    items=sum(r["items"] for r in task_rows), errors=sum(r["errors"] for r in task_rows),
                    parse_failures=sum(r["parse_failures"] for r in task_rows))


def cached_stats(store, run_id: str, run: Mapping, answers: int, cache: StatsCache | None, *,
                 compute: bool = True) -> RunStats | None:
    key = (run_id, answers, run.get("finished_at"))
    stats = cache.get(key) if cache is not None else None
    if stats is None and compute:
        stats = run_stats(store, run_id)
        if cache is not None:
            cache.put(key, stats)
            cache.put(("overall", *key), stats.overall)
    return stats


def clipped(estimate: Estimate, low: float = 0.0, high: float = 1.0) -> Estimate:
    """The estimate with its interval clipped to the metric's range (an accuracy's [0, 1]): a
    normal interval near 0 or 1 reaches past it."""
    if estimate.low is None or estimate.high is None:
        return estimate
    return replace(estimate, low=min(max(estimate.low, low), high), high=max(min(estimate.high, high), low))


def _without_interval(estimate: Estimate) -> Estimate:
    return replace(estimate, stderr=None, low=None, high=None)


def _from_entry(estimate: Estimate, entry: Any) -> Estimate:
    """``estimate`` with the interval of a report entry (``{"accuracy", "ci", "stderr"}``), when
    the entry is the same number; else without an interval."""
    if not isinstance(entry, Mapping) or not entry.get("ci") or estimate.mean is None:
        return _without_interval(estimate)
    value = entry.get("accuracy", entry.get("value"))
    if value is None or not math.isclose(value, estimate.mean, rel_tol=1e-9, abs_tol=1e-12):
        return _without_interval(estimate)
    low, high = entry["ci"]
    return clipped(Estimate(estimate.n, estimate.mean, entry.get("stderr"), low, high))


def clustered_by(run: Mapping) -> str | None:
    """The unit a run's samples are clustered in, or None when every sample is its own unit:
    the method's cluster key (an event, an entity, a record), else the item when it was asked
    more than once."""
    if run.get("cluster_key"):
        return str(run["cluster_key"])
    return "item" if (run.get("n") or 1) > 1 else None


def with_run_intervals(stats: RunStats, run: Mapping, report: Mapping | None) -> RunStats:
    """The run's numbers with the run's own intervals. The graph's moments give a per-sample
    interval, which is right only where every sample is its own unit; a run whose samples are
    clustered (a ChroKnow run's 10,320 samples come from 83 records) takes its report's cluster
    intervals (overall, by task, by slice value) instead, and shows none where its report has
    none. Every interval is clipped to [0, 1]."""
    unit = clustered_by(run)
    if unit is None:
        return replace(stats, overall=clipped(stats.overall), tasks=[replace(t, accuracy=clipped(t.accuracy))
                                                                     for t in stats.tasks],
                       slices={k: [replace(r, accuracy=clipped(r.accuracy)) for r in rows]
                               for k, rows in stats.slices.items()})
    if not report:
        note = (f"no intervals: the samples are clustered by {unit}, and the run's report, which holds the "
                f"intervals over {unit} units, is not at hand")
        return replace(stats, overall=_without_interval(stats.overall),
                       tasks=[replace(t, accuracy=_without_interval(t.accuracy)) for t in stats.tasks],
                       slices={k: [replace(r, accuracy=_without_interval(r.accuracy)) for r in rows]
                               for k, rows in stats.slices.items()}, interval_note=note)
    by_task = report.get("by_task") or {}
    by_slice = report.get("slices") or {}
    method = (report.get("overall") or {}).get("ci_method") or "cluster"
    described = {"analytic": "cluster-robust normal intervals", "bootstrap": "cluster bootstrap intervals"}
    note = (f"95% {described.get(method, method + ' intervals')} over {unit} units, from the run's report "
            "(a group the report has no interval for shows none)")
    return replace(
        stats, overall=_from_entry(stats.overall, report.get("overall")),
        tasks=[replace(t, accuracy=_from_entry(t.accuracy, by_task.get(str(t.value)))) for t in stats.tasks],
        slices={k: [replace(r, accuracy=_from_entry(r.accuracy, (by_slice.get(k) or {}).get(str(r.value))))
                    for r in rows] for k, rows in stats.slices.items()},
        interval_note=note)


def _cell(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, (list, dict)) else value



__all__ = ["Estimate", "GroupRow", "MAX_SLICE_VALUES", "RunStats", "StatsCache", "cached_stats", "clipped",
           "clustered_by", "pooled", "run_stats", "with_run_intervals"]

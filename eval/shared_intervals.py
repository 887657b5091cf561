"""The one interval of a number that both the eval and a report compute (issue 34).

The eval records on the Run the interval of every task metric (``task_metric_values``: its
cluster bootstrap, ``eval.metric_stats``) and which items each task covered (``task_items``:
``items_key`` of their ids). A report, or ``knowforge results``, that computes the same number
again (a task's accuracy, or any group holding exactly one task's items) prints that interval
rather than a second one of its own, so one number reads the same in every table.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping


def engine_rows(run: Mapping) -> dict[tuple[str, str], dict]:
    """{(task, metric number): row} of the task-metric intervals the eval recorded on the Run
    (``task_metric_values``: the engine's cluster bootstrap, ``eval.metric_stats``); empty for a
    run recorded without them."""
    recorded = run.get("task_metric_values")
    try:
        rows = json.loads(recorded) if isinstance(recorded, str) else (recorded or [])
    except ValueError:
        return {}
    return {(str(r.get("task")), str(r.get("metric"))): dict(r) for r in rows if isinstance(r, Mapping)}


def items_key(ids) -> str:
    """A short name of a set of item ids (the items a task's metrics covered), so a report can
    tell which of its groups holds exactly one task's items without the Run storing every id."""
    return hashlib.sha1("\n".join(sorted(map(str, ids))).encode("utf-8")).hexdigest()[:20]


class SharedIntervals:
    """The engine's interval of a number the report computes again (a task's accuracy, a
    group that holds exactly one task's items): one number, one interval, everywhere it is
    printed (issue 34). Matched by the items it covers (``task_items`` on the Run: the engine
    task's name may not be its items' task) and checked against the value."""

    def __init__(self, run: Mapping, unit: str, metric: str):
        rows = engine_rows(run)
        keys = run.get("task_items")
        try:
            keys = json.loads(keys) if isinstance(keys, str) else (keys or {})
        except ValueError:
            keys = {}
        self.unit = unit
        self.resamples = run.get("metric_bootstrap")
        self.by_items = {key: rows[(task, metric)] for task, key in keys.items()
                         if (rows.get((task, metric)) or {}).get("ci")}
        sizes = run.get("task_sizes")
        try:
            sizes = json.loads(sizes) if isinstance(sizes, str) else (sizes or {})
        except ValueError:
            sizes = {}
        # how many items each task with an interval covered, when the Run says so for all of them
        # (runs recorded before task_sizes do not): a group of another size holds no task's items
        # exactly, and need not have its ids hashed (a report has a group per slice value)
        covered = [task for task, key in keys.items() if key in self.by_items]
        self.sizes = ({int(sizes[t]) for t in covered}
                      if isinstance(sizes, Mapping) and all(isinstance(sizes.get(t), int) for t in covered) else None)

    def may_hold(self, items: int) -> bool:
        """Whether a group of ``items`` items can be one whose interval is the engine's."""
        return bool(self.by_items) and (self.sizes is None or items in self.sizes)

    def row(self, ids: set[str] | frozenset[str], value: float | None) -> dict | None:
        row = self.by_items.get(items_key(ids)) if self.by_items else None
        # the eval's interval is over its units: a report clustered otherwise keeps its own
        if row is None or (row.get("unit") or self.unit) != self.unit or value is None or row.get("value") is None \
                or not math.isclose(float(row["value"]), value, rel_tol=1e-9, abs_tol=1e-12):
            return None
        return row

    def fields(self, row: Mapping) -> dict:
        """The engine row as the report's interval fields."""
        out = {"stderr": row.get("stderr"), "ci": list(row["ci"]), "ci_method": row.get("ci_method") or "bootstrap",
               "interval_source": "task metric", "unit": row.get("unit") or self.unit}
        if row.get("units") is not None:
            out["units"] = row["units"]
        resamples = row.get("resamples") or self.resamples
        if resamples:
            out["resamples"] = resamples
        return out

    def apply(self, stats: dict, ids: set[str] | frozenset[str], value_key: str = "accuracy") -> dict:
        row = self.row(ids, stats.get(value_key))
        if row is not None:
            # the analytic (cluster-robust) figures stay beside it, for readers that compare them
            # with a peer's formula (lm-eval's acc_stderr: tests/test_stats_lm_eval.py)
            if stats.get("stderr") is not None:
                stats["analytic_stderr"] = stats["stderr"]
            if stats.get("ci") is not None:
                stats["analytic_ci"] = stats["ci"]
            stats.update(self.fields(row))
        return stats


__all__ = ["SharedIntervals", "engine_rows", "items_key"]

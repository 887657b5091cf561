"""What the viewer shows of runs: the runs table and one run's page (its properties, numbers,
report tables and plots). Plain functions over the store that return records."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import NotFound
from .numbers import Estimate, RunStats, StatsCache, cached_stats

PAGE_SIZE = 50
RUNS_PAGE_SIZE = 200
# A run with more answers opens without its numbers, which the page then fetches: aggregating
# every answer of a 100k-sample run takes longer than a page should take to open.
INLINE_ANSWERS = 20_000
_PLOT_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,200}\.png$")


def method_of(benchmark: str | None) -> str | None:
    """``"knowgen:demo"`` → ``"knowgen"``; a file benchmark (no ``:``) has no method."""
    if not benchmark or "," in benchmark or ":" not in benchmark:
        return None
    return benchmark.split(":", 1)[0]


# --- the runs table -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunRow:
    id: str
    name: str | None
    model: str | None
    backend: str | None
    benchmark: str | None
    method: str | None
    solver: str | None
    scoring: str | None
    items: int | None
    started_at: str | None
    errors: int | None
    accuracy: Estimate


@dataclass(frozen=True)
class RunsPage:
    rows: list[RunRow]
    benchmarks: list[str]
    models: list[str]
    total: int
    page: int
    has_next: bool


def list_runs(store, *, benchmark: str | None = None, model: str | None = None, page: int = 1,
              page_size: int = RUNS_PAGE_SIZE, cache: StatsCache | None = None) -> RunsPage:
    """A page of runs with their accuracy and its interval; a run's interval is computed once
    while it is unchanged (``cache``)."""
    rows = store.read("view/list_runs", benchmark=benchmark or None, model=model or None,
                      skip=(page - 1) * page_size, limit=page_size + 1)
    has_next, rows = len(rows) > page_size, rows[:page_size]
    filters = store.read("view/run_filters")[0]
    keys = {r["id"]: ("overall", r["id"], r["answers"], r["finished_at"]) for r in rows}
    overall = {rid: cache.get(key) for rid, key in keys.items()} if cache is not None else {}
    missing = [r["id"] for r in rows if overall.get(r["id"]) is None]
    for m in store.read("view/run_moments", run_ids=missing) if missing else []:
        overall[m["id"]] = Estimate.from_moments(m["n"], m["mean"], m["sd"])
        if cache is not None:
            cache.put(keys[m["id"]], overall[m["id"]])
    out = [RunRow(id=r["id"], name=r["name"], model=r["model"], backend=r["backend"],
                  benchmark=r["benchmark"], method=method_of(r["benchmark"]), solver=r["solver"],
                  scoring=r["scoring"], items=r["items"], started_at=r["started_at"], errors=r["errors"],
                  accuracy=overall.get(r["id"]) or Estimate(0, None)) for r in rows]
    return RunsPage(out, sorted(b for b in filters["benchmarks"] if b), sorted(m for m in filters["models"] if m),
                    filters["runs"], page, has_next)


# --- one run --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunPage:
    run: dict
    answers: int
    method: str | None
    stats: RunStats | None                     # None: too many answers to wait for; fetched after
    plots: list[str]
    report: dict | None                        # report.json of the run's report_dir, when readable
    report_tables: dict[str, Any] = field(default_factory=dict)
    siblings: list[dict] = field(default_factory=list)   # other runs of the benchmark (to compare)


def read_run(store, run_id: str) -> tuple[dict, int]:
    """The run's properties and its number of answers; NotFound names a run the graph lacks."""
    rows = store.read("view/read_run", run_id=run_id)
    if not rows:
        raise NotFound(f"no run {run_id!r} in the graph")
    return rows[0]["run"], rows[0]["answers"]


def run_page(store, run_id: str, cache: StatsCache | None = None, *,
             inline_answers: int = INLINE_ANSWERS) -> RunPage:
    """A run's page: its properties, report tables, plots and the runs to compare it with, and
    its numbers when they are cached or the run has at most ``inline_answers`` answers."""
    run, answers = read_run(store, run_id)
    stats = cached_stats(store, run_id, run, answers, cache, compute=answers <= inline_answers)
    report = read_report(run)
    siblings = store.read("view/benchmark_runs", benchmark=run.get("benchmark"), run_id=run_id, limit=20)
    return RunPage(run=run, answers=answers, method=method_of(run.get("benchmark")), stats=stats,
                   plots=list_plots(run), report=report, report_tables=report_tables(report), siblings=siblings)


def run_numbers(store, run_id: str, cache: StatsCache | None = None) -> tuple[dict, RunStats]:
    """A run and its numbers (computed now unless cached)."""
    run, answers = read_run(store, run_id)
    return run, cached_stats(store, run_id, run, answers, cache)


def report_dir(run: Mapping) -> Path | None:
    path = run.get("report_dir")
    return Path(path) if path and Path(path).is_dir() else None


def read_report(run: Mapping) -> dict | None:
    """The run's report.json, written by the eval beside its plots, when it is still there."""
    folder = report_dir(run)
    if folder is None or not (folder / "report.json").is_file():
        return None
    try:
        return json.loads((folder / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def report_tables(report: Mapping | None) -> dict[str, Any]:
    """The report's own sections that the graph cannot recompute: task metrics and the other
    sections an evaluator added (a list of row dicts is a table, anything else is shown as JSON),
    and balanced accuracy of true/false tasks."""
    if not report:
        return {}
    out: dict[str, Any] = {}
    if report.get("balanced_accuracy"):
        out["Balanced accuracy (true/false tasks)"] = [{"task": t, "balanced accuracy": v}
                                                       for t, v in report["balanced_accuracy"].items()]
    for title, body in (report.get("extra") or {}).items():
        out[title] = body
    return out


def list_plots(run: Mapping) -> list[str]:
    folder = report_dir(run)
    if folder is None or not (folder / "plots").is_dir():
        return []
    return sorted(p.name for p in (folder / "plots").glob("*.png") if _PLOT_NAME.match(p.name))


def plot_path(run: Mapping, name: str) -> Path:
    """The file of one of the run's plots; NotFound for any other name (no path escapes)."""
    folder = report_dir(run)
    if folder is None or not _PLOT_NAME.match(name) or name not in list_plots(run):
        raise NotFound(f"run {run.get('id')!r} has no plot {name!r}")
    return folder / "plots" / name



__all__ = ["INLINE_ANSWERS", "PAGE_SIZE", "RunPage", "RunRow", "RunsPage", "list_plots", "list_runs", "method_of",
           "plot_path", "read_report", "read_run", "report_tables", "run_numbers", "run_page"]

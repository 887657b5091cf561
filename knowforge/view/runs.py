"""What the viewer shows of runs: the runs table and one run's page (its properties, numbers,
report tables and plots). Plain functions over the store that return records."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .errors import NotFound
from .numbers import Estimate, RunStats, StatsCache, cached_stats, clipped, clustered_by, with_run_intervals

PAGE_SIZE = 50
RUNS_PAGE_SIZE = 200
# A run with more answers opens without its numbers, which the page then fetches: aggregating
# every answer of a 100k-sample run takes longer than a page should take to open.
INLINE_ANSWERS = 20_000
# SVG since the reports draw their own plots; PNG for report folders written before
_PLOT_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,200}\.(svg|png)$")


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
    # a per-sample interval is the run's own only where each sample is its own unit; a clustered
    # run's interval is on its page (from its report), not guessed here
    for r in rows:
        if r["id"] in overall:
            e = overall[r["id"]]
            overall[r["id"]] = clipped(e) if clustered_by(r) is None else Estimate(e.n, e.mean)
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
    if stats is not None:
        stats = with_run_intervals(stats, run, report)
    siblings = store.read("view/benchmark_runs", benchmark=run.get("benchmark"), run_id=run_id, limit=20)
    return RunPage(run=run, answers=answers, method=method_of(run.get("benchmark")), stats=stats,
                   plots=list_plots(run), report=report, report_tables=report_tables(report, run),
                   siblings=siblings)


def run_numbers(store, run_id: str, cache: StatsCache | None = None) -> tuple[dict, RunStats]:
    """A run and its numbers (computed now unless cached)."""
    run, answers = read_run(store, run_id)
    return run, with_run_intervals(cached_stats(store, run_id, run, answers, cache), run, read_report(run))


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


@dataclass(frozen=True)
class Block:
    """One piece of a report section as the page draws it: a table (columns in the report's
    order), a heading, a paragraph, or JSON for a body that is none of these."""

    kind: str                                   # "table", "heading", "text" or "json"
    columns: tuple[str, ...] = ()
    rows: tuple[dict, ...] = ()
    text: str = ""
    data: Any = None


def _columns(rows: list[Mapping]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(k for row in rows for k in row))


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def markdown_blocks(text: str) -> list[Block]:
    """A Markdown section as blocks: each pipe table a table (its header row, the ``|---|``
    line dropped), ``#`` lines headings, the other lines paragraphs (code fences dropped), so
    a page never shows Markdown source."""
    out: list[Block] = []
    lines = text.splitlines()
    i = 0
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            out.append(Block("text", text=" ".join(paragraph)))
            paragraph.clear()

    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("|") and i + 1 < len(lines) and set(lines[i + 1].strip()) <= set("|-: ") \
                and "-" in lines[i + 1]:
            flush()
            header = _cells(line)
            i += 2
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                cells = _cells(lines[i])
                rows.append({h: (cells[k] if k < len(cells) else "") for k, h in enumerate(header)})
                i += 1
            out.append(Block("table", tuple(header), tuple(rows)))
            continue
        if line.startswith("#"):
            flush()
            out.append(Block("heading", text=line.lstrip("#").strip()))
        elif not line or line.startswith("```"):
            flush()
        else:
            paragraph.append(line)
        i += 1
    flush()
    return out


def section_blocks(body: Any) -> list[Block]:
    """A report section's body as blocks: a list of rows is a table, a string is Markdown, a
    mapping with ``rows`` (and ``note``) a table with its note; anything else JSON."""
    if isinstance(body, str):
        return markdown_blocks(body)
    if isinstance(body, list) and body and all(isinstance(r, Mapping) for r in body):
        return [Block("table", _columns(body), tuple(body))]
    if isinstance(body, Mapping) and isinstance(body.get("rows"), list):
        blocks = section_blocks(body["rows"])
        for key in ("note", "legend", "text"):
            if isinstance(body.get(key), str):
                blocks.append(Block("text", text=body[key]))
        return blocks
    return [Block("json", data=body)]


def _share(value: Any) -> str:
    return "-" if not isinstance(value, (int, float)) else f"{100 * value:.1f}"


def balanced_accuracy_rows(entries: Mapping[str, Any]) -> list[dict]:
    """Balanced accuracy per task as the report records it (a number, or its estimate with a
    bootstrap interval over units): in %, the interval clipped to [0, 100] and its method said."""
    rows = []
    for task, entry in entries.items():
        if isinstance(entry, Mapping):
            ci = entry.get("ci")
            low, high = (min(max(v, 0.0), 1.0) for v in ci) if ci else (None, None)
            rows.append({"task": task, "balanced accuracy %": _share(entry.get("value")),
                         "95% interval": f"[{_share(low)}, {_share(high)}]" if ci else "-",
                         "interval": (f"{entry.get('ci_method') or 'bootstrap'} over {entry['units']} units"
                                      if entry.get("units") else entry.get("ci_method") or "-")})
        else:
            rows.append({"task": task, "balanced accuracy %": _share(entry), "95% interval": "-", "interval": "-"})
    return rows


def empty_tasks(run: Mapping | None, report: Mapping | None = None) -> set[str]:
    """The tasks a run names but has no items of (``task_sizes`` 0): a table shows no row of them."""
    sizes = (run or {}).get("task_sizes")
    if sizes is None:
        sizes = ((report or {}).get("run") or {}).get("task_sizes")
    try:
        sizes = json.loads(sizes) if isinstance(sizes, str) else sizes
    except ValueError:
        return set()
    return {str(t) for t, n in sizes.items() if not n} if isinstance(sizes, Mapping) else set()


def _own_rows(blocks: list[Block], empty: set[str]) -> list[Block]:
    return [replace(b, rows=tuple(r for r in b.rows if str(r.get("task")) not in empty))
            if b.kind == "table" and "task" in b.columns and empty else b for b in blocks]


def report_tables(report: Mapping | None, run: Mapping | None = None) -> dict[str, list[Block]]:
    """The report's own sections that the graph cannot recompute, as blocks (tables, headings,
    text, each table's legend under it): task metrics and the other sections an evaluator
    added, and balanced accuracy of true/false tasks. Rows of tasks the run has no items of are
    left out (a report written before it left them out itself)."""
    if not report:
        return {}
    from knowforge.eval.report import section_legend

    empty = empty_tasks(run, report)
    out: dict[str, list[Block]] = {}
    if report.get("balanced_accuracy"):
        out["Balanced accuracy (true/false tasks)"] = section_blocks(balanced_accuracy_rows(
            {t: v for t, v in report["balanced_accuracy"].items() if t not in empty}))
    for title, body in (report.get("extra") or {}).items():
        blocks = _own_rows(section_blocks(body), empty)
        legend = section_legend(title, body, report) if not isinstance(body, Mapping) else ""
        out[title] = blocks + ([Block("text", text=legend)] if legend else [])
    return out


def list_plots(run: Mapping) -> list[str]:
    folder = report_dir(run)
    if folder is None or not (folder / "plots").is_dir():
        return []
    return sorted(p.name for p in (folder / "plots").iterdir() if _PLOT_NAME.match(p.name) and p.is_file())


def plot_path(run: Mapping, name: str) -> Path:
    """The file of one of the run's plots; NotFound for any other name (no path escapes)."""
    folder = report_dir(run)
    if folder is None or not _PLOT_NAME.match(name) or name not in list_plots(run):
        raise NotFound(f"run {run.get('id')!r} has no plot {name!r}")
    return folder / "plots" / name



__all__ = ["Block", "INLINE_ANSWERS", "empty_tasks", "PAGE_SIZE", "RunPage", "RunRow", "RunsPage", "list_plots", "list_runs", "method_of",
           "markdown_blocks", "plot_path", "read_report", "read_run", "report_tables", "run_numbers", "run_page",
           "section_blocks"]

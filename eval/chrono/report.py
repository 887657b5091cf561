"""ChroKnow report pieces: per-year curves (paper Figures 2-3), category tables and plots."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from knowforge.eval.chrono.categories import FACT_CATEGORIES
from knowforge.eval.svg_plot import Panel, Point, Series, chart, figure, percent_point


def plot_year_curves(path: Path, curves: Mapping[str, Mapping[int, Mapping[str, float]]], title: str) -> Path:
    """One panel per template (rows) and temporal state (columns); "known" (correct or partial)
    and "correct" shares per year, as the paper's Figures 2-3 split them, each point with its
    95% interval as an error bar (``check.year_curves``). The axis spans the data's years only."""
    templates = sorted({k.split("/")[0] for k in curves})
    changes = sorted({k.split("/")[1] for k in curves})
    rows = []
    for template in templates:
        row = []
        for change in changes:
            points = curves.get(f"{template}/{change}", {})
            years = sorted(int(y) for y in points)
            series = [Series(key, [percent_point(y, points[y][key], points[y].get(f"{key}_ci")) for y in years],
                             kind="line", dashed=key == "correct") for key in ("known", "correct")]
            row.append(Panel(f"{template} / {change}", series, ylabel="% of facts", legend=True))
        rows.append(row)
    path.write_text(figure(title, rows), encoding="utf-8")
    return path


def plot_categories(path: Path, rows: Sequence[Mapping], title: str) -> Path:
    """Stacked bars of Known / Cut-off / Partial Known / Unknown per (template, change)."""
    labels = [f"{r['template']}/{r['change']}" for r in rows]
    series = [Series(cat, [Point(label, 100 * r[cat] / r["facts"] if r["facts"] else 0.0)
                           for label, r in zip(labels, rows)]) for cat in FACT_CATEGORIES]
    path.write_text(chart(Panel(title, series, ylabel="% of facts", stacked=True, legend=True)), encoding="utf-8")
    return path


def markdown_table(rows: Sequence[Mapping]) -> str:
    if not rows:
        return "(none)"
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(r.get(k, "")) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def write_json(path: Path, document: Mapping) -> Path:
    path.write_text(json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n",
                    encoding="utf-8")
    return path

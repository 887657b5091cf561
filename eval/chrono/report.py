"""ChroKnow report pieces: per-year curves (paper Figures 2-3), category tables and plots."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from knowforge.eval.chrono.categories import FACT_CATEGORIES


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_year_curves(path: Path, curves: Mapping[str, Mapping[int, Mapping[str, float]]], title: str) -> Path:
    """One panel per template (rows) and temporal state (columns); "known" (correct or partial)
    and "correct" shares per year, as the paper's Figures 2-3 split them, each point with its
    95% interval as an error bar (``check.year_curves``)."""
    plt = _pyplot()
    templates = sorted({k.split("/")[0] for k in curves})
    changes = sorted({k.split("/")[1] for k in curves})
    fig, axes = plt.subplots(len(templates), len(changes), figsize=(4.2 * len(changes), 2.8 * len(templates)),
                             squeeze=False)
    for i, template in enumerate(templates):
        for j, change in enumerate(changes):
            ax = axes[i][j]
            points = curves.get(f"{template}/{change}", {})
            years = sorted(int(y) for y in points)
            for key, style in (("known", "-o"), ("correct", "--s")):
                values = [points[y][key] for y in years]
                cis = [points[y].get(f"{key}_ci") for y in years]
                low = [max(0.0, 100 * (v - ci[0])) if ci else 0.0 for v, ci in zip(values, cis)]
                high = [max(0.0, 100 * (ci[1] - v)) if ci else 0.0 for v, ci in zip(values, cis)]
                ax.errorbar(years, [100 * v for v in values], yerr=[low, high], fmt=style, label=key, markersize=3,
                            capsize=2)
            ax.set_title(f"{template} / {change}", fontsize=9)
            ax.set_ylim(0, 100)
            if years:
                # the axis spans the data's years: one year is a point, not matplotlib's default span
                ax.set_xlim(years[0] - 0.5, years[-1] + 0.5)
                ax.set_xticks(years, [str(y) for y in years], fontsize=7, rotation=45)
            ax.set_ylabel("% of facts", fontsize=8)
            ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_categories(path: Path, rows: Sequence[Mapping], title: str) -> Path:
    """Stacked bars of Known / Cut-off / Partial Known / Unknown per (template, change)."""
    plt = _pyplot()
    labels = [f"{r['template']}/{r['change']}" for r in rows]
    fig, ax = plt.subplots(figsize=(max(4.5, 1.1 * len(rows) + 2), 3.4))
    bottom = [0.0] * len(rows)
    for cat in FACT_CATEGORIES:
        values = [100 * r[cat] / r["facts"] if r["facts"] else 0.0 for r in rows]
        ax.bar(labels, values, bottom=bottom, label=cat)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_ylabel("% of facts")
    ax.set_ylim(0, 100)
    ax.set_title(title, fontsize=10)
    ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
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

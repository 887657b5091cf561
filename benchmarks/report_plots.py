"""A run report's plots: the SVG the report draws now (``eval/svg_plot.py``) against the
matplotlib PNGs it drew before, on the same numbers, in this process (CPU seconds).

The report of an ordinary run draws three plots (by task, by year, by one slice); the baseline
draws the same three charts with matplotlib's Agg backend as the report did until issue 33
(``figsize``, ``dpi=110``, ``tight_layout``), and pays matplotlib's import once, as each
``knowforge eval`` process did. Without matplotlib installed the baseline is skipped.

    python benchmarks/report_plots.py [--tasks 6] [--years 14] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def groups(n: int, prefix: str) -> dict:
    return {f"{prefix}{i}": {"accuracy": 0.2 + 0.6 * i / max(1, n), "ci": [0.1 + 0.6 * i / max(1, n),
                                                                           0.3 + 0.6 * i / max(1, n)]}
            for i in range(n)}


def svg_plots(out: Path, by_task: dict, by_year: dict, by_slice: dict) -> None:
    from knowforge.eval import report

    report._bar(out / "accuracy_by_task.svg", "Accuracy by task", by_task)
    report._year_curves(out / "accuracy_by_year.svg", by_year)
    report._bar(out / "accuracy_by_relation.svg", "Accuracy by relation", by_slice)


def matplotlib_plots(out: Path, by_task: dict, by_year: dict, by_slice: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def yerr(gs):
        return [[100 * (g["accuracy"] - g["ci"][0]) for g in gs], [100 * (g["ci"][1] - g["accuracy"]) for g in gs]]

    for name, data in (("task", by_task), ("relation", by_slice)):
        fig, ax = plt.subplots(figsize=(max(4.0, 0.6 * len(data) + 2), 3.5))
        ax.bar(range(len(data)), [100 * g["accuracy"] for g in data.values()], yerr=yerr(list(data.values())),
               capsize=3)
        ax.set_xticks(range(len(data)), list(data), rotation=30, ha="right", fontsize=8)
        ax.set_ylim(0, 100)
        fig.tight_layout()
        fig.savefig(out / f"accuracy_by_{name}.png", dpi=110)
        plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for task, years in by_year.items():
        points = sorted((int(y), g) for y, g in years.items())
        ax.errorbar([p[0] for p in points], [100 * p[1]["accuracy"] for p in points],
                    yerr=yerr([p[1] for p in points]), marker="o", capsize=3, label=task)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "accuracy_by_year.png", dpi=110)
    plt.close(fig)


def cpu_seconds(function, *args) -> float:
    start = time.process_time()
    function(*args)
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", type=int, default=6)
    ap.add_argument("--years", type=int, default=14)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    by_task = groups(args.tasks, "task/")
    by_slice = groups(8, "P")
    by_year = {t: {str(2010 + y): g for y, g in enumerate(groups(args.years, "").values())} for t in list(by_task)[:3]}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        import_svg = cpu_seconds(__import__, "knowforge.eval.svg_plot")
        svg = [cpu_seconds(svg_plots, out, by_task, by_year, by_slice) for _ in range(args.repeat)]
        print(f"svg       : import {import_svg:.3f} CPU s; three plots median {statistics.median(svg) * 1000:.2f} ms "
              f"(best {min(svg) * 1000:.2f} ms)")
        try:
            import_mpl = cpu_seconds(__import__, "matplotlib.pyplot")
        except ImportError:
            print("matplotlib: not installed, no baseline")
            return
        mpl = [cpu_seconds(matplotlib_plots, out, by_task, by_year, by_slice) for _ in range(args.repeat)]
        print(f"matplotlib: import {import_mpl:.3f} CPU s; three plots median {statistics.median(mpl) * 1000:.2f} ms "
              f"(best {min(mpl) * 1000:.2f} ms)")
        per_run_svg = statistics.median(svg)
        per_run_mpl = statistics.median(mpl)
        print(f"ratio matplotlib / svg, three plots: {per_run_mpl / per_run_svg:.0f}x; "
              f"first run of a process (import included): {(per_run_mpl + import_mpl) / (per_run_svg + import_svg):.0f}x")


if __name__ == "__main__":
    main()

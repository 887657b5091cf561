"""Reports of a run read back from the graph: report.json, report.md, plots/*.png.

Plots (matplotlib, Agg backend, no display needed):
* ``accuracy_by_task.png``  — one bar per task;
* ``accuracy_by_year.png``  — ChroKnowledge-style curves, one line per task (when items carry
  a ``year`` slice);
* ``accuracy_by_<slice>.png`` — one bar chart per other categorical slice (2–30 values);
* ``comparison.png``         — two runs side by side per task (``compare=``).
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from knowforge.eval.metrics import accuracy, balanced_accuracy, per_slice
from knowforge.eval.results import load_run, run_answers
from knowforge.eval.validity import UNDATED, question_sides

log = logging.getLogger(__name__)

REPORT_VERSION = "1"
MAX_CATEGORIES = 30
_BOOL_FORMS = ("boolean", "true-false")


def _as_bool(text: Any) -> bool | None:
    value = str(text).strip().lower() if text is not None else ""
    if value in ("yes", "true"):
        return True
    if value in ("no", "false"):
        return False
    return None


def _json_key(value: Any) -> str:
    return "null" if value is None else str(value)


def build_report(store, run_id: str) -> dict:
    """All numbers of one run as a JSON-ready dict."""
    run = load_run(store, run_id)
    rows = run_answers(store, run_id)
    samples = [(r["question"], r["answer"]) for r in rows]
    scores = [a.get("score") for _, a in samples]
    per_item: dict[str, list[float]] = defaultdict(list)
    for q, a in samples:
        per_item[q["id"]].append(a.get("score") or 0.0)
    report: dict[str, Any] = {
        "version": REPORT_VERSION, "run_id": run_id, "run": run, "scoring": scoring_of(run),
        "overall": {"items": len(per_item), "samples": len(samples), "accuracy": accuracy(scores),
                    "item_accuracy": accuracy(sum(v) / len(v) for v in per_item.values()),
                    "all_samples_correct": accuracy(float(all(x >= 1.0 for x in v)) for v in per_item.values()),
                    "errors": sum(1 for _, a in samples if a.get("error")),
                    "cached": sum(1 for _, a in samples if a.get("cached"))},
    }
    report["by_task"] = _group(samples, lambda q: q.get("task"))
    report["by_form"] = _group(samples, lambda q: q.get("form"))
    balanced = {}
    for task in sorted({q.get("task") for q, _ in samples if q.get("form") in _BOOL_FORMS}):
        pairs = [(_as_bool((q.get("answers") or [None])[0]), _as_bool(a.get("parsed")))
                 for q, a in samples if q.get("task") == task]
        pairs = [(g, p) for g, p in pairs if g is not None]
        if pairs:
            balanced[task] = balanced_accuracy([g for g, _ in pairs], [p for _, p in pairs])
    report["balanced_accuracy"] = balanced
    slice_keys = sorted({k for q, _ in samples for k in q if k.startswith("slice_")})
    report["slices"] = {}
    for key in slice_keys:
        name = key[len("slice_"):]
        report["slices"][name] = _group(samples, lambda q, key=key: q.get(key))
    if "slice_year" in slice_keys:
        curves: dict[str, dict] = {}
        for task in sorted({q.get("task") for q, _ in samples}):
            subset = [(q, a) for q, a in samples if q.get("task") == task and q.get("slice_year") is not None]
            if subset:
                curves[task] = _group(subset, lambda q: q.get("slice_year"))
        report["by_year"] = curves
    if run.get("model_cutoff"):
        report["by_model_cutoff"] = _cutoff_slices(store, run_id, run["model_cutoff"], samples)
    return report


def _cutoff_slices(store, run_id: str, cutoff: str, samples) -> dict:
    """Accuracy of items whose tested facts changed before vs after the model's cutoff."""
    sides = question_sides(store, run_id, cutoff)
    side = lambda q: sides.get(q["id"], UNDATED)  # noqa: E731
    by_task = {}
    for task in sorted({q.get("task") for q, _ in samples}, key=str):
        by_task[str(task)] = _group([(q, a) for q, a in samples if q.get("task") == task], side)
    return {"cutoff": cutoff, "all": _group(samples, side), "by_task": by_task}


def scoring_of(run: Mapping) -> dict:
    """Which scoring mode scored a run, and the rule each scorer applied under it. Runs recorded
    before scoring modes existed say so instead of guessing."""
    mode = run.get("scoring")
    if mode is None:
        return {"mode": "unrecorded", "rules": [], "text": "unrecorded (run made before scoring modes)"}
    rules = list(run.get("scoring_rules") or [])
    return {"mode": mode, "rules": rules, "text": f"{mode}" + (f" ({', '.join(rules)})" if rules else "")}


def _group(samples, key) -> dict:
    def hashable(q):
        value = key(q)
        return json.dumps(value, sort_keys=True) if isinstance(value, (list, dict)) else value

    groups = per_slice(samples, key=lambda s: hashable(s[0]), value=lambda s: s[1].get("score"))
    items: dict[Any, set] = defaultdict(set)
    errors: dict[Any, int] = defaultdict(int)
    for q, a in samples:
        items[hashable(q)].add(q["id"])
        errors[hashable(q)] += 1 if a.get("error") else 0
    for k, stats in groups.items():
        stats["items"] = len(items[k])
        stats["errors"] = errors[k]
    ordered = sorted(groups.items(), key=lambda kv: (kv[0] is None, str(type(kv[0])), kv[0] if kv[0] is not None else 0))
    return {_json_key(k): v for k, v in ordered}


# --------------------------------------------------------------------------------------------
def headline_table(report: Mapping, compare: Mapping | None = None) -> Table:
    """The terminal summary: accuracy per task (and the compared run's, with the difference)."""
    title = (f"run {report['run_id']} · {report['run'].get('model')} ({report['run'].get('backend')}) · "
             f"scoring {_scoring(report)['mode']}")
    table = Table(title=title)
    table.add_column("task")
    table.add_column("items", justify="right")
    table.add_column("samples", justify="right")
    table.add_column("accuracy", justify="right")
    if compare:
        table.add_column(f"{compare['run_id']}", justify="right")
        table.add_column("Δ", justify="right")
    table.add_column("errors", justify="right")
    tasks = list(report["by_task"])
    for task in tasks + ["(all)"]:
        stats = report["overall"] if task == "(all)" else report["by_task"][task]
        acc = stats["accuracy"]
        row = [task, str(stats["items"]), str(stats.get("samples", stats.get("n"))), _pct(acc)]
        if compare:
            other = compare["overall"] if task == "(all)" else compare["by_task"].get(task, {})
            oacc = other.get("accuracy")
            row += [_pct(oacc), _pct(acc - oacc, signed=True) if acc is not None and oacc is not None else "-"]
        row.append(str(stats.get("errors", 0)))
        table.add_row(*row, style="bold" if task == "(all)" else None)
    return table


def trend_table(rows: Sequence[Mapping]) -> Table:
    """The terminal form of ``trend_rows``: one row per run, accuracy overall and per task."""
    tasks = [k for k in rows[0] if k not in ("run_id", "benchmark", "setting", "items")]
    table = Table(title="Trend over the compared runs")
    for name in ("run", "benchmark", "setting", "items", *tasks):
        table.add_column(name, justify="right" if name not in ("run", "benchmark", "setting") else "left")
    for r in rows:
        table.add_row(r["run_id"], str(r["benchmark"]), str(r["setting"]), str(r["items"]),
                      *[_pct(r[t]) for t in tasks])
    return table


def _scoring(report: Mapping) -> dict:
    return report.get("scoring") or scoring_of(report.get("run", {}))


def _pct(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}"


# --------------------------------------------------------------------------------------------
def render_markdown(report: Mapping, compare: Mapping | None, plots: Sequence[Path],
                    extra_sections: Mapping[str, Any] | None, trend: Sequence[Mapping] | None = None) -> str:
    run = report["run"]
    lines = [f"# Run {report['run_id']}", "",
             f"- model: `{run.get('model')}` via `{run.get('backend')}`",
             f"- benchmark: {run.get('benchmark')} · setting: {run.get('setting')} · "
             f"template v{run.get('template_version')}",
             f"- scoring: {_scoring(report)['text']}",
             f"- decoding: temperature {run.get('temperature')}, top_p {run.get('top_p')}, "
             f"n {run.get('n')}, seed {run.get('seed')}, max_tokens {run.get('max_tokens')}",
             f"- knowforge {run.get('knowforge_version')} (git {run.get('git_revision') or 'n/a'}), "
             f"started {run.get('started_at')}", "",
             "## Headline", "",
             f"Accuracy {_pct(report['overall']['accuracy'])} % over {report['overall']['samples']} samples "
             f"of {report['overall']['items']} items; {report['overall']['errors']} failed samples; "
             f"{report['overall']['cached']} answered from the cache.", ""]
    lines += _md_table("By task", "task", report["by_task"], compare["by_task"] if compare else None)
    if trend:
        lines += _trend_markdown(trend)
    if report.get("balanced_accuracy"):
        lines += ["## Balanced accuracy (true/false tasks)", "", "| task | balanced accuracy |", "|---|---|"]
        lines += [f"| {t} | {_pct(v)} |" for t, v in report["balanced_accuracy"].items()] + [""]
    if report.get("by_model_cutoff"):
        cut = report["by_model_cutoff"]
        lines += _md_table(f"By model cutoff {cut['cutoff']} (facts changed before / after it)", "facts",
                           cut["all"], None)
        lines += ["| task | facts | n | accuracy |", "|---|---|---:|---:|"]
        lines += [f"| {task} | {k} | {v['n']} | {_pct(v['accuracy'])} |"
                  for task, groups in cut["by_task"].items() for k, v in groups.items()] + [""]
    for name, groups in report.get("slices", {}).items():
        if len(groups) <= MAX_CATEGORIES:
            lines += _md_table(f"By {name}", name, groups,
                               compare.get("slices", {}).get(name) if compare else None)
    for title, body in (extra_sections or {}).items():
        lines += [f"## {title}", ""] + _md_body(body) + [""]
    if plots:
        lines += ["## Plots", ""] + [f"![{p.stem}](plots/{p.name})" for p in plots] + [""]
    return "\n".join(lines)


def _md_table(title: str, key: str, groups: Mapping, other: Mapping | None) -> list[str]:
    head = f"| {key} | n | accuracy |" + (" compared | Δ |" if other is not None else "")
    sep = "|---|---:|---:|" + ("---:|---:|" if other is not None else "")
    lines = [f"## {title}", "", head, sep]
    for k, stats in groups.items():
        row = f"| {k} | {stats['n']} | {_pct(stats['accuracy'])} |"
        if other is not None:
            o = other.get(k, {}).get("accuracy")
            a = stats["accuracy"]
            row += f" {_pct(o)} | {_pct(a - o, True) if a is not None and o is not None else '-'} |"
        lines.append(row)
    return lines + [""]


def _md_body(body: Any) -> list[str]:
    if isinstance(body, str):
        return [body]
    if isinstance(body, list) and body and all(isinstance(r, Mapping) for r in body):
        cols = list(dict.fromkeys(k for r in body for k in r))
        return (["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
                + ["| " + " | ".join(str(r.get(c, "")) for c in cols) + " |" for r in body])
    return ["```json", json.dumps(body, indent=2, sort_keys=True, default=str), "```"]


# --------------------------------------------------------------------------------------------
def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _bar(path: Path, title: str, groups: Mapping, ylabel: str = "accuracy (%)") -> Path:
    plt = _pyplot()
    labels = list(groups)
    values = [100 * (g["accuracy"] or 0.0) for g in groups.values()]
    fig, ax = plt.subplots(figsize=(max(4.0, 0.6 * len(labels) + 2), 3.5))
    ax.bar(range(len(labels)), values, color="#4C72B0")
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _year_curves(path: Path, curves: Mapping[str, Mapping]) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for task, groups in curves.items():
        points = sorted((int(float(y)), 100 * (g["accuracy"] or 0.0)) for y, g in groups.items() if y != "null")
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=task)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("year")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(-2, 102)
    ax.set_title("Accuracy by year")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _comparison(path: Path, report: Mapping, compare: Mapping) -> Path:
    plt = _pyplot()
    tasks = sorted(set(report["by_task"]) | set(compare["by_task"]))
    a = [100 * (report["by_task"].get(t, {}).get("accuracy") or 0.0) for t in tasks]
    b = [100 * (compare["by_task"].get(t, {}).get("accuracy") or 0.0) for t in tasks]
    fig, ax = plt.subplots(figsize=(max(5.0, 1.0 * len(tasks) + 2), 3.5))
    xs = range(len(tasks))
    ax.bar([x - 0.2 for x in xs], a, width=0.4, label=report["run_id"])
    ax.bar([x + 0.2 for x in xs], b, width=0.4, label=compare["run_id"])
    ax.set_xticks(list(xs), tasks, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy (%)")
    ax.set_title("Run comparison by task")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_plots(report: Mapping, plots_dir: Path, compare: Mapping | None = None) -> list[Path]:
    plots_dir.mkdir(parents=True, exist_ok=True)
    written = [_bar(plots_dir / "accuracy_by_task.png", "Accuracy by task", report["by_task"])]
    if report.get("by_year"):
        written.append(_year_curves(plots_dir / "accuracy_by_year.png", report["by_year"]))
    for name, groups in report.get("slices", {}).items():
        if name != "year" and 2 <= len(groups) <= MAX_CATEGORIES:
            written.append(_bar(plots_dir / f"accuracy_by_{name}.png", f"Accuracy by {name}", groups))
    if compare:
        written.append(_comparison(plots_dir / "comparison.png", report, compare))
    return written


def trend_rows(reports: Sequence[Mapping]) -> list[dict]:
    """One row per run, in the order given: its benchmark, setting and accuracy overall and per
    task (None where a run has no item of a task) — e.g. one year's NewTerm run after another."""
    tasks = sorted({t for r in reports for t in r["by_task"]})
    rows = []
    for r in reports:
        row = {"run_id": r["run_id"], "benchmark": r["run"].get("benchmark"), "setting": r["run"].get("setting"),
               "items": r["overall"]["items"], "(all)": r["overall"]["accuracy"]}
        row.update({t: r["by_task"].get(t, {}).get("accuracy") for t in tasks})
        rows.append(row)
    return rows


def _trend_markdown(rows: Sequence[Mapping]) -> list[str]:
    tasks = [k for k in rows[0] if k not in ("run_id", "benchmark", "setting", "items")]
    lines = ["## Trend over the compared runs", "", "| run | benchmark | setting | items | " + " | ".join(tasks) + " |",
             "|---|---|---|---:|" + "---:|" * len(tasks)]
    lines += [f"| {r['run_id']} | {r['benchmark']} | {r['setting']} | {r['items']} | "
              + " | ".join(_pct(r[t]) for t in tasks) + " |" for r in rows]
    return lines + [""]


def _trend_plot(path: Path, rows: Sequence[Mapping]) -> Path:
    plt = _pyplot()
    tasks = [k for k in rows[0] if k not in ("run_id", "benchmark", "setting", "items")]
    labels = [str(r["benchmark"] or r["run_id"]) for r in rows]
    fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(rows)), 3.5))
    for task in tasks:
        ax.plot(range(len(rows)), [None if r[task] is None else 100 * r[task] for r in rows], marker="o", label=task)
    ax.set_xticks(range(len(rows)), labels, rotation=20, ha="right")
    ax.set_ylabel("accuracy (%)")
    ax.set_title("Accuracy over the compared runs")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def write_report(store, run_id: str, out_dir: str | Path, *, compare: str | Sequence[str] | None = None,
                 extra_sections: Mapping[str, Any] | None = None) -> Path:
    """Write report.json, report.md and plots/*.png for ``run_id`` into ``out_dir``; return it.

    ``compare`` is a second run id, or several: the first is compared side by side, and with two
    or more a trend table and plot follow the runs in the order given (``run_id`` first).
    ``extra_sections`` maps a title to markdown text, a list of row dicts (a table) or any JSON
    value, and is kept under "extra" in report.json.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    compared = [compare] if isinstance(compare, str) else list(compare or ())
    report = build_report(store, run_id)
    others = [build_report(store, c) for c in compared]
    other = others[0] if others else None
    plots = write_plots(report, out / "plots", other)
    document = dict(report)
    if other:
        document["compare"] = {"run_id": other["run_id"], "overall": other["overall"],
                               "by_task": other["by_task"]}
    trend = None
    if len(others) >= 2:
        trend = trend_rows([report, *others])
        document["trend"] = trend
        plots.append(_trend_plot(out / "plots" / "trend.png", trend))
    if extra_sections:
        document["extra"] = dict(extra_sections)
    document["plots"] = [f"plots/{p.name}" for p in plots]
    (out / "report.json").write_text(json.dumps(document, indent=2, sort_keys=True, default=str) + "\n",
                                     encoding="utf-8")
    (out / "report.md").write_text(render_markdown(report, other, plots, extra_sections, trend) + "\n",
                                   encoding="utf-8")
    log.info("report of %s written to %s", run_id, out)
    return out


def load_report(out_dir: str | Path) -> dict:
    return json.loads((Path(out_dir) / "report.json").read_text(encoding="utf-8"))

"""Evaluate a model on a KnowGen batch under ALCUNA's four settings (vanilla, chain-of-thought,
zero-shot, few-shot) with the eval engine, and summarise accuracy by question type (KU/KD/KA),
form and difference type.

It works on the batch's BenchmarkItems (read by the CLI through ``generators.knowgen``), so
``eval/`` never imports ``generators/``.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from knowforge.models.backends import make_backend
from knowforge.eval.report import write_report
from knowforge.eval.results import record_run
from knowforge.eval.runner import cache_stats, evaluate_items
from knowforge.models.types import BenchmarkItem
from knowforge.eval.types import EvalOptions
from knowforge.kg.store import Store

log = logging.getLogger(__name__)

SETTINGS = ("vanilla", "chain-of-thought", "zero-shot", "few-shot")
SLICES = ("type", "form", "difference", "hop_count")


def accuracy_by(items: Sequence[BenchmarkItem], results, key: str) -> dict[str, dict]:
    """{slice value: {accuracy, samples}} of one run's sample results."""
    by_id = {it.id: it for it in items}
    groups: dict[str, list[float]] = defaultdict(list)
    for r in results:
        groups[str(by_id[r.item_id].slices.get(key))].append(r.score)
    return {k: {"accuracy": sum(v) / len(v), "samples": len(v)} for k, v in sorted(groups.items())}


def _md(summary: dict) -> str:
    lines = [f"# KnowGen evaluation of batch `{summary['batch']}`", "",
             f"model `{summary['model']}` ({summary['backend']}), {summary['items']} questions", ""]
    for key in ("overall", *SLICES):
        values = sorted({v for s in summary["settings"].values() for v in s["by"].get(key, {})}) \
            if key != "overall" else ["all"]
        lines += [f"## Accuracy by {key}", "", "| " + " | ".join([key, *summary["settings"]]) + " |",
                  "|" + "---|" * (len(summary["settings"]) + 1)]
        for v in values:
            cells = []
            for s in summary["settings"].values():
                stat = {"accuracy": s["accuracy"]} if key == "overall" else s["by"].get(key, {}).get(v)
                cells.append("-" if not stat or stat["accuracy"] is None else f"{100 * stat['accuracy']:.1f}")
            lines.append("| " + " | ".join([str(v), *cells]) + " |")
        lines.append("")
    lines += ["Runs: " + ", ".join(f"{k}: `{s['run_id']}`" for k, s in summary["settings"].items()), ""]
    return "\n".join(lines)


def evaluate_batch(store: Store, batch: str, items: Sequence[BenchmarkItem], options: EvalOptions, *,
                   settings: Sequence[str] = SETTINGS,
                   progress: Callable[[int], None] | None = None) -> Path:
    """Run every setting on the batch's items, record each as a Run in the graph with its own
    report, and write ``OUT/knowgen-<batch>/summary.{json,md}``; returns that directory."""
    items = list(items)
    if options.limit is not None:
        items = items[: options.limit]
    backend = make_backend(options)
    out = Path(options.out_dir) / f"knowgen-{batch}"
    out.mkdir(parents=True, exist_ok=True)
    summary: dict = {"version": "1", "batch": batch, "benchmark": f"knowgen:{batch}",
                     "model": options.model, "backend": options.backend, "items": len(items),
                     "settings": {}}
    before = cache_stats(backend) or {"hits": 0, "misses": 0}
    for setting in settings:
        run_options = replace(options, extra={**options.extra, "setting": setting})
        results = evaluate_items(items, backend, run_options, setting=setting, progress=progress)
        stats = cache_stats(backend)
        # The backend (and its cache counters) is shared by the four settings: record each
        # run's own share.
        extra = ({"cache_hits": stats["hits"] - before["hits"],
                  "cache_misses": stats["misses"] - before["misses"]} if stats else {})
        before = stats or before
        run_id = record_run(store, run_options, items, results, name=f"knowgen:{batch}:{setting}",
                            extra=extra)
        by = {key: accuracy_by(items, results, key) for key in SLICES}
        n = len(results)
        acc = sum(r.score for r in results) / n if n else None
        sections = {f"KnowGen accuracy by {key}": [{key: k, **v} for k, v in table.items()]
                    for key, table in by.items()}
        report_dir = write_report(store, run_id, Path(options.out_dir) / run_id, extra_sections=sections)
        summary["settings"][setting] = {"run_id": run_id, "accuracy": acc, "samples": n,
                                        "report": str(report_dir), "by": by}
        log.info("knowgen %s %s: accuracy %s over %d samples", batch, setting, acc, n)
    (out / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    (out / "summary.md").write_text(_md(summary), encoding="utf-8")
    return out

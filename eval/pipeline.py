"""One evaluation end to end: items file → backend → scores → graph → report directory.

This is what ``knowforge eval --benchmark FILE`` calls; generators' evaluators compose the
same pieces (``evaluate_items``, ``record_run``, ``write_report``) with their own extras.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from knowforge.errors import ConfigError, InputError
from knowforge.models.items_io import read_items
from knowforge.eval.report import load_report
from knowforge.eval.runner import DEFAULT_CHUNK_SIZE, SampleResult, cache_stats
from knowforge.models.task import Component
from knowforge.models.types import Backend, BenchmarkItem
from knowforge.eval.types import EvalOptions

log = logging.getLogger(__name__)

PipelineProgress = Callable[[int, dict | None], None]
"""Called with the number of requests just answered and the cache stats so far (or None)."""


@dataclass(frozen=True)
class EvalOutcome:
    run_id: str
    report_dir: Path
    report: dict
    results: tuple[SampleResult, ...]
    cache: dict | None          # hits, misses, hit_rate, backend_calls (None without a cache)
    seconds: float


def write_samples_log(path: Path, items: Sequence[BenchmarkItem], results: Sequence[SampleResult]) -> Path:
    """Per-sample JSONL: item id, sample index, prompt, raw, parsed, score, error, cached, and
    for likelihood-scored items the per-option log-probabilities (``metadata``)."""
    by_id = {i.id: i for i in items}
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for r in results:
            item = by_id[r.item_id]
            handle.write(json.dumps({"version": "1", "item_id": r.item_id, "task": item.task,
                                     "sample_index": r.sample_index, "prompt": r.prompt, "raw": r.raw,
                                     "parsed": r.parsed, "score": r.score, "gold": item.answers,
                                     "error": r.error, "cached": r.cached, "cache_key": r.cache_key,
                                     "explanation": r.explanation, "metadata": r.metadata},
                                    ensure_ascii=False) + "\n")
    return path


def evaluate_items_to_graph(items: Sequence[BenchmarkItem], options: EvalOptions, store, *,
                            setting: str = "zero-shot", backend: Backend | None = None,
                            progress: PipelineProgress | None = None, name: str | None = None,
                            extra_sections: dict | None = None,
                            chunk_size: int = DEFAULT_CHUNK_SIZE) -> EvalOutcome:
    """Evaluate ``items`` under one prompting solver, record the run in the graph and write
    ``options.out_dir/<run_id>/`` (what ``knowforge eval --benchmark FILE`` does)."""
    from knowforge.eval.solvers import PromptSolver, make_solver
    from knowforge.eval.tasks import record_output

    if not items:
        raise InputError("the benchmark has no items to evaluate")
    solver = make_solver(Component(name=setting))
    if not isinstance(solver, PromptSolver):
        raise ConfigError(f"solver {setting!r} needs a benchmark in the graph (METHOD:NAME); a file "
                          "benchmark takes a prompting setting: vanilla, zero-shot, few-shot or "
                          "chain-of-thought")
    if backend is None:
        from knowforge.models.backends import make_backend

        backend = make_backend(options)
    options = replace(options, extra={**options.extra, "setting": setting})
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()

    def step(n: int) -> None:
        if progress:
            progress(n, cache_stats(backend))

    if options.limit is not None:
        items = list(items)[:options.limit]
    output = solver.solve(items, backend, options, progress=step, chunk_size=chunk_size)
    stats = cache_stats(backend)
    extra = {}
    if stats is not None:
        extra = {"cache_hits": stats["hits"], "cache_misses": stats["misses"],
                 "cache_hit_rate": stats["hit_rate"]}
    run_id, run_dir = record_output(store, options, output, name=name, started_at=started, extra=extra,
                                    sections=extra_sections)
    return EvalOutcome(run_id=run_id, report_dir=run_dir, report=load_report(run_dir),
                       results=tuple(output.samples), cache=stats, seconds=time.perf_counter() - t0)


def evaluate_file(path: str | Path, options: EvalOptions, store, *, setting: str = "zero-shot",
                  backend: Backend | None = None, progress: PipelineProgress | None = None,
                  name: str | None = None, chunk_size: int = DEFAULT_CHUNK_SIZE) -> EvalOutcome:
    """``knowforge eval --benchmark FILE``: read our JSONL items and evaluate them."""
    items = read_items(path, limit=options.limit)
    log.info("read %d items from %s", len(items), path)
    return evaluate_items_to_graph(items, options, store, setting=setting, backend=backend,
                                   progress=progress, name=name or Path(path).stem, chunk_size=chunk_size)

"""``knowforge eval --benchmark chrono:NAME --check slick [--chronoprompt --span total|previous|both]``.

Takes ChroKnow items (the CLI reads them from the graph), runs the knowledge check, optionally
ChroKnowPrompt, records the run with the eval engine (``record_run``: one Answer per sample,
so answers slice by relation/year in Cypher), and writes the engine's report plus the ChroKnow
pieces: ``chrono.json`` (every fact, year and traversal), ``plots/chrono_years.png`` and
``plots/chrono_categories.png``, and markdown tables in ``report.md``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from knowforge.errors import ConfigError
from knowforge.eval.chrono_check import (CheckConfig, category_table, run_knowledge_check, year_category_counts,
                                         year_curves)
from knowforge.eval.chrono_report import markdown_table, plot_categories, plot_year_curves, write_json
from knowforge.eval.chronoprompt import SPANS, gain_table, run_chronoprompt
from knowforge.models.types import Backend, BenchmarkItem
from knowforge.eval.solvers import SolverOutput
from knowforge.eval.types import EvalOptions

log = logging.getLogger(__name__)



@dataclass(frozen=True)
class ChronoOutcome:
    run_id: str
    report_dir: Path
    requests: int
    seconds: float


def limit_records(items: Sequence[BenchmarkItem], limit: int | None) -> list[BenchmarkItem]:
    """``--limit K`` counts facts (records), so every year of a kept fact stays."""
    if limit is None:
        return list(items)
    keep = sorted({i.metadata.get("record_id", i.id) for i in items})[:limit]
    keep_set = set(keep)
    return [i for i in items if i.metadata.get("record_id", i.id) in keep_set]


def check_config(options: EvalOptions, *, shot_sets: int = 5, samples: int = 1) -> CheckConfig:
    extra = options.extra
    return CheckConfig(shot_sets=shot_sets, samples=samples, seed=options.seed,
                       max_tokens=int(extra.get("chrono_max_tokens", options.max_tokens)),
                       chunk_size=int(extra.get("chunk_size", 1024)))


def solve_chrono(items: Sequence[BenchmarkItem], backend: Backend, options: EvalOptions, *,
                 shot_sets: int = 5, samples: int = 1, span: str | None = None,
                 progress: Callable[[int], None] | None = None) -> SolverOutput:
    """The knowledge check on ``items`` (all years of each fact), then ChroKnowPrompt on the
    Partial Known facts when ``span`` is total, previous or both (both = two traversals)."""
    spans = [] if span is None else (list(SPANS) if span == "both" else [span])
    if any(s not in SPANS for s in spans):
        raise ConfigError(f"span must be total, previous or both, not {span!r}")
    if not items:
        raise ConfigError("the benchmark has no items to evaluate")
    t0 = time.perf_counter()
    config = check_config(options, shot_sets=shot_sets, samples=samples)
    result = run_knowledge_check(items, backend, config, progress=progress)
    check_seconds = time.perf_counter() - t0
    prompt_results = [run_chronoprompt(result, items, backend, span=s, seed=options.seed,
                                       max_tokens=config.max_tokens, progress=progress) for s in spans]
    seconds = time.perf_counter() - t0
    curves = year_curves(result)
    categories = category_table(result)
    gains = gain_table(prompt_results)
    requests = result.requests + sum(p.requests for p in prompt_results)
    run_extra = {"chrono_check": "slick", "chrono_shot_sets": shot_sets, "chrono_requests": requests,
                 "chrono_check_seconds": round(check_seconds, 3), "chrono_facts": len(result.facts),
                 "chrono_spans": [p.span for p in prompt_results]}
    sections = {
        "Chronological categories (facts per template and temporal state)": markdown_table(categories),
        "Per-year categories": markdown_table([{"template": t, **c} for t, c in year_category_counts(result).items()]),
        "Knowledge check cost": markdown_table([{"requests": result.requests,
                                                 "before dedup": result.extra.get("requests_before_dedup"),
                                                 "fact x template": len(result.facts),
                                                 "seconds": round(check_seconds, 2)}]),
    }
    if prompt_results:
        sections["ChroKnowPrompt (Known % before/after, like the paper's Table 3)"] = markdown_table(gains)
    bench = ",".join(sorted({i.benchmark for i in items}))

    def finalize(run_dir: Path, run_id: str) -> None:
        plots = run_dir / "plots"
        plots.mkdir(parents=True, exist_ok=True)
        plot_year_curves(plots / "chrono_years.png", curves, f"{bench}: per-year knowledge ({options.model})")
        if categories:
            plot_categories(plots / "chrono_categories.png", categories, f"{bench}: chronological categories")
        with (run_dir / "report.md").open("a", encoding="utf-8") as md:
            md.write("\n## ChroKnow plots\n\n" + "\n".join(f"![{p.stem}](plots/{p.name})"
                                                         for p in sorted(plots.glob("chrono_*.png"))) + "\n")
        write_json(run_dir / "chrono.json", {
            "version": "1", "run_id": run_id, "benchmark": bench, "requests": requests,
            "check_requests_before_dedup": result.extra.get("requests_before_dedup"),
            "seconds": round(seconds, 3), "curves": curves, "categories": categories,
            "chronoprompt": gains, "facts": [asdict(f) for f in result.facts],
            "years": [asdict(y) for y in result.years],
            "traversals": [{"span": p.span, "record_id": t.record_id, "target": t.target,
                            "steps": [asdict(s) for s in t.steps], "candidates": t.candidates,
                            "chrono_correct": t.chrono_correct} for p in prompt_results for t in p.traversals]})
        log.info("chrono run %s: %d requests in %.1fs, report in %s", run_id, requests, seconds, run_dir)

    return SolverOutput(items=list(items), samples=list(result.samples), run_extra=run_extra,
                        sections=sections, finalize=finalize,
                        details={"check": result, "chronoprompt": prompt_results, "requests": requests,
                                 "seconds": seconds})


def evaluate_chrono_items(items: Sequence[BenchmarkItem], options: EvalOptions, store, *,
                          backend: Backend | None = None, name: str | None = None,
                          progress: Callable[[int], None] | None = None) -> ChronoOutcome:
    """The check (``options.extra["chronoprompt"]``, ``["span"]`` select ChroKnowPrompt) on
    ``items``, recorded as one run with its report; what ``knowforge eval --benchmark chrono:X``
    does for the default task."""
    from knowforge.eval.tasks import record_output

    extra = options.extra
    if backend is None:
        from knowforge.models.backends import make_backend

        backend = make_backend(options)
    items = limit_records(items, options.limit)
    span = (extra.get("span") or "total") if extra.get("chronoprompt") else None
    started = datetime.now(UTC).isoformat(timespec="seconds")
    output = solve_chrono(items, backend, options, shot_sets=int(extra.get("shot_sets", 5)),
                          samples=int(extra.get("samples", 1)), span=span, progress=progress)
    run_id, run_dir = record_output(store, options, output, name=name, started_at=started)
    return ChronoOutcome(run_id=run_id, report_dir=run_dir, requests=output.details["requests"],
                         seconds=output.details["seconds"])

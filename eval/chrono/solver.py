"""ChroKnow's solvers: ``chrono-check`` (the sampling-based knowledge check) and
``chronoprompt`` (the check, then ChroKnowPrompt on Partial Known facts).

``knowforge eval --benchmark chrono:NAME --solver chronoprompt -S span=both``. The engine
records the run (one Answer per sample, so answers slice by relation/year in Cypher); the
solver adds the ChroKnow pieces: ``chrono.json`` (every fact, year and traversal),
``plots/chrono_years.svg`` and ``plots/chrono_categories.svg``, and markdown tables in
``report.md``. The check's greedy answers are the run's verdict (``verdict_samples``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowforge.errors import ConfigError
from knowforge.eval.chrono.check import (CheckConfig, CheckResult, category_table, category_totals, item_template,
                                         run_knowledge_check, year_category_counts, year_curves)
from knowforge.eval.chrono.prompt import SPANS, PromptResult, gain_table, gain_totals, run_chronoprompt
from knowforge.eval.chrono.report import markdown_table, plot_categories, plot_year_curves, write_json
from knowforge.eval.metric_stats import Resample, format_number, is_percent, resampled_intervals, totals_intervals
from knowforge.eval.unit import CannotResample, MetricInput, SolveContext, SolverOutput, Totals
from knowforge.models.task import Component
from knowforge.models.types import BenchmarkItem

log = logging.getLogger(__name__)

CHECK = "chrono-check"              # the solver detail: the check's categories
CHRONOPROMPT = "chronoprompt"       # the solver detail: ChroKnowPrompt's traversals


class ChronoCheckArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    shot_sets: int = Field(5, ge=1)       # random 4-shot exemplar sets per (fact, year, template)
    samples: int = Field(1, ge=1)         # sampled (temperature 0.7) answers per exemplar set
    max_tokens: int | None = Field(None, ge=1)   # default: the run's --max-tokens (the paper: 50)
    chunk_size: int = Field(1024, ge=1)   # requests per backend call


class ChronoPromptArgs(ChronoCheckArgs):
    span: Literal["total", "previous", "both"] = "total"


def solve_chrono(items: Sequence[BenchmarkItem], ctx: SolveContext, args: ChronoCheckArgs,
                 span: str | None = None) -> SolverOutput:
    """The knowledge check on ``items`` (all years of each fact), then ChroKnowPrompt on the
    Partial Known facts when ``span`` is total, previous or both (both = two traversals)."""
    spans = [] if span is None else (list(SPANS) if span == "both" else [span])
    if any(s not in SPANS for s in spans):
        raise ConfigError(f"span must be total, previous or both, not {span!r}")
    if not items:
        raise ConfigError("the benchmark has no items to evaluate")
    options = ctx.options
    t0 = time.perf_counter()
    config = CheckConfig(shot_sets=args.shot_sets, samples=args.samples, seed=options.seed,
                         max_tokens=args.max_tokens or options.max_tokens, chunk_size=args.chunk_size)
    result = run_knowledge_check(items, ctx.backend, config, scoring=options.scoring, progress=ctx.progress)
    check_seconds = time.perf_counter() - t0
    prompt_results = [run_chronoprompt(result, items, ctx.backend, span=s, seed=options.seed,
                                       max_tokens=config.max_tokens, progress=ctx.progress) for s in spans]
    seconds = time.perf_counter() - t0
    curves = year_curves(result)
    categories = category_table(result)
    gains = gain_table(prompt_results)
    # the engine's resamples of the run's records (same units, same seed): these tables carry
    # the intervals of the task metrics chrono_categories and chronoprompt_gain
    interval = dict(items=items, key=ctx.unit_key, resamples=options.bootstrap, seed=options.seed)
    category_cells = with_intervals(categories, table_intervals(
        categories, lambda: category_totals(result),
        lambda sample: category_table(result.remap(sample.copies)), **interval))
    gain_cells = with_intervals(gains, table_intervals(
        gains, lambda: gain_totals(prompt_results, items),
        lambda sample: gain_table([p.remap(sample.copies) for p in prompt_results]), **interval))
    requests = result.requests + sum(p.requests for p in prompt_results)
    run_extra = {"chrono_check": "slick", "chrono_shot_sets": args.shot_sets, "verdict_samples": args.shot_sets,
                 "chrono_requests": requests,
                 "chrono_check_seconds": round(check_seconds, 3), "chrono_facts": len(result.facts),
                 "chrono_spans": [p.span for p in prompt_results]}
    sections = {
        "Chronological categories (facts per template and temporal state)": markdown_table(category_cells),
        "Per-year categories": markdown_table([{"template": t, **c} for t, c in year_category_counts(result).items()]),
        "Knowledge check cost": markdown_table([{"requests": result.requests,
                                                 "before dedup": result.extra.get("requests_before_dedup"),
                                                 "fact x template": len(result.facts),
                                                 "seconds": round(check_seconds, 2)}]),
    }
    if prompt_results:
        sections["ChroKnowPrompt (Known % before/after, like the paper's Table 3)"] = markdown_table(gain_cells)
    if options.bootstrap >= 2:
        sections["ChroKnow: how to read these tables"] = (
            "Shares in %, ± half the width of the 95% interval of a cluster bootstrap over records "
            f"({options.bootstrap} resamples; a record's years and templates are resampled together).")
    bench = ",".join(sorted({i.benchmark for i in items}))

    def finalize(run_dir: Path, run_id: str) -> None:
        plots = run_dir / "plots"
        plots.mkdir(parents=True, exist_ok=True)
        plot_year_curves(plots / "chrono_years.svg", curves, f"{bench}: per-year knowledge ({options.model})")
        if categories:
            plot_categories(plots / "chrono_categories.svg", categories, f"{bench}: chronological categories")
        with (run_dir / "report.md").open("a", encoding="utf-8") as md:
            md.write("\n## ChroKnow plots\n\n" + "\n".join(f"![{p.stem}](plots/{p.name})"
                                                         for p in sorted(plots.glob("chrono_*.svg"))) + "\n")
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
                        details={CHECK: result, CHRONOPROMPT: prompt_results})


def table_intervals(table: list[dict], totals: Callable[[], Totals], compute: Callable[[Resample], list[dict]], *,
                    items: Sequence[BenchmarkItem], key: str | None, resamples: int, seed: int) -> dict:
    """{(row label, field): estimate} of a table's shares from its totals, over arrays (the
    engine's draws, so the task metrics' very intervals); where the totals do not decompose over
    the run's units, from ``compute`` on object-level resamples (``resampled_intervals``)."""
    try:
        return totals_intervals(totals(), table, items, key, resamples=resamples, seed=seed)
    except CannotResample as exc:
        log.info("ChroKnow table intervals over objects: %s", exc)
        try:
            return resampled_intervals(compute, table, items, [], key, resamples=resamples, seed=seed)
        except CannotResample:
            return {}


def with_intervals(rows: Sequence[dict], estimates: dict) -> list[dict]:
    """Table rows with each "... %" share shown as ``50.0 ± 12.3`` (± half its 95% interval)."""
    out = []
    for row in rows:
        label = "[" + ", ".join(f"{k}={v}" for k, v in row.items() if isinstance(v, (str, bool)) or v is None) + "]"
        cells = dict(row)
        for key, value in row.items():
            if isinstance(value, float) and is_percent((key,)):
                est = estimates.get((label, key))
                cells[key] = format_number(value, est.ci if est is not None else None, percent=True,
                                           signed="gain" in key)
        out.append(cells)
    return out


@dataclass(frozen=True)
class ChronoSolver:
    """The knowledge check (and ChroKnowPrompt on Partial Known facts when ``span`` is set)."""

    component: Component
    args: ChronoCheckArgs
    span: str | None = None

    def solve(self, items: Sequence[BenchmarkItem], ctx: SolveContext) -> SolverOutput:
        return solve_chrono(items, ctx, self.args, span=self.span)


# --- task metrics ------------------------------------------------------------------------------
def metric_categories(data: MetricInput) -> list[dict] | None:
    check: CheckResult | None = data.detail
    if check is None:
        return None
    templates = {item_template(i) for i in data.items}
    return [row for row in category_table(check) if row.get("template") in templates]


def metric_chronoprompt_gain(data: MetricInput) -> list[dict] | None:
    results: list[PromptResult] | None = data.detail
    return gain_table(results) if results else None


def totals_categories(data: MetricInput) -> Totals:
    """``metric_categories`` as sums: its rows' Known % over the facts of the task's templates."""
    check: CheckResult | None = data.detail
    if check is None:
        return Totals([], [], {})
    return category_totals(check, {item_template(i) for i in data.items})


def totals_chronoprompt_gain(data: MetricInput) -> Totals:
    """``metric_chronoprompt_gain`` as sums, each fact on an item of its record in the task."""
    return gain_totals(data.detail or [], data.items)

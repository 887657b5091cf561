"""KnowGen (ALCUNA)'s evaluation side: the four prompting settings are generic; this unit adds
the ``no-context`` solver (zero-shot without the entity's passage, the same questions) and the
validity check that the passage matters: on the runs of a control model, KU accuracy with the
passage in context against the same questions without it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from knowforge.eval.results import run_answers
from knowforge.eval.solvers import solve_prompted
from knowforge.eval.unit import (EvalUnit, NoArgs, SolveContext, SolverOutput, SolverSpec, ValidityContext,
                                 ValiditySection, ValiditySpec)
from knowforge.eval.validity import MIN_GAP, markdown_table, pct
from knowforge.models.task import Component
from knowforge.models.types import BenchmarkItem

NO_CONTEXT = "no-context"
BENCHMARK_PREFIX = "knowgen:"


@dataclass(frozen=True)
class NoContextSolver:
    """The zero-shot prompt without the item's passage: derived in memory, answers recorded
    against the benchmark's own questions (which keep their passage)."""

    component: Component

    def solve(self, items: Sequence[BenchmarkItem], ctx: SolveContext) -> SolverOutput:
        bare = [i.model_copy(update={"context": None}) for i in items]
        return SolverOutput(items=bare, samples=solve_prompted(bare, "zero-shot", ctx),
                            run_extra={"context": "without"})


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def knowgen_rows(store, runs: Sequence[Mapping]) -> list[dict]:
    """Accuracy per question type of each KnowGen run, with whether the passage was in context
    (the ``no-context`` solver's runs are without it)."""
    out = []
    for run in runs:
        if not str(run.get("benchmark", "")).startswith(BENCHMARK_PREFIX):
            continue
        without = run.get("setting") == NO_CONTEXT
        groups: dict[tuple[str, str], list[float]] = defaultdict(list)
        for row in run_answers(store, run["id"]):
            q, a = row["question"], row["answer"]
            kind = (q.get("task") or "").split("/")[-1]
            context = "without" if without or not q.get("context") else "with"
            groups[(kind, context)].append(float(a.get("score") or 0.0))
        for (kind, context), scores in sorted(groups.items()):
            out.append({"run_id": run["id"], "setting": "zero-shot" if without else run.get("setting"),
                        "type": kind, "context": context, "samples": len(scores), "accuracy": _mean(scores)})
    return out


def knowgen_summary(rows: Sequence[Mapping]) -> dict:
    """KU with context vs without, in the same setting (zero-shot when present)."""
    ku = [r for r in rows if r["type"] == "KU"]
    settings = sorted({r["setting"] for r in ku if r["context"] == "without"}) or sorted({r["setting"] for r in ku})
    setting = "zero-shot" if "zero-shot" in settings else (settings[0] if settings else None)
    pick = {ctx: [r for r in ku if r["context"] == ctx and r["setting"] == setting] for ctx in ("with", "without")}
    acc = {ctx: _mean([r["accuracy"] for r in rs for _ in range(r["samples"])]) for ctx, rs in pick.items()}
    out = {"setting": setting, "ku_with_context": acc["with"], "ku_without_context": acc["without"],
           "gap": None, "flagged": False, "note": ""}
    if acc["with"] is None or acc["without"] is None:
        out["note"] = "needs KU runs with and without the passage in the same setting (solver no-context)"
    else:
        out["gap"] = acc["with"] - acc["without"]
        if out["gap"] < MIN_GAP:
            out["flagged"] = True
            # Say by how much: "does not raise" would be false for a small positive gap.
            points = 100 * out["gap"]
            out["note"] = (f"the passage in context raises KU accuracy by only {points:.1f} points "
                           f"(less than {100 * MIN_GAP:.0f})" if points > 0 else
                           f"the passage in context does not raise KU accuracy ({points:+.1f} points)")
    return out


def check(store, ctx: ValidityContext) -> ValiditySection | None:
    rows = knowgen_rows(store, ctx.runs)
    if not rows:
        return None
    summary = knowgen_summary(rows)
    markdown = ["## KnowGen: KU with the passage in context vs without", "",
                f"{summary['setting']}: with {pct(summary['ku_with_context'])}, "
                f"without {pct(summary['ku_without_context'])}" + (f" ({summary['note']})" if summary["note"] else ""),
                "", *markdown_table(rows), ""]
    flags = [f"KnowGen: {summary['note']}"] if summary["flagged"] else []
    return ValiditySection("KnowGen: KU with the passage in context vs without",
                           {"runs": rows, "summary": summary}, markdown, flags)


UNIT = EvalUnit(
    solvers=(SolverSpec(NO_CONTEXT, "KnowGen: zero-shot without the entity's passage (the same questions)", NoArgs,
                        lambda component, _args: NoContextSolver(component)),),
    validity=(ValiditySpec("knowgen", check),),
)

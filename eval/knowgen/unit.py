"""KnowGen (ALCUNA)'s evaluation side: the four prompting settings are generic; this unit adds
the ``no-context`` solver (zero-shot without the entity's passage, the same questions) and the
validity check that the passage matters: on the runs of a control model, KU accuracy with the
passage in context against the same questions without it, as a paired comparison with its
interval and test."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from knowforge.eval.results import run_answers
from knowforge.eval.run_stats import Units
from knowforge.eval.solvers import solve_prompted
from knowforge.eval.stats import child_seed, paired_difference
from knowforge.eval.unit import (EvalUnit, NoArgs, SolveContext, SolverOutput, SolverSpec, ValidityContext,
                                 ValiditySection, ValiditySpec)
from knowforge.eval.validity import MIN_GAP, in_percent, judge_gap, markdown_table, p_text, pct, pm
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


def _kind(question: Mapping) -> str:
    return (question.get("task") or "").split("/")[-1]


def knowgen_rows(runs: Sequence[Mapping], answers: Mapping[str, Sequence[Mapping]]) -> list[dict]:
    """Accuracy per question type of each KnowGen run, with whether the passage was in context
    (the ``no-context`` solver's runs are without it). ``answers``: run id -> its answer rows."""
    out = []
    for run in runs:
        without = run.get("setting") == NO_CONTEXT
        groups: dict[tuple[str, str], list[float]] = defaultdict(list)
        for row in answers[run["id"]]:
            q, a = row["question"], row["answer"]
            context = "without" if without or not q.get("context") else "with"
            groups[(_kind(q), context)].append(float(a.get("score") or 0.0))
        for (kind, context), scores in sorted(groups.items()):
            out.append({"run_id": run["id"], "setting": "zero-shot" if without else run.get("setting"),
                        "type": kind, "context": context, "samples": len(scores), "accuracy": _mean(scores)})
    return out


@dataclass(frozen=True)
class KuPair:
    """One KU question answered with its passage and without it (item accuracy in each)."""

    question: str
    unit: str
    with_context: float
    without_context: float


def ku_pairs(runs: Sequence[Mapping], answers: Mapping[str, Sequence[Mapping]]) -> tuple[str | None, list[KuPair]]:
    """The KU questions answered with the passage (zero-shot runs) and without it (the
    no-context solver's runs): (the setting, one pair per shared question), each question's
    latest run on each side. The unit is the run's ``cluster_key`` (the artificial entity)."""
    sides: dict[str, dict[str, tuple[str, list[float]]]] = {"with": {}, "without": {}}
    for run in runs:                                   # oldest first: a later run replaces an earlier one
        without = run.get("setting") == NO_CONTEXT
        if not without and run.get("setting") != "zero-shot":
            continue
        units = Units(run.get("cluster_key"))
        scores: dict[str, tuple[str, list[float]]] = {}
        for row in answers[run["id"]]:
            q, a = row["question"], row["answer"]
            if _kind(q) != "KU" or (not without and not q.get("context")):
                continue
            scores.setdefault(q["id"], (units.of(q), []))[1].append(float(a.get("score") or 0.0))
        sides["without" if without else "with"].update(scores)
    shared = sorted(set(sides["with"]) & set(sides["without"]))
    pairs = [KuPair(qid, sides["with"][qid][0], _mean(sides["with"][qid][1]), _mean(sides["without"][qid][1]))
             for qid in shared]
    return ("zero-shot" if pairs else None), pairs


def knowgen_summary(pairs: Sequence[KuPair], setting: str | None = "zero-shot", *, resamples: int = 1000,
                    seed: int = 0) -> dict:
    """KU with the passage in context vs without it, on the same questions: the paired
    difference over units (``stats.paired_difference``: a paired bootstrap interval, McNemar's
    test when every unit is one right/wrong question, else a sign-flip test) and the verdict
    (``validity.judge_gap``): flagged when the interval includes 0, lies below 0, or lies wholly
    below ``MIN_GAP``."""
    out = {"setting": setting, "questions": len(pairs), "ku_with_context": None, "ku_without_context": None,
           "gap": None, "ci": None, "p_value": None, "test": None, "units": 0,
           "comparison": "paired: the same KU questions with and without the passage; interval: a paired "
                         "bootstrap over units",
           "excludes_zero": None, "flagged": False, "note": ""}
    if not pairs:
        out["note"] = "needs KU runs with and without the passage in the same setting (solver no-context)"
        return out
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for p in pairs:
        row = sums[p.unit]
        row[0] += p.with_context
        row[1] += p.without_context
        row[2] += 1
    keys = sorted(sums)
    result = paired_difference([sums[k][0] for k in keys], [sums[k][1] for k in keys], [sums[k][2] for k in keys],
                               resamples=resamples, seed=seed)
    ci = list(result.difference.ci) if result.difference.ci else None
    out.update(ku_with_context=result.a, ku_without_context=result.b, gap=result.difference.estimate, ci=ci,
               p_value=result.p_value, test=result.test, units=len(keys))
    verdict = judge_gap(out["gap"], ci, target=MIN_GAP, p_value=result.p_value, stderr=result.difference.stderr,
                        units=len(keys))
    out.update(excludes_zero=verdict["excludes_zero"], flagged=verdict["flagged"],
               underpowered=verdict.get("underpowered"), units_needed=verdict.get("units_needed"),
               note=f"the passage in context changes KU accuracy: {verdict['verdict']}")
    return out


def check(store, ctx: ValidityContext) -> ValiditySection | None:
    runs = [r for r in ctx.runs if str(r.get("benchmark", "")).startswith(BENCHMARK_PREFIX)]
    if not runs:
        return None
    answers = {r["id"]: run_answers(store, r["id"]) for r in runs}
    rows = knowgen_rows(runs, answers)
    setting, pairs = ku_pairs(runs, answers)
    summary = knowgen_summary(pairs, setting, seed=child_seed(0, "validity", "knowgen"))
    markdown = ["## KnowGen: KU with the passage in context vs without", "",
                f"{summary['setting']}, {summary['questions']} KU questions answered both ways "
                f"({summary['units']} units): with {pct(summary['ku_with_context'])}, "
                f"without {pct(summary['ku_without_context'])}, gap {pm(summary['gap'], summary['ci'])} points "
                f"(p {p_text(summary['p_value'])}, {summary['test'] or '-'}; {summary['comparison']}). "
                + (summary["note"] or ""), "", *markdown_table(in_percent(rows, ("accuracy",))), ""]
    flags = [f"KnowGen: {summary['note']}"] if summary["flagged"] else []
    return ValiditySection("KnowGen: KU with the passage in context vs without",
                           {"runs": rows, "summary": summary}, markdown, flags)


UNIT = EvalUnit(
    solvers=(SolverSpec(NO_CONTEXT, "KnowGen: zero-shot without the entity's passage (the same questions)", NoArgs,
                        lambda component, _args: NoContextSolver(component)),),
    validity=(ValiditySpec("knowgen", check),),
)

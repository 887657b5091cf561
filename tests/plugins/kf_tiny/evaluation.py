"""The evaluation side of the plug-in method, declared the way a built-in method's
``eval/<m>/`` unit is: a solver, a metric, a scorer with an official mode, an official
answer-file writer and a validity check. No registration call: the method's ``evaluation``
reference names this unit."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from knowforge.api import (EvalUnit, MetricSpec, RunExport, RunExportSpec, Score, ScorerSpec, SolverOutput, SolverSpec,
                           ValiditySection, ValiditySpec, accuracy, run_answers, solve_prompted)


class HintArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    hint: str = "Add the two numbers."


@dataclass(frozen=True)
class HintSolver:
    """The zero-shot prompt with a hint line in front of every question."""

    component: object
    args: HintArgs

    def solve(self, items, ctx) -> SolverOutput:
        hinted = [i.model_copy(update={"question": f"{self.args.hint}\n{i.question}"}) for i in items]
        return SolverOutput(items=hinted, samples=solve_prompted(hinted, "zero-shot", ctx))


def sum_accuracy(data) -> float | None:
    """Accuracy on the generation ("sum") items only."""
    sums = {i.id for i in data.items if i.slices.get("kind") == "sum"}
    return accuracy(s.score for s in data.samples if s.item_id in sums and s.sample_index == 0)


def score_sum(item, response: str) -> Score:
    """Ours: the first number anywhere in the answer."""
    found = re.search(r"-?\d+", response or "")
    parsed = found.group(0) if found else None
    return Score(value=1.0 if parsed == item.answers[0] else 0.0, answer=parsed, explanation="first number")


def score_sum_official(item, response: str) -> Score:
    """The "released script": the stripped answer must be exactly the sum."""
    parsed = (response or "").strip()
    return Score(value=1.0 if parsed == item.answers[0] else 0.0, answer=parsed, explanation="exact string")


def write_answers(run, out: Path, args, store) -> RunExport:
    """answers.json: every sample of every question, as the "official script" reads it."""
    out.mkdir(parents=True, exist_ok=True)
    rows = [{"q": s.item.question, "a": s.item.answers[0], "sample": s.sample_index, "response": s.raw}
            for s in run.samples]
    path = out / "answers.json"
    path.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return RunExport(run.run_id, "tiny-answers", files=[path], counts={"answers.json": len(rows)})


def sums_vs_checks(store, ctx) -> ValiditySection | None:
    """Accuracy of the plug-in's runs of the control model on sums vs checks."""
    rows = []
    for run in ctx.runs:
        if not str(run.get("benchmark", "")).startswith("tiny:"):
            continue
        answers = run_answers(store, run["id"])
        by_kind: dict[str, list[float]] = {}
        for row in answers:
            by_kind.setdefault(row["question"].get("slice_kind"), []).append(float(row["answer"]["score"] or 0))
        rows.append({"run": run["id"], **{k: sum(v) / len(v) for k, v in sorted(by_kind.items())}})
    if not rows:
        return None
    return ValiditySection("Tiny: sums vs checks", {"runs": rows},
                           ["## Tiny: sums vs checks", "", *(f"- {r}" for r in rows), ""],
                           flags=["Tiny: the sums are only a test"])


UNIT = EvalUnit(
    solvers=(SolverSpec("tiny-hint", "zero-shot with a hint line (-S hint=TEXT)", HintArgs, HintSolver),),
    metrics=(MetricSpec("tiny_sum_accuracy", sum_accuracy, "accuracy on the sums", scale="share"),),
    scorers=(ScorerSpec("tiny-sum", score_sum, official=score_sum_official, description="the sum"),),
    run_exports=(RunExportSpec("tiny-answers", "every answer as answers.json", write_answers),),
    validity=(ValiditySpec("tiny", sums_vs_checks),),
)

"""The evaluation side of the plug-in method, declared the way a built-in method's ``eval/<m>/``
unit is: a solver, two metrics (one of them named ``accuracy`` like knowforge's own, so the
registry namespaces it as ``birthyear:accuracy``), a scorer with an official mode, an official
answer-file writer, the scoring of such files and a validity check. No registration call: the
method's ``evaluation`` reference names this unit."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from knowforge.api import (EvalUnit, FileScoringSpec, MetricSpec, RunExport, RunExportSpec, Score, ScorerSpec,
                           SolverOutput, SolverSpec, ValiditySection, ValiditySpec, accuracy, run_answers,
                           solve_prompted)

_NUMBER = re.compile(r"-?\d{1,4}")


class HintArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    hint: str = "Answer with a year."


@dataclass(frozen=True)
class HintSolver:
    """The zero-shot prompt with a hint line in front of every question."""

    component: object
    args: HintArgs

    def solve(self, items, ctx) -> SolverOutput:
        hinted = [i.model_copy(update={"question": f"{self.args.hint}\n{i.question}"}) for i in items]
        return SolverOutput(items=hinted, samples=solve_prompted(hinted, "zero-shot", ctx))


def _year_samples(data):
    years = {i.id: i for i in data.items if i.form == "generation"}
    return [(years[s.item_id], s) for s in data.samples if s.item_id in years and s.sample_index == 0]


def year_accuracy(data) -> float | None:
    """Accuracy on the year ("In what year ...") questions only."""
    return accuracy(s.score for _, s in _year_samples(data))


def year_error(data) -> float | None:
    """Mean absolute error in years over the year answers that name a year (None: none do)."""
    errors = [abs(int(s.parsed) - int(item.answers[0])) for item, s in _year_samples(data)
              if s.parsed is not None and _NUMBER.fullmatch(s.parsed)]
    return sum(errors) / len(errors) if errors else None


def score_year(item, response: str) -> Score:
    """Ours: the first number of up to four digits anywhere in the answer."""
    found = _NUMBER.search(response or "")
    parsed = found.group(0) if found else None
    return Score(value=1.0 if parsed == item.answers[0] else 0.0, answer=parsed, explanation="first year")


def score_year_official(item, response: str) -> Score:
    """The "released script": the stripped answer must be exactly the year."""
    parsed = (response or "").strip()
    return Score(value=1.0 if parsed == item.answers[0] else 0.0, answer=parsed, explanation="exact string")


def write_answers(run, out: Path, args, store) -> RunExport:
    """answers.json: every sample of every question, as the "official script" reads it."""
    out.mkdir(parents=True, exist_ok=True)
    rows = [{"q": s.item.question, "a": s.item.answers[0], "sample": s.sample_index, "response": s.raw}
            for s in run.samples]
    path = out / "answers.json"
    path.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return RunExport(run.run_id, "birthyear-answers", files=[path], counts={"answers.json": len(rows)})


def _right(response: str | None, gold: str, scoring: str) -> bool:
    """A year by the scorer's rule in the mode; a yes/no gold by the stripped, lower-cased answer."""
    if scoring == "official" or not _NUMBER.fullmatch(gold):
        return (response or "").strip().lower() == gold.lower()
    found = _NUMBER.search(response or "")
    return found is not None and found.group(0) == gold


def score_answer_files(files, scoring: str) -> list[dict]:
    """One row per answers.json: how many of its first samples are right, by the mode's rule."""
    rows = []
    for path in files:
        answers = [a for a in json.loads(Path(path).read_text(encoding="utf-8")) if a["sample"] == 0]
        right = [_right(a["response"], a["a"], scoring) for a in answers]
        rows.append({"file": str(path), "answers": len(answers), "right": sum(right),
                     "accuracy": sum(right) / len(right) if right else None})
    return rows


def answer_table(rows: list[dict], scoring: str):
    from rich.table import Table

    table = Table(title=f"birth years ({scoring})")
    for column in ("file", "answers", "right", "accuracy"):
        table.add_column(column)
    for row in rows:
        table.add_row(*(str(row[c]) for c in ("file", "answers", "right", "accuracy")))
    return table


def years_vs_checks(store, ctx) -> ValiditySection | None:
    """Accuracy of the plug-in's runs of the control model on year questions vs yes/no checks."""
    rows = []
    for run in ctx.runs:
        if not str(run.get("benchmark", "")).startswith("birthyear:"):
            continue
        by_form: dict[str, list[float]] = {}
        for row in run_answers(store, run["id"]):
            by_form.setdefault(row["question"].get("form"), []).append(float(row["answer"]["score"] or 0))
        rows.append({"run": run["id"], **{k: sum(v) / len(v) for k, v in sorted(by_form.items())}})
    if not rows:
        return None
    return ValiditySection("Birth years: years vs checks", {"runs": rows},
                           ["## Birth years: years vs checks", "", *(f"- {r}" for r in rows), ""],
                           flags=["Birth years: a test plug-in"])


UNIT = EvalUnit(
    solvers=(SolverSpec("birthyear-hint", "zero-shot with a hint line (-S hint=TEXT)", HintArgs, HintSolver),),
    metrics=(MetricSpec("accuracy", year_accuracy, "accuracy on the year questions", scale="share"),
             MetricSpec("year_error", year_error, "mean absolute error of the years named", scale="years")),
    scorers=(ScorerSpec("birthyear-year", score_year, official=score_year_official, description="a year"),),
    run_exports=(RunExportSpec("birthyear-answers", "every answer as answers.json", write_answers),),
    file_scorings=(FileScoringSpec("birthyear", "answers.json files (knowforge export run --format "
                                   "birthyear-answers)", score_answer_files, answer_table),),
    validity=(ValiditySpec("birthyear", years_vs_checks),),
)

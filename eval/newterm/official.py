"""NewTerm's official files: a recorded run written as the result files ``get_results.py``
reads, and result files scored the way it scores them.

``evaluation.py`` asks every line of ``benchmark_{year}/{TASK}_clean.jsonl`` under each of the
three phrasings and writes ``results_{year}/{TASK}_{model}{suffix}.jsonl``, one line per
phrasing with its ``prompt_id``; the suffix is "" for Base and "_gold" for Gold. A run is
written the same way, every sample: the human-filtered (``*_clean``) items under
``OUT/clean/``, the others under ``OUT/raw/`` (the script names files by the base task, so the
two sets need folders of their own), the run's own setting and, for a Gold run that also asked
Base (its variant answers), both files.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from rich.table import Table

from knowforge.errors import InputError
from knowforge.eval.newterm.rules import TASKS, result_row, results_path, score_results, write_results
from knowforge.eval.unit import RecordedRun, RunExport

SETS = {"clean": "clean", "raw": "raw"}


class ResultsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    year: int | None = None      # the year of items that carry none
    model: str | None = None     # the model name in the file names (default: the run's model)


def _set_of(task: str) -> str:
    return "clean" if task.endswith("_clean") else "raw"


def write_run_results(run: RecordedRun, out: Path, args: ResultsArgs, store=None) -> RunExport:
    """Every sample of a NewTerm run as result files (see the module docstring)."""
    export = RunExport(run.run_id, "newterm-results")
    setting = run.run.get("newterm_setting") or "base"
    model = args.model or run.run.get("model") or "model"
    per_file: dict[Path, list[tuple[str, int, dict]]] = defaultdict(list)
    for sample in run.samples:
        item = sample.item
        task = item.task.split("/")[-1]
        base = task.removesuffix("_clean")
        if item.scorer not in ("newterm-choice", "newterm-csj") or base not in TASKS:
            export.skipped["not a NewTerm question"] = export.skipped.get("not a NewTerm question", 0) + 1
            continue
        year = item.slices.get("year", args.year)
        if year is None:
            raise InputError(f"question {item.id} has no year: pass -O year=YEAR")
        prompt = sample.variant or setting
        path = results_path(out / SETS[_set_of(task)], year, base, model, prompt)
        row = result_row(item, sample.raw)
        row["prompt_id"] = sample.sample_index
        per_file[path].append((item.id, sample.sample_index, row))
    for path, rows in sorted(per_file.items()):
        # the release's line order (question ids follow it), each line's phrasings together
        rows.sort(key=lambda r: (r[0], r[1]))
        export.files.append(write_results(path, [r for _, _, r in rows]))
        export.counts[str(path.relative_to(out))] = len(rows)
    if not export.files:
        raise InputError(f"run {run.run_id} has no NewTerm questions (scorers newterm-choice, newterm-csj)")
    return export


def score_files(paths: Sequence[Path], mode: str) -> list[dict]:
    return score_results(paths, mode)


def results_table(rows: list[dict], mode: str) -> Table:
    table = Table(title=f"NewTerm · scoring {mode}")
    for col in ("model", "prompt", *TASKS, "average"):
        table.add_column(col, justify="left" if col in ("model", "prompt") else "right")
    for row in rows:
        table.add_row(row["model"], row["prompt"],
                      *["-" if row.get(t) is None else f"{row[t]:.2f}" for t in (*TASKS, "average")])
    return table

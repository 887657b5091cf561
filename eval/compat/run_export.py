"""A recorded run written as the files the official scoring scripts read.

* ``helm``: ELKEN's ``request_states`` files (``eval.compat.helm``) from a run over ELKEN-style
  items (events benchmarks, or the released file read with ``elken.read_official``):
  ``fact.json`` and ``tendency_mc.json`` from the run; ``fact_local.json`` and
  ``tendency_mc_local.json`` (the out-of-scope questions before the edit) from a second run
  over the same items without the edit (``knowforge eval ... --solver no-edit``), given as
  ``before``.
* ``newterm-results``: ``results_{year}/{TASK}_{model}{suffix}.jsonl`` for ``get_results.py``
  from a run over NewTerm items.

Only sample 0 of each question is written: the official files hold one answer per question.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from knowforge.errors import InputError
from knowforge.eval.compat import helm, newterm
from knowforge.eval.results import load_run, run_answers
from knowforge.models.types import BenchmarkItem

log = logging.getLogger(__name__)

EXPORT_FORMATS = ("helm", "newterm-results")


@dataclass
class RunExport:
    run_id: str
    format: str
    files: list[Path] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _first_answers(store, run_id: str) -> list[tuple[BenchmarkItem, dict]]:
    """(item rebuilt from its Question node, sample-0 answer) of a run, by question id."""
    out = []
    for row in run_answers(store, run_id):
        answer = row["answer"]
        if answer.get("sample_index", 0) != 0:
            continue
        out.append((question_item(row["question"]), answer))
    return out


def question_item(question: Mapping) -> BenchmarkItem:
    """The ``BenchmarkItem`` of a :Question node: its ``item_json`` (the whole item, as the
    question writer stores it), else rebuilt from the other properties."""
    if question.get("item_json"):
        return BenchmarkItem.model_validate_json(question["item_json"])
    slices = {k[len("slice_"):]: v for k, v in question.items() if k.startswith("slice_")}
    return BenchmarkItem(
        id=question["id"], benchmark=question.get("benchmark") or "", task=question.get("task") or "",
        form=question.get("form") or "generation", question=question.get("text") or "",
        context=question.get("context"), choices=list(question.get("choices") or []),
        answers=list(question.get("answers") or []), answer_index=question.get("answer_index"),
        unknown=bool(question.get("unknown")), scorer=question.get("scorer") or "fuzzy",
        slices=slices, metadata=json.loads(question.get("metadata_json") or "{}"))


def export_run(store, run_id: str, out_dir: str | Path, fmt: str, *, before: str | None = None,
               year: int | None = None, prompt: str | None = None) -> RunExport:
    """Write run ``run_id`` in format ``fmt`` into ``out_dir``; see the module docstring."""
    if fmt not in EXPORT_FORMATS:
        raise InputError(f"unknown format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    load_run(store, run_id)
    if fmt == "helm":
        return _export_helm(store, run_id, Path(out_dir), before)
    return _export_newterm(store, run_id, Path(out_dir), year, prompt)


# --- ELKEN ----------------------------------------------------------------------------------------
def _elken_answers(store, run_id: str, export: RunExport) -> tuple[list[BenchmarkItem], dict[str, str | None]]:
    items, texts = [], {}
    for item, answer in _first_answers(store, run_id):
        reason = ("not_an_elken_question" if helm.part_of(item) is None
                  else "no_event" if helm.event_text(item) is None else None)
        if reason:
            export.skipped[reason] = export.skipped.get(reason, 0) + 1
            continue
        items.append(item)
        texts[item.id] = answer.get("raw")
    return items, texts


def _export_helm(store, run_id: str, out: Path, before: str | None) -> RunExport:
    export = RunExport(run_id, "helm")
    items, after = _elken_answers(store, run_id, export)
    if not items:
        raise InputError(f"run {run_id} has no ELKEN fact or tendency questions (scorers elken-fact, "
                         "elken-tendency) to export")
    before_texts = None
    if before is not None:
        load_run(store, before)
        before_texts = _elken_answers(store, before, RunExport(before, "helm"))[1]
    try:
        written = helm.write_item_files(out, items, after, before_texts)
    except InputError as exc:
        raise InputError(f"{exc} in run {before}; give a run over the same items") from exc
    for kind, path in written.items():
        export.files.append(path)
        export.counts[kind] = len(helm.read_request_states(path))
    for part, local_kind in (("fact", helm.FACT_LOCAL), ("tendency", helm.TENDENCY_LOCAL)):
        if local_kind not in written and any(helm.part_of(i) == part and helm.is_local(i) for i in items):
            export.notes.append(f"{local_kind}.json not written: give the run without the edit "
                                "(--before RUN) to score locality")
    if helm.FACT_LOCAL in written:
        texts = [s["instance"]["input"]["text"] for s in helm.read_request_states(written[helm.FACT_LOCAL])]
        repeated = len(texts) - len(set(texts))
        if repeated:
            export.notes.append(f"{repeated} out-of-scope fact questions repeat a question text; "
                                "metric.py's compute_locality asserts each occurs once and stops")
    return export


# --- NewTerm --------------------------------------------------------------------------------------
def _export_newterm(store, run_id: str, out: Path, year: int | None, prompt: str | None) -> RunExport:
    run = load_run(store, run_id)
    prompt = prompt or run.get("newterm_prompt") or "base"
    export = RunExport(run_id, "newterm-results")
    per_file: dict[Path, list[dict]] = defaultdict(list)
    for item, answer in _first_answers(store, run_id):
        task = item.task.split("/")[-1]
        if item.scorer not in ("newterm-choice", "newterm-csj") or task not in newterm.TASKS:
            export.skipped["not_a_newterm_question"] = export.skipped.get("not_a_newterm_question", 0) + 1
            continue
        item_year = item.slices.get("year", year)
        if item_year is None:
            raise InputError(f"question {item.id} has no year: pass --year")
        path = newterm.results_path(out, item_year, task, run.get("model") or "model", prompt)
        per_file[path].append(newterm.result_row(item, answer.get("raw")))
    for path, lines in sorted(per_file.items()):
        export.files.append(newterm.write_results(path, lines))
        export.counts[path.name] = len(lines)
    if not export.files:
        raise InputError(f"run {run_id} has no NewTerm questions (scorers newterm-choice, newterm-csj)")
    return export

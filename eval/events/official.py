"""ELKEN's official files: a recorded editing run written as the HELM-style ``request_states``
files ``metric.py`` reads, the prediction files scored as it scores them, and how lm-eval reads
an ELKEN fact question.

A run holds every request state itself: its answers with the edit (``fact.json``,
``tendency_mc.json``, in and out of scope), its variant answers without it
(``fact_local.json``, ``tendency_mc_local.json`` for the out-of-scope questions) and, with a
judge, the judged open answers (``tendency_gen_exam.json``, which ``metric.py``'s
``MetricForAutoEval`` and ``overall_event_level_metric.py`` read), so one run gives every file. An older run without variant answers still takes ``-O before=RUN``, a no-edit
run over the same questions.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from rich.table import Table

from knowforge.errors import InputError
from knowforge.eval.events import helm
from knowforge.eval.lm_eval_export import FIRST_LINE, unique_targets
from knowforge.eval.run_export import read_recorded_run
from knowforge.eval.unit import LmEvalKind, RecordedRun, RunExport
from knowforge.models.types import BenchmarkItem

NO_EDIT = "no-edit"     # the variant name of the answers without the edit
TENDENCY_G = "Tendency-G (LLM judge)"   # the report section an editing run with a judge stores

# --- lm-eval ------------------------------------------------------------------------------------
_FIRST = {"function": "regex", "regex_pattern": FIRST_LINE, "group_select": 0, "fallback": ""}
ELKEN = LmEvalKind("elken", "generate_until",
                   "ELKEN's rule as knowforge scores it: first non-empty line, lower-case, one trailing period "
                   "dropped, exact match with aliases + name",
                   filters=(_FIRST,), match={"ignore_case": True, "regexes_to_ignore": [r"\.$"]})
ELKEN_UNKNOWN = LmEvalKind("elken_unknown", "generate_until",
                           "ELKEN, deleted fact: right iff the first non-empty line contains 'unknown'",
                           filters=(_FIRST, {"function": "regex", "regex_pattern": "(?i)(unknown)", "group_select": 0,
                                             "fallback": "[invalid]"}),
                           match={"ignore_case": True})


def fact_lm_eval(item: BenchmarkItem):
    if item.unknown:
        return ELKEN_UNKNOWN, {"targets": ["unknown"]}
    # lm-eval lower-cases and drops the period itself; first line and strip it cannot do on a gold
    targets = unique_targets([a.split("\n")[0].strip() for a in item.answers])
    return (ELKEN, {"targets": targets}) if targets else "no gold answer"


# --- run export -------------------------------------------------------------------------------------
class HelmArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    before: str | None = None     # a no-edit run over the same questions (runs without variants)


def write_helm(run: RecordedRun, out: Path, args: HelmArgs, store) -> RunExport:
    export = RunExport(run.run_id, "helm")
    items, after = _elken_answers(run.own, export)
    if not items:
        raise InputError(f"run {run.run_id} has no ELKEN fact or tendency questions (scorers elken-fact, "
                         "elken-tendency) to export")
    before = {s.item.id: s.raw for s in run.samples if s.variant == NO_EDIT and s.sample_index == 0} or None
    if before is None and run.run.get("editing_method") == "none":
        before = dict(after)          # a no-edit run's answers are the answers before any edit
    if before is None and args.before is not None:
        before = helm_before(store, args.before)
    try:
        written = helm.write_item_files(out, items, after, before)
    except InputError as exc:
        raise InputError(f"{exc}; give a run over the same items") from exc
    for kind, path in written.items():
        export.files.append(path)
        export.counts[kind] = len(helm.read_request_states(path))
    for part, local_kind in (("fact", helm.FACT_LOCAL), ("tendency", helm.TENDENCY_LOCAL)):
        if local_kind not in written and any(helm.part_of(i) == part and helm.is_local(i) for i in items):
            export.notes.append(f"{local_kind}.json not written: the run has no answers without the edit "
                                "(run it with an editing solver, or give -O before=RUN)")
    exams = judged_states(run)
    if exams:
        path = helm.write_request_states(out / f"{helm.TENDENCY_EXAM}.json", exams, helm.TENDENCY_EXAM)
        export.files.append(path)
        export.counts[helm.TENDENCY_EXAM] = len(exams)
    if helm.FACT_LOCAL in written:
        texts = [s["instance"]["input"]["text"] for s in helm.read_request_states(written[helm.FACT_LOCAL])]
        repeated = len(texts) - len(set(texts))
        if repeated:
            export.notes.append(f"{repeated} out-of-scope fact questions repeat a question text; "
                                "metric.py's compute_locality asserts each occurs once and stops")
    return export


def judged_states(run: RecordedRun) -> list[dict]:
    """The judge's exam request states a run with Tendency-G stored in its report section."""
    sections = run.run.get("report_sections_json")
    if not sections:
        return []
    judged = json.loads(sections).get(TENDENCY_G) or {}
    return list(judged.get("exam_states") or [])


def _elken_answers(samples, export: RunExport) -> tuple[list[BenchmarkItem], dict[str, str | None]]:
    items, texts = [], {}
    for sample in samples:
        if sample.sample_index != 0:
            continue
        item = sample.item
        reason = ("not an ELKEN question" if helm.part_of(item) is None
                  else "no event" if helm.event_text(item) is None else None)
        if reason:
            export.skipped[reason] = export.skipped.get(reason, 0) + 1
            continue
        items.append(item)
        texts[item.id] = sample.raw
    return items, texts


def helm_before(store, run_id: str) -> dict[str, str | None]:
    """The first answers of a no-edit run, by question id."""
    return _elken_answers(read_recorded_run(store, run_id).own, RunExport(run_id, "helm"))[1]


# --- prediction files ----------------------------------------------------------------------------------
def score_files(paths, mode: str) -> list[dict]:
    return helm.score_files(paths, mode)


def _pct(value, scale: float = 100.0) -> str:
    return "-" if value is None else f"{scale * value:.2f}"


def files_table(rows: list[dict], mode: str) -> Table:
    table = Table(title=f"ELKEN metrics · scoring {mode}")
    for col in ("file", "kind", "accuracy", "edit level", "locality", "known / unknown", "event level"):
        table.add_column(col, justify="left" if col in ("file", "kind") else "right")
    for row in rows:
        acc = row.get("accuracy", {})
        split = (f"{_pct(acc.get('known_acc'))} / {_pct(acc.get('unknown_acc'))}" if "known_acc" in acc else "-")
        judge = row.get("judge")
        table.add_row(Path(row["file"]).name, row["kind"],
                      _pct(acc.get("overall_acc")) if acc else f"full mark {_pct(judge['full_mark'])}",
                      _pct(row.get("event_accuracy", {}).get("overall_acc")),
                      _pct(row.get("locality", {}).get("overall_consistency")), split,
                      _pct((row.get("overall_event_level") or {}).get("percent"), scale=1))
    return table

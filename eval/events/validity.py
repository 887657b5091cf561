"""ELKEN in the validity report: each editing method against no edit, on the runs of one
control model. A method that puts the right event in context (ICE) should beat the unedited
model on in-scope fact questions; when it does not, the benchmark (or the model) is flagged."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence

from knowforge.eval.results import run_answers
from knowforge.eval.unit import ValidityContext, ValiditySection
from knowforge.eval.validity import markdown_table, pct


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _event(question: Mapping) -> str:
    try:
        meta = json.loads(question.get("metadata_json") or "{}")
    except ValueError:
        meta = {}
    return str(meta.get("event_id", question["id"]))


def elken_rows(store, runs: Sequence[Mapping]) -> list[dict]:
    """Per editing run: question- and edit-level reliability from its answers (in-scope fact
    questions), locality as recorded on the run."""
    out = []
    for run in runs:
        method = run.get("editing_method")
        if not method:
            continue
        inside: list[float] = []
        events: dict[str, list[bool]] = defaultdict(list)
        for row in run_answers(store, run["id"]):
            q, a = row["question"], row["answer"]
            tendency = (q.get("slice_part") or ("tendency" if q.get("scorer") == "elken-tendency" else "fact")) \
                == "tendency"
            if int(a.get("sample_index") or 0) != 0 or q.get("slice_scope", "in") != "in" or tendency:
                continue
            score = float(a.get("score") or 0.0)
            inside.append(score)
            events[_event(q)].append(score >= 1.0)
        out.append({"run_id": run["id"], "benchmark": run.get("benchmark"), "method": method,
                    "in-scope questions": len(inside), "question-level reliability": _mean(inside),
                    "edit-level reliability": _mean([float(all(v)) for v in events.values()]),
                    "locality": run.get("locality")})
    return out


def elken_summary(rows: Sequence[Mapping]) -> list[dict]:
    """ICE (and every other method) against no edit, per benchmark (latest run of each)."""
    latest: dict[tuple[str, str], Mapping] = {}
    for r in rows:
        latest[(r["benchmark"], r["method"])] = r
    out = []
    for bench in sorted({b for b, _ in latest}):
        base = latest.get((bench, "none"))
        for (b, method), r in sorted(latest.items()):
            if b != bench or method == "none":
                continue
            entry = {"benchmark": bench, "method": method,
                     "reliability": r["question-level reliability"],
                     "no edit": base["question-level reliability"] if base else None}
            entry["gain"] = (entry["reliability"] - entry["no edit"]
                             if entry["reliability"] is not None and entry["no edit"] is not None else None)
            entry["flagged"] = method == "ice" and entry["gain"] is not None and entry["gain"] <= 0
            out.append(entry)
    return out


def check(store, ctx: ValidityContext) -> ValiditySection | None:
    rows = elken_rows(store, ctx.runs)
    if not rows:
        return None
    summary = elken_summary(rows)
    flags = [f"ELKEN {e['benchmark']}: ICE is not above no edit ({pct(e['reliability'])} vs {pct(e['no edit'])})"
             for e in summary if e["flagged"]]
    markdown = ["## ELKEN: editing methods vs no edit", "", *markdown_table(rows), "", *markdown_table(summary), ""]
    return ValiditySection("ELKEN: editing methods vs no edit", {"runs": rows, "summary": summary}, markdown, flags)

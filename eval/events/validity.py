"""ELKEN in the validity report: each editing method against no edit, on the runs of one
control model. A method that puts the right event in context (ICE) should beat the unedited
model on in-scope fact questions; when the paired interval of ICE − no edit does not lie above
0, the benchmark (or the model) is flagged, saying whether the interval excludes zero."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence

from knowforge.eval.results import run_answers
from knowforge.eval.stats import child_seed, paired_difference
from knowforge.eval.unit import ValidityContext, ValiditySection
from knowforge.eval.validity import judge_gap, markdown_table, p_text, pct, pm


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _event(question: Mapping) -> str:
    try:
        meta = json.loads(question.get("metadata_json") or "{}")
    except ValueError:
        meta = {}
    return str(meta.get("event_id", question["id"]))


def _scores(rows: Sequence[Mapping]) -> dict[str, tuple[str, float]]:
    """In-scope fact questions of a run: question id -> (its event, the first sample's score)."""
    out = {}
    for row in rows:
        q, a = row["question"], row["answer"]
        tendency = (q.get("slice_part") or ("tendency" if q.get("scorer") == "elken-tendency" else "fact")) \
            == "tendency"
        if int(a.get("sample_index") or 0) != 0 or q.get("slice_scope", "in") != "in" or tendency:
            continue
        out[q["id"]] = (_event(q), float(a.get("score") or 0.0))
    return out


def elken_rows(store, runs: Sequence[Mapping]) -> tuple[list[dict], dict[str, dict[str, tuple[str, float]]]]:
    """Per editing run: question- and edit-level reliability from its answers (in-scope fact
    questions), locality as recorded on the run; and each run's scores (``_scores``)."""
    out, scores = [], {}
    for run in runs:
        method = run.get("editing_method")
        if not method:
            continue
        mine = scores[run["id"]] = _scores(run_answers(store, run["id"]))
        events: dict[str, list[bool]] = defaultdict(list)
        for event, score in mine.values():
            events[event].append(score >= 1.0)
        out.append({"run_id": run["id"], "benchmark": run.get("benchmark"), "method": method,
                    "in-scope questions": len(mine), "question-level reliability": _mean([s for _, s in mine.values()]),
                    "edit-level reliability": _mean([float(all(v)) for v in events.values()]),
                    "locality": run.get("locality")})
    return out, scores


def elken_summary(rows: Sequence[Mapping], scores: Mapping[str, Mapping[str, tuple[str, float]]], *,
                  resamples: int = 1000, seed: int = 0) -> list[dict]:
    """Every editing method against no edit, per benchmark (latest run of each), on the
    in-scope fact questions both runs answered: the paired difference over events
    (``stats.paired_difference``: a paired bootstrap interval, McNemar's test when every event
    is one question, else a sign-flip test). ICE is flagged when the interval does not lie above
    0 (``validity.judge_gap``)."""
    latest: dict[tuple[str, str], Mapping] = {}
    for r in rows:
        latest[(r["benchmark"], r["method"])] = r
    out = []
    for bench in sorted({b for b, _ in latest}):
        base = latest.get((bench, "none"))
        for (b, method), r in sorted(latest.items()):
            if b != bench or method == "none":
                continue
            entry = {"benchmark": bench, "method": method, "reliability": r["question-level reliability"],
                     "no edit": base["question-level reliability"] if base else None, "gain": None, "ci": None,
                     "p_value": None, "test": None, "shared questions": 0,
                     "comparison": "paired: the same in-scope questions with and without the edit; interval: a "
                                   "paired bootstrap over events",
                     "excludes_zero": None, "flagged": False, "note": "no no-edit run to compare with"}
            if base is not None:
                mine, theirs = scores[r["run_id"]], scores[base["run_id"]]
                shared = sorted(set(mine) & set(theirs))
                sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
                for qid in shared:
                    row = sums[mine[qid][0]]
                    row[0] += mine[qid][1]
                    row[1] += theirs[qid][1]
                    row[2] += 1
                keys = sorted(sums)
                entry["shared questions"] = len(shared)
                if keys:
                    result = paired_difference([sums[k][0] for k in keys], [sums[k][1] for k in keys],
                                               [sums[k][2] for k in keys], resamples=resamples,
                                               seed=child_seed(seed, bench, method))
                    ci = list(result.difference.ci) if result.difference.ci else None
                    verdict = judge_gap(result.difference.estimate, ci, p_value=result.p_value)
                    entry.update(reliability=result.a, **{"no edit": result.b}, gain=result.difference.estimate,
                                 ci=ci, p_value=result.p_value, test=result.test,
                                 excludes_zero=verdict["excludes_zero"], note=verdict["verdict"],
                                 flagged=method == "ice" and verdict["flagged"])
            out.append(entry)
    return out


def check(store, ctx: ValidityContext) -> ValiditySection | None:
    rows, scores = elken_rows(store, ctx.runs)
    if not rows:
        return None
    summary = elken_summary(rows, scores, seed=child_seed(0, "validity", "elken"))
    flags = [f"ELKEN {e['benchmark']}: ICE − no edit: {e['note']} (ICE {pct(e['reliability'])} vs "
             f"no edit {pct(e['no edit'])} on {e['shared questions']} questions)" for e in summary if e["flagged"]]
    table = [{"benchmark": e["benchmark"], "method": e["method"], "questions": e["shared questions"],
              "reliability": pct(e["reliability"]), "no edit": pct(e["no edit"]), "gain": pm(e["gain"], e["ci"]),
              "p": p_text(e["p_value"]), "test": e["test"] or "-",
              "excludes 0": {True: "yes", False: "no"}.get(e["excludes_zero"], "-"),
              "flag": "FLAG" if e["flagged"] else ""} for e in summary]
    markdown = ["## ELKEN: editing methods vs no edit", "", *markdown_table(rows), "",
                "Each method − no edit on the in-scope fact questions both runs answered: question-level "
                "reliability in %, the gain in points ± half its paired 95% interval (events resampled), p: "
                "McNemar's test or a sign-flip test over events. ICE is flagged when the interval does not lie "
                "above 0.", "", *markdown_table(table), ""]
    return ValiditySection("ELKEN: editing methods vs no edit", {"runs": rows, "summary": summary}, markdown, flags)

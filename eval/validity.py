"""Benchmark validity, checked against a model whose knowledge we know.

A control model (``knowforge.models.control``) is trained on the graph's facts up to a cutoff,
minus a seeded held-out share, and its training set is in the graph:
``(:Model)-[:TRAINED_ON]->(:Fact)``. Every run of it is recorded with ``Run.control_model``.
This module joins a run's answers to that membership through the facts its questions TEST
(``cypher/validity/run_question_facts.cypher``) and asks whether each benchmark's verdicts
line up with what the model was and was not taught:

* **seen vs unseen** (every benchmark) — accuracy on items whose facts were all trained on,
  against items whose facts were held out, started after the cutoff, or were generated/edited.
  The two are different items of one run, so their gap is an *unpaired* comparison
  (``separation``: a bootstrap that resamples each group's units apart, and a permutation test
  of the group labels over units; ``stats.unpaired_difference``). A benchmark is flagged when
  the 95% interval of the gap includes 0 (its verdicts do not separate seen from unseen beyond
  noise) or lies wholly below ``MIN_GAP`` (10 points); every verdict says whether the interval
  excludes zero (``judge_gap``). A run that records ``verdict_samples`` (a solver whose first
  samples are its verdict, the rest a sampling check) counts only those.
* **each method's own checks** — the ``validity`` declarations of the methods' evaluation
  units (ChroKnow's categories against the truth of each record, KnowGen with the passage in
  context vs without it, ELKEN's editing methods vs no edit), each a section with its flags.

The model-level report gathers every run of the control model of ``run_id``. The cutoff
slices (``question_sides``) need no control model: any run recorded with a model cutoff
(``knowforge eval --model-cutoff 2023-10``) is sliced into items whose facts changed before
vs after it.
"""

from __future__ import annotations

import json
import logging
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from knowforge.errors import ConfigError
from knowforge.eval.registry import registry
from knowforge.eval.results import load_run, run_answers
from knowforge.eval.run_stats import Units
from knowforge.eval.stats import DEFAULT_RESAMPLES, child_seed, power_check, underpowered_text, unpaired_difference
from knowforge.eval.unit import ValidityContext

log = logging.getLogger(__name__)

VALIDITY_VERSION = "1"

SEEN = "seen"
HELD_OUT = "unseen: held out"
AFTER_CUTOFF = "unseen: after the cutoff"
GENERATED = "unseen: generated or edited"
MIXED = "mixed"
UNTESTED = "no fact linked"
UNSEEN = (HELD_OUT, AFTER_CUTOFF, GENERATED)
STATUSES = (SEEN, *UNSEEN, MIXED, UNTESTED)

BEFORE, AFTER, UNDATED = "before", "after", "undated"

# a run whose solver hands the model the tested facts (Run.knowledge_given: an editing method puts an
# event's new facts in its context or weights) answers unseen items by design: its gap is not a verdict
GIVEN = "not flagged: the run's solver gives the model the tested facts (in its context or weights)"
MIN_GAP = 0.10        # a benchmark whose seen - unseen interval lies wholly below this is flagged
UNPAIRED = ("unpaired: seen and unseen are different items of one run; interval: a bootstrap resampling each "
            "group's units apart; p: a permutation test of the group labels over units")


# ---- dates and the model cutoff (pure) ----------------------------------------------------------
_DATE = re.compile(r"^\s*(-?\d{1,4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?")


def parse_date(text: Any) -> tuple[int, int, int] | None:
    """(year, month, day) of "2023", "2023-10", "2023-10-05" or "-0469"; a missing month or
    day counts as the first of the period. None when it is not a date."""
    if text is None:
        return None
    if isinstance(text, int):
        return (text, 1, 1)
    match = _DATE.match(str(text))
    if not match:
        return None
    year, month, day = match.groups()
    return (int(year), int(month or 1), int(day or 1))


def parse_cutoff(text: Any) -> tuple[int, int, int]:
    """The last day a cutoff covers: "2023" → 2023-12-31, "2023-10" → 2023-10-31."""
    match = _DATE.match(str(text)) if text is not None else None
    if not match or not str(text).strip():
        raise ConfigError(f"a model cutoff is YEAR, YEAR-MM or YEAR-MM-DD, not {text!r}")
    year, month, day = match.groups()
    if month is None:
        return (int(year), 12, 31)
    if not 1 <= int(month) <= 12:
        raise ConfigError(f"bad month in model cutoff {text!r}")
    return (int(year), int(month), int(day) if day else 31)


def fact_date(fact: Mapping) -> tuple[int, int, int] | None:
    """When a fact became true: its start or point in time (at the source's precision), else
    its start year or first release. None for a timeless fact."""
    for key in ("start", "point_in_time"):
        date = parse_date(fact.get(key))
        if date is not None:
            return date
    for key in ("start_year", "first_release"):
        if fact.get(key) is not None:
            return (int(fact[key]), 1, 1)
    return None


def cutoff_side(facts: Sequence[Mapping], cutoff: tuple[int, int, int]) -> str:
    """``after`` if any tested fact became true after the cutoff, ``before`` if every dated one
    did so before it, ``undated`` when no tested fact has a date."""
    dates = [d for d in (fact_date(f) for f in facts) if d is not None]
    if not dates:
        return UNDATED
    return AFTER if any(d > cutoff for d in dates) else BEFORE


def fact_status(fact: Mapping, model_cutoff: int) -> str:
    if fact.get("layer") not in (None, "source"):
        return GENERATED
    if fact.get("trained"):
        return SEEN
    date = fact_date(fact)
    if date is not None and date[0] > model_cutoff:
        return AFTER_CUTOFF
    return HELD_OUT


def item_status(facts: Sequence[Mapping], model_cutoff: int) -> str:
    """Seen (every tested fact trained on), one kind of unseen (none trained on; generated
    before after-the-cutoff before held out), mixed, or no fact linked."""
    if not facts:
        return UNTESTED
    statuses = {fact_status(f, model_cutoff) for f in facts}
    if statuses == {SEEN}:
        return SEEN
    if SEEN in statuses:
        return MIXED
    for status in (GENERATED, AFTER_CUTOFF, HELD_OUT):
        if status in statuses:
            return status
    raise AssertionError(statuses)


# ---- seen vs unseen (pure) -------------------------------------------------------------------------
def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def judge_gap(gap: float | None, ci: Sequence[float] | None, *, target: float = 0.0,
              p_value: float | None = None, stderr: float | None = None, units: int | None = None) -> dict:
    """A gap's verdict from its 95% interval rather than from its point value: flagged when the
    interval includes 0, lies below 0, or lies wholly below ``target``; the verdict says which,
    and whether the interval excludes zero. With the gap's ``stderr`` and ``units``, it also
    says whether the gap is ``underpowered`` (``stats.power_check``: fewer units than
    ``report --plan-gap`` asks for to detect a gap of this size), which is also when the
    bootstrap interval and the exact test's p-value can disagree."""
    if gap is None:
        return {"excludes_zero": None, "flagged": False, "verdict": "no gap"}
    power = power_check(gap, stderr, units)
    verdict = _judge(gap, ci, target, p_value)
    if power.get("underpowered"):
        verdict["verdict"] += f"; {underpowered_text(power, units)}"
    return {**verdict, **power}


def _judge(gap: float, ci: Sequence[float] | None, target: float, p_value: float | None) -> dict:
    text = f"{100 * gap:+.1f} points"
    if ci is None:
        return {"excludes_zero": None, "flagged": False,
                "verdict": f"{text}; fewer than two units on a side: no interval, no verdict"}
    low, high = ci
    text += f", 95% interval [{100 * low:+.1f}, {100 * high:+.1f}]"
    if p_value is not None:
        text += f", p {'<0.001' if p_value < 0.001 else f'= {p_value:.3f}'}"
    if low <= 0.0 <= high:
        return {"excludes_zero": False, "flagged": True,
                "verdict": f"the interval includes 0 ({text}): no difference shown"}
    if high < 0.0:
        return {"excludes_zero": True, "flagged": True,
                "verdict": f"the interval excludes 0 and lies below it ({text})"}
    if high < target:
        return {"excludes_zero": True, "flagged": True,
                "verdict": f"the interval excludes 0 but lies below {100 * target:.0f} points ({text})"}
    return {"excludes_zero": True, "flagged": False, "verdict": f"the interval excludes 0 ({text})"}


def _clusters(scores: Sequence[float], units: Sequence[str] | None) -> tuple[list[float], list[int]]:
    """Score sums and sizes per unit (each score its own unit without ``units``)."""
    if units is None:
        return list(scores), [1] * len(scores)
    sums: dict[str, float] = defaultdict(float)
    sizes: dict[str, int] = defaultdict(int)
    for score, unit in zip(scores, units):
        sums[unit] += score
        sizes[unit] += 1
    keys = sorted(sums)
    return [sums[k] for k in keys], [sizes[k] for k in keys]


def separation(seen: Sequence[float], unseen: Sequence[float], *, seen_units: Sequence[str] | None = None,
               unseen_units: Sequence[str] | None = None, min_gap: float = MIN_GAP,
               resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> dict:
    """Item accuracies of seen vs unseen items (with each item's unit, when items share one):
    the gap seen − unseen, its unpaired bootstrap interval and permutation p-value over units
    (``stats.unpaired_difference``; a unit with items on both sides counts once on each), and
    the verdict (``judge_gap``: flagged when the interval includes 0 or lies below ``min_gap``)."""
    a, b = _mean(seen), _mean(unseen)
    out: dict[str, Any] = {"seen_items": len(seen), "seen_accuracy": a, "unseen_items": len(unseen),
                           "unseen_accuracy": b, "gap": None, "ci": None, "stderr": None, "p_value": None,
                           "test": None, "comparison": UNPAIRED, "excludes_zero": None, "flagged": False, "note": ""}
    if a is None or b is None:
        out["note"] = "no seen items" if a is None else "no unseen items"
        return out
    sums_a, sizes_a = _clusters(seen, seen_units)
    sums_b, sizes_b = _clusters(unseen, unseen_units)
    result = unpaired_difference(sums_a, sums_b, sizes_a, sizes_b, resamples=resamples, seed=seed)
    ci = list(result.difference.ci) if result.difference.ci else None
    out.update(gap=a - b, ci=ci,
               stderr=result.difference.stderr, p_value=result.p_value, test=result.test,
               seen_units=result.units_a, unseen_units=result.units_b)
    verdict = judge_gap(out["gap"], ci, target=min_gap, p_value=result.p_value, stderr=result.difference.stderr,
                        units=result.units_a + result.units_b)
    out.update(excludes_zero=verdict["excludes_zero"], flagged=verdict["flagged"], note=verdict["verdict"],
               underpowered=verdict.get("underpowered"), units_needed=verdict.get("units_needed"))
    return out


# ---- graph reads -----------------------------------------------------------------------------------
def question_metadata(question: Mapping) -> dict:
    raw = question.get("metadata_json")
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except (TypeError, ValueError):
        return {}


def question_facts(store, run_id: str, model_id: str | None = None) -> dict[str, list[dict]]:
    """question id -> the facts it TESTS (with ``trained`` for ``model_id``)."""
    return {r["question_id"]: r["facts"]
            for r in store.read("validity/run_question_facts", run_id=run_id, model_id=model_id)}


def question_sides(store, question_ids: Iterable[str], cutoff: Any) -> dict[str, str]:
    """question id -> before / after / undated for a model cutoff (any model), for the questions
    a report's samples answer (read by id: the eval's report is built while the run's answers
    are being written, so it never reads them through the run)."""
    end = parse_cutoff(cutoff)
    rows = store.read_collected("validity/question_facts_by_id", sorted(set(question_ids)))
    return {qid: cutoff_side(facts, end) for qid, facts in rows}


def control_model_of(store, run: Mapping) -> dict | None:
    """The Model node of the control model a run was made with (None for other models)."""
    model_id = run.get("control_model")
    if not model_id:
        return None
    rows = store.read("models/read_model", id=model_id)
    if not rows:
        log.warning("run %s names control model %s, which is not in the graph", run.get("id"), model_id)
        return None
    return {**rows[0]["model"], "trained_on": rows[0]["trained_on"]}


# ---- one run ----------------------------------------------------------------------------------------
def answered_questions(store, run_id: str) -> tuple[dict[str, Mapping], dict[str, list[tuple[int, float]]]]:
    """A run's questions by id, and each question's (sample index, score) pairs."""
    questions: dict[str, Mapping] = {}
    answers: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for row in run_answers(store, run_id):
        q, a = row["question"], row["answer"]
        questions[q["id"]] = q
        answers[q["id"]].append((int(a.get("sample_index") or 0), float(a.get("score") or 0.0)))
    return questions, answers


def run_validity(store, run: Mapping, model: Mapping) -> dict:
    """Seen vs unseen accuracy per task of one run of ``model``."""
    run_id = run["id"]
    cutoff = int(model["cutoff"])
    facts = question_facts(store, run_id, model["id"])
    verdict = run.get("verdict_samples")
    units = Units(run.get("cluster_key"))
    questions, answers = answered_questions(store, run_id)
    per_task: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    unit_of: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for qid, q in questions.items():
        counted = [s for i, s in answers[qid] if verdict is None or i < int(verdict)]
        if not counted:
            continue
        status = item_status(facts.get(qid, []), cutoff)
        score = sum(counted) / len(counted)
        for task in (q.get("task") or "?", "(all)"):
            per_task[task][status].append(score)
            unit_of[task][status].append(units.of(q))
    tasks = []
    for task, groups in sorted(per_task.items(), key=lambda kv: (kv[0] == "(all)", kv[0])):
        unseen = [s for st in UNSEEN for s in groups.get(st, [])]
        sep = separation(groups.get(SEEN, []), unseen, seen_units=unit_of[task].get(SEEN, []),
                         unseen_units=[u for st in UNSEEN for u in unit_of[task].get(st, [])],
                         seed=child_seed(0, "validity", task))
        if run.get("knowledge_given") and sep["flagged"]:
            sep = {**sep, "flagged": False, "note": sep["note"] + f"; {GIVEN}"}
        tasks.append({"task": task, **{f"n {st}": len(groups.get(st, [])) for st in STATUSES if groups.get(st)},
                      **{f"acc {st}": _mean(groups[st]) for st in STATUSES if groups.get(st)}, **sep})
    return {"run_id": run_id, "name": run.get("name"), "benchmark": run.get("benchmark"),
            "setting": run.get("setting"), "verdict_samples": verdict, "unit": units.name, "tasks": tasks}


# ---- the report ---------------------------------------------------------------------------------------
def validity_report(store, run_id: str, *, report_dirs: Sequence[Path] = (),
                    only: Sequence[str] | None = None, as_listed: bool = False) -> dict:
    """Validity of every benchmark the control model of ``run_id`` was run on, in the order they
    started; with ``only``, of those runs alone (the demo checks its own runs, not a user's earlier
    or extra ones), and with ``as_listed`` too in ``only``'s order (the demo's steps' order, whichever
    of its two evaluating processes started a run first)."""
    run = load_run(store, run_id)
    run = {**run, "id": run.get("id", run_id)}
    model = control_model_of(store, run)
    report: dict[str, Any] = {"version": VALIDITY_VERSION, "run_id": run_id, "model": model, "runs": [],
                              "flags": [], "sections": {}}
    if model is None:
        report["note"] = (f"run {run_id} was not made with a control model (no Run.control_model): "
                          "there is no training set to check its verdicts against")
        return report
    runs = [r["run"] for r in store.read("validity/model_runs", model_id=model["id"])]
    if only is not None:
        keep = set(only)
        runs = [r for r in runs if r.get("id") in keep]
        if as_listed:
            position = {run: i for i, run in reversed(list(enumerate(only)))}
            runs.sort(key=lambda r: position[r.get("id")])
    for r in runs:
        part = run_validity(store, r, model)
        report["runs"].append(part)
        for t in part["tasks"]:
            if t["flagged"]:
                report["flags"].append(f"{part['name'] or part['run_id']} {t['task']}: seen − unseen: {t['note']} "
                                       f"(seen {pct(t['seen_accuracy'])}, unseen {pct(t['unseen_accuracy'])})")
    context = ValidityContext(run_id=run_id, run=run, model=model, runs=runs, report_dirs=tuple(report_dirs),
                              seen_unseen={p["run_id"]: p["tasks"] for p in report["runs"]})
    markdown: dict[str, list[str]] = {}
    for key, spec in registry().validity.items():
        section = spec.check(store, context)
        if section is None:
            continue
        report["sections"][key] = {"title": section.title, "data": section.data, "flags": section.flags}
        report["flags"].extend(section.flags)
        markdown[key] = section.markdown
    report["markdown"] = markdown
    return report


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def pm(value: float | None, ci: Sequence[float] | None) -> str:
    """A difference in points ± half the width of its 95% interval: ``+12.5 ± 8.1``."""
    if value is None:
        return "-"
    return f"{100 * value:+.1f}" + (f" ± {100 * (ci[1] - ci[0]) / 2:.1f}" if ci else "")


def p_text(value: float | None) -> str:
    return "-" if value is None else ("<0.001" if value < 0.001 else f"{value:.3f}")


def in_percent(rows: Sequence[Mapping], columns: Sequence[str]) -> list[dict]:
    """Rows whose ``columns`` (shares in [0, 1]) are shown in %: ``"locality"`` -> ``"locality %"``."""
    return [{(f"{k} %" if k in columns else k): (pct(v) if k in columns else v) for k, v in row.items()}
            for row in rows]


def markdown_table(rows: Sequence[Mapping], columns: Sequence[str] | None = None) -> list[str]:
    if not rows:
        return ["(none)"]
    cols = list(columns or dict.fromkeys(k for r in rows for k in r))

    # one number format in a report: tables hold shares already in % (see in_percent)
    def cell(v):
        if isinstance(v, float):
            return f"{v:.1f}"
        return "" if v is None else str(v)

    return (["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
            + ["| " + " | ".join(cell(r.get(c)) for c in cols) + " |" for r in rows])


def render_validity_markdown(report: Mapping) -> str:
    lines = [f"# Validity against the control model (run {report['run_id']})", ""]
    model = report.get("model")
    if not model:
        return "\n".join(lines + [report.get("note", ""), ""])
    lines += [f"- model `{model['id']}`: cutoff {model['cutoff']}, seed {model['seed']}, "
              f"{model['trained_on']} facts trained on, {model.get('held_out_facts')} held out, "
              f"{model.get('after_cutoff_facts')} after the cutoff", ""]
    lines += ["## Flags", ""] + ([f"- {f}" for f in report["flags"]] or ["none"]) + [""]
    lines += ["## Seen vs unseen", "",
              "Accuracy per item (a run that records its verdict samples counts only those); unseen = held "
              "out, after the cutoff, or generated/edited. Gap: seen − unseen in points ± half its 95% interval, "
              f"{UNPAIRED}. A task is flagged when the interval includes 0 or lies wholly below "
              f"{100 * MIN_GAP:.0f} points, except in a run whose solver gives the model the tested facts "
              "(a knowledge-editing run: its gap measures the edit, not what the model was taught). An item's facts "
              "are those its question TESTS in the graph: an edited or generated fact is unseen by any model.", ""]
    rows = []
    for part in report["runs"]:
        for t in part["tasks"]:
            rows.append({"run": part["name"] or part["run_id"], "task": t["task"],
                         "seen": f"{pct(t['seen_accuracy'])} ({t['seen_items']})",
                         "unseen": f"{pct(t['unseen_accuracy'])} ({t['unseen_items']})",
                         **{st: f"{pct(t.get(f'acc {st}'))} ({t.get(f'n {st}')})"
                            for st in (HELD_OUT, AFTER_CUTOFF, GENERATED, MIXED, UNTESTED) if t.get(f"n {st}")},
                         "gap": pm(t["gap"], t.get("ci")), "p": p_text(t.get("p_value")),
                         "excludes 0": {True: "yes", False: "no"}.get(t.get("excludes_zero"), "-"),
                         "flag": "FLAG" if t["flagged"] else ""})
    lines += markdown_table(rows) + [""]
    for section in (report.get("markdown") or {}).values():
        lines += list(section)
    return "\n".join(lines)


def write_validity(store, run_id: str, out_dir: str | Path, *, report_dirs: Sequence[Path] = (),
                   only: Sequence[str] | None = None, as_listed: bool = False) -> Path:
    """``validity.json`` and ``validity.md`` in ``out_dir``; returns the directory."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report = validity_report(store, run_id, report_dirs=[*report_dirs, out, out.parent], only=only,
                             as_listed=as_listed)
    document = {k: v for k, v in report.items() if k != "markdown"}
    (out / "validity.json").write_text(json.dumps(document, indent=2, sort_keys=True, default=str) + "\n",
                                       encoding="utf-8")
    (out / "validity.md").write_text(render_validity_markdown(report) + "\n", encoding="utf-8")
    return out

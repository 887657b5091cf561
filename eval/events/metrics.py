"""ELKEN's metrics over a run's answers, by the method's own slices (never by task names), so
imported releases and generated batches report the same numbers.

* which part a question belongs to: ``part`` (fact / tendency), from its slice or its scorer;
* in or out of scope: ``scope``; a known or unknown gold: the answer's label (the item's
  ``unknown`` flag); needs background knowledge: ``needs_background`` (the release's
  question type 1).

Question- and edit-level reliability (in-scope fact questions), locality (out-of-scope fact
questions whose answer the edit left unchanged, against the answer without the edit), tendency
multiple-choice accuracy, retrieval top-1 accuracy. Rules follow the run's scoring mode
(``knowforge.eval.events.rules``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from knowforge.eval.events import helm, rules
from knowforge.eval.metric_stats import rate_totals
from knowforge.eval.types import DEFAULT_SCORING
from knowforge.eval.unit import MetricInput, Totals, UnitCopy
from knowforge.models.types import BenchmarkItem

EDITING = "elken-editing"        # the solver detail ELKEN's locality reads


@dataclass(frozen=True)
class EditingDetails:
    """What an editing solver knows beyond its scored answers: the method, the out-of-scope
    questions' answers without the edit (item id → raw answer), retrieval accuracy and the
    judge's Tendency-G scores."""

    method: str
    before: Mapping[str, str | None]
    retrieval_top1_accuracy: float | None = None
    tendency_generation: dict = field(default_factory=dict)

    def remap(self, copies: Sequence[UnitCopy]) -> EditingDetails:
        """The answers without the edit of the resampled items (the run-level numbers stay)."""
        before = {new: self.before[old] for c in copies for old, new in c.ids.items() if old in self.before}
        return EditingDetails(self.method, before, self.retrieval_top1_accuracy, self.tendency_generation)


def part(item: BenchmarkItem) -> str:
    """"fact" or "tendency": the item's ``part`` slice, else its scorer's."""
    return item.slices.get("part") or ("tendency" if item.scorer == "elken-tendency" else "fact")


def in_scope(item: BenchmarkItem) -> bool:
    return item.slices.get("scope", "in") == "in"


def known(item: BenchmarkItem) -> bool:
    """A known gold: an answer other than "unknown" (by its label, in both modes)."""
    return not item.unknown and not rules.is_unknown_answer(rules.item_answer(item), "knowforge")


def event_of(item: BenchmarkItem) -> str:
    meta = item.metadata
    return str(meta.get("event_id", meta.get("event_index", item.id)))


def _rate(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None


# reliability's splits of the in-scope fact questions: question_level_<label>, n_<label>
SPLITS = (("known", known), ("unknown", lambda i: not known(i)),
          ("needs_background", lambda i: bool(i.slices.get("needs_background"))),
          ("not_needs_background", lambda i: not i.slices.get("needs_background")))
# metric.py's counters of the same splits (``helm.fact_accuracy``), official mode
OFFICIAL_SPLITS = (("overall", "question_level"), ("known", "question_level_known"),
                   ("unknown", "question_level_unknown"), ("1", "question_level_needs_background"),
                   ("0", "question_level_not_needs_background"))


def reliability_metrics(items: Sequence[BenchmarkItem], correct: Mapping[str, bool]) -> dict:
    """Question- and edit-level reliability over in-scope fact questions, with splits."""
    inside = [i for i in items if in_scope(i) and part(i) == "fact" and i.id in correct]
    by_event: dict[str, list[bool]] = defaultdict(list)
    for i in inside:
        by_event[event_of(i)].append(correct[i.id])
    out = {"questions": len(inside), "events": len(by_event),
           "question_level": _rate([correct[i.id] for i in inside]),
           "edit_level": _rate([rules.edit_level(v) for v in by_event.values()])}
    for label, test in SPLITS:
        sel = [correct[i.id] for i in inside if test(i)]
        out[f"question_level_{label}"] = _rate(sel)
        out[f"n_{label}"] = len(sel)
    by_type: dict[str, list[bool]] = defaultdict(list)
    for i in inside:
        by_type[str(i.slices.get("event_type"))].append(correct[i.id])
    out["question_level_by_event_type"] = {k: _rate(v) for k, v in sorted(by_type.items())}
    return out


def locality_metrics(items: Sequence[BenchmarkItem], before: Mapping[str, str | None],
                     after: Mapping[str, str | None], scoring: str = DEFAULT_SCORING) -> dict:
    """Share of out-of-scope fact answers the edit left unchanged (ELKEN alias mapping under
    ``scoring``: the official rule maps raw aliases only, knowforge aliases and name normalised)."""
    outside = [i for i in items if not in_scope(i) and part(i) == "fact" and i.id in after]
    unchanged = locality_outcomes(outside, before, after, scoring)
    by_event: dict[str, list[bool]] = defaultdict(list)
    for i in outside:
        by_event[event_of(i)].append(unchanged[i.id])
    return {"questions": len(outside), "question_level": _rate(list(unchanged.values())),
            "edit_level": _rate([all(v) for v in by_event.values()])}


def locality_outcomes(outside: Sequence[BenchmarkItem], before: Mapping[str, str | None],
                      after: Mapping[str, str | None], scoring: str = DEFAULT_SCORING) -> dict[str, bool]:
    """{item id: unchanged} of out-of-scope fact questions (``locality_metrics``' rule)."""
    unchanged = {}
    for i in outside:
        answer = rules.item_answer(i)
        unchanged[i.id] = rules.locality_unchanged(before.get(i.id), after.get(i.id), answer["alias"],
                                                   name=answer["name"], mode=scoring)
    return unchanged


def tendency_accuracy(items: Sequence[BenchmarkItem], responses: Mapping[str, str | None],
                      scoring: str = DEFAULT_SCORING) -> dict:
    """Multiple-choice accuracy of in-scope tendency questions (ELKEN's tendency parsing)."""
    right = tendency_outcomes(items, responses, scoring)
    return {"questions": len(right), "accuracy": _rate(list(right.values()))}


def tendency_outcomes(items: Sequence[BenchmarkItem], responses: Mapping[str, str | None],
                      scoring: str = DEFAULT_SCORING) -> dict[str, bool]:
    """{item id: right} of the in-scope tendency questions answered."""
    return {i.id: rules.score_tendency(responses.get(i.id), i.answers[0], scoring)
            for i in items if part(i) == "tendency" and in_scope(i) and i.id in responses}


def tendency_locality(items: Sequence[BenchmarkItem], before: Mapping[str, str | None],
                      after: Mapping[str, str | None], scoring: str = DEFAULT_SCORING) -> dict:
    """Share of out-of-scope tendency answers the edit left unchanged (ELKEN's
    ``MetricForTendency.compute_locality``: the parsed answers compared; knowforge compares the
    picked options)."""
    unchanged = tendency_unchanged_outcomes(items, before, after, scoring)
    return {"questions": len(unchanged), "question_level": _rate(list(unchanged.values()))}


def tendency_unchanged_outcomes(items: Sequence[BenchmarkItem], before: Mapping[str, str | None],
                                after: Mapping[str, str | None], scoring: str = DEFAULT_SCORING) -> dict[str, bool]:
    """{item id: unchanged} of the out-of-scope tendency questions answered."""
    return {i.id: rules.tendency_unchanged(before.get(i.id), after.get(i.id), scoring)
            for i in items if not in_scope(i) and part(i) == "tendency" and i.id in after}


def retrieval_accuracy(items: Sequence[BenchmarkItem]) -> float | None:
    hits = [i.metadata.get("retrieved") == i.metadata.get("event_id") for i in items
            if "retrieved" in i.metadata]
    return _rate(hits)


def _first(data: MetricInput) -> dict:
    return {s.item_id: s for s in data.samples if s.sample_index == 0}


def metric_reliability(data: MetricInput) -> dict:
    first = _first(data)
    out = reliability_metrics(data.items, {k: s.score >= 1.0 for k, s in first.items()})
    if data.scoring == "official":
        out.update(official_fact_numbers(data.items, {k: s.raw for k, s in first.items()}))
    return out


def _states(items: Sequence[BenchmarkItem], raws: Mapping[str, str | None], which: str) -> list[dict]:
    """The in-scope request states of one part, in the order ``processor.py`` writes them."""
    return [state for _, state in _item_states(items, raws, which)]


def _item_states(items: Sequence[BenchmarkItem], raws: Mapping[str, str | None],
                 which: str) -> list[tuple[BenchmarkItem, dict]]:
    chosen = helm.file_order(i for i in items if part(i) == which and in_scope(i) and i.id in raws)
    return [(i, helm.item_state(i, raws[i.id], with_event=True)) for i in chosen]


def official_fact_numbers(items: Sequence[BenchmarkItem], raws: Mapping[str, str | None]) -> dict:
    """Reliability by ``metric.py``'s own counting, through the functions ``knowforge score
    elken`` uses on the files (``helm.fact_accuracy``, ``helm.event_accuracy``): its type-1
    accuracy (``1_acc``) counts type-1 questions with a known gold only, and its edit level
    groups consecutive questions by event text."""
    states = _states(items, raws, "fact")
    acc, events = helm.fact_accuracy(states, "official"), helm.event_accuracy(states, "official")
    return {"question_level": acc["overall_acc"], "edit_level": events["overall_acc"],
            "question_level_known": acc["known_acc"], "n_known": acc.get("known_total", 0),
            "question_level_unknown": acc["unknown_acc"], "n_unknown": acc.get("unknown_total", 0),
            "question_level_needs_background": acc["1_acc"], "n_needs_background": acc.get("1_total", 0),
            "question_level_not_needs_background": acc["0_acc"], "n_not_needs_background": acc.get("0_total", 0),
            "needs_background_rule": "metric.py 1_acc: type-1 questions with a known gold"}


def metric_locality(data: MetricInput) -> dict:
    after = {k: s.raw for k, s in _first(data).items()}
    details: EditingDetails | None = data.detail
    return locality_metrics(data.items, details.before if details is not None else after, after, data.scoring)


def metric_tendency(data: MetricInput) -> dict:
    return tendency_accuracy(data.items, {k: s.raw for k, s in _first(data).items()}, data.scoring)


def metric_tendency_edit_level(data: MetricInput) -> dict:
    return {"edit_level": tendency_edit_level(data.items, {k: s.raw for k, s in _first(data).items()},
                                              data.scoring)}


def tendency_edit_level(items: Sequence[BenchmarkItem], raws: Mapping[str, str | None],
                        scoring: str = DEFAULT_SCORING) -> float | None:
    """Events whose every in-scope tendency question is right (``compute_event_acc`` on the
    tendency file, by ``helm.event_accuracy``: official groups consecutive questions by event
    text, knowforge by event id)."""
    return helm.event_accuracy(_states(items, raws, "tendency"), scoring)["overall_acc"]


def metric_tendency_locality(data: MetricInput) -> dict:
    after = {k: s.raw for k, s in _first(data).items()}
    details: EditingDetails | None = data.detail
    return tendency_locality(data.items, details.before if details is not None else after, after, data.scoring)


def totals_tendency(data: MetricInput) -> Totals:
    """``metric_tendency`` as sums: each in-scope tendency question adds its outcome."""
    right = tendency_outcomes(data.items, {k: s.raw for k, s in _first(data).items()}, data.scoring)
    return rate_totals([(item_id, ("accuracy",), float(ok)) for item_id, ok in right.items()])


def totals_tendency_locality(data: MetricInput) -> Totals:
    """``metric_tendency_locality`` as sums: each out-of-scope tendency question adds whether
    the edit left it unchanged."""
    after = {k: s.raw for k, s in _first(data).items()}
    details: EditingDetails | None = data.detail
    unchanged = tendency_unchanged_outcomes(data.items, details.before if details is not None else after, after,
                                            data.scoring)
    return rate_totals([(item_id, ("question_level",), float(ok)) for item_id, ok in unchanged.items()])


# --- the metrics as sums (MetricSpec.totals): bootstrapped over arrays of per-event totals -------
# An edit level is a verdict over all of an event's questions, so it is a sum over events, not
# over questions: one row per event (on its first question), reading all its questions
# (``Totals.reads``). The run's unit is the event (``event_id``), so each row stays in one unit;
# where it is not, the engine resamples objects and says so.
class _Rows:
    """Rows of rate totals: (item id, path, outcome) with the items each outcome reads."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, tuple[str, ...], float]] = []
        self.reads: list[tuple[str, ...]] = []

    def add(self, item_id: str, path: tuple[str, ...], outcome: float, together: Sequence[str] = ()) -> None:
        self.rows.append((item_id, path, float(outcome)))
        self.reads.append(tuple(together) or (item_id,))

    def events(self, path: tuple[str, ...], groups: Sequence[Sequence[str]], outcomes: Sequence[float]) -> None:
        for ids, outcome in zip(groups, outcomes):
            self.add(ids[0], path, outcome, ids)

    def totals(self, paths: Sequence[tuple[str, ...]], closing: tuple[str, ...] | None = None) -> Totals:
        """``closing``: the edit level metric.py counts as 1 of 1 when there is no event."""
        totals = rate_totals(self.rows, paths, self.reads)
        if closing is None:
            return totals
        ratio = totals.leaves[closing]
        leaves = {**totals.leaves, closing: lambda t: _closing_share(ratio(t))}
        return Totals(totals.item_ids, totals.counts, leaves, totals.reads)


def _closing_share(value: np.ndarray) -> np.ndarray:
    # no event: metric.py's compute_event_acc closes with one more (right) event, 1 of 1
    return np.where(np.isnan(value), 1.0, value)


def _helm_events(pairs: Sequence[tuple[BenchmarkItem, dict]], scoring: str) -> tuple[list[list[str]], list[float]]:
    """The events ``helm.event_accuracy`` counts in these states (item ids) and whether each is right."""
    states = [state for _, state in pairs]
    groups = helm.event_groups(states, scoring)
    right = [helm.event_accuracy([states[k] for k in g], scoring)["overall_correct"] for g in groups]
    return [[pairs[k][0].id for k in g] for g in groups], right


def _by_event(items: Sequence[BenchmarkItem], outcome: Mapping[str, bool]) -> tuple[list[list[str]], list[float]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for i in items:
        groups[event_of(i)].append(i.id)
    return list(groups.values()), [float(rules.edit_level(outcome[k] for k in ids)) for ids in groups.values()]


def totals_reliability(data: MetricInput) -> Totals:
    """``metric_reliability`` as sums: each in-scope fact question adds its outcome to the
    question level and its splits, each event whether every one of its questions is right; in
    official mode the question level, its splits and the edit level count as ``metric.py``
    does (``official_fact_numbers``)."""
    first = _first(data)
    correct = {k: s.score >= 1.0 for k, s in first.items()}
    inside = [i for i in data.items if in_scope(i) and part(i) == "fact" and i.id in correct]
    out = _Rows()
    official = data.scoring == "official"
    if official:
        pairs = _item_states(data.items, {k: s.raw for k, s in first.items()}, "fact")
        for item, state in pairs:
            counted = helm.fact_accuracy([state], "official")
            for kind, name in OFFICIAL_SPLITS:
                if counted.get(f"{kind}_total"):
                    out.add(item.id, (name,), counted[f"{kind}_correct"])
        out.events(("edit_level",), *_helm_events(pairs, "official"))
    else:
        for i in inside:
            out.add(i.id, ("question_level",), correct[i.id])
            for label, test in SPLITS:
                if test(i):
                    out.add(i.id, (f"question_level_{label}",), correct[i.id])
        out.events(("edit_level",), *_by_event(inside, correct))
    for i in inside:
        out.add(i.id, ("question_level_by_event_type", str(i.slices.get("event_type"))), correct[i.id])
    paths = [("question_level",), ("edit_level",), *((f"question_level_{label}",) for label, _ in SPLITS)]
    return out.totals(paths, ("edit_level",) if official else None)


def totals_locality(data: MetricInput) -> Totals:
    """``metric_locality`` as sums: each out-of-scope fact question adds whether the edit left
    its answer unchanged, each event whether it left all of them unchanged."""
    after = {k: s.raw for k, s in _first(data).items()}
    details: EditingDetails | None = data.detail
    outside = [i for i in data.items if not in_scope(i) and part(i) == "fact" and i.id in after]
    unchanged = locality_outcomes(outside, details.before if details is not None else after, after, data.scoring)
    out = _Rows()
    for i in outside:
        out.add(i.id, ("question_level",), unchanged[i.id])
    out.events(("edit_level",), *_by_event(outside, unchanged))
    return out.totals([("question_level",), ("edit_level",)])


def totals_tendency_edit_level(data: MetricInput) -> Totals:
    """``metric_tendency_edit_level`` as sums: each event ``helm.event_accuracy`` counts adds
    whether all its in-scope tendency questions are right."""
    pairs = _item_states(data.items, {k: s.raw for k, s in _first(data).items()}, "tendency")
    out = _Rows()
    out.events(("edit_level",), *_helm_events(pairs, data.scoring))
    return out.totals([("edit_level",)], ("edit_level",) if data.scoring == "official" else None)


__all__ = ["EDITING", "EditingDetails", "event_of", "in_scope", "known", "locality_metrics", "metric_locality",
           "metric_reliability", "metric_tendency", "metric_tendency_locality", "part", "reliability_metrics",
           "retrieval_accuracy", "tendency_accuracy", "tendency_edit_level", "tendency_locality", "tendency_outcomes",
           "metric_tendency_edit_level",
           "tendency_unchanged_outcomes", "totals_locality", "totals_reliability", "totals_tendency",
           "totals_tendency_edit_level", "totals_tendency_locality", "official_fact_numbers", "locality_outcomes",
           "SPLITS"]

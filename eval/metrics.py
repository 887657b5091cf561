"""Metrics: plain functions over lists of scores (kept apart from the scorers that make them)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def accuracy(values: Iterable[float | None]) -> float | None:
    """Mean score; ``None`` entries (not scored) are left out. None when nothing is scored."""
    scored = [float(v) for v in values if v is not None]
    return sum(scored) / len(scored) if scored else None


def balanced_accuracy(golds: Sequence[Hashable], predictions: Sequence[Hashable | None]) -> float:
    """Mean over gold classes of the share predicted right (a missing prediction is wrong)."""
    if len(golds) != len(predictions):
        raise ValueError("golds and predictions differ in length")
    per_class: dict[Hashable, list[int]] = defaultdict(lambda: [0, 0])
    for gold, pred in zip(golds, predictions):
        per_class[gold][0] += int(pred == gold)
        per_class[gold][1] += 1
    if not per_class:
        return 0.0
    return sum(right / total for right, total in per_class.values()) / len(per_class)


def per_slice(rows: Iterable[T], key: Callable[[T], Hashable], value: Callable[[T], float | None]
              ) -> dict[Hashable, dict[str, Any]]:
    """Group rows by ``key`` and give each group n (scored), correct and accuracy."""
    groups: dict[Hashable, list[float]] = defaultdict(list)
    counts: dict[Hashable, int] = defaultdict(int)
    for row in rows:
        k = key(row)
        counts[k] += 1
        v = value(row)
        if v is not None:
            groups[k].append(float(v))
    out = {}
    for k in counts:
        vals = groups.get(k, [])
        out[k] = {"n": counts[k], "correct": sum(vals), "accuracy": (sum(vals) / len(vals)) if vals else None}
    return out


def all_correct(values: Iterable[float | None]) -> bool:
    """True when every value is 1 (e.g. ChroKnow "Correct": every greedy answer matches)."""
    values = list(values)
    return bool(values) and all(v is not None and v >= 1.0 for v in values)


# --- task metrics: what a Task's ``metrics`` names ------------------------------------------------
# Each takes (the task's items as asked, their scored samples, the solver's details) and returns
# a JSON-ready value. Solver-specific metrics read what their solver put in ``details``.
TaskMetric = Callable[[Sequence[Any], Sequence[Any], dict], Any]


def _accuracy(items, samples, details) -> float | None:
    return accuracy(s.score for s in samples)


def _balanced_accuracy(items, samples, details) -> float | None:
    """Over boolean / true-false items with a yes/no gold: mean of the per-class recall of the
    first sample (an item whose gold is "unknown" has no yes/no class and is left out)."""
    from knowforge.eval.scorers import extract_yes_no, gold_boolean

    by_id = {i.id: i for i in items if i.form in ("boolean", "true-false") and not i.unknown}
    golds, preds = [], []
    for s in samples:
        if s.item_id in by_id and s.sample_index == 0:
            golds.append(gold_boolean(by_id[s.item_id]))
            preds.append(extract_yes_no(s.parsed if s.parsed is not None else s.raw))
    return balanced_accuracy(golds, preds) if golds else None


def _first_samples(samples) -> dict[str, Any]:
    return {s.item_id: s for s in samples if s.sample_index == 0}


def _edit_reliability(items, samples, details) -> dict:
    from knowforge.eval.editing import reliability_metrics

    first = _first_samples(samples)
    return reliability_metrics(items, {k: s.score >= 1.0 for k, s in first.items()})


def _locality(items, samples, details) -> dict:
    from knowforge.eval.editing import locality_metrics

    after = {k: s.raw for k, s in _first_samples(samples).items()}
    return locality_metrics(items, details.get("before", after), after, details.get("scoring", "knowforge"))


def _tendency_accuracy(items, samples, details) -> dict:
    from knowforge.eval.editing import tendency_accuracy

    return tendency_accuracy(items, {k: s.raw for k, s in _first_samples(samples).items()},
                             details.get("scoring", "knowforge"))


def _chrono_categories(items, samples, details) -> list[dict] | None:
    from knowforge.eval.chrono_check import category_table, item_template

    check = details.get("check")
    if check is None:
        return None
    templates = {item_template(i) for i in items}
    return [row for row in category_table(check) if row.get("template") in templates]


def _chronoprompt_gain(items, samples, details) -> list[dict] | None:
    from knowforge.eval.chronoprompt import gain_table

    results = details.get("chronoprompt")
    return gain_table(results) if results else None


def _newterm(name: str) -> TaskMetric:
    def metric(items, samples, details):
        from knowforge.eval import newterm_eval

        return getattr(newterm_eval, f"metric_{name}")(items, samples, details)
    return metric


def _link(name: str) -> TaskMetric:
    def metric(items, samples, details):
        from knowforge.eval.link_probe import LINK_METRICS

        return LINK_METRICS[name](items, samples, details)
    return metric


METRICS: dict[str, TaskMetric] = {
    "accuracy": _accuracy,
    "balanced_accuracy": _balanced_accuracy,
    "edit_reliability": _edit_reliability,
    "locality": _locality,
    "tendency_accuracy": _tendency_accuracy,
    "chrono_categories": _chrono_categories,
    "chronoprompt_gain": _chronoprompt_gain,
    # NewTerm: the run's setting pooled over phrasings (CSJ balanced), Base, Gold, Base - Gold,
    # and the three per term category and year
    "newterm_score": _newterm("score"),
    "newterm_base": _newterm("base"),
    "newterm_gold": _newterm("gold"),
    "newterm_gap": _newterm("gap"),
    "newterm_breakdown": _newterm("breakdown"),
    # LINT: per template, all-13 "known", head vs long tail with the relative drop, and the
    # same by domain, rule and graph premises (knowforge.eval.link_probe)
    **{name: _link(name) for name in ("link_templates", "link_known", "link_head_tail", "link_by_domain",
                                      "link_by_rule", "link_by_graph_premises")},
}


def register_metric(name: str, fn: TaskMetric) -> None:
    METRICS[name] = fn


def compute_metric(name: str, items: Sequence[Any], samples: Sequence[Any], details: dict) -> Any:
    try:
        fn = METRICS[name]
    except KeyError:
        from knowforge.errors import ConfigError

        raise ConfigError(f"unknown metric {name!r}; known: {', '.join(sorted(METRICS))}") from None
    return fn(items, samples, details)

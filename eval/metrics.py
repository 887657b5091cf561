"""Metrics: plain functions over lists of scores (kept apart from the scorers that make them).

The library every method's metrics build on; the metrics a task names are ``MetricSpec``
declarations (``knowforge.eval.generic`` and each method's ``eval/<method>/`` unit)."""

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

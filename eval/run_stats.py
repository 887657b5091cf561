"""The uncertainty of a run's numbers, the paired difference of two runs, and planning.

A run's answers are ``(question, answer)`` pairs as the graph gives them back
(``results.run_answers``). They are not independent: the samples of one item (``--n``) share
the item, and where a method says which items belong together (``Method.item_group``: an
ELKEN event, a ChroKnow record) the items of one group share it. ``Units`` names that unit,
and every number here is computed over units (``knowforge.eval.stats``):

- an accuracy: sum of scores / number of scored samples, with the cluster-robust analytic
  standard error and its normal 95% interval (lm-eval's ``acc_stderr`` when every unit is one
  item with one sample);
- a balanced accuracy: a seeded percentile bootstrap over units of the per-class right/total
  counts;
- run A vs run B: the paired difference over the items both answered, grouped into units,
  with a paired bootstrap interval and McNemar's or a sign-flip test;
- planning: the units a run needs to detect a gap with 80% power, from the run's variance,
  with the design effect of its clusters.
"""

from __future__ import annotations

import itertools
import json
import math
import operator
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from knowforge.eval.stats import (DEFAULT_RESAMPLES, Estimate, bootstrap_totals, child_seed, cluster_mean,
                                  design_effect, intraclass_correlation, paired_difference, percentile_estimate,
                                  power_check, resample_index_chunks, units_for_gap)

Sample = tuple[Mapping[str, Any], Mapping[str, Any]]   # (question properties, answer properties)


@dataclass
class Units:
    """How answers group into independent units: by item, or by ``metadata[key]`` of the
    question (the method's ``item_group``); an item without that key is its own unit."""

    key: str | None = None
    _cache: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return self.key or "item"

    def of(self, question: Mapping[str, Any]) -> str:
        qid = str(question["id"])
        if self.key is None:
            return qid
        unit = self._cache.get(qid)
        if unit is None:
            metadata = json.loads(question.get("metadata_json") or "{}")
            value = metadata.get(self.key) if isinstance(metadata, dict) else None
            unit = f"item:{qid}" if value is None else f"{self.key}:{value}"
            self._cache[qid] = unit
        return unit


# --- one run ---------------------------------------------------------------------------------------
def accuracy_estimate(samples: Iterable[Sample], units: Units) -> Estimate:
    """Accuracy over samples (unscored samples left out) with its cluster-robust uncertainty."""
    sums: dict[str, float] = defaultdict(float)
    sizes: dict[str, int] = defaultdict(int)
    for q, a in samples:
        score = a.get("score")
        if score is None:
            continue
        unit = units.of(q)
        sums[unit] += float(score)
        sizes[unit] += 1
    keys = sorted(sums)
    return cluster_mean([sums[k] for k in keys], [sizes[k] for k in keys])


def item_scores(samples: Iterable[Sample]) -> dict[str, list[float]]:
    """{question id: its scored samples' scores}."""
    out: dict[str, list[float]] = defaultdict(list)
    for q, a in samples:
        if a.get("score") is not None:
            out[str(q["id"])].append(float(a["score"]))
    return dict(out)


def item_estimate(samples: Sequence[Sample], units: Units, value: Callable[[list[float]], float]) -> Estimate:
    """The mean over items of ``value(item's scores)`` (item accuracy, all samples correct)."""
    questions = {str(q["id"]): q for q, _ in samples}
    sums: dict[str, float] = defaultdict(float)
    sizes: dict[str, int] = defaultdict(int)
    for qid, scores in item_scores(samples).items():
        unit = units.of(questions[qid])
        sums[unit] += value(scores)
        sizes[unit] += 1
    keys = sorted(sums)
    return cluster_mean([sums[k] for k in keys], [sizes[k] for k in keys])


def _items(item_ids: Sequence[str], scored: Sequence[bool]) -> tuple[np.ndarray, tuple[str, ...]]:
    """Each sample's item code and the ids by code: items numbered in the order item_scores
    meets them (their first scored sample), then the items with no scored sample (an update
    keeps a key where it stands)."""
    order = dict.fromkeys(itertools.compress(item_ids, scored))
    order.update(dict.fromkeys(item_ids))
    code = {qid: i for i, qid in enumerate(order)}
    return np.fromiter(map(code.__getitem__, item_ids), dtype=np.intp, count=len(item_ids)), tuple(code)


def _sorted_items(item_ids: Sequence[str], scored: np.ndarray) -> tuple[np.ndarray, tuple[str, ...], np.ndarray]:
    """``_items`` of ids in sorted order, where each item is one run of equal ids, and each
    sample's run: the runs' order is the ids' sorted order, and the items with a scored sample
    come in run order, then the others."""
    n = len(item_ids)
    starts_run = np.ones(n, dtype=bool)
    starts_run[1:] = np.fromiter(map(operator.ne, item_ids, itertools.islice(item_ids, 1, None)), dtype=bool,
                                 count=max(n - 1, 0))
    run = np.cumsum(starts_run, dtype=np.intp) - 1
    starts = np.flatnonzero(starts_run)
    has = np.bincount(run, weights=scored, minlength=len(starts)) > 0
    order = np.concatenate([np.flatnonzero(has), np.flatnonzero(~has)])
    code = np.empty(len(starts), dtype=np.intp)
    code[order] = np.arange(len(starts), dtype=np.intp)
    return code[run], tuple(item_ids[i] for i in starts[order].tolist()), run


@dataclass(frozen=True)
class SampleColumns:
    """A run's samples as arrays, built in one pass, for a report that groups every sample once
    per slice key: the figures of a group (``estimate``, ``item_estimate``) are then bincounts
    over its positions instead of a Python loop over its samples (a 100,000-sample report built
    its groups in 4.9 s of CPU, its item figures in 2 s; benchmarks/report_groups.py).

    Unit codes follow the units' names in sorted order and item codes the items' first scored
    sample, and ``np.bincount`` adds its weights one after the other in position order: every
    sum below is the one ``accuracy_estimate`` and ``item_estimate`` make, in the same order,
    so every figure is the same to the bit."""

    unit: np.ndarray           # per sample: its unit's code
    item: np.ndarray           # per sample: its item's code
    score: np.ndarray          # per sample: its score (0.0 where unscored)
    scored: np.ndarray         # per sample: whether it has a score
    error: np.ndarray          # per sample: whether it records an error
    ids: tuple[str, ...]       # item code -> question id
    units: int                 # how many units

    @classmethod
    def of(cls, samples: Sequence[Sample], units: Units) -> SampleColumns:
        # a list comprehension per column rather than one loop of appends, and no dict of ids
        # where the samples come sorted by question id, as a report's do (results.report_samples,
        # run_answers): a 100,000-sample report's columns took 0.30 s of CPU, now 0.1 s
        # (benchmarks/report_build.py)
        questions = [q for q, _ in samples]
        answers = [a for _, a in samples]
        item_ids = [str(q["id"]) for q in questions]
        raw = [a.get("score") for a in answers]
        has_score = [s is not None for s in raw]
        scored = np.asarray(has_score, dtype=bool)
        score = np.asarray([0.0 if s is None else float(s) for s in raw], dtype=float)
        error = np.asarray([bool(a.get("error")) for a in answers], dtype=bool)
        runs = None
        if all(map(operator.le, item_ids, itertools.islice(item_ids, 1, None))):
            item, ids, runs = _sorted_items(item_ids, scored)
        else:
            item, ids = _items(item_ids, has_score)
        if units.key is None and runs is not None:
            # each item its own unit, named by its id (Units.of): sorted ids number the units
            # in sorted order already
            unit, count = runs, int(runs[-1]) + 1 if len(runs) else 0
        else:
            names = item_ids if units.key is None else [units.of(q) for q in questions]
            code = {u: i for i, u in enumerate(sorted(set(names)))}
            unit, count = np.fromiter(map(code.__getitem__, names), dtype=np.intp, count=len(names)), len(code)
        return cls(unit=unit, item=item, score=score, scored=scored, error=error, ids=ids, units=count)

    def estimate(self, positions: np.ndarray | None = None) -> Estimate:
        """``accuracy_estimate`` of the samples at ``positions`` (increasing; all by default)."""
        unit, score = self._scored(positions)
        sums = np.bincount(unit, weights=score, minlength=self.units)
        sizes = np.bincount(unit, minlength=self.units)
        present = sizes > 0
        return cluster_mean(sums[present], sizes[present])

    def item_estimate(self, value: str, positions: np.ndarray | None = None) -> Estimate:
        """``item_estimate`` of the samples at ``positions`` for ``value`` "mean" (item
        accuracy: ``sum(v) / len(v)``) or "all" (every sample right: ``all(x >= 1.0)``)."""
        unit, score = self._scored(positions)
        item = self.item if positions is None else self.item[positions]
        item = item[self.scored if positions is None else self.scored[positions]]
        n = len(self.ids)
        counts = np.bincount(item, minlength=n)
        if value == "mean":
            per_item = np.bincount(item, weights=score, minlength=n)
            values = np.divide(per_item, counts, out=np.zeros(n), where=counts > 0)
        elif value == "all":
            values = (np.bincount(item, weights=~(score >= 1.0), minlength=n) == 0).astype(float)
        else:
            raise ValueError(f"unknown item value {value!r}")
        item_unit = np.zeros(n, dtype=np.intp)
        item_unit[item] = unit
        # items in code order are items in the order item_scores meets them
        present = np.flatnonzero(counts)
        sums = np.bincount(item_unit[present], weights=values[present], minlength=self.units)
        sizes = np.bincount(item_unit[present], minlength=self.units)
        keep = sizes > 0
        return cluster_mean(sums[keep], sizes[keep])

    def _scored(self, positions: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        if positions is None:
            return self.unit[self.scored], self.score[self.scored]
        mask = self.scored[positions]
        return self.unit[positions][mask], self.score[positions][mask]


def _balanced_from_totals(totals: np.ndarray) -> np.ndarray:
    right, total = totals[..., 0::2], totals[..., 1::2]
    present = total > 0
    per_class = np.divide(right, total, out=np.zeros_like(right), where=present)
    return per_class.sum(axis=-1) / present.sum(axis=-1)


def _bootstrap_whole_counts(counts: np.ndarray, statistic: Callable[[np.ndarray], np.ndarray], *,
                            resamples: int, seed: int) -> Estimate:
    """``stats.bootstrap_totals`` of whole counts, to the bit: the same draws, and each resample's
    totals as how often it drew each distinct row of counts times that row. A balanced
    accuracy's units have few distinct rows (one sample each: right or wrong in one class), so a
    resample is one bincount over its draws' row codes, not a (resamples, units) table of how
    often it drew each unit (a 100,000-sample report's balanced accuracy, 33,000 units: 0.50 s
    of CPU, now 0.25 s; benchmarks/report_build.py). Whole counts add up exactly in any order,
    so every total, and so every number, is the one bootstrap_totals gives."""
    n = len(counts)
    if n < 2:
        return bootstrap_totals(counts, statistic, resamples=resamples, seed=seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = float(statistic(counts.sum(axis=0)))
    estimate = estimate if math.isfinite(estimate) else None
    rows, code = np.unique(counts, axis=0, return_inverse=True)
    code = code.reshape(-1)
    width = len(rows)
    parts = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for drawn in resample_index_chunks(n, resamples, seed):
            at = code[drawn]
            at += (width * np.arange(len(drawn), dtype=at.dtype))[:, None]
            times = np.bincount(at.ravel(), minlength=len(drawn) * width).reshape(len(drawn), width)
            parts.append(np.asarray(statistic(times.astype(float) @ rows), dtype=float))
    return percentile_estimate(estimate, np.concatenate(parts), n, resamples)


def balanced_accuracy_estimate(pairs: Sequence[tuple[str, Hashable, Hashable]], *,
                               resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> Estimate:
    """``pairs``: (unit, gold, prediction). Balanced accuracy (``metrics.balanced_accuracy``:
    the mean per-class recall over the gold classes present) with a bootstrap over units."""
    classes = sorted({g for _, g, _ in pairs}, key=str)
    column = {c: i for i, c in enumerate(classes)}
    names = sorted({u for u, _, _ in pairs})
    row = {u: i for i, u in enumerate(names)}
    width = 2 * len(classes)
    # each pair's right cell in a flat (unit, 2 * class) table, its total cell the next one: whole
    # counts, so summed by bincount they are exactly what adding into one numpy row per pair gave,
    # without a numpy call per pair
    at = np.fromiter((row[u] * width + 2 * column[g] for u, g, _ in pairs), dtype=np.intp, count=len(pairs))
    right = np.fromiter((float(p == g) for _, g, p in pairs), dtype=float, count=len(pairs))
    size = len(names) * width
    counts = (np.bincount(at, weights=right, minlength=size)
              + np.bincount(at + 1, minlength=size)).reshape(len(names), width) if pairs else np.zeros((0, 2))
    return _bootstrap_whole_counts(counts, _balanced_from_totals, resamples=resamples, seed=seed)


# --- two runs --------------------------------------------------------------------------------------
def paired_runs(a: Sequence[Sample], b: Sequence[Sample], units: Units, *,
                group: Callable[[Mapping[str, Any]], Any] = lambda q: q.get("task"),
                resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """Run A minus run B over the items both answered: overall and per ``group`` (task), each
    an item-weighted accuracy difference over shared units with its paired bootstrap interval
    and p-value (``stats.paired_difference``). Says so when the runs share no item."""
    scores_a, scores_b = item_scores(a), item_scores(b)
    questions = {str(q["id"]): q for q, _ in a}
    shared = sorted(set(scores_a) & set(scores_b))
    out: dict[str, Any] = {"unit": units.name, "shared_items": len(shared),
                           "items_only_in_this_run": len(set(scores_a) - set(scores_b)),
                           "items_only_in_the_other": len(set(scores_b) - set(scores_a))}
    if not shared:
        out["note"] = "the runs share no items: no paired comparison"
        return out

    def compare(ids: Sequence[str], name: str) -> dict[str, Any]:
        sums_a: dict[str, float] = defaultdict(float)
        sums_b: dict[str, float] = defaultdict(float)
        sizes: dict[str, int] = defaultdict(int)
        for qid in ids:
            unit = units.of(questions[qid])
            sums_a[unit] += sum(scores_a[qid]) / len(scores_a[qid])
            sums_b[unit] += sum(scores_b[qid]) / len(scores_b[qid])
            sizes[unit] += 1
        keys = sorted(sizes)
        result = paired_difference([sums_a[k] for k in keys], [sums_b[k] for k in keys], [sizes[k] for k in keys],
                                   resamples=resamples, seed=child_seed(seed, "compare", name))
        return {"shared_items": len(ids), **result.as_dict(),
                **power_check(result.difference.estimate, result.difference.stderr, len(keys))}

    out["overall"] = compare(shared, "(all)")
    by_group: dict[str, list[str]] = defaultdict(list)
    for qid in shared:
        by_group[str(group(questions[qid]))].append(qid)
    out["by_task"] = {k: compare(v, k) for k, v in sorted(by_group.items())}
    return out


# --- planning --------------------------------------------------------------------------------------
def _plan_values(values: Mapping[str, float], questions: Mapping[str, Mapping], units: Units, gap: float, *,
                 paired: bool, alpha: float, power: float) -> dict[str, Any]:
    """Items (and clusters) needed to detect ``gap`` from per-item values (scores or differences)."""
    ids = sorted(values)
    vals = [values[i] for i in ids]
    variance = float(np.var(vals, ddof=1)) if len(vals) >= 2 else None
    out: dict[str, Any] = {"variance": variance, "items_observed": len(vals)}
    if variance is None:
        out.update(items_needed=None, note="fewer than two items: no variance to plan from")
        return out
    items = units_for_gap(gap, variance, paired=paired, alpha=alpha, power=power)
    out["items_needed_if_independent"] = items
    clusters: dict[str, list[float]] = defaultdict(list)
    for i in ids:
        clusters[units.of(questions[i])].append(values[i])
    if units.key is None or items is None:
        out["items_needed"] = items
        return out
    icc = intraclass_correlation(list(clusters.values()))
    sizes = [len(c) for c in clusters.values()]
    deff = design_effect(sizes, icc)
    needed = math.ceil(items * deff)
    out.update(icc=icc, design_effect=deff, mean_cluster_size=float(np.mean(sizes)), items_needed=needed,
               clusters_needed=math.ceil(needed / float(np.mean(sizes))))
    return out


def plan_for_gap(samples: Sequence[Sample], units: Units, gap: float, *,
                 other: Sequence[Sample] | None = None, alpha: float = 0.05, power: float = 0.8,
                 group: Callable[[Mapping[str, Any]], Any] = lambda q: q.get("task")) -> dict[str, Any]:
    """Per task and overall: how many items (and clusters) a run needs to detect ``gap`` with
    ``power`` at two-sided ``alpha``, given this run's variance of item scores — comparing two
    independent runs, and, with ``other`` (a second run on the same items), a paired design
    from the observed variance of the per-item differences."""
    questions = {str(q["id"]): q for q, _ in samples}
    means = {k: sum(v) / len(v) for k, v in item_scores(samples).items()}
    other_means = ({k: sum(v) / len(v) for k, v in item_scores(other).items()} if other is not None else None)
    groups: dict[str, list[str]] = defaultdict(list)
    for qid in means:
        groups[str(group(questions[qid]))].append(qid)

    def one(ids: Sequence[str]) -> dict[str, Any]:
        row = {"accuracy": float(np.mean([means[i] for i in ids])) if ids else None,
               "independent": _plan_values({i: means[i] for i in ids}, questions, units, gap, paired=False,
                                           alpha=alpha, power=power)}
        if other_means is not None:
            shared = [i for i in ids if i in other_means]
            row["paired"] = _plan_values({i: means[i] - other_means[i] for i in shared}, questions, units, gap,
                                         paired=True, alpha=alpha, power=power)
        return row

    return {"gap": gap, "alpha": alpha, "power": power, "unit": units.name,
            "overall": one(sorted(means)), "by_task": {k: one(v) for k, v in sorted(groups.items())}}


__all__ = ["Sample", "SampleColumns", "Units", "accuracy_estimate", "balanced_accuracy_estimate", "item_estimate",
           "item_scores", "paired_runs", "plan_for_gap"]

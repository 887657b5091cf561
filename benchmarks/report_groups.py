"""A run report's groups and item figures (``eval.report._build``: per task, form and slice
value, the accuracy with its interval over units, items, errors; the run's item accuracy, all
samples correct and balanced accuracy), before and after, in one process.

  before   the group as it was before 2026-11-29 (engine7), kept here: a list of the group's
           scores, ``run_stats.accuracy_estimate`` over it, a set of its ids and a count of its
           errors, each its own pass over the group's samples
  one pass the group as engine7 left it (kept here): one Python pass per group for every figure
  after    ``eval.report._group`` over ``run_stats.SampleColumns`` built once (as a report
           builds them): bincounts over each group's positions
  item figures     ``run_stats.item_estimate`` (item accuracy, all samples correct) and
                   ``accuracy_estimate`` (one pass each) against ``SampleColumns``
  balanced accuracy  one numpy row per unit filled pair by pair and a gathered bootstrap of
                   (chunk, units, k) rows (before) against bincounts (``run_stats``)

All run over the same N (question, answer) pairs as ``results.report_samples`` builds them
(harness_overhead.py's items: three forms, 8 relations, 14 years; items clustered by
``--cluster-key`` or each its own unit), grouped by task, form, relation and year as a report
groups them; their JSON must be equal, byte for byte. CPU seconds, best of --repeat, and the
ratio.

    .venv/bin/python benchmarks/report_groups.py [--items 4000 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict

from harness_overhead import make_items

from knowforge.eval import report
from knowforge.eval.metrics import accuracy
import numpy as np

from knowforge.eval.run_stats import SampleColumns, Units, _balanced_from_totals, accuracy_estimate, item_estimate
from knowforge.eval.run_stats import balanced_accuracy_estimate
from knowforge.eval.stats import Estimate, cluster_mean, percentile_estimate, resample_index_chunks
from knowforge.eval.shared_intervals import SharedIntervals

KEYS = ("task", "form", "slice_relation", "slice_year")


def before(samples, key, units, shared=None) -> dict:
    members: dict = defaultdict(list)
    for q, a in samples:
        members[report._hashable(key(q))].append((q, a))
    out = {}
    ordered = sorted(members, key=lambda k: (k is None, str(type(k)), k if k is not None else 0))
    for k in ordered:
        rows = members[k]
        scores = [a.get("score") for _, a in rows]
        est = accuracy_estimate(rows, units)
        ids = {str(q["id"]) for q, _ in rows}
        stats = {"n": len(rows), "correct": sum(float(s) for s in scores if s is not None),
                 "accuracy": accuracy(scores), **est.as_dict(), "unit": units.name, "items": len(ids),
                 "errors": sum(1 for _, a in rows if a.get("error"))}
        out[report._json_key(k)] = shared.apply(stats, ids) if shared is not None else stats
    return out


def one_pass(samples, key, units, shared=None) -> dict:
    members: dict = defaultdict(list)
    for pair in samples:
        members[report._hashable(key(pair[0]))].append(pair)
    out = {}
    ordered = sorted(members, key=lambda k: (k is None, str(type(k)), k if k is not None else 0))
    for k in ordered:
        rows = members[k]
        sums: dict[str, float] = {}
        sizes: dict[str, int] = {}
        ids: set[str] = set()
        scored: list[float] = []
        errors = 0
        for q, a in rows:
            ids.add(str(q["id"]))
            if a.get("error"):
                errors += 1
            score = a.get("score")
            if score is None:
                continue
            value = float(score)
            scored.append(value)
            unit = units.of(q)
            sums[unit] = sums.get(unit, 0.0) + value
            sizes[unit] = sizes.get(unit, 0) + 1
        keys = sorted(sums)
        est = cluster_mean([sums[u] for u in keys], [sizes[u] for u in keys])
        correct = sum(scored)
        stats = {"n": len(rows), "correct": correct, "accuracy": correct / len(scored) if scored else None,
                 **est.as_dict(), "unit": units.name, "items": len(ids), "errors": errors}
        out[report._json_key(k)] = shared.apply(stats, ids) if shared is not None else stats
    return out


def columns_groups(samples, units, shared) -> list:
    columns = SampleColumns.of(samples, units)
    return [report._group(samples, lambda q, key=key: q.get(key), units, shared, columns=columns) for key in KEYS]


def items_before(samples, units) -> list:
    return [e.as_dict() | {"value": e.estimate} for e in (
        accuracy_estimate(samples, units), item_estimate(samples, units, lambda v: sum(v) / len(v)),
        item_estimate(samples, units, lambda v: float(all(x >= 1.0 for x in v))))]


def items_after(samples, units) -> list:
    columns = SampleColumns.of(samples, units)
    return [e.as_dict() | {"value": e.estimate} for e in (
        columns.estimate(), columns.item_estimate("mean"), columns.item_estimate("all"))]


def balanced_before(pairs, resamples: int, seed: int) -> Estimate:
    classes = sorted({g for _, g, _ in pairs}, key=str)
    column = {c: i for i, c in enumerate(classes)}
    rows: dict[str, np.ndarray] = {}
    for unit, gold, pred in pairs:
        row = rows.setdefault(unit, np.zeros(2 * len(classes)))
        row[2 * column[gold]] += float(pred == gold)
        row[2 * column[gold] + 1] += 1
    c = np.array([rows[u] for u in sorted(rows)])
    n = len(c)
    estimate = float(_balanced_from_totals(c.sum(axis=0)))
    parts = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for drawn in resample_index_chunks(n, resamples, seed, cells=max(1, 2_000_000 // c.shape[1])):
            parts.append(np.asarray(_balanced_from_totals(c[drawn].sum(axis=1)), dtype=float))
    return percentile_estimate(estimate, np.concatenate(parts), n, resamples)


def samples_of(n: int) -> list:
    out = []
    for i, item in enumerate(make_items(n)):
        question = {"id": item.id, "benchmark": item.benchmark, "task": item.task, "form": item.form,
                    "answers": list(item.answers), "metadata_json": json.dumps({"group": f"g{i // 5}"}),
                    **{f"slice_{k}": v for k, v in item.slices.items()}}
        # scores as a scorer gives them, one unscored sample in 50 and one failed in 100
        answer = {"id": f"run:{item.id}:0", "raw": "yes", "parsed": "yes", "sample_index": 0,
                  "score": None if i % 50 == 7 else float((i * 7) % 3 == 0)}
        if i % 100 == 3:
            answer["error"] = "timeout"
        out.append((question, answer))
    return out


def groups(fn, samples, units, shared) -> list:
    return [fn(samples, lambda q, key=key: q.get(key), units, shared) for key in KEYS]


def best_cpu(fn, *args, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        t = time.process_time()
        result = fn(*args)
        times.append(time.process_time() - t)
    return min(times), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, nargs="+", default=[4000, 100_000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for n in args.items:
        samples = samples_of(n)
        for cluster in (None, "group"):
            shared = SharedIntervals({}, Units(cluster).name, "accuracy")
            old, old_out = best_cpu(groups, before, samples, Units(cluster), shared, repeat=args.repeat)
            new, new_out = best_cpu(groups, report._group, samples, Units(cluster), shared, repeat=args.repeat)
            same = json.dumps(old_out) == json.dumps(new_out)
            print(f"report groups, {n:,} samples, unit {Units(cluster).name}: before {old:.3f} s, after {new:.3f} s: "
                  f"{old / max(new, 1e-6):.1f}x; same JSON: {'yes' if same else 'NO'}")
            one, one_out = best_cpu(groups, one_pass, samples, Units(cluster), shared, repeat=args.repeat)
            cols, cols_out = best_cpu(columns_groups, samples, Units(cluster), shared, repeat=args.repeat)
            same = json.dumps(one_out) == json.dumps(cols_out)
            print(f"report groups, {n:,} samples, unit {Units(cluster).name}: one pass {one:.3f} s, columns built once "
                  f"{cols:.3f} s: {one / max(cols, 1e-6):.1f}x; same JSON: {'yes' if same else 'NO'}")
            old, old_out = best_cpu(items_before, samples, Units(cluster), repeat=args.repeat)
            new, new_out = best_cpu(items_after, samples, Units(cluster), repeat=args.repeat)
            same = json.dumps(old_out) == json.dumps(new_out)
            print(f"item figures, {n:,} samples, unit {Units(cluster).name}: before {old:.3f} s, after {new:.3f} s: "
                  f"{old / max(new, 1e-6):.1f}x; same JSON: {'yes' if same else 'NO'}")
            units = Units(cluster)
            pairs = [(units.of(q), report._as_bool((q.get("answers") or [None])[0]), report._as_bool(a.get("parsed")))
                     for q, a in samples if q.get("form") == "boolean"]
            pairs = [(u, g, p) for u, g, p in pairs if g is not None]
            old, old_out = best_cpu(balanced_before, pairs, 1000, 7, repeat=args.repeat)
            new, new_out = best_cpu(lambda: balanced_accuracy_estimate(pairs, resamples=1000, seed=7),
                                    repeat=args.repeat)
            same = json.dumps(old_out.as_dict() | {"v": old_out.estimate}) == \
                json.dumps(new_out.as_dict() | {"v": new_out.estimate})
            print(f"balanced accuracy, {len(pairs):,} pairs, unit {units.name}, 1,000 resamples: before {old:.3f} s, "
                  f"after {new:.3f} s: {old / max(new, 1e-6):.1f}x; same JSON: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()

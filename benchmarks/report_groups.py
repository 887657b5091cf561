"""A run report's groups (``eval.report._group``: per task, form and slice value, the accuracy
with its interval over units, items, errors), before and after, in one process.

  before   the group as it was before 2026-11-29 (engine7), kept here: a list of the group's
           scores, ``run_stats.accuracy_estimate`` over it, a set of its ids and a count of its
           errors, each its own pass over the group's samples
  after    ``eval.report._group``: one pass per group for every figure

Both run over the same N (question, answer) pairs as ``results.report_samples`` builds them
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
from knowforge.eval.run_stats import Units, accuracy_estimate
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


if __name__ == "__main__":
    main()

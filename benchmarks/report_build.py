"""A run report's numbers (``eval.report._build``: overall, by task, by form, balanced accuracy,
each slice, accuracy by year per task), before and after, in one process.

  before   the build as it was at 8516073 (kept here): ``run_stats.SampleColumns`` built by one
           loop of appends with a dict of ids; each grouping a Python pass with a key function,
           ``_hashable`` and a list append per sample; a pass over every sample per task (its
           pairs, its ids, its year subset); the balanced accuracy's bootstrap counting every
           unit in every resample (``stats.bootstrap_totals``)
  after    ``eval.report._build``: each key's values read once and grouped by integer codes
           (numpy sorts the positions), columns by comprehensions and runs of sorted ids, the
           bootstrap counting each distinct row of counts (``run_stats``)

Over N (question, answer) pairs as ``results.report_samples`` builds them from
harness_overhead.py's items (three forms, 8 relations as slice ``topic``, 14 years; one sample
each, or --per-item; one unscored sample in 50, one error in 100), sorted by question id as a
report's samples come, units the items or ``--cluster-key``'s groups of five. Both under the
eval's paused collector and one BLAS thread. No graph: the run names no benchmark (no task
sizes read) and no ``relation`` slice (no labels read). CPU seconds, best of --repeat in
alternating order, the ratio, and whether both give the same JSON byte for byte.

    .venv/bin/python benchmarks/report_build.py [--items 4000 100000] [--repeat 3] [--per-item 1]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict

import numpy as np
from harness_overhead import make_items
from threadpoolctl import threadpool_limits

from knowforge.eval import report
from knowforge.eval.records import REPORT_VERSION, RunRecord
from knowforge.eval.results import report_samples
from knowforge.eval.run_stats import SampleColumns, Units, _balanced_from_totals
from knowforge.eval.shared_intervals import SharedIntervals
from knowforge.eval.stats import DEFAULT_RESAMPLES, bootstrap_totals, child_seed
from knowforge.eval.types import SampleResult
from knowforge.models.gc_pause import paused_gc


# --- before (8516073), kept here ------------------------------------------------------------------
def columns_before(samples, units: Units) -> SampleColumns:
    unit_of = units.of
    unit_names, item_ids, scores, scored, errors = [], [], [], [], []
    for q, a in samples:
        unit_names.append(unit_of(q))
        item_ids.append(str(q["id"]))
        score = a.get("score")
        scored.append(score is not None)
        scores.append(0.0 if score is None else float(score))
        errors.append(bool(a.get("error")))
    unit_code = {u: i for i, u in enumerate(sorted(set(unit_names)))}
    item_code: dict[str, int] = {}
    for qid, has in zip(item_ids, scored):
        if has and qid not in item_code:
            item_code[qid] = len(item_code)
    for qid in item_ids:
        if qid not in item_code:
            item_code[qid] = len(item_code)
    return SampleColumns(unit=np.fromiter((unit_code[u] for u in unit_names), dtype=np.intp, count=len(unit_names)),
                         item=np.fromiter((item_code[i] for i in item_ids), dtype=np.intp, count=len(item_ids)),
                         score=np.asarray(scores, dtype=float), scored=np.asarray(scored, dtype=bool),
                         error=np.asarray(errors, dtype=bool), ids=tuple(item_code), units=len(unit_code))


def group_before(samples, key, units, shared, *, columns, positions=None) -> dict:
    cols = columns
    members: dict = {}
    for i in (range(len(samples)) if positions is None else positions):
        label = report._hashable(key(samples[i][0]))
        found = members.get(label)
        if found is None:
            members[label] = [i]
        else:
            found.append(i)
    out = {}
    for k in sorted(members, key=lambda k: (k is None, str(type(k)), k if k is not None else 0)):
        at = np.asarray(members[k], dtype=np.intp)
        est = cols.estimate(at)
        scored = cols.score[at][cols.scored[at]]
        correct = sum(scored.tolist())
        items = np.unique(cols.item[at])
        stats = {"n": len(at), "correct": correct, "accuracy": correct / len(scored) if len(scored) else None,
                 **est.as_dict(), "unit": units.name, "items": len(items), "errors": int(cols.error[at].sum())}
        if shared is not None and shared.may_hold(len(items)):
            stats = shared.apply(stats, {cols.ids[i] for i in items.tolist()})
        out[report._json_key(k)] = stats
    return out


def balanced_before(pairs, *, resamples: int, seed: int):
    classes = sorted({g for _, g, _ in pairs}, key=str)
    column = {c: i for i, c in enumerate(classes)}
    names = sorted({u for u, _, _ in pairs})
    row = {u: i for i, u in enumerate(names)}
    width = 2 * len(classes)
    at = np.fromiter((row[u] * width + 2 * column[g] for u, g, _ in pairs), dtype=np.intp, count=len(pairs))
    right = np.fromiter((float(p == g) for _, g, p in pairs), dtype=float, count=len(pairs))
    size = len(names) * width
    counts = (np.bincount(at, weights=right, minlength=size)
              + np.bincount(at + 1, minlength=size)).reshape(len(names), width) if pairs else np.zeros((0, 2))
    return bootstrap_totals(counts, _balanced_from_totals, resamples=resamples, seed=seed)


def scope_before(run, samples) -> dict:
    item_tasks = sorted({str(q.get("task")) for q, _ in samples})
    return {"benchmark": run.get("benchmark"), "tasks": list(run.get("run_tasks") or run.get("tasks") or item_tasks),
            "task_sizes": None, "item_tasks": item_tasks, "task_filter": run.get("task_filter"),
            "limit": run.get("limit"), "items": len({q["id"] for q, _ in samples}), "samples_per_item": run.get("n"),
            "questions_of_these_tasks": 0, "benchmark_tasks": {}}


def build_before(run: dict, samples, units: Units, *, resamples: int, seed: int) -> dict:
    units = Units(units.key)        # a fresh one, as _build makes: its cache of units starts empty
    per_item: dict = defaultdict(list)
    for q, a in samples:
        per_item[q["id"]].append(a.get("score") or 0.0)
    shared = SharedIntervals(run, units.name, "accuracy")
    columns = columns_before(samples, units)
    acc, item_acc, all_right = columns.estimate(), columns.item_estimate("mean"), columns.item_estimate("all")
    out = {"version": REPORT_VERSION, "run_id": "r", "scoring": report.scoring_of(run),
           "run": RunRecord.from_properties(run).model_dump(mode="json"), "scope": scope_before(run, samples),
           "overall": {"items": len(per_item), "samples": len(samples), "accuracy": acc.estimate, **acc.as_dict(),
                       "unit": units.name, "item_accuracy": item_acc.estimate,
                       "item_accuracy_stderr": item_acc.stderr, "item_accuracy_ci": item_acc.as_dict()["ci"],
                       "all_samples_correct": all_right.estimate, "all_samples_correct_stderr": all_right.stderr,
                       "all_samples_correct_ci": all_right.as_dict()["ci"],
                       "errors": sum(1 for _, a in samples if a.get("error")),
                       "cached": sum(1 for _, a in samples if a.get("cached"))}}
    shared.apply(out["overall"], {str(i) for i in per_item})
    out["by_task"] = group_before(samples, lambda q: q.get("task"), units, shared, columns=columns)
    out["by_form"] = group_before(samples, lambda q: q.get("form"), units, shared, columns=columns)
    balanced = {}
    balanced_shared = SharedIntervals(run, units.name, "balanced_accuracy")
    for task in sorted({q.get("task") for q, _ in samples if q.get("form") in report._BOOL_FORMS}, key=str):
        pairs = [(units.of(q), report._as_bool((q.get("answers") or [None])[0]), report._as_bool(a.get("parsed")))
                 for q, a in samples if q.get("task") == task]
        pairs = [(u, g, p) for u, g, p in pairs if g is not None]
        if pairs:
            est = balanced_before(pairs, resamples=resamples, seed=child_seed(seed, "balanced_accuracy", task))
            balanced[str(task)] = balanced_shared.apply({"value": est.estimate, **est.as_dict(), "unit": units.name},
                                                        {str(q["id"]) for q, _ in samples if q.get("task") == task},
                                                        "value")
    out["balanced_accuracy"] = balanced
    names: set = set()
    for q, _ in samples:
        names.update(q)
    slice_keys = sorted(k for k in names if k.startswith("slice_"))
    out["slices"] = {k[len("slice_"):]: group_before(samples, lambda q, key=k: q.get(key), units, shared,
                                                     columns=columns) for k in slice_keys}
    if "slice_year" in slice_keys:
        curves = {}
        for task in sorted({q.get("task") for q, _ in samples}, key=str):
            subset = [i for i, (q, _) in enumerate(samples)
                      if q.get("task") == task and q.get("slice_year") is not None]
            if subset:
                curves[task] = group_before(samples, lambda q: q.get("slice_year"), units, shared, columns=columns,
                                            positions=subset)
        out["by_year"] = curves
    return out


# --- after ----------------------------------------------------------------------------------------
def build_after(run: dict, samples, units: Units, *, resamples: int, seed: int) -> dict:
    built = report._build(None, report._RunData(run, samples, None), "r", cluster_key=units.key,
                          resamples=resamples, seed=seed)
    built.pop("uncertainty")        # words, the same either way; not kept above
    return built


def samples_of(n: int, per_item: int, cluster: str | None) -> list:
    items = make_items(n)
    questions = {}
    for i, item in enumerate(items):
        slices = {"topic" if k == "relation" else k: v for k, v in item.slices.items()}
        questions[item.id] = {"id": item.id, "benchmark": item.benchmark, "task": item.task, "form": item.form,
                              "answers": list(item.answers),
                              "metadata_json": json.dumps({cluster: f"g{i // 5}"} if cluster else {}),
                              **{f"slice_{k}": v for k, v in slices.items()}}
    results = [SampleResult(item.id, k, raw="yes", parsed="yes" if (i + k) % 3 else "no",
                            score=None if i % 50 == 7 else float((i * 7 + k) % 3 == 0), prompt=item.question,
                            error="timeout" if i % 100 == 3 else None, rule="x:strict")
               for i, item in enumerate(items) for k in range(per_item)]
    return report_samples("r", questions, results)


def best_cpu(fns: dict, repeat: int) -> dict:
    times: dict = {name: [] for name in fns}
    out = {}
    for _ in range(repeat):
        for name, fn in fns.items():        # alternating, so drifting load hits both alike
            with paused_gc(), threadpool_limits(limits=1, user_api="blas"):
                t = time.process_time()
                out[name] = fn()
                times[name].append(time.process_time() - t)
    return {name: (min(ts), out[name]) for name, ts in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, nargs="+", default=[4000, 100_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--per-item", type=int, default=1, help="samples per item")
    ap.add_argument("--cluster-key", default="group", help="the metadata key of the clustered run")
    ap.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES)
    args = ap.parse_args()
    for n in args.items:
        for cluster in (None, args.cluster_key):
            samples = samples_of(n, args.per_item, cluster)
            units = Units(cluster)
            run = {"cluster_key": cluster}
            kw = dict(resamples=args.resamples, seed=0)
            res = best_cpu({"before": lambda: build_before(run, samples, units, **kw),
                            "after": lambda: build_after(run, samples, units, **kw)}, args.repeat)
            (old, old_out), (new, new_out) = res["before"], res["after"]
            same = json.dumps(old_out) == json.dumps(new_out)
            print(f"report build, {len(samples):,} samples, unit {units.name}: before {old:.3f} s, after {new:.3f} s: "
                  f"{old / max(new, 1e-6):.1f}x; same JSON: {'yes' if same else 'NO'}")
            res = best_cpu({"before": lambda: columns_before(samples, units),
                            "after": lambda: SampleColumns.of(samples, units)}, args.repeat)
            (old, old_out), (new, new_out) = res["before"], res["after"]
            same = all(np.array_equal(getattr(old_out, f), getattr(new_out, f)) for f in ("unit", "item", "score",
                                                                                           "scored", "error")) \
                and old_out.ids == new_out.ids and old_out.units == new_out.units
            print(f"  of which the columns: before {old:.3f} s, after {new:.3f} s: {old / max(new, 1e-6):.1f}x; "
                  f"same columns: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()

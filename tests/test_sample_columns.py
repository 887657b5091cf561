"""A report's figures from sample columns (``run_stats.SampleColumns``) are the figures of the
per-sample Python passes they replace, to the bit: unscored samples, several samples per
item, clustered units and fractional scores included."""

from __future__ import annotations

import json
import random

from knowforge.eval import report
from knowforge.eval.run_stats import SampleColumns, Units, accuracy_estimate, balanced_accuracy_estimate, item_estimate
from knowforge.eval.shared_intervals import SharedIntervals, items_key


def _samples(n_items: int = 120, seed: int = 3) -> list:
    rng = random.Random(seed)
    out = []
    for i in range(n_items):
        question = {"id": f"q{i}", "task": f"t{i % 3}", "form": "boolean" if i % 3 == 2 else "generation",
                    "answers": ["yes" if i % 2 else "no"], "metadata_json": json.dumps({"event": f"e{i // 4}"}),
                    "slice_year": 2000 + i % 5}
        for k in range(1 + i % 3):
            score = None if rng.random() < 0.1 else rng.choice([0.0, 1.0, 0.25, 1 / 3, 0.7])
            answer = {"id": f"run:q{i}:{k}", "sample_index": k, "parsed": rng.choice(["yes", "no"])}
            if score is not None:
                answer["score"] = score
            if rng.random() < 0.05:
                answer["error"] = "timeout"
            out.append((question, answer))
    rng.shuffle(out)
    return out


def test_columns_give_the_figures_of_the_python_passes_to_the_bit():
    samples = _samples()
    for key in (None, "event"):
        units = Units(key)
        columns = SampleColumns.of(samples, units)
        assert columns.estimate() == accuracy_estimate(samples, units)
        assert columns.item_estimate("mean") == item_estimate(samples, units, lambda v: sum(v) / len(v))
        assert columns.item_estimate("all") == item_estimate(samples, units, lambda v: float(all(x >= 1.0 for x in v)))
        some = [i for i, (q, _) in enumerate(samples) if q["task"] == "t1"]
        assert columns.estimate(some) == accuracy_estimate([samples[i] for i in some], units)


def test_a_group_from_columns_equals_the_group_built_alone():
    samples = _samples()
    units = Units("event")
    columns = SampleColumns.of(samples, units)
    year = lambda q: q.get("slice_year")  # noqa: E731
    some = [i for i, (q, _) in enumerate(samples) if q["task"] == "t0"]
    alone = report._group([samples[i] for i in some], year, units)
    assert report._group(samples, year, units, columns=columns, positions=some) == alone
    counted = alone[next(iter(alone))]
    rows = [(q, a) for q, a in (samples[i] for i in some) if q["slice_year"] == int(next(iter(alone)))]
    assert counted["n"] == len(rows) and counted["items"] == len({q["id"] for q, _ in rows})
    assert counted["errors"] == sum(1 for _, a in rows if a.get("error"))


def test_shared_intervals_skip_only_groups_of_no_tasks_size():
    run = {"task_items": {"t": items_key(["a", "b"])}, "task_sizes": {"t": 2},
           "task_metric_values": [{"task": "t", "metric": "accuracy", "value": 0.5, "ci": [0.1, 0.9]}]}
    shared = SharedIntervals(run, "item", "accuracy")
    assert shared.may_hold(2) and not shared.may_hold(3)
    assert shared.apply({"accuracy": 0.5}, {"a", "b"})["ci"] == [0.1, 0.9]
    unsized = SharedIntervals({**run, "task_sizes": None}, "item", "accuracy")
    assert unsized.may_hold(3) and unsized.may_hold(2)
    assert not SharedIntervals({}, "item", "accuracy").may_hold(2)


def test_balanced_accuracy_counts_every_pair():
    pairs = [(f"u{i % 7}", i % 2 == 0, (i % 3 == 0)) for i in range(50)]
    est = balanced_accuracy_estimate(pairs, resamples=200, seed=1)
    recall = [sum(1 for _, g, p in pairs if g == c and p == g) / sum(1 for _, g, _ in pairs if g == c)
              for c in (False, True)]
    assert est.estimate == sum(recall) / 2 and est.units == 7 and est.ci is not None

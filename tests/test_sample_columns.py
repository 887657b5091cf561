"""A report's figures from sample columns (``run_stats.SampleColumns``) are the figures of the
per-sample Python passes they replace, to the bit: unscored samples, several samples per
item, clustered units and fractional scores included."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np

from knowforge.eval import report
from knowforge.eval.run_stats import SampleColumns, Units, accuracy_estimate, balanced_accuracy_estimate, item_estimate
from knowforge.eval.run_stats import _balanced_from_totals
from knowforge.eval.shared_intervals import SharedIntervals, items_key
from knowforge.eval.stats import bootstrap_totals


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
    shuffled = _samples()
    # sorted by question id, as a report's samples come: the columns number items by runs of ids
    ordered = sorted(shuffled, key=lambda qa: (qa[0]["id"], qa[1]["sample_index"]))
    for samples, key in itertools.product((shuffled, ordered), (None, "event")):
        units = Units(key)
        columns = SampleColumns.of(samples, units)
        assert columns.estimate() == accuracy_estimate(samples, units)
        assert columns.item_estimate("mean") == item_estimate(samples, units, lambda v: sum(v) / len(v))
        assert columns.item_estimate("all") == item_estimate(samples, units, lambda v: float(all(x >= 1.0 for x in v)))
        some = [i for i, (q, _) in enumerate(samples) if q["task"] == "t1"]
        assert columns.estimate(some) == accuracy_estimate([samples[i] for i in some], units)
        assert sorted(columns.ids) == sorted({q["id"] for q, _ in samples})


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


def test_groups_keep_the_order_and_members_of_a_dict_of_labels():
    """Groups by integer codes (``report._codes``) are the groups of a dict of labels: equal
    values one group (1, 1.0 and True), lists and dicts by their JSON text, None last, then by
    type name and value, and each group's first label its name."""
    samples = _samples()
    labels = [None, 3, "c", 1.0, 1, True, [1, 2], {"a": 1}, "[1, 2]", 2.5, "b", "a", 0, False, 2]
    value = {q["id"]: labels[i % len(labels)] for i, q in enumerate({q["id"]: q for q, _ in samples}.values())}
    key = lambda q: value[q["id"]]  # noqa: E731
    members: dict = {}
    for i, (q, _) in enumerate(samples):
        members.setdefault(report._hashable(key(q)), []).append(i)
    ordered = sorted(members, key=lambda k: (k is None, str(type(k)), k if k is not None else 0))
    units = Units("event")
    groups = report._group(samples, key, units)
    assert list(groups) == [report._json_key(k) for k in ordered] and "1.0" in groups and "[1, 2]" in groups
    for k in ordered:
        assert groups[report._json_key(k)] == report._group([samples[i] for i in members[k]], lambda q: 0, units)["0"]


def test_balanced_accuracy_is_the_bootstrap_of_its_totals_to_the_bit():
    rng = random.Random(5)
    for units in (40, 400):
        # units of one pair (few distinct rows of counts) and of several (many)
        pairs = [(f"u{rng.randrange(units)}", rng.choice([True, False, "maybe"]), rng.choice([True, False]))
                 for _ in range(600)]
        classes = sorted({g for _, g, _ in pairs}, key=str)
        names = sorted({u for u, _, _ in pairs})
        counts = np.zeros((len(names), 2 * len(classes)))
        for u, g, p in pairs:
            counts[names.index(u), 2 * classes.index(g)] += float(p == g)
            counts[names.index(u), 2 * classes.index(g) + 1] += 1
        assert balanced_accuracy_estimate(pairs, resamples=300, seed=9) == \
            bootstrap_totals(counts, _balanced_from_totals, resamples=300, seed=9)

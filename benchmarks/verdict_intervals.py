"""The intervals of ELKEN's, ChroKnow's and LINK's verdict metrics: over arrays of per-unit totals
vs recomputed on object-level resamples (issue 33, items 2 and 6).

ELKEN's ``edit_reliability``, ``locality`` and ``tendency_edit_level`` and ChroKnow's
``chrono_categories`` and ``chronoprompt_gain`` declare per-unit totals (``MetricSpec.totals``):
an event's (a fact's) verdict is one row of counts reading all its items, a sum over units
when the run's unit is the event (the record). Before, they were recomputed on a copy of the
run per resample. This script times ``metric_intervals`` on runs of realistic size both ways
in one process: the baseline is the same registry with those five metrics' totals taken away
(so they take the object-level path, as before), everything else equal. For ChroKnow it also
times the solver's own two tables (the report's sections), which it bootstrapped the same
way (``resampled_intervals``) and now computes from the same totals (``table_intervals``).

The runs are synthetic and seeded, shaped like the real ones:

* ChroKnow: the demo's ChroKnowPrompt run (``chrono:general-generation``, both spans): 83
  records, years 2010-2023 (9-14 per record), one template, 10 answers per item (five greedy
  and five sampled), so about 10,300 answers; its intervals take 200 resamples there.
* ELKEN: ``--events`` events, each with in-scope fact, out-of-scope fact and tendency
  questions (4-8, 2-4 and 2-3), the method's three tasks, 1,000 resamples.
* LINK: the demo's LINT probe run, ``--statements`` statements (40) of 13 template items each,
  head and long tail, two domains, five rules, 1,000 resamples: ``link_known``,
  ``link_head_tail`` and the three by-slice tables (helper demo11), and the solver's own
  head/tail table (``totals_intervals`` against ``resampled_intervals``).

It prints each side's best time of ``--repeat`` and the ratio object-level / arrays, and checks
that both ways give the same point values (and intervals that agree).

    .venv/bin/python benchmarks/verdict_intervals.py [--records 83] [--events 200] [--statements 40] [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import time

import numpy as np

CONVERTED = ("edit_reliability", "locality", "tendency_edit_level", "chrono_categories", "chronoprompt_gain",
             "link_known", "link_head_tail", "link_by_domain", "link_by_rule", "link_by_graph_premises")


@contextlib.contextmanager
def object_level():
    """The registry as before: the converted metrics without their totals."""
    from knowforge.eval.registry import registry

    metrics = registry().metrics
    saved = {name: metrics[name] for name in CONVERTED}
    for name, spec in saved.items():
        metrics[name] = dataclasses.replace(spec, totals=None, objects_because="baseline: no totals")
    try:
        yield
    finally:
        metrics.update(saved)


def chrono_run(records: int, seed: int = 0):
    from knowforge.eval.chrono.categories import classify_timeline
    from knowforge.eval.chrono.check import CheckResult, FactCheck, YearCheck
    from knowforge.eval.chrono.prompt import PromptResult
    from knowforge.eval.chrono.solver import CHECK, CHRONOPROMPT
    from knowforge.eval.types import SampleResult
    from knowforge.eval.unit import SolverOutput
    from knowforge.generators.chrono.method import TASKS
    from knowforge.models.types import BenchmarkItem

    rng = np.random.default_rng(seed)
    states = ("correct", "partial_correct1", "partial_correct2", "incorrect")
    items, samples, years, facts = [], [], [], []
    for r in range(records):
        rid = f"rec{r}"
        change = "dynamic" if r % 6 == 0 else "static"
        first = 2010 + int(rng.integers(0, 6))
        per_year = {}
        for year in range(first, 2024):
            item_id = f"chrono:g:{rid}:{year}:generation"
            items.append(BenchmarkItem(id=item_id, benchmark="chrono:g", task="chrono/generation", form="generation",
                                       question=f"In {year}, subject {r}, member of, [Object]", answers=[f"O{r}"],
                                       scorer="chrono-check",
                                       slices={"domain": "general", "relation": "P54", "year": year,
                                               "change": change, "template": "generation"},
                                       metadata={"record_id": rid}))
            state = str(rng.choice(states, p=[0.45, 0.15, 0.1, 0.3]))
            per_year[year] = state
            years.append(YearCheck(item_id, rid, "generation", year, "general", "P54", change, (f"O{r}",),
                                   (f"O{r}",) * 5, (f"O{r}",) * 5, state))
            for k in range(10):
                right = float(rng.random() < 0.5)
                samples.append(SampleResult(item_id, k, "A. x", "x", right))
        facts.append(FactCheck(rid, "generation", "general", "P54", change, f"subject {r}", per_year,
                               classify_timeline(per_year)))
    check = CheckResult(years, facts, samples)
    generation = {f.record_id: f for f in facts}
    prompts = []
    for span in ("total", "previous"):
        before = {rid: f.category == "Known" for rid, f in generation.items()}
        after = {rid: before[rid] or bool(rng.random() < 0.3) for rid in generation}
        prompts.append(PromptResult(span, [], before, after, dict(generation)))
    output = SolverOutput(items=items, samples=samples, details={CHECK: check, CHRONOPROMPT: prompts})
    tasks = [t for t in TASKS if t.name == "chrono/generation"]
    return tasks, output


def elken_run(events: int, seed: int = 0):
    from knowforge.eval.events.metrics import EDITING, EditingDetails
    from knowforge.eval.events.rules import score_fact_item, score_tendency_item
    from knowforge.eval.types import SampleResult
    from knowforge.eval.unit import SolverOutput
    from knowforge.generators.events.method import TASKS
    from knowforge.models.types import BenchmarkItem

    rng = np.random.default_rng(seed)
    items = []
    for e in range(events):
        meta = {"event_id": f"ev{e}", "event": f"Entity {e} did something in 2024."}
        kind = f"type{e % 11}"
        for q in range(int(rng.integers(4, 9))):
            unknown = rng.random() < 0.15
            items.append(BenchmarkItem(
                id=f"ev{e}:f{q}", benchmark="events:x", task="events/fact", form="generation", question=f"q{e}.{q}?",
                answers=["unknown" if unknown else f"Name {e}.{q}"], unknown=unknown, scorer="elken-fact",
                slices={"part": "fact", "scope": "in", "event_type": kind, "needs_background": bool(q % 3 == 0)},
                metadata=meta))
        for q in range(int(rng.integers(2, 5))):
            items.append(BenchmarkItem(
                id=f"ev{e}:l{q}", benchmark="events:x", task="events/locality", form="generation",
                question=f"l{e}.{q}?", answers=[f"Other {e}.{q}"], scorer="elken-fact",
                slices={"part": "fact", "scope": "out", "event_type": kind}, metadata=meta))
        for q in range(int(rng.integers(2, 4))):
            items.append(BenchmarkItem(
                id=f"ev{e}:t{q}", benchmark="events:x", task="events/tendency", form="multi-choice",
                question=f"t{e}.{q}?", choices=["up", "down", "same"], answer_index=0, answers=["A"],
                scorer="elken-tendency", slices={"part": "tendency", "scope": "in", "event_type": kind},
                metadata=meta))
    samples, before = [], {}
    for item in items:
        if item.scorer == "elken-tendency":
            raw = str(rng.choice(["A", "B", "C"], p=[0.6, 0.2, 0.2]))
            score = score_tendency_item(item, raw).value
        else:
            raw = str(rng.choice([item.answers[0], "wrong"], p=[0.7, 0.3]))
            score = score_fact_item(item, raw).value
            if item.slices["scope"] == "out":
                before[item.id] = raw if rng.random() < 0.8 else "other"
        samples.append(SampleResult(item.id, 0, raw, raw, score))
    output = SolverOutput(items=items, samples=samples, details={EDITING: EditingDetails("ice", before)})
    return list(TASKS), output


def link_run(statements: int, seed: int = 0):
    from knowforge.eval.types import SampleResult
    from knowforge.eval.unit import SolverOutput
    from knowforge.generators.link.method import TASKS
    from knowforge.models.types import BenchmarkItem

    rng = np.random.default_rng(seed)
    items, samples = [], []
    for s in range(statements):
        slices = {"distribution": "head" if s % 2 else "longtail", "domain": f"d{s % 2}", "rule": f"r{s % 5}",
                  "graph_premises": 1 + s % 2, "hidden_premises": 1}
        right = 0.98 if s % 3 else 0.5
        for t in range(1, 14):
            item = BenchmarkItem(id=f"link:x:s{s}:{t}", benchmark="link:x", task=TASKS[0].name, form="true-false",
                                 question="q", answers=["Yes"], slices={**slices, "template": t},
                                 metadata={"statement_id": f"s{s}"})
            items.append(item)
            samples.append(SampleResult(item.id, 0, "Yes", "Yes", float(rng.random() < right)))
    return list(TASKS), SolverOutput(items=items, samples=samples)


def compare_link_table(output, resamples: int, repeat: int) -> None:
    from knowforge.eval.link.probe import head_tail, totals_head_tail
    from knowforge.eval.metric_stats import resampled_intervals, totals_intervals
    from knowforge.eval.unit import MetricInput

    items, samples = output.items, output.samples
    split = head_tail(items, samples)

    def objects():
        return resampled_intervals(lambda sample: head_tail(sample.items, sample.samples), split, items, samples,
                                   "statement_id", resamples=resamples, seed=0)

    def arrays():
        return totals_intervals(totals_head_tail(MetricInput(items, samples)), split, items, "statement_id",
                                resamples=resamples, seed=0)

    slow, before = best(objects, repeat)
    fast, after = best(arrays, repeat)
    assert before.keys() == after.keys()
    for path in after:
        assert (after[path].ci is None) == (before[path].ci is None), path
        if after[path].ci is not None:
            assert np.allclose(after[path].ci, before[path].ci, atol=1e-9), path
    print(f"LINK solver table: object-level {slow:.2f} s, arrays {fast:.3f} s; ratio object-level / arrays "
          f"{slow / fast:.1f}x")


def best(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def compare(name: str, tasks, output, key: str, resamples: int, repeat: int) -> None:
    from knowforge.eval.metric_stats import metric_intervals
    from knowforge.eval.tasks import task_metrics

    metrics = task_metrics(tasks, output, "knowforge")

    def run():
        return metric_intervals(tasks, output, metrics, "knowforge", key=key, resamples=resamples, seed=0)

    with object_level():
        slow, before = best(run, repeat)
    fast, after = best(run, repeat)
    rows_before = {(t, r["name"]): r for t, rs in before.items() for r in rs}
    rows_after = {(t, r["name"]): r for t, rs in after.items() for r in rs}
    assert rows_before.keys() == rows_after.keys()
    worst = 0.0
    for k, r in rows_after.items():
        assert r["value"] == rows_before[k]["value"], k
        if r["ci"] is not None:
            worst = max(worst, abs(r["ci"][0] - rows_before[k]["ci"][0]), abs(r["ci"][1] - rows_before[k]["ci"][1]))
    moved = sum(r.get("resample") == "arrays" and rows_before[k].get("resample") == "objects"
                for k, r in rows_after.items())
    units = next(iter(rows_after.values()))["units"]
    print(f"{name}: {len(output.items):,} items, {len(output.samples):,} answers, {units} units, {resamples} resamples; "
          f"{moved} of {len(rows_after)} numbers moved to arrays; largest interval difference {worst:.2g}")
    print(f"{name} metric_intervals: object-level {slow:.2f} s, arrays {fast:.3f} s; ratio object-level / arrays "
          f"{slow / fast:.1f}x")


def compare_tables(tasks, output, resamples: int, repeat: int) -> None:
    from knowforge.eval.chrono.check import category_table, category_totals
    from knowforge.eval.chrono.prompt import gain_table, gain_totals
    from knowforge.eval.chrono.solver import CHECK, CHRONOPROMPT, table_intervals
    from knowforge.eval.metric_stats import resampled_intervals

    check, prompts = output.details[CHECK], output.details[CHRONOPROMPT]
    categories, gains = category_table(check), gain_table(prompts)
    interval = dict(items=output.items, key="record_id", resamples=resamples, seed=0)

    def objects():
        return (resampled_intervals(lambda s: category_table(check.remap(s.copies)), categories, output.items, [],
                                    "record_id", resamples=resamples, seed=0),
                resampled_intervals(lambda s: gain_table([p.remap(s.copies) for p in prompts]), gains,
                                    output.items, [], "record_id", resamples=resamples, seed=0))

    def arrays():
        return (table_intervals(categories, lambda: category_totals(check),
                                lambda s: category_table(check.remap(s.copies)), **interval),
                table_intervals(gains, lambda: gain_totals(prompts, output.items),
                                lambda s: gain_table([p.remap(s.copies) for p in prompts]), **interval))

    slow, before = best(objects, repeat)
    fast, after = best(arrays, repeat)
    for b, a in zip(before, after):
        assert b.keys() == a.keys()
        for path in a:
            assert np.allclose(a[path].ci, b[path].ci, atol=1e-9), path
    print(f"chrono solver tables: object-level {slow:.2f} s, arrays {fast:.3f} s; ratio object-level / arrays "
          f"{slow / fast:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=83, help="ChroKnow records (the demo's general domain: 83)")
    parser.add_argument("--events", type=int, default=200, help="ELKEN events")
    parser.add_argument("--chrono-resamples", type=int, default=200, help="the demo's ChroKnow run: 200")
    parser.add_argument("--resamples", type=int, default=1000, help="ELKEN's (the default --bootstrap)")
    parser.add_argument("--statements", type=int, default=40, help="LINK statements (the demo's: 40)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tasks, output = chrono_run(args.records)
    compare("ChroKnow", tasks, output, "record_id", args.chrono_resamples, args.repeat)
    compare_tables(tasks, output, args.chrono_resamples, args.repeat)
    tasks, output = elken_run(args.events)
    compare("ELKEN", tasks, output, "event_id", args.resamples, args.repeat)
    tasks, output = link_run(args.statements)
    compare("LINK", tasks, output, "statement_id", args.resamples, args.repeat)
    compare_link_table(output, args.resamples, args.repeat)


if __name__ == "__main__":
    main()

"""Intervals on task metrics (eval/metric_stats.py), without a graph: the cluster bootstrap of a
metric is the one eval/stats.py computes, further copies of a unit are renamed consistently
(items, samples, the unit key, the details metrics read), gaps get paired or unpaired tests,
and what cannot be resampled says so."""

from __future__ import annotations

import json
import numpy as np
import pytest

from knowforge.eval.chrono.check import CheckResult, FactCheck, YearCheck
from knowforge.eval.events.metrics import EditingDetails, metric_locality, metric_reliability
from knowforge.eval.metric_stats import (TAG, chance_of, format_number, group_units, leaf_name, metric_intervals,
                                         numeric_leaves, remap_detail, resample_run)
from knowforge.eval.newterm.solver import ANSWERS, NewTermAnswers, answers_of
from knowforge.eval.stats import bootstrap_ratio, child_seed, paired_difference
from knowforge.eval.tasks import render_summary, task_metrics
from knowforge.eval.types import SampleResult
from knowforge.eval.unit import CannotResample, MetricInput, SolverOutput
from knowforge.models.task import Component, ItemFilter, Task
from knowforge.models.types import BenchmarkItem


def _items(n: int, per_unit: int, *, task: str = "t/a", key: str = "g", **kw) -> list[BenchmarkItem]:
    return [BenchmarkItem(id=f"i{k}", benchmark="b:1", task=task, form=kw.get("form", "multi-choice"),
                          question="q", choices=kw.get("choices", ["w", "x", "y", "z"]), answer_index=0,
                          slices=kw.get("slices", {}), metadata={key: f"u{k // per_unit}", **kw.get("metadata", {})})
            for k in range(n)]


def _task(name: str = "t/a", metrics=("accuracy",)) -> Task:
    return Task(name=name, dataset=ItemFilter(tasks=(name,)), solver=Component(name="zero-shot"), metrics=metrics)


def test_a_metrics_interval_is_the_cluster_bootstrap_of_its_units():
    """For accuracy the engine's resamples are stats.bootstrap_ratio's over the same units
    with the same seed: the same interval to the last digit."""
    rng = np.random.default_rng(0)
    items = _items(30, 3)
    samples = [SampleResult(i.id, k, "A", "A", float(rng.random() < 0.5)) for i in items for k in range(2)]
    output = SolverOutput(items=items, samples=samples)
    metrics = task_metrics([_task()], output, "knowforge")
    [row] = metric_intervals([_task()], output, metrics, "knowforge", key="g", resamples=400, seed=3)["t/a"]
    units = group_units(items, "g")
    sums = [sum(s.score for s in samples if s.item_id in {i.id for i in u}) for u in units.items]
    reference = bootstrap_ratio(sums, [6] * 10, resamples=400, seed=child_seed(3, "metrics"))
    assert row["value"] == pytest.approx(reference.estimate)
    assert row["ci"] == pytest.approx(list(reference.ci), abs=1e-15) and row["stderr"] == pytest.approx(reference.stderr)
    assert (row["units"], row["unit"], row["resamples"], row["ci_method"]) == (10, "g", 400, "bootstrap")
    assert row["chance"] == 0.25 and row["excludes_chance"] == (row["ci"][0] > 0.25 or row["ci"][1] < 0.25)
    # without a unit key every item is a unit
    [by_item] = metric_intervals([_task()], output, metrics, "knowforge", key=None, resamples=400, seed=3)["t/a"]
    assert by_item["units"] == 30 and by_item["unit"] == "item"


def test_further_copies_of_a_unit_are_renamed_in_items_samples_and_unit_key():
    items = _items(6, 2)                                   # units u0, u1, u2
    samples = [SampleResult(i.id, k, "A", "A", 1.0) for i in items for k in range(2)]
    for resample in resample_run(items, samples, "g", resamples=50, seed=1):
        ids = [i.id for i in resample.items]
        assert len(ids) == len(set(ids)) == 6               # every copy distinct, sizes kept
        assert sorted(s.item_id for s in resample.samples) == sorted(i for i in ids for _ in range(2))
        for item, origin in zip(resample.items, resample.origin):
            tag = item.id[len(origin):]
            assert item.id.startswith(origin) and (tag == "" or tag.startswith(TAG))
            assert item.metadata["g"] == f"u{int(origin[1:]) // 2}{tag}"     # the unit key follows the copy
        copies = [c for c in resample.copies]
        assert [c.tag for c in copies].count("") == len({c.unit for c in copies})    # first draws keep their ids
        assert all(set(c.ids) == {f"i{2 * int(c.unit[1:])}", f"i{2 * int(c.unit[1:]) + 1}"} for c in copies)
    assert any(len({c.unit for c in r.copies}) < 3 for r in resample_run(items, samples, "g", resamples=50, seed=1))


def test_the_numbers_of_a_metric_value():
    value = {"questions": 12, "question_level": 0.5, "by": {"a": 0.25, "b": None},
             "rows": [{"domain": "general", "template": "generation", "facts": 4, "Known %": 50.0}],
             "flag": True}
    leaves = numeric_leaves(value)
    assert leaves == {("question_level",): 0.5, ("by", "a"): 0.25, ("by", "b"): None,
                      ("rows", "[domain=general, template=generation]", "Known %"): 50.0}
    assert leaf_name("m", ("rows", "[domain=general, template=generation]", "Known %")) == \
        "m.rows[domain=general, template=generation].Known %"
    # declared row fields name a row even when they are numbers (a year)
    table = [{"task": "COMA", "year": 2022, "items": 3, "base": 0.5, "gold": 0.75, "gap": -0.25}]
    assert numeric_leaves(table, ("task", "year")) == {("[task=COMA, year=2022]", "base"): 0.5,
                                                       ("[task=COMA, year=2022]", "gold"): 0.75,
                                                       ("[task=COMA, year=2022]", "gap"): -0.25}
    assert numeric_leaves(7) == {} and numeric_leaves(0.3) == {(): 0.3}
    assert format_number(0.41, [0.38, 0.44]) == "41.0 ± 3.0" and format_number(-0.25) == "-25.0"
    assert format_number(50.0, [40.0, 60.0], percent=True) == "50.0 ± 10.0"


def test_a_detail_that_cannot_follow_a_resample_is_said_not_resampled(monkeypatch):
    import dataclasses

    from knowforge.eval.registry import metric_spec, registry

    class Opaque:
        def remap(self, copies):
            raise CannotResample("its solver detail (Opaque) keeps no ids to follow a resample")

    class Untyped:
        pass

    with pytest.raises(CannotResample):
        remap_detail(Opaque(), [])
    items = _items(8, 2)
    samples = [SampleResult(i.id, 0, "A", "A", 1.0) for i in items]
    from knowforge.eval.events.metrics import EDITING

    with pytest.raises(TypeError, match="Untyped is not a SolverDetail"):     # details are typed
        SolverOutput(items=items, samples=samples, details={EDITING: Untyped()})

    output = SolverOutput(items=items, samples=samples, details={EDITING: Opaque()})
    # a metric that reads its detail on each object-level resample (locality as it was before it
    # declared per-event totals, which need no remapped detail)
    monkeypatch.setitem(registry().metrics, "locality", dataclasses.replace(
        metric_spec("locality"), totals=None, objects_because="it reads its detail whole"))
    task = _task(metrics=("locality",))
    metrics = {"t/a": {"locality": {"question_level": 0.5}}}
    [row] = metric_intervals([task], output, metrics, "knowforge", key="g", resamples=20)["t/a"]
    assert row["ci"] is None and row["note"].startswith("not resampled: its solver detail (Opaque)")
    [off] = metric_intervals([_task()], output, {"t/a": {"accuracy": 1.0}}, "knowforge", key="g", resamples=0)["t/a"]
    assert off["ci"] is None and off["note"] == "no interval: --bootstrap 0"


def test_each_copy_of_an_event_counts_as_an_event():
    """Edit-level reliability counts events: a resample that draws an event twice has two of
    them, and locality reads the answers without the edit under the copies' ids."""
    items = [BenchmarkItem(id=f"q{k}", benchmark="events:e", task="events/fact", form="generation", question="q",
                           answers=["a"], scorer="elken-fact", slices={"scope": "in" if k % 3 else "out"},
                           metadata={"event_id": f"ev{k // 3}"}) for k in range(12)]
    samples = [SampleResult(i.id, 0, "a", "a", 1.0) for i in items]
    details = EditingDetails("ice", {i.id: "a" for i in items if i.slices["scope"] == "out"})
    for resample in resample_run(items, samples, "event_id", resamples=20, seed=2):
        remapped = remap_detail(details, resample.copies)
        data = MetricInput(resample.items, resample.samples, remapped)
        assert metric_reliability(data)["events"] == 4                 # four draws, copies apart
        assert set(remapped.before) == {i.id for i in resample.items if i.slices["scope"] == "out"}
        assert metric_locality(data)["question_level"] == 1.0


def test_each_copy_of_a_chrono_record_counts_as_a_fact():
    def year(rid, y, cat):
        return YearCheck(f"{rid}-{y}", rid, "generation", y, "general", "P54", "dynamic", ("o",), ("o",), (), cat)

    years = [year(r, y, "correct" if r == "r0" else "incorrect") for r in ("r0", "r1", "r2") for y in (2020, 2021)]
    facts = [FactCheck(r, "generation", "general", "P54", "dynamic", "s", {2020: "x"}, "Known" if r == "r0" else "Unknown")
             for r in ("r0", "r1", "r2")]
    check = CheckResult(years, facts, [])
    items = [BenchmarkItem(id=y.item_id, benchmark="chrono:g", task="chrono/generation", form="generation",
                           question="q", answers=["o"], slices={"year": y.year, "template": "generation"},
                           metadata={"record_id": y.record_id}) for y in years]
    for resample in resample_run(items, [], "record_id", resamples=20, seed=4):
        remapped = check.remap(resample.copies)
        assert len(remapped.facts) == 3 and len({f.record_id for f in remapped.facts}) == 3
        drawn_r0 = sum(c.unit == "r0" for c in resample.copies)
        assert sum(f.category == "Known" for f in remapped.facts) == drawn_r0
        assert {y.item_id for y in remapped.years} == {i.id for i in resample.items}


def _newterm(task: str, n_terms: int, base_right, gold_right):
    """NewTerm-like items (two per term) and Base/Gold answers over three phrasings."""
    csj = task == "CSJ"
    items = [BenchmarkItem(id=f"{task}{k}", benchmark="newterm:x", task=f"newterm/{task}",
                           form="true-false" if csj else "multi-choice", question="q",
                           choices=[] if csj else ["a", "b", "c", "d"], answer_index=None if csj else 0,
                           answers=["true" if k % 2 else "false"] if csj else ["a"],
                           metadata={"term": f"t{k // 2}", **({"gold": bool(k % 2)} if csj else {})})
             for k in range(2 * n_terms)]

    def answers(right):
        out = []
        for k, item in enumerate(items):
            for p in range(3):
                ok = right(k, p)
                parsed = (("true" if k % 2 else "false") if ok else ("false" if k % 2 else "true")) if csj \
                    else ("A" if ok else "B")
                out.append(SampleResult(item.id, p, parsed, parsed, float(ok)))
        return out

    base, gold = answers(base_right), answers(gold_right)
    detail = NewTermAnswers("gold", {"base": answers_of(items, base), "gold": answers_of(items, gold)})
    task_ = Task(name=f"newterm/{task}", dataset=ItemFilter(tasks=(f"newterm/{task}",)),
                 solver=Component(name="newterm", args={"setting": "gold"}),
                 metrics=("newterm_base", "newterm_gold", "newterm_gap"))
    return items, base, gold, SolverOutput(items=items, samples=gold, details={ANSWERS: detail}), task_


def test_newterm_gap_is_paired_by_term_with_its_test():
    rng = np.random.default_rng(5)
    right_b = rng.random((24, 3)) < 0.4
    right_g = rng.random((24, 3)) < 0.8
    items, base, gold, output, task = _newterm("COMA", 12, lambda k, p: right_b[k, p], lambda k, p: right_g[k, p])
    metrics = task_metrics([task], output, "knowforge")
    rows = {r["name"]: r for r in metric_intervals([task], output, metrics, "knowforge", key="term",
                                                   resamples=300, seed=1)[task.name]}
    gap = rows["newterm_gap"]
    assert gap["value"] == pytest.approx(right_b.mean() - right_g.mean())
    assert gap["ci"][0] <= gap["value"] <= gap["ci"][1] and gap["paired"] and gap["units"] == 12
    sums_b = [right_b[2 * t:2 * t + 2].sum() for t in range(12)]
    sums_g = [right_g[2 * t:2 * t + 2].sum() for t in range(12)]
    reference = paired_difference(sums_b, sums_g, [6] * 12, resamples=2, seed=child_seed(1, "test", task.name,
                                                                                           "newterm_gap"))
    assert gap["p_value"] == pytest.approx(reference.p_value) and gap["test"] == "sign-flip"
    assert gap["excludes_zero"] == (gap["ci"][1] < 0 or gap["ci"][0] > 0)
    assert rows["newterm_base"]["chance"] == 0.25 and "chance" not in gap
    # paired: the interval of the gap is narrower than the two settings' intervals combined
    half = lambda r: (r["ci"][1] - r["ci"][0]) / 2  # noqa: E731
    assert half(gap) < half(rows["newterm_base"]) + half(rows["newterm_gold"])

    # CSJ: balanced accuracy, tested by swapping a term's Base and Gold answers
    _, _, _, csj, csj_task = _newterm("CSJ", 10, lambda k, p: k % 4 == 0, lambda k, p: True)
    csj_rows = {r["name"]: r for r in metric_intervals([csj_task], csj, task_metrics([csj_task], csj, "knowforge"),
                                                       "knowforge", key="term", resamples=200, seed=1)[csj_task.name]}
    assert csj_rows["newterm_gap"]["test"].startswith("permutation") and csj_rows["newterm_gap"]["p_value"] < 0.05
    assert csj_rows["newterm_gold"]["chance"] == 0.5


def test_the_summary_shows_chance_intervals_and_which_exclude_chance():
    summary = {"benchmark": "b:1", "model": "m", "backend": "hf", "items": 40, "limit": 20, "scoring": "knowforge",
               "bootstrap": 500,
               "runs": {"zero-shot": {"run_id": "r1", "items": 20, "accuracy": 0.6, "accuracy_ci": [0.4, 0.8],
                                      "chance": 0.25,
                                      "metrics": {"t/a": {"accuracy": 0.6, "gap": -0.2}},
                                      "intervals": {"t/a": [{"name": "accuracy", "ci": [0.4, 0.8], "chance": 0.25,
                                                             "excludes_chance": True},
                                                            {"name": "gap", "ci": [-0.3, -0.1], "p_value": 0.004}]},
                                      "by": {"form": {"multi-choice": {"accuracy": 0.3, "ci": [0.1, 0.5],
                                                                       "chance": 0.25}}}}}}
    md = render_summary(summary, ["form"])
    assert "| all | 25.0 | 60.0 ± 20.0 * |" in md
    assert "| t/a · accuracy | 25.0 | 60.0 ± 20.0 * |" in md
    assert "| t/a · gap | - | -20.0 ± 10.0 (p 0.004) |" in md
    assert "| multi-choice | 25.0 | 30.0 ± 20.0 |" in md                # the interval holds chance: no *
    assert "500 resamples" in md and "`*`: above chance, its interval excludes chance" in md


def test_summary_explains_each_solver_column_and_a_column_no_answer_of_could_be_parsed():
    """Issue 34: every column explained once; a 0.0 whose every answer was unparsed says so (a
    small model never ends its chain of thought with the line the solver scores)."""
    def run(run_id, solver, unparsed):
        return {"run_id": run_id, "items": 4, "samples": 4, "accuracy": 0.0 if unparsed == 4 else 0.5,
                "solver_name": solver, "unparsed": unparsed, "metrics": {}, "intervals": {}, "by": {}}

    summary = {"benchmark": "b:1", "model": "m", "backend": "hf", "items": 4, "scoring": "knowforge", "bootstrap": 0,
               "runs": {"chain-of-thought": run("r1", "chain-of-thought", 4), "zero-shot": run("r2", "zero-shot", 1),
                        "vanilla": run("r3", "vanilla", 0)}}
    md = render_summary(summary, [])
    legend = md.split("Solvers (the columns):", 1)[1]
    assert ("- chain-of-thought: think step by step; the last line 'Answer: ...' is scored. None of its 4 answers "
            "had what it parses, so every one scored 0: its 0.0 measures the answer format") in legend
    assert "- zero-shot: an instruction for the item's form, then the question. 1 of its 4 answers had nothing " \
           "it could parse and scored 0." in legend
    assert "- vanilla: the question only.\n" in legend


def test_table_marks_say_above_or_below_chance_and_no_variation():
    """Issue 34: ``*`` only above chance with the interval excluding it, ``↓`` below chance, and
    a zero-width interval reads "no variation (n = ...)", in the summary and in the report's
    task-metric rows."""
    from knowforge.eval.metric_stats import row_text

    rows = [{"name": "accuracy", "ci": [0.0, 0.0], "chance": 0.325, "excludes_chance": True, "units": 40},
            {"name": "below", "ci": [0.11, 0.224], "chance": 0.325, "excludes_chance": True, "units": 83},
            {"name": "above", "ci": [0.4, 0.8], "chance": 0.25, "excludes_chance": True, "units": 20},
            {"name": "flat", "ci": [0.5, 0.5], "chance": 0.25, "excludes_chance": None, "units": 12}]
    summary = {"benchmark": "b:1", "model": "m", "backend": "hf", "items": 40, "scoring": "knowforge",
               "bootstrap": 500,
               "runs": {"zero-shot": {"run_id": "r1", "items": 40, "accuracy": 0.0, "accuracy_ci": [0.0, 0.0],
                                      "accuracy_units": 40, "chance": 0.325,
                                      "metrics": {"t/a": {"accuracy": 0.0, "below": 0.167, "above": 0.6,
                                                          "flat": 0.5}},
                                      "intervals": {"t/a": rows}, "by": {}}}}
    md = render_summary(summary, [])
    assert "| all | 32.5 | 0.0, no variation (n = 40) ↓ |" in md
    assert "| t/a · accuracy | 32.5 | 0.0, no variation (n = 40) ↓ |" in md
    assert "| t/a · below | 32.5 | 16.7 ± 5.7 ↓ |" in md
    assert "| t/a · above | 25.0 | 60.0 ± 20.0 * |" in md
    assert "| t/a · flat | 25.0 | 50.0, no variation (n = 12) |" in md      # the rule of three cannot judge it
    assert "± 0.0" not in md
    below = row_text({**rows[1], "value": 0.167, "path": []})
    assert below["value"] == "16.7 ± 5.7 ↓" and below["chance"] == "32.5 (excluded: below)"
    above = row_text({**rows[2], "value": 0.6, "path": [], "resample": "objects", "method_note": "object-level "
                      "resample: a verdict over a unit's items"})
    assert above["value"] == "60.0 ± 20.0 *" and above["chance"] == "25.0 (excluded: above)"
    assert above["95% interval"] == "[40.0, 80.0] (object-level resample: a verdict over a unit's items)"


def test_a_zero_width_interval_is_judged_by_the_rule_of_three():
    from knowforge.eval.metric_stats import excludes

    assert excludes([0.2, 0.4], 0.25) is False and excludes([0.3, 0.4], 0.25) is True
    # every one of 40 statements wrong: below 50 % for sure, but not below (1/2)^13
    assert excludes([0.0, 0.0], 0.5, units=40) is True
    assert excludes([0.0, 0.0], 0.5 ** 13, units=40) is False
    assert excludes([1.0, 1.0], 0.5, units=40) is True and excludes([1.0, 1.0], 0.95, units=40) is False
    assert excludes([0.0, 0.0], 0.5, units=4) is False                 # 3/4: four units cannot tell
    assert excludes([0.5, 0.5], 0.25, units=40) is None and excludes([0.0, 0.0], 0.5) is None
    assert excludes([0.0, 0.0], 25.0, units=40, scale=100.0) is True    # a share in percent


def test_chance_of_items():
    mc = _items(4, 1)
    yes_no = _items(2, 1, form="boolean", choices=[])
    assert chance_of(mc) == 0.25 and chance_of(yes_no) == 0.5 and chance_of(mc + yes_no) == pytest.approx(1 / 3)
    assert chance_of(_items(2, 1, form="generation", choices=[])) is None
    # weighted by samples; a sample of an item not given is left out
    samples = [SampleResult("i0", 0, "A", "A", 1.0), SampleResult("i0", 1, "A", "A", 1.0),
               SampleResult("i1", 0, "A", "A", 1.0), SampleResult("other", 0, "A", "A", 1.0)]
    two = _items(2, 1, choices=["x", "y"])
    assert chance_of(mc[:1] + two[1:], samples) == pytest.approx((0.25 + 0.25 + 0.5) / 3)
    assert chance_of(mc[:1] + _items(2, 1, form="generation", choices=[])[1:], samples) is None


def test_newterm_tables_carry_the_intervals_and_p_values_of_the_task_metrics():
    """The solver's Base-vs-Gold tables resample the engine's units with the engine's seed: a
    task's row has exactly the interval and p-value of its task metrics."""
    from knowforge.eval.newterm.solver import breakdown, gap_tests, section_rows, with_intervals

    rng = np.random.default_rng(6)
    right_b, right_g = rng.random((20, 3)) < 0.45, rng.random((20, 3)) < 0.7
    items, base, gold, output, task = _newterm("COMA", 10, lambda k, p: right_b[k, p], lambda k, p: right_g[k, p])
    detail = output.details[ANSWERS]
    table = with_intervals(breakdown(items, detail.answers), items, detail, "term", resamples=300, seed=4)
    tests = gap_tests(items, detail.answers, resamples=300, seed=4)
    rows = {r["name"]: r for r in metric_intervals([task], output, task_metrics([task], output, "knowforge"),
                                                   "knowforge", key="term", resamples=300, seed=4)[task.name]}
    [row] = table["task"]
    assert row["base_ci"] == rows["newterm_base"]["ci"] and row["gold_ci"] == rows["newterm_gold"]["ci"]
    assert row["gap_ci"] == rows["newterm_gap"]["ci"]
    assert tests["COMA"]["p_value"] == rows["newterm_gap"]["p_value"]
    [cells] = section_rows(table["task"], tests)
    half = 100 * (row["gap_ci"][1] - row["gap_ci"][0]) / 2
    assert cells["gap (Base - Gold)"] == f"{100 * row['gap']:+.1f} ± {half:.1f}"
    assert cells["test"] == "sign-flip"


def test_summary_slices_take_their_intervals_from_the_report():
    from knowforge.eval.tasks import accuracy_by

    items = _items(4, 1) + _items(2, 1, form="boolean", choices=[])
    items = [i.model_copy(update={"id": f"x{k}", "slices": {"form": i.form}}) for k, i in enumerate(items)]
    samples = [SampleResult(i.id, 0, "A", "A", float(k % 2)) for k, i in enumerate(items)]
    report = {"by_form": {"multi-choice": {"ci": [0.1, 0.9], "stderr": 0.2, "units": 4},
                          "boolean": {"ci": [0.0, 1.0], "stderr": 0.5, "units": 2}},
              "slices": {"form": {}}}
    by = accuracy_by(items, samples, "form", {k: v for k, v in report.items() if k != "slices"})
    assert by["multi-choice"] == {"accuracy": 0.5, "samples": 4, "stderr": 0.2, "ci": [0.1, 0.9], "units": 4,
                                  "chance": 0.25}
    assert by["boolean"]["chance"] == 0.5 and by["boolean"]["ci"] == [0.0, 1.0]
    # a slice of the items' own slices comes from report["slices"]
    assert accuracy_by(items, samples, "form", report)["boolean"]["ci"] is None


def test_a_second_evaluation_into_one_folder_keeps_the_first_run(tmp_path):
    """summary.json's ``runs`` is the latest evaluation's; ``all_runs`` keeps every run written
    into the folder, by run id, and summary.md lists the earlier ones (a second eval used to
    drop the first run from the summary)."""
    from knowforge.eval.tasks import TaskRun, write_summary
    from knowforge.eval.types import EvalOptions

    def run(run_id, accuracy):
        return TaskRun(run_id=run_id, solver="zero-shot", tasks=("t/a",), report_dir=tmp_path / run_id, items=5,
                       samples=5, accuracy=accuracy, metrics={})

    options = EvalOptions(model="m1")
    write_summary(tmp_path, benchmark="b:1", method="b", options=options, items=5, runs=[run("r1", 0.4)],
                  report_slices=[])
    write_summary(tmp_path, benchmark="b:1", method="b", options=options.model_copy(update={"limit": 3}), items=5,
                  runs=[run("r2", 0.6)], report_slices=[])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [r["run_id"] for r in summary["runs"].values()] == ["r2"]
    assert set(summary["all_runs"]) == {"r1", "r2"}
    assert summary["all_runs"]["r1"]["accuracy"] == 0.4 and summary["all_runs"]["r2"]["limit"] == 3
    md = (tmp_path / "summary.md").read_text()
    assert "## Earlier runs in this folder" in md and "`r1`" in md


# --- the array bootstrap (MetricSpec.totals) against the object-level one ---------------------------
def _object_level_rows(tasks, output, metrics, *, key, resamples, seed) -> dict[tuple[str, str], dict]:
    """The reference: every metric recomputed on object-level resamples of the run (the engine's
    path before per-unit totals, kept here to check the arrays against)."""
    from knowforge.eval.metric_stats import percentile_estimate
    from knowforge.eval.registry import metric_spec

    units = group_units(output.items, key)
    replicates = {(t.name, m): [] for t in tasks for m in metrics[t.name]}
    for resample in resample_run(output.items, output.samples, key, resamples=resamples,
                                 seed=child_seed(seed, "metrics")):
        for task in tasks:
            mine = [i for i, o in zip(resample.items, resample.origin) if task.dataset.matches(i)]
            ids = {i.id for i in mine}
            data = MetricInput(mine, [s for s in resample.samples if s.item_id in ids])
            for name in metrics[task.name]:
                value = metric_spec(name).compute(data)
                replicates[(task.name, name)].append(float("nan") if value is None else value)
    out = {}
    for (task, name), values in replicates.items():
        n = len({u for u, members in zip(units.names, units.items)
                 for i in members if next(t for t in tasks if t.name == task).dataset.matches(i)})
        out[(task, name)] = percentile_estimate(metrics[task][name], np.asarray(values), n, resamples).as_dict()
    return out


def _mixed_run(seed: int):
    """Two tasks in one run: multiple-choice items with two samples each, and true/false items
    whose golds lean one way, in units of uneven size, some spanning both tasks."""
    rng = np.random.default_rng(seed)
    items, samples = [], []
    for k in range(90):
        boolean = k % 3 == 0
        item = BenchmarkItem(id=f"i{k}", benchmark="b:1", task="t/tf" if boolean else "t/mc",
                             form="true-false" if boolean else "multi-choice", question="q",
                             choices=[] if boolean else ["w", "x", "y", "z"], answer_index=None if boolean else 0,
                             answers=["true" if k % 4 else "false"] if boolean else ["w"],
                             metadata={"g": f"u{int(rng.integers(0, 25))}"})
        items.append(item)
        for p in range(1 if boolean else 2):
            if boolean:
                said = ("true" if k % 4 else "false") if rng.random() < 0.7 else ("false" if k % 4 else "true")
                samples.append(SampleResult(item.id, p, said, said, float(said == item.answers[0])))
            else:
                samples.append(SampleResult(item.id, p, "A", "A", float(rng.random() < 0.4)))
    tasks = [_task("t/mc", ("accuracy",)), _task("t/tf", ("accuracy", "balanced_accuracy"))]
    return tasks, SolverOutput(items=items, samples=samples)


@pytest.mark.parametrize("key", ["g", None])
def test_the_array_bootstrap_gives_the_object_level_intervals(key):
    """On the same seed the engine's array bootstrap of accuracy and balanced accuracy draws the
    resamples the object-level path draws, so its intervals are the reference's, far inside
    Monte-Carlo error (which alone would allow about a tenth of the half-width at 300
    resamples); its values are the metrics' own."""
    tasks, output = _mixed_run(7)
    metrics = task_metrics(tasks, output, "knowforge")
    rows = metric_intervals(tasks, output, metrics, "knowforge", key=key, resamples=300, seed=11)
    reference = _object_level_rows(tasks, output, metrics, key=key, resamples=300, seed=11)
    assert {(t, r["metric"]) for t, rs in rows.items() for r in rs} == set(reference)
    for task, task_rows in rows.items():
        for row in task_rows:
            ref = reference[(task, row["metric"])]
            assert row["resample"] == "arrays" and "method_note" not in row
            assert row["value"] == metrics[task][row["metric"]]
            assert row["ci"] == pytest.approx(ref["ci"], abs=1e-12)
            assert row["stderr"] == pytest.approx(ref["stderr"], rel=1e-9)
            assert (row["units"], row["resamples"]) == (ref["units"], ref["resamples"])
            assert row["ci"][0] < row["value"] < row["ci"][1]


@pytest.mark.parametrize("key", ["g", None])
def test_a_task_taking_every_item_gets_the_numbers_of_a_filter_naming_them_all(key):
    """A task with an empty filter (a file benchmark's) skips asking the filter of each item:
    its metrics and every field of its interval rows are those of a filter every item passes."""
    _, output = _mixed_run(7)
    metrics_ = ("accuracy", "balanced_accuracy")
    every = Task(name="t/all", solver=Component(name="zero-shot"), metrics=metrics_)
    named = Task(name="t/all", dataset=ItemFilter(tasks=("t/mc", "t/tf")), solver=Component(name="zero-shot"),
                 metrics=metrics_)
    assert every.dataset.takes_all and not named.dataset.takes_all
    assert every.dataset.select(output.items) == named.dataset.select(output.items) == output.items
    values = task_metrics([every], output, "knowforge")
    assert values == task_metrics([named], output, "knowforge")
    rows = metric_intervals([every], output, values, "knowforge", key=key, resamples=200, seed=5)
    assert rows == metric_intervals([named], output, values, "knowforge", key=key, resamples=200, seed=5)
    assert {r["metric"] for r in rows["t/all"]} == set(metrics_) and all(r["ci"] for r in rows["t/all"])


def _totals_value(spec, data):
    totals = spec.totals(data)
    counts = np.asarray(totals.counts, dtype=float)
    assert counts.ndim == 2 and len(counts) == len(totals.item_ids)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {path: float(statistic(counts.sum(axis=0))) for path, statistic in totals.leaves.items()}


def test_each_decomposable_metric_gives_back_its_value_from_its_totals():
    """The totals of accuracy and balanced accuracy give exactly the number ``compute`` gives, on
    a whole run, on one class only, on an unscored (empty) input, where both are undefined."""
    from knowforge.eval.registry import metric_spec

    tasks, output = _mixed_run(3)
    one_class = [i for i in output.items if i.form == "true-false" and i.answers == ["true"]]
    cases = [MetricInput(output.items, output.samples),
             MetricInput(one_class, [s for s in output.samples if s.item_id in {i.id for i in one_class}]),
             MetricInput([], [])]
    for name in ("accuracy", "balanced_accuracy"):
        spec = metric_spec(name)
        for data in cases:
            value = spec.compute(data)
            [got] = _totals_value(spec, data).values()
            if value is None:
                assert np.isnan(got)
            else:
                assert got == pytest.approx(value, rel=1e-12)


def test_a_metric_without_totals_names_its_object_level_resample():
    """ELKEN's edit-level reliability counts events whose every question is right: a sum over
    events, which no sum over units gives when the run's unit is not the event (here: every
    question its own unit): its interval says it comes from object-level resamples, and why."""
    rng = np.random.default_rng(5)
    items = [BenchmarkItem(id=f"q{k}", benchmark="events:e", task="events/fact", form="generation", question="q",
                           answers=["a"], scorer="elken-fact", slices={"scope": "in"},
                           metadata={"event_id": f"ev{k // 3}"}) for k in range(36)]
    samples = [SampleResult(i.id, 0, "a", "a", float(rng.random() < 0.7)) for i in items]
    task = Task(name="events/fact", dataset=ItemFilter(tasks=("events/fact",)), solver=Component(name="zero-shot"),
                metrics=("edit_reliability",))
    output = SolverOutput(items=items, samples=samples)
    rows = {r["name"]: r for r in metric_intervals([task], output, task_metrics([task], output, "knowforge"),
                                                   "knowforge", key=None, resamples=50, seed=1)[task.name]}
    edit = rows["edit_reliability.edit_level"]
    assert edit["resample"] == "objects" and edit["method_note"].startswith("object-level resample: ")
    assert edit["ci"] is not None
    # with the event as the unit its verdicts are sums over units: over arrays
    rows = {r["name"]: r for r in metric_intervals([task], output, task_metrics([task], output, "knowforge"),
                                                   "knowforge", key="event_id", resamples=50, seed=1)[task.name]}
    assert rows["edit_reliability.edit_level"]["resample"] == "arrays"


def _varied_newterm(seed: int):
    """A COMA and a CSJ task of NewTerm with answers right, wrong and missing (parsed None), and
    terms whose CSJ items all share one gold class, so a resample can lack a class."""
    from knowforge.eval.newterm.solver import Answer

    rng = np.random.default_rng(seed)
    items, base, gold = [], [], []
    for k in range(36):
        csj = k % 2 == 1
        term = f"t{k // 3}"
        items.append(BenchmarkItem(id=f"n{k}", benchmark="newterm:x", task="newterm/CSJ" if csj else "newterm/COMA",
                                   form="true-false" if csj else "multi-choice", question="q",
                                   choices=[] if csj else ["a", "b", "c", "d"], answer_index=None if csj else 0,
                                   answers=["true"] if csj else ["a"], slices={"year": 2022 + k % 2},
                                   metadata={"term": term, "category": "c" + str(k % 3),
                                             **({"gold": k % 4 == 1} if csj else {})}))
        for answers, p_right in ((base, 0.4), (gold, 0.75)):
            for phrasing in range(3):
                missing = rng.random() < 0.15
                right = rng.random() < p_right
                if csj:
                    g = k % 4 == 1
                    answers.append(Answer(f"n{k}", phrasing, g, None if missing else str(right == g).lower(), 0.0))
                else:
                    answers.append(Answer(f"n{k}", phrasing, None, None if missing else "A", 0.0 if missing else float(right)))
    return items, {"base": base, "gold": gold}


def test_newterm_scores_bootstrap_over_arrays_as_over_objects():
    """NewTerm's Base, Gold, gap (CSJ: balanced accuracy over the classes a resample holds) and
    breakdown as sums: the very intervals of recomputing them on object-level resamples of the
    run with the same seed, for the task metrics and for the solver's own tables."""
    from knowforge.eval.metric_stats import resampled_intervals
    from knowforge.eval.newterm.solver import NewTermAnswers, ROW_FIELDS, breakdown, with_intervals

    items, answers = _varied_newterm(3)
    detail = NewTermAnswers("gold", answers)
    samples = [SampleResult(a.item_id, a.phrasing, a.parsed, a.parsed, a.score) for a in answers["gold"]]
    output = SolverOutput(items=items, samples=samples, details={ANSWERS: detail})
    names = ("newterm_score", "newterm_base", "newterm_gold", "newterm_gap", "newterm_breakdown")
    tasks = [Task(name=f"newterm/{t}", dataset=ItemFilter(tasks=(f"newterm/{t}",)),
                  solver=Component(name="newterm", args={"setting": "gold"}), metrics=names) for t in ("COMA", "CSJ")]
    metrics = task_metrics(tasks, output, "knowforge")
    rows = metric_intervals(tasks, output, metrics, "knowforge", key="term", resamples=200, seed=9)
    for task in tasks:
        mine = [i for i in items if i.task == task.name]

        def recompute(sample, task=task):
            ids = {i.id for i in sample.items if task.dataset.matches(i)}
            data = MetricInput([i for i in sample.items if i.id in ids], [], detail.remap(sample.copies), "knowforge")
            return {n: metric_spec(n).compute(data) for n in names}

        from knowforge.eval.registry import metric_spec
        reference = resampled_intervals(recompute, metrics[task.name], items, [], "term",
                                        rows=ROW_FIELDS, resamples=200, seed=9)
        assert len(rows[task.name]) > 10
        for row in rows[task.name]:
            assert row["resample"] == "arrays" and "method_note" not in row, row["name"]
            ref = reference[(row["metric"], *row["path"])]
            assert row["ci"] == pytest.approx(list(ref.ci), abs=1e-12), row["name"]
            assert row["stderr"] == pytest.approx(ref.stderr, rel=1e-9)
        assert any(r["metric"] == "newterm_breakdown" and r["path"][0] == "year" for r in rows[task.name])
        assert mine

    # the solver's table (task, category and year rows) gets the object-level intervals too
    table = breakdown(items, detail.answers)
    fast = with_intervals(table, items, detail, "term", resamples=200, seed=9)
    slow = resampled_intervals(lambda sample: breakdown(sample.items, detail.remap(sample.copies).answers),
                               table, items, [], "term", rows=ROW_FIELDS, resamples=200, seed=9)
    checked = 0
    for name, table_rows in fast.items():
        for row in table_rows:
            label = "[" + ", ".join(f"{f}={row[f]}" for f in ROW_FIELDS if f in row) + "]"
            for score in ("base", "gold", "gap"):
                ref = slow.get((name, label, score))
                got = row[f"{score}_ci"]
                assert (got is None) == (ref is None or ref.ci is None), (name, label, score)
                if got is not None:
                    assert got == pytest.approx(list(ref.ci), abs=1e-12), (name, label, score)
                    checked += 1
    assert checked >= 30


def test_method_metrics_as_sums_give_back_their_values():
    """LINK's per-template accuracy and ELKEN's tendency accuracy and locality: the totals give
    the numbers ``compute`` gives, on answers in varied forms and with templates missing."""
    from knowforge.eval.registry import metric_spec

    rng = np.random.default_rng(2)
    link = [BenchmarkItem(id=f"l{k}", benchmark="link:x", task="link/probe", form="multi-choice", question="q",
                          choices=["entails", "other"], answer_index=0, answers=["entails"],
                          slices={"template": 1 + k % 5}, metadata={"statement_id": f"s{k // 5}"}) for k in range(23)]
    link_samples = [SampleResult(i.id, 0, "x", "x", float(rng.random() < 0.6)) for i in link[:-2]]
    tend = [BenchmarkItem(id=f"t{k}", benchmark="events:e", task="events/tendency", form="multi-choice", question="q",
                          choices=["a", "b", "c"], answer_index=0, answers=["A"], scorer="elken-tendency",
                          slices={"part": "tendency", "scope": "in" if k % 3 else "out"},
                          metadata={"event_id": f"ev{k // 4}"}) for k in range(30)]
    said = {i.id: str(rng.choice(["A", "B", "(A)", "answer: C", None])) for i in tend}
    tend_samples = [SampleResult(i.id, 0, said[i.id], said[i.id], 0.0) for i in tend]
    before = {i.id: str(rng.choice(["A", "B"])) for i in tend if i.slices["scope"] == "out"}
    cases = [("link_templates", MetricInput(link, link_samples)),
             ("tendency_accuracy", MetricInput(tend, tend_samples)),
             ("tendency_accuracy", MetricInput(tend, tend_samples, scoring="official")),
             ("tendency_locality", MetricInput(tend, tend_samples, EditingDetails("ice", before))),
             ("tendency_locality", MetricInput([], [], EditingDetails("ice", {})))]
    for name, data in cases:
        spec = metric_spec(name)
        expected = numeric_leaves(spec.compute(data), spec.rows)
        got = _totals_value(spec, data)
        assert set(expected) <= set(got) or not expected
        for path, value in expected.items():
            same = np.isnan(got[path]) if value is None else got[path] == pytest.approx(value, rel=1e-12)
            assert same, (name, path)
    assert len(_totals_value(metric_spec("link_templates"), cases[0][1])) == 5


def test_every_metric_bootstraps_over_arrays_or_says_why_not():
    """A metric either declares its per-unit totals or says why it cannot (its intervals then
    name the object-level resample and the reason)."""
    from knowforge.eval.registry import registry

    for name, spec in registry().metrics.items():
        assert (spec.totals is None) == bool(spec.objects_because), f"{name}: declare totals or objects_because"


def test_a_gap_over_too_few_units_is_marked_underpowered():
    """Issue 34: "interval excludes 0" beside p = 0.125 over 5 units. A gap over fewer units than
    `report --plan-gap` asks for to detect a gap of its size says "underpowered" in its row,
    the summary and the validity verdict; a gap over enough units does not."""
    from knowforge.eval.metric_stats import row_text
    from knowforge.eval.stats import power_check, units_for_gap
    from knowforge.eval.validity import judge_gap

    # every term's Gold answers right, Base right on 2 of 6: a large gap, but over 5 terms
    items, _, _, output, task = _newterm("COMA", 5, lambda k, p: p == 0, lambda k, p: True)
    rows = {r["name"]: r for r in metric_intervals([task], output, task_metrics([task], output, "knowforge"),
                                                   "knowforge", key="term", resamples=300, seed=1)[task.name]}
    gap = rows["newterm_gap"]
    assert gap["units"] == 5 and gap["underpowered"] and gap["units_needed"] == 6     # a unanimous sign: 2·0.5^n < 0.05
    assert "underpowered: 5 units, about 6 needed" in row_text(gap)["p"]
    summary = {"benchmark": "b:1", "model": "m", "backend": "hf", "items": 10, "scoring": "knowforge",
               "bootstrap": 300, "runs": {"newterm": {"run_id": "r1", "items": 10, "accuracy": 1.0,
                                                      "metrics": {task.name: {"newterm_gap": gap["value"]}},
                                                      "intervals": {task.name: [gap]}, "by": {}}}}
    assert "; underpowered: 5 units" in render_summary(summary, [])
    # the plan's formula: a gap of 10 points with stderr 5 over 20 units needs ceil(7.85² · 0.05² · 20 / 0.1²)
    check = power_check(0.1, 0.05, 20)
    assert check == {"units_needed": units_for_gap(0.1, 0.05 ** 2 * 20, paired=True), "underpowered": True}
    assert power_check(0.1, 0.01, 400) == {"units_needed": 32, "underpowered": False}     # 7.85 · 0.04 / 0.01
    verdict = judge_gap(0.3, [0.02, 0.58], p_value=0.125, stderr=0.15, units=5)
    assert verdict["excludes_zero"] and verdict["underpowered"] and "underpowered: 5 units" in verdict["verdict"]
    assert not judge_gap(0.3, [0.25, 0.35], stderr=0.02, units=200)["underpowered"]


def test_task_metric_tables_keep_counts_apart_and_leave_out_empty_tasks():
    """Issue 34: counts shared a table with percentages, a task with 0 questions got rows, and
    the two localities read alike. Counts have their own table, empty tasks none, and a metric
    with a label is named by it too."""
    from knowforge.eval.tasks import metric_counts, metric_rows

    metrics = {"events/fact": {"accuracy": 0.25}, "events/locality": {"locality": {"question_level": 0.68,
                                                                                  "questions": 25}},
               "events/tendency": {"tendency_accuracy": {"questions": 0, "accuracy": None}}}
    intervals = {"events/fact": [{"name": "accuracy", "metric": "accuracy", "path": [], "value": 0.25,
                                  "ci": [0.1, 0.4], "units": 8}],
                 "events/locality": [{"name": "locality.question_level", "metric": "locality",
                                      "path": ["question_level"], "value": 0.68, "ci": [0.5, 0.8], "units": 8}]}
    sizes = {"events/fact": 17, "events/locality": 25, "events/tendency": 0}
    rows = metric_rows(metrics, intervals, sizes)
    assert [(r["task"], r["metric"], r["number"]) for r in rows] == [
        ("events/fact", "accuracy", ""),
        ("events/locality", "locality (answers unchanged by the edit)", "question_level")]
    assert all("count" not in r.get("95% interval", "") for r in rows)
    assert metric_counts(metrics, sizes) == [{"task": "events/locality", "metric": "locality (answers unchanged by "
                                              "the edit)", "count of": "questions", "count": 25}]
    summary = {"benchmark": "events:e", "model": "m", "backend": "hf", "items": 42, "scoring": "knowforge",
               "bootstrap": 100, "runs": {"ice": {"run_id": "r1", "items": 42, "accuracy": 0.4, "metrics": metrics,
                                                  "intervals": intervals, "task_sizes": sizes, "by": {}}}}
    md = render_summary(summary, [])
    shares, counts = md.split("## Task metrics", 1)[1].split("## Task metric counts")
    assert "locality.question_level" in shares and "questions" not in shares
    assert "| events/locality · locality.questions | 25 |" in counts and "tendency" not in md


def test_a_metric_is_displayed_by_its_declared_scale_not_its_magnitude(monkeypatch):
    """A mean error of 0.9 years declared in years reads "0.9 years", not "90.0"; a share
    declared as one is in %, whatever its size; a count is a plain number."""
    from knowforge.eval.metric_stats import row_text
    from knowforge.eval.registry import registry
    from knowforge.eval.unit import MetricSpec

    reg = registry()
    for name, value, scale in (("year_error", 0.9, "years"), ("gain", 1.5, "share"), ("n_moved", 0.5, "count")):
        monkeypatch.setitem(reg.metrics, name, MetricSpec(name, lambda data, v=value: v, scale=scale))
    items = _items(8, 2)
    output = SolverOutput(items=items, samples=[SampleResult(i.id, 0, "A", "A", 1.0) for i in items])
    task = _task(metrics=("year_error", "gain", "n_moved"))
    metrics = task_metrics([task], output, "knowforge")
    rows = {r["metric"]: r for r in metric_intervals([task], output, metrics, "knowforge", key="g", resamples=0)["t/a"]}
    assert rows["year_error"]["scale"] == "years"
    assert row_text(rows["year_error"])["value"] == "0.9 years"
    legacy = {k: v for k, v in rows["year_error"].items() if k != "scale"}   # a row recorded before scales
    assert row_text(legacy)["value"] == "90.0"
    # the interval follows the declaration too: years stay years, a share goes to %
    assert row_text({**rows["year_error"], "ci": [0.5, 1.3]})["95% interval"] == "[0.5, 1.3]"
    assert row_text({**rows["gain"], "ci": [1.0, 2.0]})["95% interval"] == "[100.0, 200.0]"
    assert row_text(rows["gain"])["value"] == "150.0"
    assert row_text(rows["n_moved"])["value"] == "0.5"
    assert format_number(0.9, [0.5, 1.3], scale="years") == "0.9 ± 0.4 years"
    with pytest.raises(ValueError, match="scale"):
        MetricSpec("bad", lambda data: 0.0, scale="{x}")


def _varied_link(seed: int):
    """LINK probe items of 24 statements: head and long tail, two domains, three rules, some
    statements missing a template or an answer (not "known"-eligible), most answers right so
    that some statements are known, and one long-tail statement alone in its rule."""
    rng = np.random.default_rng(seed)
    items, samples = [], []
    for s in range(24):
        slices = {"distribution": "head" if s % 2 else "longtail", "domain": f"d{s % 2 if s < 20 else 0}",
                  "rule": f"r{s % 3 if s != 23 else 9}", "graph_premises": s % 3, "hidden_premises": 1}
        right = 0.97 if s % 4 else 0.8
        for t in range(1, 14):
            if s % 7 == 3 and t == 13:
                continue                                      # a template not asked
            item = BenchmarkItem(id=f"s{s}-t{t}", benchmark="link:x", task="link/probe", form="true-false",
                                 question="q", answers=["Yes"], slices={**slices, "template": t},
                                 metadata={"statement_id": f"s{s}"})
            items.append(item)
            if s % 11 == 5 and t == 2:
                continue                                      # asked, never answered
            samples.append(SampleResult(item.id, 0, "Yes", "Yes", float(rng.random() < right)))
    return items, samples


def test_link_metrics_bootstrap_over_arrays_as_over_objects():
    """LINK's known rate, head vs long tail and by-slice tables as per-statement sums (a
    statement's all-13 verdict reads its own items, one unit): the values ``compute`` gives and
    the very intervals of recomputing each metric on object-level resamples with the same seed;
    the solver's own head/tail table likewise."""
    from knowforge.eval.link.probe import head_tail, totals_head_tail
    from knowforge.eval.metric_stats import resampled_intervals, totals_intervals
    from knowforge.eval.registry import metric_spec

    items, samples = _varied_link(4)
    names = ("link_known", "link_head_tail", "link_by_domain", "link_by_rule", "link_by_graph_premises")
    task = Task(name="link/probe", dataset=ItemFilter(tasks=("link/probe",)), solver=Component(name="link-probe"),
                metrics=names)
    output = SolverOutput(items=items, samples=samples)
    metrics = task_metrics([task], output, "knowforge")
    assert 0 < metrics[task.name]["link_known"]["rate"] < 1
    rows = metric_intervals([task], output, metrics, "knowforge", key="statement_id", resamples=100, seed=5)
    reference = resampled_intervals(
        lambda sample: {n: metric_spec(n).compute(MetricInput(sample.items, sample.samples)) for n in names},
        metrics[task.name], items, samples, "statement_id", resamples=100, seed=5)
    checked = 0
    for row in rows[task.name]:
        assert row["resample"] == "arrays" and "method_note" not in row, row["name"]
        ref = reference[(row["metric"], *row["path"])]
        if row["value"] is None:                              # no head statement in rule r9: no drop
            assert row["ci"] is None and ref.ci is None, row["name"]
            continue
        assert row["ci"] == pytest.approx(list(ref.ci), abs=1e-12), row["name"]
        assert row["stderr"] == pytest.approx(ref.stderr, rel=1e-9), row["name"]
        checked += 1
    assert checked >= 40 and any(r["path"][-1] == "relative_drop" for r in rows[task.name])
    # with every item its own unit, a known verdict reads items of several units: objects, said so
    by_item = metric_intervals([task], output, metrics, "knowforge", key=None, resamples=20, seed=5)[task.name]
    known = [r for r in by_item if r["metric"] == "link_known"]
    assert known and all(r["resample"] == "objects" and "different units" in r["method_note"] for r in known)
    # the solver's table: the same draws through the totals
    split = head_tail(items, samples)
    fast = totals_intervals(totals_head_tail(MetricInput(items, samples)), split, items, "statement_id",
                            resamples=100, seed=5)
    slow = resampled_intervals(lambda sample: head_tail(sample.items, sample.samples), split, items, samples,
                               "statement_id", resamples=100, seed=5)
    assert set(fast) == set(slow) and len(fast) == 8
    for path, est in slow.items():
        assert list(fast[path].ci) == pytest.approx(list(est.ci), abs=1e-12), path

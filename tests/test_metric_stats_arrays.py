"""ELKEN's and ChroKnow's verdict metrics bootstrapped over arrays of per-unit totals (issue 33):
edit-level reliability, locality, the tendency edit level, ChroKnow's category shares and
ChroKnowPrompt's gain. Each event's (each fact's) verdict reads all its questions (years)
together, which is a sum over units when the run's unit is the event (the record). Against the
object-level resample (every metric recomputed on a copy of the run) on the same seed and
data: the same draws, so the same intervals; where the run's units split an event, the
metric falls back to objects and says why. No graph, no model."""

from __future__ import annotations

import numpy as np
import pytest

from knowforge.eval.chrono.check import CheckResult, FactCheck, YearCheck, category_table, category_totals
from knowforge.eval.chrono.prompt import PromptResult, gain_table, gain_totals
from knowforge.eval.chrono.solver import CHECK, CHRONOPROMPT, table_intervals
from knowforge.eval.events.metrics import EDITING, EditingDetails
from knowforge.eval.events.rules import (score_fact_item, score_fact_item_official, score_tendency_item,
                                         score_tendency_item_official)
from knowforge.eval.metric_stats import (metric_intervals, numeric_leaves, remap_detail, resampled_intervals,
                                         rounded, row_text)
from knowforge.eval.registry import metric_spec
from knowforge.eval.tasks import task_metrics
from knowforge.eval.types import SampleResult
from knowforge.eval.unit import MetricInput, SolverOutput
from knowforge.models.task import Component, ItemFilter, Task
from knowforge.models.types import BenchmarkItem

RESAMPLES = 100
ELKEN_TASKS = {"events/fact": ("edit_reliability",), "events/locality": ("locality",),
               "events/tendency": ("tendency_edit_level",)}


def _elken_run(seed: int, scoring: str, events: int = 16):
    """ELKEN-like events of uneven size: in-scope fact questions (known and unknown golds, with
    and without background, three event types), out-of-scope fact questions with answers before
    the edit, in-scope tendency questions; answers right, wrong, "unknown" and missing."""
    rng = np.random.default_rng(seed)
    items: list[BenchmarkItem] = []
    for e in range(events):
        meta = {"event_id": f"ev{e}", "event": f"Something happened to entity {e}."}
        kind = f"type{e % 3}"
        for q in range(int(rng.integers(2, 6))):
            unknown = rng.random() < 0.2
            items.append(BenchmarkItem(
                id=f"f{e}-{q}", benchmark="events:x", task="events/fact", form="generation", question=f"q{e} {q}?",
                answers=["unknown" if unknown else f"Name {e}-{q}"], unknown=unknown, scorer="elken-fact",
                slices={"part": "fact", "scope": "in", "event_type": kind, "needs_background": bool(q % 2)},
                metadata=meta))
        for q in range(int(rng.integers(1, 4))):
            items.append(BenchmarkItem(
                id=f"l{e}-{q}", benchmark="events:x", task="events/locality", form="generation",
                question=f"l{e} {q}?", answers=[f"Other {e}-{q}"], scorer="elken-fact",
                slices={"part": "fact", "scope": "out", "event_type": kind}, metadata=meta))
        for q in range(int(rng.integers(1, 4))):
            items.append(BenchmarkItem(
                id=f"t{e}-{q}", benchmark="events:x", task="events/tendency", form="multi-choice",
                question=f"t{e} {q}?", choices=["up", "down", "same"], answer_index=0, answers=["A"],
                scorer="elken-tendency", slices={"part": "tendency", "scope": "in", "event_type": kind},
                metadata=meta))
    fact = score_fact_item_official if scoring == "official" else score_fact_item
    tendency = score_tendency_item_official if scoring == "official" else score_tendency_item
    samples, before = [], {}
    for item in items:
        if rng.random() < 0.05:
            continue                                        # not answered: left out of every metric
        if item.scorer == "elken-tendency":
            raw = str(rng.choice(["A", "B", "(A)", "answer: C"], p=[0.5, 0.2, 0.2, 0.1]))
            score = tendency(item, raw).value
        else:
            raw = str(rng.choice([item.answers[0], "wrong", "unknown"], p=[0.6, 0.3, 0.1]))
            score = fact(item, raw).value
            if item.slices["scope"] == "out":
                before[item.id] = raw if rng.random() < 0.7 else "something else"
        samples.append(SampleResult(item.id, 0, raw, raw, score))
    output = SolverOutput(items=items, samples=samples, details={EDITING: EditingDetails("ice", before)})
    tasks = [Task(name=name, dataset=ItemFilter(tasks=(name,)), solver=Component(name="ice"), metrics=metrics)
             for name, metrics in ELKEN_TASKS.items()]
    return tasks, output


def _object_level(tasks, output, metrics, scoring, key, resamples, seed):
    """The reference: each metric recomputed on the object-level resamples of the run, its
    detail remapped to each (the engine's path for a metric without totals)."""
    out = {}
    for task in tasks:
        for name in task.metrics:
            spec = metric_spec(name)

            def compute(resample, task=task, spec=spec):
                mine = [i for i, o in zip(resample.items, resample.origin) if task.dataset.matches(i)]
                ids = {i.id for i in mine}
                detail = remap_detail(output.details.get(spec.needs), resample.copies) if spec.needs else None
                return spec.compute(MetricInput(mine, [s for s in resample.samples if s.item_id in ids], detail,
                                                scoring))
            estimates = resampled_intervals(compute, metrics[task.name][name], output.items, output.samples, key,
                                            rows=spec.rows, resamples=resamples, seed=seed)
            out.update({(task.name, name, *path): est for path, est in estimates.items()})
    return out


def _compare(tasks, output, scoring, key, *, exact: bool, seed: int = 5) -> int:
    metrics = task_metrics(tasks, output, scoring)
    rows = metric_intervals(tasks, output, metrics, scoring, key=key, resamples=RESAMPLES, seed=seed)
    reference = _object_level(tasks, output, metrics, scoring, key, RESAMPLES, seed)
    checked = 0
    for task, task_rows in rows.items():
        for row in task_rows:
            assert row["resample"] == "arrays" and "method_note" not in row, row["name"]
            # the point value is the metric's own, untouched by the bootstrap
            assert row["value"] == numeric_leaves(metrics[task][row["metric"]], metric_spec(row["metric"]).rows)[
                tuple(row["path"])]
            ref = reference[(task, row["metric"], *row["path"])]
            assert (row["ci"] is None) == (ref.ci is None), row["name"]
            if row["ci"] is None:
                continue
            if exact or not ref.stderr:
                assert row["ci"] == pytest.approx(list(ref.ci), abs=1e-12), row["name"]
                assert row["stderr"] == pytest.approx(ref.stderr, rel=1e-9), row["name"]
            else:
                # the Monte-Carlo error of a 2.5% (97.5%) percentile of RESAMPLES draws:
                # sqrt(p (1 - p) / B) / phi(1.96) bootstrap stderrs (0.27 at 100); allow two of it
                bound = 2 * np.sqrt(0.025 * 0.975 / RESAMPLES) / 0.0584 * ref.stderr
                assert abs(row["ci"][0] - ref.ci[0]) <= bound, (row["name"], row["ci"], ref.ci, bound)
                assert abs(row["ci"][1] - ref.ci[1]) <= bound, (row["name"], row["ci"], ref.ci, bound)
            checked += 1
    return checked


def test_elken_edit_levels_bootstrap_over_arrays_as_over_objects():
    """Knowforge scoring: reliability (question and edit level, every split), locality and the
    tendency edit level give, over arrays of per-event totals, the object-level intervals of
    the same seed, draw for draw."""
    tasks, output = _elken_run(1, "knowforge")
    assert _compare(tasks, output, "knowforge", "event_id", exact=True) >= 12


def test_elken_official_numbers_bootstrap_over_arrays_within_monte_carlo_error():
    """Official scoring (metric.py's counting: type-1 accuracy over known golds, events as runs
    of consecutive questions with one event text): the point values are metric.py's; the
    intervals are the object-level ones within Monte-Carlo error. Not draw for draw: an
    object-level resample that draws an event twice in a row shows metric.py one event text
    twice over and it counts them as one event, where the arrays count the copies apart, as
    the engine counts every unit drawn twice."""
    tasks, output = _elken_run(2, "official")
    assert _compare(tasks, output, "official", "event_id", exact=False) >= 12


def test_elken_totals_give_back_the_values_on_edge_inputs():
    """The totals give the very numbers ``compute`` gives: on a task with no question of the
    metric's kind (official: metric.py's 1 of 1 when there is no event), on the whole run, and
    with no answers before the edit."""
    tasks, output = _elken_run(3, "knowforge", events=6)
    for scoring in ("knowforge", "official"):
        for name in ("edit_reliability", "locality", "tendency_edit_level"):
            spec = metric_spec(name)
            for items, samples in ((output.items, output.samples), ([], []),
                                   ([i for i in output.items if i.scorer == "elken-tendency"], output.samples)):
                for detail in (output.details[EDITING], None):
                    data = MetricInput(items, samples, detail if spec.needs else None, scoring)
                    value = numeric_leaves(spec.compute(data), spec.rows)
                    totals = spec.totals(data)
                    whole = np.asarray(totals.counts, dtype=float).reshape(len(totals.item_ids), -1).sum(axis=0) \
                        if len(totals.item_ids) else np.zeros(max(2, 2 * len(totals.leaves)))
                    for path, number in value.items():
                        with np.errstate(invalid="ignore", divide="ignore"):
                            got = float(totals.leaves[path](whole))
                        assert (np.isnan(got) if number is None else got == pytest.approx(number, rel=1e-12)), \
                            (scoring, name, path, number, got)


def test_an_event_split_over_units_falls_back_to_objects_and_says_why():
    """Without the event as the unit (every question its own unit) an event's verdict reads
    several units: no per-unit totals give it, so the metric is resampled as objects and its
    interval names the object-level resample and why (in the report's cell too)."""
    tasks, output = _elken_run(4, "knowforge", events=12)
    metrics = task_metrics(tasks, output, "knowforge")
    rows = metric_intervals(tasks, output, metrics, "knowforge", key=None, resamples=40, seed=1)
    edit = {r["name"]: r for rs in rows.values() for r in rs}
    for name in ("edit_reliability.edit_level", "edit_reliability.question_level", "locality.edit_level",
                 "tendency_edit_level.edit_level"):
        row = edit[name]
        assert row["resample"] == "objects" and row["ci"] is not None, name
        assert row["method_note"].startswith("object-level resample: one of its verdicts reads items "), name
        assert "different units of the run" in row_text(row)["95% interval"]
    # official: two events side by side with one event text are one event to metric.py, whose
    # verdict reads two units even with the event as the unit
    same = [i.model_copy(update={"metadata": {**i.metadata, "event": "Something happened to entity 0."}})
            if i.metadata["event_id"] == "ev1" else i for i in output.items]
    output = SolverOutput(items=same, samples=output.samples, details=output.details)
    metrics = task_metrics(tasks, output, "official")
    rows = metric_intervals(tasks, output, metrics, "official", key="event_id", resamples=40, seed=1)
    edit = {r["name"]: r for rs in rows.values() for r in rs}
    assert edit["edit_reliability.edit_level"]["resample"] == "objects"
    assert "'f0-0' and 'f1-0' together" in edit["edit_reliability.edit_level"]["method_note"]
    assert edit["locality.edit_level"]["resample"] == "arrays"        # grouped by event id in both modes


def _chrono_run(seed: int, records: int = 12):
    """ChroKnow check results over two templates and several years, facts of every category
    in two domains and both kinds of change, and ChroKnowPrompt results for two spans."""
    rng = np.random.default_rng(seed)
    categories = ("Known", "Unknown", "Cut-off", "Partial Known")
    items, years, facts = [], [], []
    for r in range(records):
        rid = f"r{r}"
        domain, change = ("general", "biomedical")[r % 2], ("static", "dynamic")[r % 3 == 0]
        for template in ("generation", "mcqa"):
            for year in range(2018, 2018 + int(rng.integers(2, 5))):
                item_id = f"c:{rid}:{year}:{template}"
                items.append(BenchmarkItem(id=item_id, benchmark="chrono:x", task=f"chrono/{template}",
                                           form="generation", question="q", answers=["o"],
                                           slices={"year": year, "template": template, "domain": domain,
                                                   "change": change}, metadata={"record_id": rid}))
                years.append(YearCheck(item_id, rid, template, year, domain, "P54", change, ("o",), ("o",), (),
                                       "correct"))
            facts.append(FactCheck(rid, template, domain, "P54", change, "s", {2018: "correct"},
                                   str(rng.choice(categories))))
    check = CheckResult(years, facts, [])
    generation = {f.record_id: f for f in facts if f.template == "generation"}
    prompts = []
    for span in ("total", "previous"):
        before = {rid: f.category == "Known" for rid, f in generation.items()}
        after = {rid: before[rid] or bool(rng.random() < 0.4) for rid in generation}
        prompts.append(PromptResult(span, [], before, after, dict(generation)))
    output = SolverOutput(items=items, samples=[], details={CHECK: check, CHRONOPROMPT: prompts})
    tasks = [Task(name=f"chrono/{t}", dataset=ItemFilter(tasks=(f"chrono/{t}",)), solver=Component(name="chrono-check"),
                  metrics=("chrono_categories", "chronoprompt_gain")) for t in ("generation", "mcqa")]
    return tasks, output


def test_chrono_shares_bootstrap_over_arrays_as_over_objects():
    """ChroKnow's Known % per (domain, template, change) and ChroKnowPrompt's Known % before,
    after and gain per (span, domain, change): over arrays of per-record totals, the
    object-level intervals of the same seed draw for draw, and the values as the tables round
    them."""
    tasks, output = _chrono_run(6)
    assert _compare(tasks, output, "knowforge", "record_id", exact=True) >= 20


def test_chrono_solver_tables_get_the_task_metrics_intervals():
    """The solver's own tables (the report's sections) take their intervals from the same totals
    and draws as the task metrics; where the run's unit is not the record they fall back to the
    object-level resample of the tables."""
    tasks, output = _chrono_run(7)
    check, prompts = output.details[CHECK], output.details[CHRONOPROMPT]
    interval = dict(items=output.items, key="record_id", resamples=RESAMPLES, seed=3)
    categories, gains = category_table(check), gain_table(prompts)
    fast = table_intervals(categories, lambda: category_totals(check),
                           lambda s: category_table(check.remap(s.copies)), **interval)
    slow = resampled_intervals(lambda s: category_table(check.remap(s.copies)), categories, output.items, [],
                               "record_id", resamples=RESAMPLES, seed=3)
    fast_gain = table_intervals(gains, lambda: gain_totals(prompts, output.items),
                                lambda s: gain_table([p.remap(s.copies) for p in prompts]), **interval)
    slow_gain = resampled_intervals(lambda s: gain_table([p.remap(s.copies) for p in prompts]), gains, output.items,
                                    [], "record_id", resamples=RESAMPLES, seed=3)
    for mine, ref in ((fast, slow), (fast_gain, slow_gain)):
        assert set(mine) == set(ref) and len(mine) >= 4
        for path, est in mine.items():
            assert list(est.ci) == pytest.approx(list(ref[path].ci), abs=1e-12), path
    # every item its own unit: a fact's years lie in several units; the object-level tables
    by_item = table_intervals(categories, lambda: category_totals(check),
                              lambda s: category_table(check.remap(s.copies)), **{**interval, "key": None})
    assert by_item == resampled_intervals(lambda s: category_table(check.remap(s.copies)), categories,
                                          output.items, [], None, resamples=RESAMPLES, seed=3)


def test_a_task_with_no_item_in_the_run_gets_no_resamples(monkeypatch):
    """A benchmark's task none of the run's items belongs to (the demo's ChroKnow run has only
    Generation items, and its MCQA and TF tasks read the run-wide ChroKnowPrompt detail): its
    rows say so, and the run is not recomputed on object-level resamples for it (it was, 1,000
    times). The other tasks' intervals are the same as without it."""
    import knowforge.eval.metric_stats as stats

    tasks, output = _chrono_run(8)
    empty = Task(name="chrono/tf", dataset=ItemFilter(tasks=("chrono/tf",)), solver=Component(name="chrono-check"),
                 metrics=("chrono_categories", "chronoprompt_gain"))
    metrics = task_metrics(tasks + [empty], output, "knowforge")
    assert metrics["chrono/tf"]                   # it has values: the detail is the run's

    def no_objects(*args, **kwargs):
        raise AssertionError("a task with no items was resampled as objects")

    monkeypatch.setattr(stats, "resample_run", no_objects)
    rows = metric_intervals(tasks + [empty], output, metrics, "knowforge", key="record_id",
                            resamples=RESAMPLES, seed=2)
    assert rows["chrono/tf"] and all(r["ci"] is None and r["note"] == stats.NO_ITEMS for r in rows["chrono/tf"])
    alone = metric_intervals(tasks, output, {t.name: metrics[t.name] for t in tasks}, "knowforge", key="record_id",
                             resamples=RESAMPLES, seed=2)
    assert {t: rows[t] for t in alone} == alone
    assert any(r["ci"] is not None for r in alone["chrono/mcqa"])


def test_shares_are_rounded_as_python_rounds_them():
    """A table stores round(100 * k / n, 1); numpy's round differs from Python's in the last
    digit (0.15 -> 0.2, not 0.1), and the totals must give back the stored number."""
    values = np.array([0.15, 100 * 3 / 2000, 12.25, 33.35, float("nan"), 66.66666666666667])
    expected = [round(v, 1) for v in values.tolist()]
    assert np.allclose(rounded(values, 1), expected, equal_nan=True, rtol=0, atol=0)
    assert rounded(values, 1)[0] == 0.1 and np.round(0.15, 1) == 0.2
    assert rounded(np.float64(0.15), 1).shape == ()


def test_each_event_group_is_one_event_of_metric_pys_count():
    """``helm.event_groups`` splits states into the events ``event_accuracy`` counts (official:
    runs of consecutive states with one event text, so two events with the same text side by
    side are one; knowforge: by event id and text wherever they are): each group alone is one
    event and their sum is the count over all the states, which is what makes the edit level a
    sum of per-event totals."""
    from knowforge.eval.events import helm

    rng = np.random.default_rng(8)
    for _ in range(30):
        states = [helm.request_state(event_type="t", event=f"text {int(rng.integers(0, 3))}",
                                     event_id=f"ev{int(rng.integers(0, 4))}", input_text="q",
                                     answer={"id": None, "name": "a", "alias": []}, local=bool(rng.random() < 0.2),
                                     completion=str(rng.choice(["a", "b"])), question_type=0)
                  for _ in range(int(rng.integers(1, 12)))]
        for mode in ("official", "knowforge"):
            groups = helm.event_groups(states, mode)
            assert sorted(k for g in groups for k in g) == [k for k, s in enumerate(states)
                                                             if not s["instance"]["local"]]
            counts = [helm.event_accuracy([states[k] for k in g], mode) for g in groups]
            assert all(c["overall_total"] == 1 for c in counts)
            whole = helm.event_accuracy(states, mode)
            if groups:
                assert (sum(c["overall_correct"] for c in counts), len(groups)) == \
                    (whole["overall_correct"], whole["overall_total"]), (mode, states)

"""Intervals on every task metric: a seeded cluster bootstrap over the run's units.

A task metric is a pure function of its ``MetricInput`` (items, samples, the solver detail it
reads, the scoring mode). Its uncertainty comes from recomputing it on resamples of the run:

1. **Units.** The run's items are grouped into units by the method's unit key (``metadata[key]``:
   the event, the record, the term, the statement, the entity; ``Method.unit_key``); an item
   without it, or a run without a key, is its own unit. A unit's items travel with all their
   samples.
2. **Resamples.** ``resamples`` rows of unit indices are drawn with replacement
   (``stats.resample_indices``, seeded by ``child_seed(seed, "metrics")``: the same draws for
   every task and metric of the run, so a solver that computes its own tables through
   ``resample_run`` with the same seed and key gets the same intervals). The first draw of a
   unit keeps its ids; each further copy gets a tag (``~b1``, ``~b2`` ...) appended to its
   items' ids, to its samples' item ids and to its value of the unit key, so a metric that
   counts events or statements counts the copies apart. A solver detail the metric reads is
   remapped to the resample through its ``remap(copies)`` (``unit.Remappable``); a detail
   without one makes its metrics "not resampled", said in the output.
3. **Numbers.** Every float in a metric's value is a number with an interval: the value
   itself, a float member of a dict (``edit_reliability.question_level``), a float field of
   a table's rows, the row named by its text fields or ``MetricSpec.rows``
   (``chrono_categories[domain=general, template=generation, change=dynamic].Known %``).
   Integers are counts and get none. For each number: the percentile interval of its
   resampled values and their standard deviation (``stats.percentile_estimate``); a resample
   where it is undefined (None, a row absent) is dropped and counted.
4. **Chance and tests.** ``MetricSpec.chance`` gives the number's chance level (each interval
   says whether it excludes it), ``MetricSpec.test`` the p-value of a gap, computed once on
   the task's own input.

Where units are paired inside one run (NewTerm's Base and Gold answers to the same items), the
resample keeps the pairs together, so the interval of their difference is a paired one.
"""

from __future__ import annotations

import copy
import logging
import math
import operator
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from knowforge.eval.registry import metric_spec
from knowforge.eval.stats import (DEFAULT_RESAMPLES, Estimate, child_seed, percentile_estimate, power_check,
                                  resample_count_chunks, resample_index_chunks, underpowered_text)
from knowforge.eval.types import SampleResult
from knowforge.eval.unit import CannotResample, MetricInput, MetricSpec, SolverOutput, Statistic, Totals, UnitCopy
from knowforge.models.task import Task
from knowforge.models.types import BenchmarkItem

log = logging.getLogger(__name__)

TAG = "~b"                     # appended (with the copy number) to the ids of a unit's further copies
BOOLEAN_FORMS = ("boolean", "true-false")
Path = tuple[str, ...]


# --- units and resamples ---------------------------------------------------------------------------
def unit_value(item: BenchmarkItem, key: str | None) -> str | None:
    """The item's value of the unit key, or None (the item is its own unit)."""
    value = item.metadata.get(key) if key else None
    return None if value is None else str(value)


def unit_name(item: BenchmarkItem, key: str | None) -> str:
    """The unit an item belongs to: ``<key>:<value>``, or ``item:<id>``."""
    value = unit_value(item, key)
    return f"item:{item.id}" if value is None else f"{key}:{value}"


@dataclass(frozen=True)
class Units:
    """The run's items grouped into units, in first-seen order."""

    key: str | None
    names: tuple[str, ...]
    values: tuple[str | None, ...]
    items: tuple[tuple[BenchmarkItem, ...], ...]

    def __len__(self) -> int:
        return len(self.names)


def group_units(items: Sequence[BenchmarkItem], key: str | None) -> Units:
    if key is None:            # every item its own unit: one pass, no grouping (100k items: 3 s -> 0.1 s)
        return Units(None, tuple(f"item:{i.id}" for i in items), (None,) * len(items), tuple((i,) for i in items))
    members: dict[str, list[BenchmarkItem]] = {}
    values: dict[str, str | None] = {}
    for item in items:
        name = unit_name(item, key)
        members.setdefault(name, []).append(item)
        values.setdefault(name, unit_value(item, key))
    return Units(key, tuple(members), tuple(values[n] for n in members), tuple(tuple(m) for m in members.values()))


@dataclass(frozen=True)
class Resample:
    """One bootstrap resample of a run: its items and samples (copies renamed), the original id
    of each item, and the copies a detail's ``remap`` follows."""

    items: list[BenchmarkItem]
    origin: list[str]
    samples: list[SampleResult]
    copies: list[UnitCopy]


def _renamed_item(item: BenchmarkItem, new_id: str, key: str | None, tag: str) -> BenchmarkItem:
    update: dict[str, Any] = {"id": new_id}
    if key and item.metadata.get(key) is not None:
        update["metadata"] = {**item.metadata, key: f"{item.metadata[key]}{tag}"}
    return item.model_copy(update=update)


def _renamed_sample(sample: SampleResult, new_id: str) -> SampleResult:
    # a shallow copy with one field set: dataclasses.replace re-runs __init__, several times slower
    out = copy.copy(sample)
    object.__setattr__(out, "item_id", new_id)
    return out


def resample_run(items: Sequence[BenchmarkItem], samples: Sequence[SampleResult], key: str | None, *,
                 resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> Iterator[Resample]:
    """The run's bootstrap resamples over its units (see the module docstring)."""
    units = group_units(items, key)
    by_item: dict[str, list[SampleResult]] = defaultdict(list)
    for s in samples:
        by_item[s.item_id].append(s)
    if len(units) < 2:
        return
    rows = (row for block in resample_index_chunks(len(units), resamples, seed) for row in block)
    for row in rows:
        drawn: dict[int, int] = defaultdict(int)
        out_items: list[BenchmarkItem] = []
        origin: list[str] = []
        out_samples: list[SampleResult] = []
        copies: list[UnitCopy] = []
        for u in row.tolist():
            k = drawn[u]
            drawn[u] += 1
            tag = f"{TAG}{k}" if k else ""
            ids = {}
            for item in units.items[u]:
                new_id = f"{item.id}{tag}"
                ids[item.id] = new_id
                out_items.append(_renamed_item(item, new_id, key, tag) if tag else item)
                origin.append(item.id)
                if tag:
                    out_samples.extend(_renamed_sample(s, new_id) for s in by_item[item.id])
                else:
                    out_samples.extend(by_item[item.id])
            copies.append(UnitCopy(units.values[u], ids, tag))
        yield Resample(out_items, origin, out_samples, copies)


def remap_detail(detail: Any, copies: Sequence[UnitCopy]) -> Any:
    """A solver detail as it reads for a resample (``Remappable``); raises ``CannotResample``."""
    if detail is None:
        return None
    if isinstance(detail, (list, tuple)):
        return type(detail)(remap_detail(d, copies) for d in detail)
    remap = getattr(detail, "remap", None)
    if remap is None:
        raise CannotResample(f"its solver detail ({type(detail).__name__}) cannot follow a resample (no remap)")
    return remap(copies)


def resampled_intervals(compute: Callable[[Resample], Any], value: Any, items: Sequence[BenchmarkItem],
                        samples: Sequence[SampleResult], key: str | None, *, rows: Sequence[str] = (),
                        resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> dict[Path, Estimate]:
    """{path: estimate} of every number of ``value`` (a solver's own table, computed on the run)
    from ``compute`` on the engine's resamples of the run (``resample_run`` with the engine's
    seed, ``child_seed(seed, "metrics")``): a solver's tables then carry the very intervals the
    engine gives the task metrics computed from the same items. Empty without two resamples."""
    leaves = numeric_leaves(value, rows)
    units = len(group_units(items, key))
    if resamples < 2 or units < 2 or not leaves:
        return {}
    replicates: dict[Path, list[float]] = defaultdict(list)
    drawn = 0
    for sample in resample_run(items, samples, key, resamples=resamples, seed=child_seed(seed, "metrics")):
        drawn += 1
        found = numeric_leaves(compute(sample), rows)
        for path in leaves:
            v = found.get(path)
            replicates[path].append(float("nan") if v is None else v)
    return {path: percentile_estimate(v, np.asarray(replicates[path]), units, drawn) for path, v in leaves.items()}


def totals_intervals(totals: Totals, value: Any, items: Sequence[BenchmarkItem], key: str | None, *,
                     rows: Sequence[str] = (), resamples: int = DEFAULT_RESAMPLES,
                     seed: int = 0) -> dict[Path, Estimate]:
    """``resampled_intervals`` for a solver's table written as sums (``Totals``): the same draws
    (the engine's seed and units), each resample's totals a matrix product instead of a rebuilt
    run, so the cost no longer grows with resamples × samples. Every number of ``value`` needs
    its statistic in ``totals.leaves``. Raises ``CannotResample`` when the totals read items of
    several units together (``Totals.reads``): the caller then resamples objects."""
    leaves = numeric_leaves(value, rows)
    units = group_units(items, key)
    if resamples < 2 or len(units) < 2 or not leaves:
        return {}
    unit_index = _unit_index(units)
    why = split_reads(totals, unit_index)
    if why is not None:
        raise CannotResample(why)
    columns = unit_totals(totals, unit_index, len(units), "table")
    missing = [leaf_name("table", p) for p in leaves if p not in totals.leaves]
    if missing:
        raise ValueError(f"totals give no statistic for {', '.join(missing[:3])}")
    out = {path: np.empty(resamples) for path in leaves}
    done = 0
    with np.errstate(invalid="ignore", divide="ignore"):
        for drawn in resample_count_chunks(len(units), resamples, child_seed(seed, "metrics")):
            summed = drawn @ columns
            for path in leaves:
                out[path][done:done + len(drawn)] = np.broadcast_to(
                    np.asarray(totals.leaves[path](summed), dtype=float), (len(drawn),))
            done += len(drawn)
    return {path: percentile_estimate(v, out[path], len(units), resamples) for path, v in leaves.items()}


# --- the numbers of a metric's value ---------------------------------------------------------------
def _row_label(row: Mapping[str, Any], fields: Sequence[str]) -> tuple[str, list[str]]:
    names = [f for f in fields if f in row] if fields else \
        [k for k, v in row.items() if isinstance(v, (str, bool)) or v is None]
    return "[" + ", ".join(f"{f}={row[f]}" for f in names) + "]", names


def numeric_leaves(value: Any, rows: Sequence[str] = (), path: Path = ()) -> dict[Path, float | None]:
    """{path: number} of every float in ``value`` (see the module docstring); a None where a
    number belongs (an empty group) is kept as None so a resample can say it is undefined."""
    out: dict[Path, float | None] = {}
    if isinstance(value, bool) or isinstance(value, int):
        return out
    if isinstance(value, float):
        out[path] = value if math.isfinite(value) else None
    elif isinstance(value, Mapping):
        for k, v in value.items():
            if v is None and path:          # an undefined member of a dict: keep its place
                out[(*path, str(k))] = None
            else:
                out.update(numeric_leaves(v, rows, (*path, str(k))))
    elif isinstance(value, (list, tuple)):
        for index, element in enumerate(value):
            if isinstance(element, Mapping):
                label, names = _row_label(element, rows)
                out.update(numeric_leaves({k: v for k, v in element.items() if k not in names}, rows,
                                          (*path, label)))
            else:
                out.update(numeric_leaves(element, rows, (*path, str(index))))
    return out


def leaf_name(metric: str, path: Path) -> str:
    """``edit_reliability.question_level``, ``chrono_categories[domain=general, ...].Known %``."""
    return metric + "".join(p if p.startswith("[") else f".{p}" for p in path)


def is_percent(path: Path) -> bool:
    """A number already in percent (a field named with a "%": "Known %", "Known % gain") rather
    than a share."""
    return bool(path) and "%" in path[-1]


# --- chance ---------------------------------------------------------------------------------------
def item_chance(item: BenchmarkItem) -> float | None:
    """The chance of a random guess at one item: 1/k for k options, 1/2 for yes/no; None for an
    open question."""
    if item.choices:
        return 1.0 / len(item.choices)
    if item.form in BOOLEAN_FORMS:
        return 0.5
    return None


def chance_of(items: Sequence[BenchmarkItem], samples: Sequence[SampleResult] | None = None) -> float | None:
    """The accuracy a random guesser expects on these items (weighted by their samples when
    given); None when any of them is an open question, which has no chance level."""
    if samples is None:
        values = [item_chance(i) for i in items]
    else:
        # each item's chance once, then one look-up per sample (an id listed twice: its last item)
        chances = {i.id: item_chance(i) for i in items}
        values = [chances[s.item_id] for s in samples if s.item_id in chances]
    if not values or None in values:
        return None
    return sum(values) / len(values)


def excludes(ci: Sequence[float] | None, value: float | None, units: int | None = None,
             scale: float = 1.0) -> bool | None:
    """Whether an interval lies wholly above or below ``value`` (None without both).

    A zero-width interval says only that every unit scored the same, which a bootstrap (or a
    standard error) cannot weigh: a share of 0 (or 1, or 100 % with ``scale`` 100) over
    ``units`` units is then judged by the rule of three, the one-sided 95% bound 3/n of a
    proportion seen 0 times in n (so 0 of 40 statements excludes 50 % but not 0.01 %); any
    other zero-width interval decides nothing (None)."""
    if ci is None or value is None:
        return None
    if ci[0] == ci[1]:
        if not units:
            return None
        bound = scale * min(1.0, 3.0 / units)
        if ci[0] == 0.0:
            return bool(value > bound)
        if ci[0] == scale:
            return bool(value < scale - bound)
        return None
    return bool(ci[0] > value or ci[1] < value)


# --- metrics as sums (MetricSpec.totals) ----------------------------------------------------------
def ratio_at(column: int) -> Statistic:
    """The statistic totals[..., column] / totals[..., column + 1]: a score sum over its count
    (NaN where the count is 0: the number is undefined on that resample)."""
    def ratio(totals: np.ndarray) -> np.ndarray:
        return totals[..., column] / totals[..., column + 1]
    return ratio


def rate_totals(rows: Sequence[tuple[str, Path, float]], paths: Sequence[Path] = (),
                reads: Sequence[Sequence[str]] | None = None) -> Totals:
    """A metric made of rates: each (item id, path, outcome) adds (outcome, 1) to the pair of
    columns of its number, whose statistic is their ratio (an accuracy per template, a rate per
    split). ``paths``: numbers that may have no row (an empty split: NaN, as its None);
    ``reads``: per row, the items its outcome reads together (``Totals.reads``)."""
    return grouped_totals([(item_id, path, (outcome, 1.0)) for item_id, path, outcome in rows], 2,
                          {path: (path, ratio_at(0)) for path in (*paths, *(p for _, p, _ in rows))}, reads)


def grouped_totals(rows: Sequence[tuple[str, Any, Sequence[float]]], width: int,
                   leaves: Mapping[Path, tuple[Any, Statistic]],
                   reads: Sequence[Sequence[str]] | None = None) -> Totals:
    """Totals kept in groups of ``width`` columns: each (item id, group, counts) row adds its
    ``width`` counts to its group's columns; ``leaves`` maps each number to its group and the
    statistic over that group's columns (a table row's shares, each a function of the row's
    counts). A group no row names gets zero columns: its numbers are undefined (NaN)."""
    groups = list(dict.fromkeys([*(g for g, _ in leaves.values()), *(g for _, g, _ in rows)]))
    start = {group: width * k for k, group in enumerate(groups)}
    counts = np.zeros((len(rows), width * len(groups)))
    for r, (_, group, values) in enumerate(rows):
        counts[r, start[group]:start[group] + width] = values
    if reads is not None and len(reads) != len(rows):
        raise ValueError(f"totals: {len(reads)} entries of reads for {len(rows)} rows")

    def within(group: Any, statistic: Statistic) -> Statistic:
        span = slice(start[group], start[group] + width)
        return lambda totals: statistic(totals[..., span])
    return Totals([item_id for item_id, _, _ in rows], counts,
                  {path: within(group, statistic) for path, (group, statistic) in leaves.items()}, reads)


def rounded(values: Any, digits: int) -> np.ndarray:
    """``round(v, digits)`` of each value, as Python rounds it (a table that stores its shares
    rounded, ``round(100 * k / n, 1)``): numpy's ``round`` scales by 10**digits first and can
    differ in the last digit, and the totals must give back the very number stored."""
    array = np.asarray(values, dtype=float)
    return np.fromiter((round(v, digits) for v in array.ravel().tolist()), dtype=float,
                       count=array.size).reshape(array.shape)


def row_label(row: Mapping[str, Any], fields: Sequence[str] = ()) -> str:
    """The label ``numeric_leaves`` gives a table row's numbers: ``[domain=general, ...]``, from
    ``fields`` or the row's text fields, in the row's order."""
    return _row_label(row, fields)[0]


def split_reads(totals: Totals, unit_index: Mapping[str, int]) -> str | None:
    """Why ``totals`` do not decompose over these units (a row reads items of two units, whose
    verdict no sum of per-unit totals gives), or None when they do."""
    if totals.reads is None:
        return None
    for item_id, together in zip(totals.item_ids, totals.reads):
        home = unit_index.get(item_id)
        for other in together:
            if other not in unit_index:
                raise ValueError(f"totals read item {other!r}, which the run does not have")
            if unit_index[other] != home:
                return (f"one of its verdicts reads items {item_id!r} and {other!r} together, which lie in "
                        "different units of the run")
    return None


# --- the engine's entry point ----------------------------------------------------------------------
OBJECTS = "objects"            # a number recomputed on object-level resamples of the run
ARRAYS = "arrays"              # a number bootstrapped over arrays of per-unit totals
NO_ITEMS = "no interval: the run has no item of this task"


@dataclass(frozen=True)
class _Plan:
    task: Task
    spec: MetricSpec
    leaves: dict[Path, float | None]
    columns: np.ndarray | None = None            # arrays: (units, k) per-unit totals
    statistics: Mapping[Path, Statistic] | None = None
    objects_note: str | None = None              # objects: why, as the interval says it


_ID = operator.attrgetter("id")


def _unit_index(units: Units) -> dict[str, int]:
    """{item id: its unit's index}; an id listed twice keeps its last unit."""
    if units.key is None:          # one item per unit: the ids zipped with their positions
        return dict(zip(map(_ID, map(operator.itemgetter(0), units.items)), range(len(units))))
    return {item.id: u for u, members in enumerate(units.items) for item in members}


def _task_inputs(items: Sequence[BenchmarkItem], origin: Sequence[str], samples: Sequence[SampleResult],
                 matches: Mapping[str, bool]) -> tuple[list[BenchmarkItem], list[SampleResult]]:
    mine = [i for i, o in zip(items, origin) if matches[o]]
    ids = {i.id for i in mine}
    return mine, [s for s in samples if s.item_id in ids]


def _as_number(value: Any) -> float:
    value = float(np.asarray(value, dtype=float))
    return value if math.isfinite(value) else float("nan")


def unit_totals(totals: Totals, unit_index: Mapping[str, int], units: int, metric: str) -> np.ndarray:
    """The (units, k) matrix of a metric's per-unit totals: the rows of ``totals`` added up by
    the unit of their item."""
    counts = np.asarray(totals.counts, dtype=float)
    if counts.ndim == 1:
        counts = counts.reshape(len(counts), 1 if len(totals.item_ids) else 0)
    if counts.ndim != 2 or len(counts) != len(totals.item_ids):
        raise ValueError(f"metric {metric!r}: its totals need one row of counts per item id "
                         f"({len(totals.item_ids)} ids, counts of shape {counts.shape})")
    try:
        index = np.fromiter(map(unit_index.__getitem__, totals.item_ids), dtype=np.int64, count=len(totals.item_ids))
    except KeyError as exc:
        raise ValueError(f"metric {metric!r}: its totals name item {exc.args[0]!r}, which the run does not have") \
            from None
    out = np.zeros((units, counts.shape[1]))
    np.add.at(out, index, counts)
    return out


def _array_plan(plan: _Plan, data: MetricInput, unit_index: Mapping[str, int], units: int) -> _Plan:
    """The plan with its per-unit totals, or with the object-level note when the metric declares
    none, or when its totals do not give back its value (a declaration that would bootstrap
    another number than the one reported)."""
    spec = plan.spec
    if spec.totals is None:
        why = spec.objects_because or "it declares no per-unit totals"
        return _Plan(plan.task, spec, plan.leaves, objects_note=f"object-level resample: {why}")
    try:
        totals = spec.totals(data)
    except CannotResample as exc:
        return _Plan(plan.task, spec, plan.leaves, objects_note=f"object-level resample: {exc}")
    why = split_reads(totals, unit_index)
    if why is not None:
        return _Plan(plan.task, spec, plan.leaves, objects_note=f"object-level resample: {why}")
    columns = unit_totals(totals, unit_index, units, spec.name)
    whole = columns.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        for path, value in plan.leaves.items():
            statistic = totals.leaves.get(path)
            point = float("nan") if statistic is None else _as_number(statistic(whole))
            same = (value is None and math.isnan(point)) or \
                (value is not None and math.isclose(point, value, rel_tol=1e-9, abs_tol=1e-12))
            if not same:
                log.warning("metric %s: its totals give %s for %s, its value is %s; resampling objects instead",
                            spec.name, point, leaf_name(spec.name, path), value)
                return _Plan(plan.task, spec, plan.leaves, objects_note=(
                    f"object-level resample: its totals give {point} for {leaf_name(spec.name, path)}, not {value}"))
    return _Plan(plan.task, spec, plan.leaves, columns=columns, statistics=totals.leaves)


def array_replicates(plans: Sequence[_Plan], units: int, resamples: int, seed: int
                     ) -> dict[tuple[str, str, Path], np.ndarray]:
    """Every number of the array plans on each resample: the per-unit totals of all of them side
    by side, summed over the resample's unit indices (``stats.resample_index_chunks``, the draws
    ``resample_run`` makes with the same seed), each number's statistic applied to its columns."""
    if not plans:
        return {}
    columns = np.concatenate([p.columns for p in plans], axis=1)
    spans, start = [], 0
    for plan in plans:
        spans.append(slice(start, start + plan.columns.shape[1]))
        start += plan.columns.shape[1]
    out = {(p.task.name, p.spec.name, path): np.empty(resamples) for p in plans for path in p.leaves}
    done = 0
    with np.errstate(invalid="ignore", divide="ignore"):
        for drawn in resample_count_chunks(units, resamples, seed):
            # each resample's totals, (chunk, k): how often it drew each unit times the units'
            # totals (stats.resample_count_chunks)
            summed = drawn @ columns
            for plan, span in zip(plans, spans):
                part = summed[:, span]
                for path in plan.leaves:
                    values = np.asarray(plan.statistics[path](part), dtype=float)
                    out[(plan.task.name, plan.spec.name, path)][done:done + len(drawn)] = \
                        np.broadcast_to(values, (len(drawn),))
            done += len(drawn)
    return out


def metric_intervals(tasks: Sequence[Task], output: SolverOutput, metrics: Mapping[str, Mapping[str, Any]],
                     scoring: str, *, key: str | None, resamples: int = DEFAULT_RESAMPLES,
                     seed: int = 0) -> dict[str, list[dict]]:
    """For each task, one row per number of its metrics (``metrics``: the values computed on the
    run): ``name``, ``metric``, ``path``, ``value``, ``stderr``, ``ci``, ``ci_method``,
    ``units`` (the task's units), ``resamples``, ``resample`` ("arrays": over per-unit totals,
    ``MetricSpec.totals``; "objects": recomputed on copies of the run, with ``method_note``
    saying why); ``chance`` and ``excludes_chance`` where the metric has a chance level;
    ``p_value``, ``test``, ``paired`` where it has a test; ``note`` where it could not be
    resampled. Both ways draw the same resamples, so a metric's interval does not depend on
    which way it is computed."""
    units = group_units(output.items, key)
    unit_index = _unit_index(units)
    out: dict[str, list[dict]] = {}
    plans: list[_Plan] = []
    matches: dict[str, dict[str, bool]] = {}
    task_units: dict[str, int] = {}
    extras: dict[tuple[str, str, Path], dict] = {}
    for task in tasks:
        if task.dataset.takes_all:
            # every item (a file benchmark's one task): no per-item pass asks the filter, and the
            # ids are unit_index's keys (100,000 items: 0.2-0.3 s of CPU less)
            matches[task.name] = dict.fromkeys(unit_index, True)
            mine, ids = list(output.items), unit_index
            task_units[task.name] = len(set(unit_index.values()))
        else:
            matches[task.name] = {i.id: task.dataset.matches(i) for i in output.items}
            mine = [i for i in output.items if matches[task.name][i.id]]
            ids = set(map(_ID, mine))
            task_units[task.name] = len({unit_index[i.id] for i in mine})
        data_samples = [s for s in output.samples if s.item_id in ids]
        for name, value in metrics.get(task.name, {}).items():
            spec = metric_spec(name)
            leaves = numeric_leaves(value, spec.rows)
            if not leaves:
                continue
            detail = output.details.get(spec.needs) if spec.needs is not None else None
            data = MetricInput(mine, data_samples, detail, scoring)
            if spec.chance is not None:
                chance = numeric_leaves(spec.chance(data), spec.rows)
                for path in leaves:
                    extras.setdefault((task.name, name, path), {})["chance"] = chance.get(path)
            if spec.test is not None:
                for path, result in spec.test(data, seed=child_seed(seed, "test", task.name, name),
                                              resamples=max(resamples, 2)).items():
                    if path in leaves:
                        extras.setdefault((task.name, name, path), {}).update(result)
            if not mine:
                # A task none of the run's items belongs to (a benchmark's other templates, whose
                # metrics read a run-wide detail) has no unit to resample. Resampled as objects, it
                # recomputed the whole run 1,000 times for intervals with nothing under them: most of
                # the demo's ChroKnow step (issue 33's profile).
                plans.append(_Plan(task, spec, leaves, objects_note=NO_ITEMS))
                continue
            plan = _Plan(task, spec, leaves)
            plans.append(_array_plan(plan, data, unit_index, len(units)) if resamples >= 2 and len(units) >= 2
                         else plan)
    if not plans:
        return out
    replicates: dict[tuple[str, str, Path], Any] = defaultdict(list)
    notes: dict[str, str] = {}                    # detail kind -> why it cannot be resampled
    drawn = 0
    if resamples >= 2 and len(units) >= 2:
        boot_seed = child_seed(seed, "metrics")
        replicates.update(array_replicates([p for p in plans if p.columns is not None], len(units), resamples,
                                           boot_seed))
        objects = [p for p in plans if p.columns is None and p.objects_note != NO_ITEMS]
        drawn = resamples
        if objects:
            drawn = _object_replicates(objects, output, scoring, matches, key, resamples, boot_seed, replicates,
                                       notes)
        log.info("metric intervals: %d resamples of %d %s units (%d numbers over arrays, %d metrics over objects)",
                 drawn, len(units), key or "item", sum(len(p.leaves) for p in plans if p.columns is not None),
                 len(objects))
    for plan in plans:
        rows = out.setdefault(plan.task.name, [])
        note = notes.get(plan.spec.needs) if plan.spec.needs and plan.columns is None else None
        for path, value in plan.leaves.items():
            row: dict[str, Any] = {"name": leaf_name(plan.spec.name, path), "metric": plan.spec.name,
                                   "path": list(path), "value": value, "unit": key or "item",
                                   "units": task_units[plan.task.name]}
            row["scale"] = plan.spec.scale
            samples = replicates.get((plan.task.name, plan.spec.name, path))
            if plan.objects_note == NO_ITEMS:
                row.update(stderr=None, ci=None, note=NO_ITEMS)
            elif note is not None:
                row.update(stderr=None, ci=None, note=f"not resampled: {note}")
            elif resamples < 2:
                row.update(stderr=None, ci=None, note="no interval: --bootstrap 0")
            elif samples is None or not len(samples):
                row.update(stderr=None, ci=None, note="no interval: fewer than two units")
            else:
                est = percentile_estimate(value, np.asarray(samples), task_units[plan.task.name], drawn)
                row.update(_estimate_fields(est))
                row["resample"] = ARRAYS if plan.columns is not None else OBJECTS
                if plan.objects_note:
                    row["method_note"] = plan.objects_note
            extra = extras.get((plan.task.name, plan.spec.name, path), {})
            row.update(extra)
            scale = 100.0 if plan.spec.scale == "percent" else 1.0
            if "chance" in extra:
                row["excludes_chance"] = excludes(row.get("ci"), extra["chance"], row["units"], scale)
            if row.get("ci") is not None and "p_value" in extra:
                row["excludes_zero"] = excludes(row["ci"], 0.0)
                row.update(power_check(value, row.get("stderr"), row["units"]))
            rows.append(row)
    return out


def _object_replicates(plans: Sequence[_Plan], output: SolverOutput, scoring: str,
                       matches: Mapping[str, Mapping[str, bool]], key: str | None, resamples: int, seed: int,
                       replicates: dict, notes: dict[str, str]) -> int:
    """The metrics that do not decompose, recomputed on each object-level resample of the run
    (``resample_run``); fills ``replicates`` and ``notes`` (detail kind -> why it cannot follow
    a resample); the number of resamples drawn."""
    drawn = 0
    kinds = sorted({p.spec.needs for p in plans if p.spec.needs is not None})
    for sample in resample_run(output.items, output.samples, key, resamples=resamples, seed=seed):
        drawn += 1
        details: dict[str, Any] = {}
        for kind in kinds:
            if kind in notes:
                continue
            try:
                details[kind] = remap_detail(output.details.get(kind), sample.copies)
            except CannotResample as exc:
                notes[kind] = str(exc)
        inputs: dict[str, tuple[list[BenchmarkItem], list[SampleResult]]] = {}
        for plan in plans:
            needs = plan.spec.needs
            if needs is not None and needs in notes:
                continue
            if plan.task.name not in inputs:
                inputs[plan.task.name] = _task_inputs(sample.items, sample.origin, sample.samples,
                                                      matches[plan.task.name])
            mine, mine_samples = inputs[plan.task.name]
            value = plan.spec.compute(MetricInput(mine, mine_samples, details.get(needs) if needs else None, scoring))
            found = numeric_leaves(value, plan.spec.rows)
            for path in plan.leaves:
                v = found.get(path)
                replicates[(plan.task.name, plan.spec.name, path)].append(float("nan") if v is None else v)
    return drawn


def _estimate_fields(est: Estimate) -> dict[str, Any]:
    fields = est.as_dict()
    fields.pop("units", None)              # the task's units, set by the caller
    return fields


def interval_rows(estimates: Mapping[str, Sequence[Mapping]], task: str, metric: str) -> dict[Path, Mapping]:
    """{path: row} of one metric of one task, from ``metric_intervals``' output."""
    return {tuple(r["path"]): r for r in estimates.get(task, ()) if r["metric"] == metric}


# --- text ---------------------------------------------------------------------------------------
ABOVE_CHANCE = "*"             # the interval lies wholly above chance
BELOW_CHANCE = "↓"             # ... wholly below it
MARKS = f"`{ABOVE_CHANCE}`: above chance, its interval excludes chance; `{BELOW_CHANCE}`: below chance, likewise"


def format_number(value: float | None, ci: Sequence[float] | None = None, *, percent: bool = False,
                  signed: bool = False, units: int | None = None, scale: str | None = None) -> str:
    """The reports' one format: a share (or a number in percent) as ``41.0 ± 2.8`` (in %, ±
    half the width of its 95% interval); other floats to three significant digits, followed by
    their unit. A zero-width interval is no interval: every unit scored the same, which
    ``41.0 ± 0.0`` would hide; it reads ``0.0, no variation (n = 40)`` (``units``: the units it
    rests on).

    ``scale`` is the metric's declared scale (``MetricSpec.scale``): "share" (shown in %),
    "percent" (already in %), "count", or a unit ("years"); the display follows it. Every
    metric declares one; a number given without it (a report's own accuracy columns, a metric
    row recorded before scales were declared) is a share when in [-1, 1]."""
    if value is None:
        return "-"
    if scale is None:
        as_share = percent or -1.0 <= value <= 1.0
    else:
        percent = scale == "percent"
        as_share = scale in ("share", "percent")
    if not as_share:
        unit = f" {scale}" if scale not in (None, "count") else ""
        text = f"{value:+.3g}" if signed and scale is not None else f"{value:.3g}"
        if ci and ci[0] == ci[1]:
            return f"{text}{unit}, {no_variation(units)}"
        return text + ("" if not ci else f" ± {(ci[1] - ci[0]) / 2:.3g}") + unit
    factor = 1.0 if percent else 100.0
    text = f"{factor * value:+.1f}" if signed or value < 0 else f"{factor * value:.1f}"
    if ci and ci[0] == ci[1]:
        return f"{text}, {no_variation(units)}"
    return text if not ci else f"{text} ± {factor * (ci[1] - ci[0]) / 2:.1f}"


def no_variation(units: int | None) -> str:
    return "no variation" + (f" (n = {units})" if units is not None else "")


def chance_mark(value: float | None, chance: float | None, excluded: bool | None) -> str:
    """``*`` when the number is above chance and its interval excludes chance, ``↓`` when it is
    below and excludes it, "" otherwise (chance not excluded, or no chance level)."""
    if not excluded or value is None or chance is None or value == chance:
        return ""
    return ABOVE_CHANCE if value > chance else BELOW_CHANCE


def row_text(row: Mapping[str, Any]) -> dict[str, str]:
    """The cells of one number in a report table: value ± interval (with its chance mark),
    chance, p."""
    declared = row.get("scale")
    percent = is_percent(tuple(row.get("path") or ())) if declared is None else declared == "percent"
    gap = "paired" in row or "p_value" in row          # a difference: signed
    value, chance = row.get("value"), row.get("chance")
    mark = chance_mark(value, chance, row.get("excludes_chance"))
    cells = {"value": format_number(value, row.get("ci"), percent=percent, signed=gap, units=row.get("units"),
                                    scale=declared)
             + (f" {mark}" if mark else "")}
    if row.get("ci"):
        low, high = row["ci"]
        if declared is not None:
            scale = 100.0 if declared == "share" else 1.0
        else:
            scale = 1.0 if percent or not (-1.0 <= (value or 0.0) <= 1.0) else 100.0
        cells["95% interval"] = f"[{scale * low:.1f}, {scale * high:.1f}]"
        if row.get("method_note"):
            cells["95% interval"] += f" ({row['method_note']})"
    else:
        cells["95% interval"] = row.get("note") or "-"
    cells["chance"] = "-" if chance is None else format_number(chance, percent=percent, scale=declared)
    if chance is not None and row.get("excludes_chance") is not None:
        if row["excludes_chance"]:
            cells["chance"] += " (excluded: above)" if mark == ABOVE_CHANCE else \
                " (excluded: below)" if mark == BELOW_CHANCE else " (excluded)"
        else:
            cells["chance"] += " (not excluded)"
    if row.get("p_value") is not None:
        p = row["p_value"]
        cells["p"] = ("<0.001" if p < 0.001 else f"{p:.3f}") + (f" ({row['test']})" if row.get("test") else "")
        if row.get("underpowered"):
            cells["p"] += f"; {underpowered_text(row, row.get('units'))}"
    return cells


__all__ = ["ABOVE_CHANCE", "ARRAYS", "BELOW_CHANCE", "MARKS", "OBJECTS", "Resample", "TAG", "Units", "array_replicates",
           "chance_mark", "chance_of", "excludes", "format_number", "group_units", "grouped_totals", "interval_rows",
           "is_percent", "item_chance", "leaf_name", "metric_intervals", "no_variation", "numeric_leaves",
           "rate_totals", "ratio_at", "remap_detail", "resample_run", "resampled_intervals", "rounded", "row_label",
           "row_text", "split_reads", "unit_name", "unit_totals", "unit_value"]

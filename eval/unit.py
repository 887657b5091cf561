"""What a method's evaluation side declares: its ``EvalUnit``.

A method is one unit across the card's two folders: ``generators/<m>/`` holds its graph side
and names its evaluation side by a lazy ``"module:attr"`` reference (``Method.evaluation``);
``eval/<m>/`` holds that side as one ``EvalUnit`` value:

* ``solvers``: how its items become requests and answers (``SolverSpec``), each with its own
  parameter model and the details its output provides to metrics;
* ``metrics``: what its tasks report (``MetricSpec``), each naming the solver detail it needs,
  and what its uncertainty needs: the fields that name a table's rows, its chance level, and
  the test of a gap (``knowforge.eval.metric_stats`` gives every number an interval);
* ``scorers``: how one answer is scored (``ScorerSpec``), in the ``knowforge`` mode and, where
  the benchmark released a scoring script, the ``official`` one; and how an item is read by
  lm-evaluation-harness (``lm_eval``);
* ``run_exports``: the files an official scoring script reads, written from a recorded run
  (``knowforge export run RUN --format NAME``);
* ``file_scorings``: prediction files in an official layout scored with our rules
  (``knowforge score NAME FILES``);
* ``validity``: checks of its runs against what a control model was taught
  (``knowforge report RUN --validity``).

The built-in methods and a plug-in use exactly these fields; the registry
(``knowforge.eval.registry``) gathers them and refuses a name declared twice. Nothing generic
in ``eval/`` names a method.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from knowforge.eval.types import EvalOptions, SampleResult, Score, Scoring
from knowforge.models.task import Component
from knowforge.models.types import Backend, BenchmarkItem

Scorer = Callable[[BenchmarkItem, str], Score]


class NoArgs(BaseModel):
    """The parameter model of a component that takes no arguments."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --- solvers -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class SolveContext:
    """What a solver may use: the model, the run's options, the graph (read only: no solver
    writes to a benchmark), the progress callback (requests answered) and the run's unit key
    (a solver that gives its own tables intervals resamples the units the engine resamples:
    ``knowforge.eval.metric_stats.resample_run``)."""

    backend: Backend
    options: EvalOptions
    store: Any = None
    progress: Callable[[int], None] | None = None
    unit_key: str | None = None


@dataclass(frozen=True)
class SolverOutput:
    """What a solver hands back to the engine.

    ``items`` are the items as asked (an editing solver puts its edit in ``context``; the
    benchmark's questions are not changed). ``samples`` answer those items; ``variants`` answer
    prompts derived from them in memory (recorded with the run, outside its metrics).
    ``details`` maps a detail kind (``SolverSpec.provides``) to the typed value a metric reads:
    a ``SolverDetail``, i.e. a record that follows a resample (``Remappable``) or a sequence of
    them, so every metric reading it gets its interval from the engine's resamples.
    """

    items: list[BenchmarkItem]
    samples: list[SampleResult]
    variants: list[SampleResult] = field(default_factory=list)
    run_extra: dict[str, Any] = field(default_factory=dict)     # properties of the Run
    sections: dict[str, Any] = field(default_factory=dict)      # extra report sections
    details: dict[str, SolverDetail] = field(default_factory=dict)
    # (run_dir, run_id): plots and files written after the engine's report
    finalize: Callable[[Path, str], None] | None = None

    def __post_init__(self) -> None:
        for kind, detail in self.details.items():
            parts = detail if isinstance(detail, (list, tuple)) else (detail,)
            for part in parts:
                if not callable(getattr(part, "remap", None)):
                    raise TypeError(f"solver detail {kind!r}: {type(part).__name__} is not a SolverDetail "
                                    "(a record with remap(copies), or a list of them)")


class Solver(Protocol):
    component: Component

    def solve(self, items: Sequence[BenchmarkItem], ctx: SolveContext) -> SolverOutput: ...


@dataclass(frozen=True)
class SolverSpec:
    name: str
    description: str
    args: type[BaseModel]
    build: Callable[[Component, Any], Solver]
    provides: frozenset[str] = frozenset()    # detail kinds its output carries


# --- metrics -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class MetricInput:
    """A task's items as asked, their scored samples, the detail the metric needs (None when it
    needs none) and the run's scoring mode (metrics that re-score answers follow it)."""

    items: Sequence[BenchmarkItem]
    samples: Sequence[SampleResult]
    detail: SolverDetail | None = None
    scoring: Scoring = "knowforge"


class CannotResample(Exception):
    """A solver detail that cannot follow a bootstrap resample of its run (raised by its
    ``remap``); the metrics that read it are reported without an interval, saying why."""


@dataclass(frozen=True)
class UnitCopy:
    """One draw of a unit in a bootstrap resample of a run (``knowforge.eval.metric_stats``).

    A unit drawn k times appears k times; the first copy keeps its ids (``tag`` is ""), every
    further copy has ``tag`` appended to its items' ids and to its value of the unit key, so
    that a metric counting events, records or statements counts each copy apart."""

    unit: str | None              # the unit's value of the run's unit key; None: the unit is one item
    ids: Mapping[str, str]        # its items' ids -> their ids in the resample
    tag: str = ""

    def rename(self, value: str) -> str:
        """An id that belongs to this unit (a record id, an event id) as this copy names it."""
        return f"{value}{self.tag}"


class Remappable(Protocol):
    """A solver detail a metric reads (``SolverOutput.details``) that can follow a resample:
    ``remap(copies)`` returns the detail of the resampled items — for each copy, in order, the
    entries of its items under their new ids (``copy.ids``; ids of the unit itself through
    ``copy.rename``), and nothing of the units not drawn. Raise ``CannotResample`` to say the
    detail cannot. A list or tuple of details is remapped element by element."""

    def remap(self, copies: Sequence[UnitCopy]) -> Remappable: ...


# What a solver hands a metric (``SolverOutput.details``): one record that follows a resample,
# or a sequence of them (ChroKnowPrompt's one result per span)
SolverDetail = Remappable | Sequence[Remappable]


# (the task's input, seed, resamples) -> {leaf path: {"p_value", "test", "paired", "note", ...}}
MetricTest = Callable[..., Mapping[tuple[str, ...], Mapping[str, Any]]]
# column totals, shape (..., k) -> the number, shape (...): NaN where it is undefined
Statistic = Callable[[Any], Any]


@dataclass(frozen=True)
class Totals:
    """A metric written as sums, which the engine bootstraps over arrays (``MetricSpec.totals``).

    Row r of ``counts`` (shape ``(rows, k)``) holds k counts contributed by the item
    ``item_ids[r]`` (one row per sample, per item, or any finer split: the engine adds the rows
    of each unit); ``leaves`` maps each number of the metric's value (its path, as
    ``metric_stats.numeric_leaves`` names it) to the statistic that turns column totals into
    it: e.g. ``totals[..., 0] / totals[..., 1]`` for an accuracy. Applied to the totals over the
    whole input, each statistic gives exactly the number ``compute`` returns; on a resample it
    gives the number ``compute`` would return on that resample's items, so the two bootstraps
    agree draw for draw (tests/test_metric_stats.py).

    ``reads`` (optional, one entry per row) names the items whose answers a row's counts read
    together: an event's edit-level verdict reads all its questions, a fact's category all its
    years. Such a row decomposes over the run's units only when those items lie in one unit
    (the run's unit is the event, the record): the engine checks it and, where they do not,
    resamples the metric as objects and says why. A row without it reads its own item. The
    ``totals`` function may also raise ``CannotResample`` to say its input does not decompose."""

    item_ids: Sequence[str]
    counts: Any                                # numpy array, (rows, k)
    leaves: Mapping[tuple[str, ...], Statistic]
    reads: Sequence[Sequence[str]] | None = None


@dataclass(frozen=True)
class MetricSpec:
    """A metric of a task. ``compute`` is a pure function of its input; the engine gives each
    number in its value (a float, or a float member of a dict or of a table's rows) a bootstrap
    interval over the run's units (``knowforge.eval.metric_stats``), from these fields:

    * ``rows``: for a value holding tables (lists of row dicts), the fields that name a row
      (default: the row's text fields); the row's other float fields are its numbers;
    * ``chance``: the value at chance level, shaped like the metric's (a number, or a dict with
      the same paths), e.g. 0.25 for four options: each interval then says whether it excludes it;
    * ``test``: for a gap, its test on the task's input — ``test(data, seed=, resamples=)`` →
      ``{path: {"p_value", "test", "paired", "note"}}`` — computed once, never per resample;
    * ``totals``: the metric as per-item sums and counts (``Totals``): its numbers are then
      bootstrapped over arrays of per-unit totals, resampled by index, which costs a few
      array operations per resample instead of recomputing ``compute`` on a copy of the run.
      Every metric that is a ratio of sums (an accuracy and its splits, a rate, a mean, a
      share of events or facts whose verdict reads items of one unit, ``Totals.reads``)
      declares it;
    * ``objects_because``: for a metric that does not decompose into sums (a verdict over
      items that lie in several units, ...), why: it is recomputed on object-level resamples
      of the run, and its intervals say so;
    * ``label``: the name reports print (with ``name``) when ``name`` alone would be mistaken
      for another number; ``description`` explains it in the legend under the Task metrics.
    * ``scale`` (required, by keyword): what its float numbers are, which the reports' display
      and intervals follow, never their magnitude: ``"share"`` (a fraction, shown in %),
      ``"percent"`` (already in %), ``"count"``, or a unit such as ``"years"`` (shown with it).
      A ``chance`` of None says the metric has no chance level (an open answer, a difference
      whose null is its ``test``, a rate of unchanged answers).
    Integers are counts and get no interval. A metric whose solver detail cannot follow a
    resample (``Remappable``) and that declares no ``totals`` is reported without an
    interval, saying why."""

    name: str
    compute: Callable[[MetricInput], Any]     # a JSON-ready value (number, dict, rows)
    description: str = ""
    needs: str | None = None                  # the solver detail kind it reads
    rows: tuple[str, ...] = ()
    chance: Callable[[MetricInput], Any] | None = None
    test: MetricTest | None = None
    totals: Callable[[MetricInput], Totals] | None = None
    objects_because: str = ""
    # how reports name it where its name alone would read like another number (a metric
    # "locality" beside the accuracy of a task "<m>/locality")
    label: str = ""
    scale: str = field(kw_only=True)

    def __post_init__(self) -> None:
        if not isinstance(self.scale, str) or not re.fullmatch(r"[A-Za-z%][A-Za-z0-9 %/_.-]{0,31}", self.scale):
            raise ValueError(f"metric {self.name!r}: scale {self.scale!r} is not share, percent, count or a unit")


# --- scorers -----------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)   # compared by identity: each kind is one module-level value
class LmEvalKind:
    """One lm-evaluation-harness task shape: output type, the filter that reads a response as
    our scorer does, and the ``exact_match`` options that compare it with the gold."""

    suffix: str
    output_type: str
    title: str
    filters: tuple[dict[str, Any], ...] = ()
    match: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScorerSpec:
    name: str
    knowforge: Scorer
    official: Scorer | None = None            # the released scoring script's rule
    description: str = ""
    # item -> (kind, {"targets": [...]}) for lm-eval, or why it cannot be exported
    lm_eval: Callable[[BenchmarkItem], tuple[LmEvalKind, dict[str, Any]] | str] | None = None


# --- official files ------------------------------------------------------------------------------
@dataclass(frozen=True)
class RecordedSample:
    """One recorded answer of a run, with its question as a ``BenchmarkItem``."""

    item: BenchmarkItem
    sample_index: int
    raw: str | None
    parsed: str | None
    score: float | None
    error: str | None
    variant: str | None = None


@dataclass(frozen=True)
class RecordedRun:
    """A run read back from the graph: its properties and every answer, variants included."""

    run_id: str
    run: Mapping[str, Any]
    samples: Sequence[RecordedSample]

    @property
    def own(self) -> list[RecordedSample]:
        return [s for s in self.samples if s.variant is None]


@dataclass
class RunExport:
    run_id: str
    format: str
    files: list[Path] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RunExportSpec:
    name: str
    description: str
    # (the run, the output folder, the parsed arguments, the store) -> what was written
    write: Callable[[RecordedRun, Path, Any, Any], RunExport]
    args: type[BaseModel] = NoArgs


@dataclass(frozen=True)
class FileScoringSpec:
    name: str
    description: str
    # (files, scoring mode) -> one JSON-ready row per scored file or model
    score: Callable[[Sequence[Path], str], list[dict]]
    # (rows, scoring mode) -> a rich Table for the terminal
    table: Callable[[list[dict], str], Any]


@dataclass(frozen=True)
class RunViewSpec:
    """A method's view of one thing in a recorded run, printed by a generic command (``knowforge
    ripple EVENT --run RUN`` shows the ``ripple`` view): the command names no method."""

    name: str
    description: str
    # (store, run id, what to show, hops or None, "table" | "json", rich console) -> prints it
    show: Callable[..., None]


@dataclass(frozen=True)
class ListingSpec:
    """What a method's benchmark questions are grouped by (ELKEN's events), listed by a generic
    command (``knowforge results --units BENCHMARK``), which names no method."""

    name: str
    description: str
    # (store, benchmark id) -> rows; a ConfigError says why there are none
    rows: Callable[..., list[dict]]
    columns: tuple[str, ...]
    caption: str = ""


# --- validity ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ValidityContext:
    """The run a validity report is asked for, every run of the same control model (with its
    seen-vs-unseen rows per task, by run id), and where run reports may be found."""

    run_id: str
    run: Mapping[str, Any]
    model: Mapping[str, Any]
    runs: Sequence[Mapping[str, Any]]
    report_dirs: Sequence[Path] = ()
    seen_unseen: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)


@dataclass(frozen=True)
class ValiditySection:
    title: str
    data: Any                                 # JSON-ready, under its key in validity.json
    markdown: list[str]                       # the section's lines in validity.md
    flags: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ValiditySpec:
    key: str
    check: Callable[[Any, ValidityContext], ValiditySection | None]   # (store, context)


# --- the unit ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class EvalUnit:
    solvers: tuple[SolverSpec, ...] = ()
    metrics: tuple[MetricSpec, ...] = ()
    scorers: tuple[ScorerSpec, ...] = ()
    run_exports: tuple[RunExportSpec, ...] = ()
    file_scorings: tuple[FileScoringSpec, ...] = ()
    validity: tuple[ValiditySpec, ...] = ()
    run_views: tuple[RunViewSpec, ...] = ()
    listings: tuple[ListingSpec, ...] = ()


__all__ = ["RunViewSpec", "ListingSpec", "CannotResample", "EvalUnit", "FileScoringSpec", "LmEvalKind", "MetricInput", "MetricSpec", "MetricTest",
           "NoArgs", "RecordedRun", "RecordedSample", "Remappable", "RunExport", "RunExportSpec", "Scorer", "ScorerSpec",
           "SolveContext", "Solver", "SolverOutput", "SolverSpec", "Statistic", "Totals", "UnitCopy", "ValidityContext",
           "ValiditySection", "ValiditySpec"]

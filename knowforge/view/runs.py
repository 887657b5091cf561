"""What the viewer shows of runs: the runs table, one run's numbers, its samples, one sample and
a comparison of runs. Plain functions over the store that return records; the pages render them.

Numbers carry their uncertainty. A statement returns the moments of a group's sample scores
(count, mean, the sample standard deviation with n - 1 in the denominator, as Cypher's
``stDev`` computes it), so the standard error is ``sd / sqrt(n)``: the same number
``knowforge.eval.stats.mean_stderr`` gives on the scores themselves (lm-eval's formula), without
sending a 100k-sample run's scores over the wire. The 95% interval is ``normal_ci``.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from knowforge.errors import KnowforgeError
from knowforge.eval.stats import mean_stderr, normal_ci

PAGE_SIZE = 50
RUNS_PAGE_SIZE = 200
# A run with more answers opens without its numbers, which the page then fetches: aggregating
# every answer of a 100k-sample run takes longer than a page should take to open.
INLINE_ANSWERS = 20_000
MAX_SLICE_VALUES = 30          # a slice with more values is listed, not tabulated (as the report does)
_SLICE_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_PLOT_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,200}\.png$")
OUTCOMES = ("right", "wrong")
FAILURES = ("parse", "error")


class NotFound(KnowforgeError):
    """A run, sample, entity or view that the graph does not hold; the message names it."""


class BadRequest(KnowforgeError):
    """A page was asked for with a parameter it cannot take; the message names it."""


# --- numbers ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Estimate:
    """A mean score with its standard error and 95% interval (None where undefined)."""

    n: int
    mean: float | None
    stderr: float | None = None
    low: float | None = None
    high: float | None = None

    @classmethod
    def from_moments(cls, n: int, mean: float | None, sd: float | None) -> Estimate:
        # mean_stderr's definition, sample sd / sqrt(n), from moments; undefined below two values
        stderr = sd / math.sqrt(n) if n >= 2 and sd is not None and mean is not None else None
        ci = normal_ci(mean, stderr)
        return cls(n, mean, stderr, *(ci or (None, None)))

    @classmethod
    def from_values(cls, values: Sequence[float]) -> Estimate:
        mean = sum(values) / len(values) if values else None
        stderr = mean_stderr(values)
        ci = normal_ci(mean, stderr)
        return cls(len(values), mean, stderr, *(ci or (None, None)))


def pooled(groups: Sequence[tuple[int, float | None, float | None]]) -> tuple[int, float | None, float | None]:
    """The (n, mean, sample sd) of the union of groups given by their own (n, mean, sample sd)."""
    groups = [(n, m, sd) for n, m, sd in groups if n and m is not None]
    total = sum(n for n, _, _ in groups)
    if not total:
        return 0, None, None
    mean = sum(n * m for n, m, _ in groups) / total
    if total < 2:
        return total, mean, None
    squares = sum((n - 1) * (sd or 0.0) ** 2 + n * m * m for n, m, sd in groups)
    return total, mean, math.sqrt(max(0.0, (squares - total * mean * mean) / (total - 1)))


def method_of(benchmark: str | None) -> str | None:
    """``"knowgen:demo"`` → ``"knowgen"``; a file benchmark (no ``:``) has no method."""
    if not benchmark or "," in benchmark or ":" not in benchmark:
        return None
    return benchmark.split(":", 1)[0]


# --- the runs table -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunRow:
    id: str
    name: str | None
    model: str | None
    backend: str | None
    benchmark: str | None
    method: str | None
    solver: str | None
    scoring: str | None
    items: int | None
    started_at: str | None
    errors: int | None
    accuracy: Estimate


@dataclass(frozen=True)
class RunsPage:
    rows: list[RunRow]
    benchmarks: list[str]
    models: list[str]
    total: int
    page: int
    has_next: bool


def list_runs(store, *, benchmark: str | None = None, model: str | None = None, page: int = 1,
              page_size: int = RUNS_PAGE_SIZE, cache: StatsCache | None = None) -> RunsPage:
    """A page of runs with their accuracy and its interval; a run's interval is computed once
    while it is unchanged (``cache``)."""
    rows = store.read("view/list_runs", benchmark=benchmark or None, model=model or None,
                      skip=(page - 1) * page_size, limit=page_size + 1)
    has_next, rows = len(rows) > page_size, rows[:page_size]
    filters = store.read("view/run_filters")[0]
    keys = {r["id"]: ("overall", r["id"], r["answers"], r["finished_at"]) for r in rows}
    overall = {rid: cache.get(key) for rid, key in keys.items()} if cache is not None else {}
    missing = [r["id"] for r in rows if overall.get(r["id"]) is None]
    for m in store.read("view/run_moments", run_ids=missing) if missing else []:
        overall[m["id"]] = Estimate.from_moments(m["n"], m["mean"], m["sd"])
        if cache is not None:
            cache.put(keys[m["id"]], overall[m["id"]])
    out = [RunRow(id=r["id"], name=r["name"], model=r["model"], backend=r["backend"],
                  benchmark=r["benchmark"], method=method_of(r["benchmark"]), solver=r["solver"],
                  scoring=r["scoring"], items=r["items"], started_at=r["started_at"], errors=r["errors"],
                  accuracy=overall.get(r["id"]) or Estimate(0, None)) for r in rows]
    return RunsPage(out, sorted(b for b in filters["benchmarks"] if b), sorted(m for m in filters["models"] if m),
                    filters["runs"], page, has_next)


# --- one run --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GroupRow:
    """One row of a task or slice table."""

    value: Any
    accuracy: Estimate
    errors: int
    items: int | None = None
    parse_failures: int | None = None


@dataclass(frozen=True)
class RunStats:
    overall: Estimate
    tasks: list[GroupRow]
    slices: dict[str, list[GroupRow]]          # tabulated slices (2..MAX_SLICE_VALUES values)
    wide_slices: dict[str, int]                # slices with too many values to tabulate: name -> values
    items: int
    errors: int
    parse_failures: int


@dataclass(frozen=True)
class RunPage:
    run: dict
    answers: int
    method: str | None
    stats: RunStats | None                     # None: too many answers to wait for; fetched after
    plots: list[str]
    report: dict | None                        # report.json of the run's report_dir, when readable
    report_tables: dict[str, Any] = field(default_factory=dict)
    siblings: list[dict] = field(default_factory=list)   # other runs of the benchmark (to compare)


def read_run(store, run_id: str) -> tuple[dict, int]:
    """The run's properties and its number of answers; NotFound names a run the graph lacks."""
    rows = store.read("view/read_run", run_id=run_id)
    if not rows:
        raise NotFound(f"no run {run_id!r} in the graph")
    return rows[0]["run"], rows[0]["answers"]


class StatsCache:
    """Per-run numbers (a run's ``RunStats``, its overall ``Estimate``), kept while the run is
    unchanged: keys hold its answer count and finish time, so going back to a large run does
    not aggregate it again, and a run written again (a resumed run) is computed afresh."""

    def __init__(self, size: int = 256):
        self.size = size
        self._items: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Any:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: tuple, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


def run_stats(store, run_id: str) -> RunStats:
    """Accuracy overall, per task and per slice value, with intervals: two aggregations, run at
    once (the server gives each its own thread)."""
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="knowforge-view") as pool:
        tasks_future = pool.submit(store.read, "view/run_task_stats", run_id=run_id)
        slices_future = pool.submit(store.read, "view/run_slice_stats", run_id=run_id)
        task_rows, slice_rows = tasks_future.result(), slices_future.result()
    tasks = [GroupRow(r["task"], Estimate.from_moments(r["n"], r["mean"], r["sd"]), r["errors"],
                      items=r["items"], parse_failures=r["parse_failures"]) for r in task_rows]
    n, mean, sd = pooled([(r["n"], r["mean"], r["sd"]) for r in task_rows])
    by_slice: dict[str, list[GroupRow]] = defaultdict(list)
    for r in slice_rows:
        by_slice[r["slice"]].append(GroupRow(_cell(r["value"]), Estimate.from_moments(r["n"], r["mean"], r["sd"]),
                                             r["errors"]))
    slices = {k: v for k, v in sorted(by_slice.items()) if 2 <= len(v) <= MAX_SLICE_VALUES}
    wide = {k: len(v) for k, v in sorted(by_slice.items()) if len(v) > MAX_SLICE_VALUES}
    return RunStats(overall=Estimate.from_moments(n, mean, sd), tasks=tasks, slices=slices, wide_slices=wide,
                    items=sum(r["items"] for r in task_rows), errors=sum(r["errors"] for r in task_rows),
                    parse_failures=sum(r["parse_failures"] for r in task_rows))


def run_page(store, run_id: str, cache: StatsCache | None = None, *,
             inline_answers: int = INLINE_ANSWERS) -> RunPage:
    """A run's page: its properties, report tables, plots and the runs to compare it with, and
    its numbers when they are cached or the run has at most ``inline_answers`` answers."""
    run, answers = read_run(store, run_id)
    stats = cached_stats(store, run_id, run, answers, cache, compute=answers <= inline_answers)
    report = read_report(run)
    siblings = store.read("view/benchmark_runs", benchmark=run.get("benchmark"), run_id=run_id, limit=20)
    return RunPage(run=run, answers=answers, method=method_of(run.get("benchmark")), stats=stats,
                   plots=list_plots(run), report=report, report_tables=report_tables(report), siblings=siblings)


def cached_stats(store, run_id: str, run: Mapping, answers: int, cache: StatsCache | None, *,
                 compute: bool = True) -> RunStats | None:
    key = (run_id, answers, run.get("finished_at"))
    stats = cache.get(key) if cache is not None else None
    if stats is None and compute:
        stats = run_stats(store, run_id)
        if cache is not None:
            cache.put(key, stats)
            cache.put(("overall", *key), stats.overall)
    return stats


def run_numbers(store, run_id: str, cache: StatsCache | None = None) -> tuple[dict, RunStats]:
    """A run and its numbers (computed now unless cached)."""
    run, answers = read_run(store, run_id)
    return run, cached_stats(store, run_id, run, answers, cache)


def _cell(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, (list, dict)) else value


def report_dir(run: Mapping) -> Path | None:
    path = run.get("report_dir")
    return Path(path) if path and Path(path).is_dir() else None


def read_report(run: Mapping) -> dict | None:
    """The run's report.json, written by the eval beside its plots, when it is still there."""
    folder = report_dir(run)
    if folder is None or not (folder / "report.json").is_file():
        return None
    try:
        return json.loads((folder / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def report_tables(report: Mapping | None) -> dict[str, Any]:
    """The report's own sections that the graph cannot recompute: task metrics and the other
    sections an evaluator added (a list of row dicts is a table, anything else is shown as JSON),
    and balanced accuracy of true/false tasks."""
    if not report:
        return {}
    out: dict[str, Any] = {}
    if report.get("balanced_accuracy"):
        out["Balanced accuracy (true/false tasks)"] = [{"task": t, "balanced accuracy": v}
                                                       for t, v in report["balanced_accuracy"].items()]
    for title, body in (report.get("extra") or {}).items():
        out[title] = body
    return out


def list_plots(run: Mapping) -> list[str]:
    folder = report_dir(run)
    if folder is None or not (folder / "plots").is_dir():
        return []
    return sorted(p.name for p in (folder / "plots").glob("*.png") if _PLOT_NAME.match(p.name))


def plot_path(run: Mapping, name: str) -> Path:
    """The file of one of the run's plots; NotFound for any other name (no path escapes)."""
    folder = report_dir(run)
    if folder is None or not _PLOT_NAME.match(name) or name not in list_plots(run):
        raise NotFound(f"run {run.get('id')!r} has no plot {name!r}")
    return folder / "plots" / name


# --- samples --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SampleFilters:
    task: str | None = None
    slice: str | None = None          # a slice key, e.g. "year"
    value: str | None = None          # its value as text
    outcome: str | None = None        # right | wrong
    failed: str | None = None         # parse | error

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> SampleFilters:
        def get(name: str) -> str | None:
            value = (params.get(name) or "").strip()
            return value or None

        out = cls(task=get("task"), slice=get("slice"), value=get("value"), outcome=get("outcome"),
                  failed=get("failed"))
        if out.slice is not None and not _SLICE_KEY.match(out.slice):
            raise BadRequest(f"bad slice key {out.slice!r}: use letters, digits and _")
        if out.slice is not None and out.value is None:
            raise BadRequest(f"slice {out.slice!r} needs a value (value=...)")
        if out.outcome not in (None, *OUTCOMES):
            raise BadRequest(f"outcome {out.outcome!r} is not one of {', '.join(OUTCOMES)}")
        if out.failed not in (None, *FAILURES):
            raise BadRequest(f"failed {out.failed!r} is not one of {', '.join(FAILURES)}")
        return out

    def query(self) -> dict[str, str]:
        """The filters as query-string parameters (for links to other pages of the same list)."""
        return {k: v for k, v in (("task", self.task), ("slice", self.slice), ("value", self.value),
                                  ("outcome", self.outcome), ("failed", self.failed)) if v}

    @property
    def active(self) -> bool:
        return bool(self.query())


@dataclass(frozen=True)
class SamplesPage:
    run: dict
    answers: int
    filters: SampleFilters
    rows: list[dict]
    page: int
    page_size: int
    has_next: bool
    slice_keys: list[str]


def samples_page(store, run_id: str, filters: SampleFilters, page: int = 1,
                 page_size: int = PAGE_SIZE) -> SamplesPage:
    """One page of a run's samples in answer-id order. The next page is known to exist when one
    more row than the page came back; filtered lists are not counted (a count reads every
    answer of the run)."""
    run, answers = read_run(store, run_id)
    if filters.failed == "error" and run.get("errors") == 0:
        rows: list[dict] = []           # the run recorded no failed request: nothing to look for
    else:
        rows = store.read("view/run_samples", run_id=run_id, prefix=f"{run_id}:", task=filters.task,
                          slice=f"slice_{filters.slice}" if filters.slice else None, value=filters.value,
                          outcome=filters.outcome, failed=filters.failed, skip=(page - 1) * page_size,
                          limit=page_size + 1)
    keys = store.read("view/run_slice_keys", run_id=run_id, limit=200)
    return SamplesPage(run=run, answers=answers, filters=filters, rows=rows[:page_size], page=page,
                       page_size=page_size, has_next=len(rows) > page_size,
                       slice_keys=sorted({k for r in keys for k in r["keys"]}))


@dataclass(frozen=True)
class Sample:
    run: dict
    answer: dict
    question: dict
    facts: list[dict]
    entities: list[dict]
    events: list[dict]
    rule: str | None
    metadata: dict

    @property
    def slices(self) -> list[tuple[str, Any]]:
        return sorted((k[len("slice_"):], v) for k, v in self.question.items() if k.startswith("slice_"))


def answer_id(run_id: str, question_id: str, index: int) -> str:
    """Answers are keyed ``<run>:<question>:<sample index>`` (``eval.results.record_run``)."""
    return f"{run_id}:{question_id}:{index}"


def read_sample(store, run_id: str, question_id: str, index: int) -> Sample:
    run, _ = read_run(store, run_id)
    rows = store.read("view/read_sample", run_id=run_id, answer_id=answer_id(run_id, question_id, index))
    if not rows:
        raise NotFound(f"run {run_id!r} has no sample {index} of question {question_id!r}")
    question = {k: v for k, v in rows[0]["question"]}
    facts = store.read("view/question_facts", question_id=question_id, skip=0, limit=100)
    links = store.read("view/question_links", question_id=question_id, limit=50)[0]
    try:
        metadata = json.loads(question.get("metadata_json") or "{}")
    except ValueError:
        metadata = {}
    return Sample(run=run, answer=rows[0]["answer"], question=question, facts=facts,
                  entities=links["entities"], events=links["events"],
                  rule=scoring_rule_of(run, question.get("scorer")), metadata=metadata)


def scoring_rule_of(run: Mapping, scorer: str | None) -> str | None:
    """The rule the run applied with ``scorer`` (its ``scoring_rules`` hold ``scorer:rule``)."""
    for entry in run.get("scoring_rules") or ():
        name, _, rule = str(entry).partition(":")
        if name == scorer:
            return rule
    return None


# --- comparing runs ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Delta:
    """Accuracy of each run on one group of items, and each later run's paired difference with
    the first on the items both answered (mean of per-item differences, its interval)."""

    group: str
    accuracies: list[Estimate]
    differences: list[Estimate | None]


@dataclass(frozen=True)
class Comparison:
    runs: list[dict]
    benchmark: str
    deltas: list[Delta]
    disagreements: list[dict]           # one page: {question, scores: [..], answers: [..]}
    disagreeing: int
    shared: int
    page: int
    has_next: bool
    metrics: list[dict] = field(default_factory=list)   # the reports' task metrics side by side


def compare_runs(store, run_ids: Sequence[str], page: int = 1, page_size: int = PAGE_SIZE) -> Comparison:
    """Two or more runs of one benchmark side by side: accuracy overall and per task, the
    paired differences against the first run, and the items whose scores differ."""
    run_ids = list(dict.fromkeys(run_ids))
    if len(run_ids) < 2:
        raise BadRequest("compare needs two or more runs (run=A&run=B)")
    runs = [read_run(store, rid)[0] for rid in run_ids]
    benchmarks = {r.get("benchmark") for r in runs}
    if len(benchmarks) != 1:
        listed = ", ".join(f"{r['id']} ({r.get('benchmark')})" for r in runs)
        raise BadRequest(f"runs of different benchmarks cannot be compared: {listed}")
    scores: dict[str, dict[str, float]] = defaultdict(dict)     # question -> run -> mean score
    tasks: dict[str, str] = {}
    for row in store.read("view/compare_scores", run_ids=run_ids):
        scores[row["question_id"]][row["run_id"]] = row["score"]
        tasks[row["question_id"]] = row["task"]
    deltas = [_delta("(all)", list(scores), scores, run_ids)]
    by_task: dict[str, list[str]] = defaultdict(list)
    for qid, task in tasks.items():
        by_task[str(task)].append(qid)
    deltas += [_delta(task, qids, scores, run_ids) for task, qids in sorted(by_task.items())]
    shared = [q for q, s in scores.items() if len(s) == len(run_ids)]
    disagreeing = sorted(q for q in shared if len({round(v, 9) for v in scores[q].values()}) > 1)
    chosen = disagreeing[(page - 1) * page_size: page * page_size]
    details = {r["question_id"]: r for r in store.read("view/compare_answers", run_ids=run_ids,
                                                      question_ids=chosen)} if chosen else {}
    rows = []
    for qid in chosen:
        detail = details.get(qid, {})
        answers = {a["run_id"]: a["parsed"] for a in detail.get("answers", [])}
        rows.append({"question_id": qid, "task": tasks.get(qid), "text": detail.get("text"),
                     "gold": detail.get("gold"), "scores": [scores[qid].get(r) for r in run_ids],
                     "answers": [answers.get(r) for r in run_ids]})
    return Comparison(runs=runs, benchmark=next(iter(benchmarks)) or "", deltas=deltas, disagreements=rows,
                      disagreeing=len(disagreeing), shared=len(shared), page=page,
                      has_next=page * page_size < len(disagreeing), metrics=metric_deltas(runs))


def task_metrics(report: Mapping | None) -> dict[tuple[str, str], float]:
    """The numeric task metrics of a run's report (``extra["Task metrics"]`` rows), by
    (task, metric); tables and unknown values are left to the run page."""
    rows = ((report or {}).get("extra") or {}).get("Task metrics") or []
    out = {}
    for row in rows if isinstance(rows, list) else []:
        value = row.get("value") if isinstance(row, Mapping) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            out[(str(row.get("task")), str(row.get("metric")))] = float(value)
    return out


def metric_deltas(runs: Sequence[Mapping]) -> list[dict]:
    """Each task metric the runs' reports hold, per run, and each later run's difference with
    the first (None where either lacks it)."""
    values = [task_metrics(read_report(run)) for run in runs]
    keys = sorted({k for v in values for k in v})
    return [{"task": task, "metric": metric, "values": [v.get((task, metric)) for v in values],
             "deltas": [None if v.get((task, metric)) is None or values[0].get((task, metric)) is None
                        else v[(task, metric)] - values[0][(task, metric)] for v in values[1:]]}
            for task, metric in keys]


def _delta(group: str, qids: Sequence[str], scores: Mapping[str, Mapping[str, float]],
           run_ids: Sequence[str]) -> Delta:
    accuracies = [Estimate.from_values([scores[q][r] for q in qids if r in scores[q]]) for r in run_ids]
    differences: list[Estimate | None] = []
    first = run_ids[0]
    for other in run_ids[1:]:
        paired = [scores[q][other] - scores[q][first] for q in qids if first in scores[q] and other in scores[q]]
        differences.append(Estimate.from_values(paired) if paired else None)
    return Delta(group, accuracies, differences)


__all__ = ["BadRequest", "Comparison", "Estimate", "INLINE_ANSWERS", "NotFound", "RunPage", "RunsPage", "Sample",
           "SampleFilters", "SamplesPage", "StatsCache", "compare_runs", "list_runs", "read_run", "read_sample",
           "run_numbers", "run_page", "samples_page"]

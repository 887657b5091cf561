"""Runs and answers in the graph, and slicing them.

    (:Run {id, model, backend, temperature, top_p, n, seed, max_tokens, setting, scoring,
           scoring_rules, template_version, knowforge_version, git_revision, started_at, ...})
      -[:GAVE]->(:Answer {id, raw, parsed, score, sample_index, error, cached, cache_key,
                          finish_reason, rule, prompt, explanation})
      -[:ANSWERS]->(:Question {id, benchmark, task, form, text, ..., slice_<key>})
    (:Run)-[:GAVE_VARIANT]->(:Answer {..., variant})-[:ANSWERS]->(:Question)
                               answers to a prompt a solver derived from the question
                               (ELKEN's question without the edit, NewTerm's other setting)
    (:Question)-[:TESTS]->(:Fact)      when the fact exists
    (:Question)-[:ABOUT]->(:Entity)    when the entity exists

Slices of an item (relation, year, hop_count, domain, difference, popularity_bucket, ...) are
Question properties ``slice_<key>``, so Cypher can group by them.

A run never creates, changes or deletes a question: its answers attach to the questions of its
benchmark, which must be in the graph (a file benchmark is written there first, by
``knowforge.eval.file_benchmark``), and an answer to a question of another benchmark is refused.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from knowforge import __version__
from knowforge.errors import ConfigError, InputError, KnowforgeError
from knowforge.eval.prompts import TEMPLATE_VERSION
from knowforge.eval.ask import summarize
from knowforge.eval.background import Background
from knowforge.eval.run_stats import Sample, Units, accuracy_estimate
from knowforge.eval.scoring import scoring_rule
from knowforge.eval.shared_intervals import SharedIntervals
from knowforge.eval.types import EvalOptions, SampleResult
from knowforge.kg.relations import relation_labels
from knowforge.models.control import read_card
from knowforge.models.provenance import git_revision
from knowforge.models.questions import QUESTION_KEYS, property_value, slice_property
from knowforge.models.types import BenchmarkItem
from knowforge.models.urls import redact_url

log = logging.getLogger(__name__)

_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")


class RunNotFound(KnowforgeError):
    """No Run node with that id."""


def new_run_id() -> str:
    """``run-<UTC time>-<8 hex>``: sortable by time, unique even for runs in the same second.
    (A run id is a name, not benchmark content, so it need not be reproducible.)"""
    return f"run-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"


def run_properties(options: EvalOptions, items: Sequence[BenchmarkItem], results: Sequence[SampleResult],
                   *, name: str | None, started_at: str, extra: dict | None) -> dict:
    summary = summarize(results)
    benchmarks = sorted({i.benchmark for i in items})
    props = {"name": name, "model": options.model, "backend": options.backend,
             "base_url": redact_url(options.base_url), "temperature": options.temperature, "top_p": options.top_p,
             "n": options.n, "seed": options.seed, "max_tokens": options.max_tokens,
             "setting": (extra or {}).get("setting", "zero-shot"), "chat": options.chat,
             "template_version": TEMPLATE_VERSION, "knowforge_version": __version__,
             "git_revision": git_revision(), "started_at": started_at,
             "finished_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
             "benchmark": ",".join(benchmarks), "tasks": sorted({i.task for i in items}),
             "items": summary["items"], "samples": summary["samples"], "accuracy": summary["accuracy"],
             "errors": summary["errors"], "cached_samples": summary["cached"],
             "mc_scoring": options.mc_scoring, "mc_continuation": options.mc_continuation,
             "scoring": options.scoring,
             # the rules the samples record (a solver may score with another scorer than the item's)
             "scoring_rules": sorted({r.rule for r in results if r.rule}
                                     or {f"{i.scorer}:{scoring_rule(i.scorer, options.scoring)}" for i in items}),
             # what narrowed the run (reports name them): --limit; the engine adds the --task filter
             "limit": options.limit}
    props.update(model_properties(options))
    props.update(extra_properties(extra or {}))
    return props


def extra_properties(extra: Mapping) -> dict:
    """A caller's run properties (``record_run``'s ``extra``) as the Run stores them; a bad
    name is a ConfigError."""
    props = {}
    for key, value in extra.items():
        if not _KEY.match(key):
            raise ConfigError(f"bad run property name {key!r}")
        props[key] = property_value(value)
    return props


def model_properties(options: EvalOptions) -> dict:
    """``control_model`` when the model is a control model (a folder with ``control.json``),
    and ``model_cutoff``: ``options.model_cutoff`` or the control model's cutoff.
    The validity report and the cutoff slices of every report read them."""
    out = {}
    cutoff = options.model_cutoff
    card = read_card(options.model) if options.model else None
    if card is not None:
        out["control_model"] = card.model_id
        cutoff = cutoff or str(card.cutoff)
    if cutoff:
        out["model_cutoff"] = str(cutoff)
    return out


@dataclass(frozen=True)
class RecordedRun:
    """A run just written: its id, and each answered question's fields that a run report reads
    (``report_question``: id, benchmark, task, form, gold answers, metadata, slices), as the
    graph holds them, from the read that checked the questions."""

    run_id: str
    questions: dict[str, dict]


def record_run(store, options: EvalOptions, items: Sequence[BenchmarkItem], results: Sequence[SampleResult],
               *, benchmark: str | None = None, name: str | None = None, variants: Sequence[SampleResult] = (),
               extra: dict | None = None, started_at: str | None = None, run_id: str | None = None,
               progress=None) -> str:
    """Write a Run and its Answers (and its variant answers); returns the run id.

    Every answered question must be in the graph and belong to ``benchmark`` (default: the
    items' own benchmarks): a run never writes a question, and never attaches an answer to a
    question of another benchmark.
    """
    return write_run(store, options, items, results, benchmark=benchmark, name=name, variants=variants,
                     extra=extra, started_at=started_at, run_id=run_id, progress=progress).run_id


def write_run(store, options: EvalOptions, items: Sequence[BenchmarkItem], results: Sequence[SampleResult],
              *, benchmark: str | None = None, name: str | None = None, variants: Sequence[SampleResult] = (),
              extra: dict | None = None, started_at: str | None = None, run_id: str | None = None,
              progress=None, questions: Mapping[str, dict] | None = None) -> RecordedRun:
    """``record_run``, returning the questions' report fields beside the run id, so the eval
    builds its report from the answers it holds (``report_samples``) rather than reading every
    answer back. A new run (no ``run_id``) creates its answers; a run recorded again under its
    id merges them. ``questions``: report fields (``report_question``) by id that the caller
    read already (a file benchmark's, from ``ensure_questions``); only the others are read.
    """
    return start_run_write(store, options, items, results, benchmark=benchmark, name=name, variants=variants,
                           extra=extra, started_at=started_at, run_id=run_id, progress=progress,
                           questions=questions).wait()


# Answer batches in flight at once. Two were no faster beside the report on 2 cores and cost
# the server more CPU (harness_overhead --answer-writers at 100,000 samples, the idle machine:
# 13.6 and 13.5 s at two, 13.0 and 13.5 s at one; the server's CPU 11.5-12.2 s against
# 10.5-11.0 s): the report already keeps the other core busy.
ANSWER_WRITERS = 1
# Answers per transaction of a new run's write. The server keeps a transaction's state on its
# heap until the commit, and at 10,000 answers (the store's default batch) its young collections
# copied that state over and over: 100,000 answers took 6.1 s of CPU (server's and ours) in
# batches of 10,000 and 4.6 s in batches of 2,000, no more at 500-3,000 (RESULTS.md, "The
# answers' write in smaller transactions").
ANSWER_BATCH = 2000


class RunWrite:
    """A run being recorded: its questions checked and its Run node written, its answers being
    written by a thread of their own (``start_run_write``). ``wait()`` returns the
    ``RecordedRun`` once every answer is in the graph, or raises the write's error."""

    def __init__(self, store, run_id: str, questions: Mapping[str, dict], write):
        self.run_id, self.questions = run_id, questions
        self._store = store
        self._write = Background(write, name=f"knowforge-answers-{run_id}")

    def add_properties(self, extra: Mapping) -> None:
        """Set more properties on the Run (as ``record_run``'s ``extra``), beside its answers'
        write: those known only after the metrics that are computed meanwhile."""
        self._store.run("eval/upsert_run", id=self.run_id, props=extra_properties(extra))

    def settle(self) -> None:
        """Wait for the thread to end, whatever it did (a caller that is raising another error)."""
        self._write.settle()

    def wait(self) -> RecordedRun:
        self._write.result()
        return RecordedRun(self.run_id, self.questions)


class QuestionCheck:
    """``check_questions`` of the items a solver is about to answer, begun before it answers:
    the server reads the questions while this process renders, asks and scores (issue 33: at
    100,000 samples that read was about 2 s between the scoring and the answers' write).
    ``known``: the report fields read already, or the ``Background`` reading them (a file
    benchmark's ``ensure_questions``). A check that fails is raised by ``raise_if_failed``
    (the solver's progress ticks call it, so a bad question stops the generation early) and by
    ``start_run_write``, which never writes a run before its check has passed."""

    def __init__(self, store, items: Sequence[BenchmarkItem], benchmark: str | None,
                 known: Mapping[str, dict] | Background | None = None):
        self.store, self.benchmark = store, benchmark
        self.ids = frozenset(i.id for i in items)
        self._work = Background(self._check, store, list(items), benchmark, known, name="knowforge-question-check")

    @staticmethod
    def _check(store, items, benchmark, known) -> dict[str, dict]:
        # no paused_gc() here: this runs beside generation, whose model code may make cycles
        return check_questions(store, items, benchmark, known.result() if isinstance(known, Background) else known)

    def raise_if_failed(self) -> None:
        self._work.raise_if_failed()

    def settle(self) -> None:
        self._work.settle()

    def questions(self, items: Sequence[BenchmarkItem], benchmark: str | None) -> dict[str, dict]:
        """The report fields of ``items``' questions, checked against ``benchmark``: the check's
        own result when it covered them, else a check of the others on top of it."""
        checked = self._work.result()
        if benchmark == self.benchmark and all(i.id in self.ids for i in items):
            return checked
        return check_questions(self.store, items, benchmark, known=checked)


def start_run_write(store, options: EvalOptions, items: Sequence[BenchmarkItem], results: Sequence[SampleResult],
                    *, benchmark: str | None = None, name: str | None = None, variants: Sequence[SampleResult] = (),
                    extra: dict | None = None, started_at: str | None = None, run_id: str | None = None,
                    progress=None, questions: Mapping[str, dict] | QuestionCheck | None = None) -> RunWrite:
    """``write_run`` up to its answers: the questions are checked and the Run node is written
    before this returns (a bad question raises here); the answers are written in the
    background, so that the caller builds the run's report meanwhile (issue 33: at 100,000
    samples the answer write is the server's work on one core while the report is this
    process's on the other). The caller must ``wait()``, which raises the write's error."""
    started_at = started_at or datetime.now(UTC).isoformat(timespec="milliseconds")
    new = run_id is None
    run_id = run_id or new_run_id()
    asked = {r.item_id for r in results} | {r.item_id for r in variants}
    items = [i for i in items if i.id in asked]
    questions = questions.questions(items, benchmark) if isinstance(questions, QuestionCheck) else \
        check_questions(store, items, benchmark, known=questions)
    props = run_properties(options, items, results, name=name, started_at=started_at, extra=extra)
    if benchmark is not None:
        props["benchmark"] = benchmark
    # where evaluators write this run's report (the validity report finds chrono.json there,
    # `knowforge report RUN` rewrites it there); absolute, so it holds from any directory
    props.setdefault("report_dir", str((Path(options.out_dir) / run_id).absolute()))
    store.run("eval/upsert_run", id=run_id, props=props)

    def write_answers():
        rows = [_answer_row(run_id, r) for r in results]
        if new:
            # a new run id has no answers yet: CREATE skips MERGE's look-up of each answer and
            # link (benchmarks/answer_write.py, 20,000 answers at load 15: 1.66x less CPU, server's
            # and ours); a batch that finds its first answer there after all goes to the MERGE
            store.write_new("eval/create_new_answers", "eval/create_answers", rows, run_id=run_id,
                            progress=progress, first_key_only=True, workers=ANSWER_WRITERS,
                            batch_size=ANSWER_BATCH)
        else:   # a run recorded again (a re-run after a crash): MERGE, so nothing is doubled
            store.write("eval/create_answers", rows, run_id=run_id, progress=progress,
                        batch_size=ANSWER_BATCH)
        if variants:
            store.write("eval/create_variant_answers", [_answer_row(run_id, r) for r in variants], run_id=run_id,
                        batch_size=ANSWER_BATCH)
        log.info("recorded run %s: %d questions, %d answers, %d variant answers", run_id, len(items), len(results),
                 len(variants))

    return RunWrite(store, run_id, questions, write_answers)


def _answer_key(run_id: str, r: SampleResult) -> str:
    return f"{run_id}:{r.item_id}:{r.sample_index}" if r.variant is None else \
        f"{run_id}:{r.item_id}:{r.variant}:{r.sample_index}"


def _answer_props(r: SampleResult) -> dict:
    props = {"raw": r.raw, "parsed": r.parsed, "score": r.score, "sample_index": r.sample_index,
             "error": r.error, "cached": r.cached, "cache_key": r.cache_key, "finish_reason": r.finish_reason,
             "rule": r.rule,
             # what `knowforge view` shows of a sample: the prompt as sent, and why the scorer
             # gave its score
             "prompt": r.prompt, "explanation": r.explanation}
    if r.variant is not None:
        props["variant"] = r.variant
    return props


def _answer_row(run_id: str, r: SampleResult) -> dict:
    return {"id": _answer_key(run_id, r), "question_id": r.item_id, "props": _answer_props(r)}


def report_samples(run_id: str, questions: Mapping[str, Mapping], results: Sequence[SampleResult]) -> list[Sample]:
    """The (question, answer) pairs of a run's own answers (not its variants), as a report reads
    them back from the graph (``run_answers``): the question's report fields and the Answer's
    properties (a property Neo4j would not store, a null, left out), ordered by question id and
    sample. Built from the answers in memory, so the eval that just recorded them writes its
    report without reading them back (issue 33: that read was most of the engine's cost per
    sample); tests/test_report_memory.py checks that both give the same report."""
    out = []
    for r in results:
        if r.variant is not None:
            continue
        question = questions.get(r.item_id)
        if question is None:
            raise InputError(f"run {run_id}: an answer to question {r.item_id!r}, which the run did not record")
        answer = {"id": _answer_key(run_id, r)}
        for k, v in _answer_props(r).items():
            if v is not None:
                # a property value as the driver gives it back (a tuple is stored as a list)
                answer[k] = list(v) if isinstance(v, tuple) else v
        out.append((question, answer))
    out.sort(key=lambda qa: (qa[0]["id"], qa[1]["sample_index"]))
    return out


# the fields of an eval/question_benchmarks row, in order; its last member is the slices
QUESTION_ROW = ("id", "benchmark", "task", "form", "answers", "metadata_json")


def report_question(row: Sequence) -> dict:
    """A ``question_benchmarks`` row ([id, benchmark, task, form, answers, metadata_json,
    slices]) as the question of a report's samples: its fields and its ``slice_<key>``
    properties, nulls left out as ``properties(q)`` leaves them."""
    question = {k: v for k, v in zip(QUESTION_ROW, row) if v is not None}
    question.update((k, v) for k, v in row[len(QUESTION_ROW)] or () if v is not None)
    return question


def check_questions(store, items: Sequence[BenchmarkItem], benchmark: str | None,
                    known: Mapping[str, dict] | None = None) -> dict[str, dict]:
    """Every item is a question in the graph, of ``benchmark`` (or of its own benchmark); each
    question's report fields (``report_question``) by id. Those in ``known`` (read already by
    the caller, with the same statement's fields) are not read again."""
    ids = [i.id for i in items]         # one pass over the items: each costs 0.1 s at 100,000
    have = {x: known[x] for x in ids if x in known} if known else {}
    rows = store.read_collected("eval/question_benchmarks", [x for x in ids if x not in have] if have else ids)
    found = {r[0]: r[1] for r in rows}
    found.update({x: q.get("benchmark") for x, q in have.items()})
    missing = [x for x in ids if x not in found]
    if missing:
        raise InputError(f"{len(missing)} answered questions are not in the graph (e.g. {missing[0]!r}); a run "
                         "never writes questions: generate or import the benchmark first")
    allowed = _benchmark_parts(benchmark) if benchmark else None
    for item in items:
        expected = allowed or {item.benchmark}
        if found[item.id] not in expected:
            raise InputError(f"question {item.id!r} belongs to benchmark {found[item.id]!r}, not "
                             f"{', '.join(sorted(expected))!r}: a run does not attach answers to another "
                             "benchmark's questions")
    questions = {r[0]: report_question(r) for r in rows}
    questions.update(have)
    return questions


def _benchmark_parts(benchmark: str) -> set[str]:
    """The benchmarks a run's benchmark names: ``a:x,b:y`` (a file of several) and ``newterm:2022+2024``
    (several names of one method, joined for one evaluation) each name every part."""
    parts = set()
    for one in benchmark.split(","):
        method, _, names = one.partition(":")
        parts |= {f"{method}:{name}" for name in names.split("+")} if names else {one}
    return parts


def write_samples_log(path: Path, items: Sequence[BenchmarkItem], results: Sequence[SampleResult]) -> Path:
    """Per-sample JSONL: item id, sample index, variant, prompt, raw, parsed, score, rule,
    error, cached, and for likelihood-scored items the per-option log-probabilities
    (``metadata``)."""
    by_id = {i.id: i for i in items}
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for r in results:
            item = by_id[r.item_id]
            handle.write(json.dumps({"version": "2", "item_id": r.item_id, "task": item.task,
                                     "sample_index": r.sample_index, "variant": r.variant, "prompt": r.prompt,
                                     "raw": r.raw, "parsed": r.parsed, "score": r.score, "rule": r.rule,
                                     "gold": item.answers, "error": r.error, "cached": r.cached,
                                     "cache_key": r.cache_key, "explanation": r.explanation,
                                     "metadata": r.metadata}, ensure_ascii=False, default=str) + "\n")
    return path


def load_run(store, run_id: str) -> dict:
    rows = store.read("eval/read_run", run_id=run_id)
    if not rows:
        raise RunNotFound(f"no run {run_id!r} in the graph (list runs with: knowforge results --list)")
    return rows[0]["run"]


def list_runs(store, *, method: str | None = None, benchmark: str | None = None) -> list[dict]:
    """Every run (newest first) with its solver, scoring mode, ``--limit`` and accuracy, and the
    accuracy's 95% interval from the run's report (``report.json``'s overall row: the interval
    the report prints, over the run's units); ``method``/``benchmark`` narrow the list."""
    rows = store.read("eval/list_runs", method=method, benchmark=benchmark)
    for row in rows:
        overall = _report_overall(row.pop("report_dir", None))
        row["ci"] = overall.get("ci")
        row["ci_method"] = overall.get("ci_method")
    return rows


def _report_overall(report_dir: str | None) -> dict:
    if not report_dir:
        return {}
    try:
        return json.loads((Path(report_dir) / "report.json").read_text(encoding="utf-8")).get("overall") or {}
    except (OSError, ValueError, AttributeError):
        return {}          # a report moved or never written: the list shows no interval


def run_answers(store, run_id: str) -> list[dict]:
    """[{question: {...}, answer: {...}}] of a run, ordered by question id and sample."""
    load_run(store, run_id)
    return store.read("eval/read_run_answers", run_id=run_id)


def run_variant_answers(store, run_id: str) -> list[dict]:
    """[{question: {...}, answer: {...}}] of a run's variant answers (``answer.variant``)."""
    load_run(store, run_id)
    return store.read("eval/read_run_variant_answers", run_id=run_id)


def results_by(store, run_id: str, by: Sequence[str], *, cluster_key: str | None = None) -> list[dict]:
    """Accuracy of a run per combination of slice keys, e.g. ``by=["relation", "year"]``.

    Each row: the key values, items, samples, correct, accuracy, errors, and the accuracy's
    ``stderr``, 95% ``ci``, ``ci_method`` and the ``units`` they rest on: a group holding
    exactly one task's items carries the eval's interval of that task's accuracy, as the run
    report does (``eval.shared_intervals``), others the analytic one (``eval.run_stats``); the unit is the
    item (its samples together), or ``metadata[cluster_key]`` of the items (default: the Run's
    ``cluster_key`` when recorded). Sorted by key values. A key that none of the run's
    questions has (a typo: ``relaton``) is a ConfigError that lists the run's keys. Slicing by
    ``relation`` adds each relation's ``relation_label`` from the graph's vocabulary.
    """
    if not by:
        raise ConfigError("give at least one slice key, e.g. relation,year")
    run = load_run(store, run_id)
    units = Units(cluster_key if cluster_key is not None else run.get("cluster_key"))
    keys = [slice_property(k) for k in by]
    shared = SharedIntervals(run, units.name, "accuracy")   # a task's accuracy: the run report's one interval
    groups: dict[tuple, list[dict]] = {}
    for row in store.read("eval/results_by_slice", run_id=run_id, keys=keys):
        groups.setdefault(tuple(_hashable(v) for v in row["slice"]), []).append(row)
    out = []
    for key, rows in groups.items():
        samples = [({"id": r["id"], "metadata_json": r["metadata_json"]}, {"score": score})
                   for r in rows for score in r["scores"]]
        estimate = accuracy_estimate(samples, units)
        entry = {k: v for k, v in zip(by, rows[0]["slice"])}
        entry.update(items=len(rows), samples=sum(r["samples"] for r in rows),
                     correct=sum(sum(r["scores"]) for r in rows), accuracy=estimate.estimate,
                     errors=sum(r["errors"] for r in rows), **estimate.as_dict(), unit=units.name)
        shared.apply(entry, {str(r["id"]) for r in rows})
        out.append(entry)
    if out:
        _check_keys(store, run_id, by, out)
    if "relation" in by:       # the id, and for people its label: P551 (residence)
        labels = relation_labels(store, [r["relation"] for r in out])
        for r in out:
            r["relation_label"] = labels.get(r["relation"])
    out.sort(key=lambda r: tuple((r[k] is None, str(type(r[k])), r[k] if r[k] is not None else 0)
                                 for k in by))
    return out


def _check_keys(store, run_id: str, by: Sequence[str], rows: Sequence[dict]) -> None:
    """A key whose value is missing on every row is on none of the run's questions (Neo4j stores
    no null property): say so, with the keys the run has, rather than return one ``-`` bucket."""
    missing = [k for k in by if all(r[k] is None for r in rows)]
    if not missing:
        return
    found = [r["key"] for r in store.read("eval/run_slice_keys", run_id=run_id, plain=list(QUESTION_KEYS))]
    names = sorted({k.removeprefix("slice_") for k in found})
    unknown = [k for k in missing if slice_property(k) not in found]
    if unknown:
        raise ConfigError(f"no question of run {run_id} has the slice key(s) {', '.join(unknown)}; "
                          f"its keys: {', '.join(names) or '(none)'}")


def _hashable(value):
    return json.dumps(value, sort_keys=True) if isinstance(value, (list, dict)) else value

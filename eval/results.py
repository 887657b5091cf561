"""Runs and answers in the graph, and slicing them.

    (:Run {id, model, backend, temperature, top_p, n, seed, max_tokens, setting, scoring,
           scoring_rules, template_version, knowforge_version, git_revision, started_at, ...})
      -[:GAVE]->(:Answer {id, raw, parsed, score, sample_index, error, cached, cache_key,
                          finish_reason, prompt, explanation})
      -[:ANSWERS]->(:Question {id, benchmark, task, form, text, ..., slice_<key>})
    (:Question)-[:TESTS]->(:Fact)      when the fact exists
    (:Question)-[:ABOUT]->(:Entity)    when the entity exists

Slices of an item (relation, year, hop_count, domain, difference, popularity_bucket, ...) are
Question properties ``slice_<key>``, so Cypher can group by them; relation, domain and
popularity bucket are filled from the graph when the item did not carry them.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from knowforge import __version__
from knowforge.errors import ConfigError, KnowforgeError
from knowforge.eval.prompts import TEMPLATE_VERSION
from knowforge.eval.runner import SampleResult, summarize
from knowforge.eval.scorers import scoring_rule
from knowforge.models.types import BenchmarkItem
from knowforge.eval.types import EvalOptions
from knowforge.models.provenance import git_revision
from knowforge.models.questions import property_value, slice_property, write_questions

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
             "base_url": options.base_url, "temperature": options.temperature, "top_p": options.top_p,
             "n": options.n, "seed": options.seed, "max_tokens": options.max_tokens,
             "setting": options.extra.get("setting", "zero-shot"), "chat": bool(options.extra.get("chat")),
             "template_version": TEMPLATE_VERSION, "knowforge_version": __version__,
             "git_revision": git_revision(), "started_at": started_at,
             "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
             "benchmark": ",".join(benchmarks), "tasks": sorted({i.task for i in items}),
             "items": summary["items"], "samples": summary["samples"], "accuracy": summary["accuracy"],
             "errors": summary["errors"], "cached_samples": summary["cached"],
             "mc_scoring": options.mc_scoring, "mc_continuation": options.mc_continuation,
             "scoring": options.scoring,
             "scoring_rules": sorted({f"{i.scorer}:{scoring_rule(i.scorer, options.scoring)}" for i in items}),
             "options_extra_json": json.dumps(options.extra, sort_keys=True, default=str)}
    props.update(model_properties(options))
    for key, value in (extra or {}).items():
        if not _KEY.match(key):
            raise ConfigError(f"bad run property name {key!r}")
        props[key] = property_value(value)
    return props


def model_properties(options: EvalOptions) -> dict:
    """``control_model`` when the model is a control model (a folder with ``control.json``),
    and ``model_cutoff``: ``options.extra["model_cutoff"]`` or the control model's cutoff.
    The validity report and the cutoff slices of every report read them."""
    from knowforge.models.control import read_card

    out = {}
    cutoff = options.extra.get("model_cutoff")
    card = read_card(options.model) if options.model else None
    if card is not None:
        out["control_model"] = card.model_id
        cutoff = cutoff or str(card.cutoff)
    if cutoff:
        out["model_cutoff"] = str(cutoff)
    return out


def record_run(store, options: EvalOptions, items: Sequence[BenchmarkItem], results: Sequence[SampleResult],
               *, name: str | None = None, extra: dict | None = None, started_at: str | None = None,
               run_id: str | None = None, progress=None) -> str:
    """Write a Run, its Answers and the Questions they answer; returns the run id.

    Questions are MERGEd by id (re-running a benchmark reuses them); TESTS / ABOUT links are
    made only to facts and entities that exist.
    """
    started_at = started_at or datetime.now(UTC).isoformat(timespec="seconds")
    run_id = run_id or new_run_id()
    asked = {r.item_id for r in results}
    items = [i for i in items if i.id in asked]
    # Questions of a generated benchmark exist already and are never rewritten here (an
    # editing solver's context is the run's, not the benchmark's); a file benchmark's are made.
    write_questions(store, items, overwrite=False)
    store.write("eval/derive_question_slices", [{"id": i.id} for i in items])
    props = run_properties(options, items, results, name=name, started_at=started_at, extra=extra)
    # where evaluators write this run's report (the validity report finds chrono.json there)
    props.setdefault("report_dir", str(Path(options.out_dir) / run_id))
    store.run("eval/upsert_run", id=run_id, props=props)
    rows = [{"id": f"{run_id}:{r.item_id}:{r.sample_index}", "question_id": r.item_id,
             "props": {"raw": r.raw, "parsed": r.parsed, "score": r.score, "sample_index": r.sample_index,
                       "error": r.error, "cached": r.cached, "cache_key": r.cache_key,
                       "finish_reason": r.finish_reason,
                       # what `knowforge view` shows of a sample: the prompt as sent, and why
                       # the scorer gave its score
                       "prompt": r.prompt, "explanation": r.explanation}} for r in results]
    store.write("eval/create_answers", rows, run_id=run_id, progress=progress)
    log.info("recorded run %s: %d questions, %d answers", run_id, len(items), len(rows))
    return run_id


def load_run(store, run_id: str) -> dict:
    rows = store.read("eval/read_run", run_id=run_id)
    if not rows:
        raise RunNotFound(f"no run {run_id!r} in the graph (list runs with: knowforge results --list)")
    return rows[0]["run"]


def list_runs(store) -> list[dict]:
    return store.read("eval/list_runs")


def run_answers(store, run_id: str) -> list[dict]:
    """[{question: {...}, answer: {...}}] of a run, ordered by question id and sample."""
    load_run(store, run_id)
    return store.read("eval/read_run_answers", run_id=run_id)


def results_by(store, run_id: str, by: Sequence[str]) -> list[dict]:
    """Accuracy of a run per combination of slice keys, e.g. ``by=["relation", "year"]``.

    Each row: the key values, items, samples, correct, accuracy, errors. Sorted by key values.
    """
    if not by:
        raise ConfigError("give at least one slice key, e.g. relation,year")
    load_run(store, run_id)
    keys = [slice_property(k) for k in by]
    rows = store.read("eval/results_by_slice", run_id=run_id, keys=keys)
    out = []
    for row in rows:
        entry = {k: v for k, v in zip(by, row["slice"])}
        entry.update(items=row["items"], samples=row["samples"], correct=row["correct"],
                     accuracy=row["accuracy"], errors=row["errors"])
        out.append(entry)
    out.sort(key=lambda r: tuple((r[k] is None, str(type(r[k])), r[k] if r[k] is not None else 0)
                                 for k in by))
    return out

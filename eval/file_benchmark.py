"""A JSONL file of items as a benchmark: an anonymous method with one task.

``knowforge eval --benchmark FILE.jsonl`` runs through the same engine as every method: the
file's items become the questions of their own benchmark (the ``benchmark`` each item names)
the first time, the one task (``file/<name>``) takes every item under a prompting setting (or
any solver named), and the run is recorded like any other.

A file never changes a benchmark that is in the graph: an item whose question exists must be
the same item, and a file cannot add questions to a generated or imported benchmark (that is how
an evaluation once grew a benchmark by 60 copied questions).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from knowforge.errors import InputError
from knowforge.eval.results import report_question
from knowforge.models.questions import write_questions
from knowforge.models.task import Component, Task
from knowforge.models.types import BenchmarkItem

FILE_METRICS = ("accuracy", "balanced_accuracy")


def file_task(name: str) -> Task:
    """The one task of a file benchmark: every item, zero-shot by default."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "items"
    return Task(name=f"file/{slug}", description=f"every item of the file benchmark {name!r}",
                solver=Component(name="zero-shot"), metrics=FILE_METRICS)


def ensure_questions(store, items: Sequence[BenchmarkItem], source: str | Path) -> dict[str, dict]:
    """Write the file's items as questions where they are missing; each item's question as a
    run's report reads it (``eval.results.report_question``) by id, which the eval hands to
    ``write_run`` so that it does not read the questions a second time.

    An item whose question exists with other content, or a new item of a benchmark with a
    ``(:Benchmark)`` node, is an ``InputError`` naming the file and the item.
    """
    # each row: item_json, then the question's eval/question_benchmarks row (id, benchmark, ...)
    found = store.read_collected("eval/question_items", [i.id for i in items])
    rows = {r[1]: (r[2], r[0]) for r in found}
    # the benchmarks with a (:Benchmark) node (generated or imported): once per benchmark
    registered = {r["id"] for r in store.read("benchmark/read_benchmarks_by_id",
                                              ids=sorted({i.benchmark for i in items}))}
    new = []
    for item in items:
        row = rows.get(item.id)
        if row is None:
            if item.benchmark in registered:
                raise InputError(f"{source}: item {item.id!r} is not a question of benchmark {item.benchmark!r}, "
                                 "which is in the graph; a file cannot add questions to it (give the file's items "
                                 "a benchmark name of their own)")
            new.append(item)
            continue
        benchmark, item_json = row
        if benchmark != item.benchmark:
            raise InputError(f"{source}: item {item.id!r} says benchmark {item.benchmark!r}, but that question "
                             f"belongs to {benchmark!r}")
        if item_json is None or item_json == item.model_dump_json():
            continue              # the stored JSON itself: no parse (3.7x cheaper per item, benchmarks/engine_steps.py)
        stored = BenchmarkItem.model_validate_json(item_json)
        if stored.model_dump(exclude={"version"}) != item.model_dump(exclude={"version"}):
            raise InputError(f"{source}: item {item.id!r} differs from question {item.id!r} of benchmark "
                             f"{benchmark!r} in the graph; an evaluation never changes a question "
                             "(give changed items new ids)")
    questions = {r[1]: report_question(r[1:]) for r in found}
    if new:
        write_questions(store, new, overwrite=False)
        # as written: a slice the item did not carry may have been derived from the graph
        questions.update((r[0], report_question(r))
                         for r in store.read_collected("eval/question_benchmarks", [i.id for i in new]))
    return questions


__all__ = ["FILE_METRICS", "ensure_questions", "file_task"]

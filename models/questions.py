"""Benchmarks and their questions in the graph: one writer, one property naming, every method.

    (:Benchmark {id: '<method>:<name>', method, name, seed, params_json, source_hash, ...})
    (:Question {id, benchmark, task, form, text, context, choices, answers, answer_index,
                unknown, scorer, schema_version, item_json, metadata_json, slice_<key>...})
      -[:IN_BENCHMARK]->(:Benchmark)
      -[:TESTS]->(:Fact)        the facts a question tests
      -[:TESTS]->(:Event)       the event an ELKEN question is about
      -[:ABOUT]->(:Entity)      the entities it is about

``item_json`` is the whole ``BenchmarkItem``: ``read_items`` gives back exactly what the
generator wrote, so exports and evaluations read the graph, not a side file. The other
properties are for people writing Cypher (``slice_relation``, ``slice_year``, ...).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from knowforge.errors import ConfigError, InputError
from knowforge.kg.store import Store, prefetched

from .types import BenchmarkItem
from .urls import redact_url

QUESTION_KEYS = ("benchmark", "task", "form", "scorer")
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")


def property_value(value: Any) -> Any:
    """Neo4j stores primitives and homogeneous lists of them; anything else as JSON text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                 for v in value):
        return list(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


@functools.lru_cache(maxsize=1024)  # a few keys, looked up for every item written
def slice_property(key: str) -> str:
    """The Question property a slice key lives in (``year`` → ``slice_year``; task/form as is)."""
    if not _KEY.match(key or ""):
        raise ConfigError(f"bad slice key {key!r}: use letters, digits and _")
    if key in QUESTION_KEYS:
        return key
    return key if key.startswith("slice_") else f"slice_{key}"


def question_row(item: BenchmarkItem, *, event_id: str | None = None,
                 extra_props: Mapping[str, Any] | None = None) -> dict:
    """The ``benchmark/upsert_questions`` row of one item."""
    props = {"benchmark": item.benchmark, "task": item.task, "form": item.form,
             "text": item.question, "context": item.context, "choices": list(item.choices),
             "answers": list(item.answers), "answer_index": item.answer_index,
             "unknown": item.unknown, "scorer": item.scorer, "schema_version": item.version,
             "item_json": item.model_dump_json(),
             "metadata_json": json.dumps(item.metadata, sort_keys=True, ensure_ascii=False, default=str)}
    for key, value in item.slices.items():
        props[slice_property(key)] = property_value(value)
    for key, value in (extra_props or {}).items():
        if not _KEY.match(key) or key in props:
            raise ConfigError(f"bad or reserved question property {key!r}")
        props[key] = property_value(value)
    # distinct ids: the create-only statement makes one link per listed id (MERGE made one anyway)
    return {"id": item.id, "benchmark": item.benchmark, "props": props,
            "fact_ids": list(dict.fromkeys(item.fact_ids)),
            "entity_ids": list(dict.fromkeys(item.entity_ids)), "event_ids": [event_id] if event_id else []}


def write_questions(store: Store, items: Iterable[BenchmarkItem], *, overwrite: bool = True,
                    new: bool = False, event_ids: Mapping[str, str] | None = None,
                    extra_props: Mapping[str, Any] | None = None, batch_size: int | None = None,
                    progress=None, workers: int = 1) -> int:
    """MERGE ``items`` as questions (``overwrite=False``: only create missing ones).

    ``new=True`` is for the questions of a batch that did not exist before (KnowGen): they are
    CREATEd, each statement's rows falling back to the MERGE when any of them exists already.
    ``workers`` statements of such a batch run at once (see ``Store.write_new``).
    The rows of the next statement are built in a thread while the server runs the current one.
    """
    size = batch_size or store.batch_size
    ids: list[str] = []

    def rows_of():
        for item in items:
            ids.append(item.id)
            yield question_row(item, event_id=(event_ids or {}).get(item.id), extra_props=extra_props)

    rows = prefetched(rows_of(), size)
    if new:
        written = store.write_new("benchmark/create_questions", "benchmark/upsert_questions", rows,
                                  overwrite=overwrite, batch_size=size, progress=progress,
                                  workers=workers).rows
    else:
        written = store.write("benchmark/upsert_questions", rows, overwrite=overwrite, batch_size=size,
                              progress=progress).rows
    # Slices an item did not carry come from the graph once, when the question is written, so
    # an evaluation never changes a benchmark's questions.
    store.write("benchmark/derive_question_slices", [{"id": i} for i in ids], batch_size=size)
    return written


def write_benchmark(store: Store, *, method: str, name: str, seed: int | None, params: Mapping[str, Any],
                    source_hash: str | None, props: Mapping[str, Any] | None = None) -> str:
    """MERGE the ``(:Benchmark)`` node of ``method:name`` with its provenance; returns its id."""
    from knowforge import __version__

    bid = f"{method}:{name}"
    # a server URL among the parameters (an LLM's, a scoring model's) is stored without credentials
    shown = {k: redact_url(v) if isinstance(v, str) and "://" in v else v for k, v in dict(params).items()}
    base = {"method": method, "name": name, "seed": seed,
            "params_json": json.dumps(shown, sort_keys=True, ensure_ascii=False, default=str),
            "source_hash": source_hash, "knowforge_version": __version__,
            "created_at": datetime.now(UTC).isoformat(timespec="seconds")}
    store.run("benchmark/upsert_benchmark", id=bid,
              props={**base, **{k: property_value(v) for k, v in (props or {}).items()}})
    return bid


def read_benchmark(store: Store, benchmark: str) -> dict | None:
    rows = store.read("benchmark/read_benchmark", id=benchmark)
    return rows[0]["benchmark"] if rows else None


def read_items(store: Store, benchmark: str) -> list[BenchmarkItem]:
    """The stored items of ``benchmark`` in id order (an InputError if there are none)."""
    rows = store.read("benchmark/read_items", benchmark=benchmark)
    if not rows:
        method = benchmark.partition(":")[0]
        raise InputError(f"no questions of benchmark {benchmark!r} in the graph (make it with "
                         f"`knowforge generate {method}`; `knowforge methods --benchmarks` lists them)")
    return [BenchmarkItem.model_validate_json(r["item_json"]) for r in rows]


SOURCE_HASH_PAGE = 20_000
"""Facts (entities) per page of ``source_graph_hash``: one record each, a few MB at most."""


def _fact_line(fid, relation, object_id, value, value_num) -> str:
    return f"{fid}|{relation}|{object_id or ''}|{value or ''}|{'' if value_num is None else value_num}\n"


def source_graph_hash(store: Store) -> str:
    """sha256 over every source-layer fact (id, relation, object or value) and every real
    entity id, in id order: the "source graph" a benchmark was made from.

    Read in pages along the id indexes, each page one record: streamed as one record per fact,
    the driver's per-record cost was most of the time (5x the wall time and 24x the client CPU
    on the bundled samples, ``benchmarks/source_hash.py``). A page walk meets only
    ids that order after ``''`` (strings); when it does not meet every fact and entity the
    count store holds (an id that is missing, empty or not a string, or a write in between),
    the hash is taken by the per-record stream, which orders every id as Cypher does."""
    counts = store.read_values("benchmark/count_facts_entities")[0]
    digest = hashlib.sha256()
    facts = _paged(store, "benchmark/source_facts_page", "rows", digest, lambda row: _fact_line(*row))
    if facts == counts["facts"]:
        digest.update(b"--entities--\n")
        entities = _paged(store, "benchmark/source_entities_page", "ids", digest, lambda i: f"{i}\n")
        if entities == counts["entities"]:
            return digest.hexdigest()
    return streamed_source_graph_hash(store)


def _paged(store: Store, statement: str, key: str, digest, line) -> int:
    """Feed ``digest`` the lines of every page of ``statement``; the number of nodes walked."""
    seen, after = 0, ""
    while True:
        page = store.read_values(statement, after=after, page=SOURCE_HASH_PAGE)[0]
        digest.update("".join(map(line, page[key])).encode("utf-8"))
        seen += page["n"]
        if page["n"] < SOURCE_HASH_PAGE:
            return seen
        after = page["last"]


def streamed_source_graph_hash(store: Store) -> str:
    """``source_graph_hash`` one record per fact and entity: its definition, and the way for
    ids the page walk cannot order."""
    digest = hashlib.sha256()
    for row in store.stream("benchmark/read_source_facts"):
        digest.update(_fact_line(row["id"], row["relation"], row["object_id"], row["value"],
                                 row["value_num"]).encode("utf-8"))
    digest.update(b"--entities--\n")
    for row in store.stream("benchmark/read_source_entities"):
        digest.update(f"{row['id']}\n".encode("utf-8"))
    return digest.hexdigest()


def list_benchmarks(store: Store) -> list[dict]:
    return store.read("benchmark/list_benchmarks")


__all__ = ["QUESTION_KEYS", "list_benchmarks", "property_value", "question_row", "read_benchmark",
           "read_items", "slice_property", "source_graph_hash", "streamed_source_graph_hash", "write_benchmark",
           "write_questions"]

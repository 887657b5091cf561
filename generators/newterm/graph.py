"""NewTerm's own nodes and edges, beside the shared Benchmark / Question writers:

    (:TermEntry {id, benchmark, term, meaning, category, type, year, position, selected,
                 reason, zipf, frequency_bucket, in_wordnet, guess, similarity,
                 similarity_model})-[:IN_BENCHMARK]->(:Benchmark), -[:OF_TERM]->(:Term)
    (:TermEntry)-[:RELATED {rank, kind, origin, via, head, text, kept, position}]->(:Lemma|:Phrase)
    (:ReleaseRecord {file, line, record_json})-[:IN_BENCHMARK]->(:Benchmark)
    (:GenerationRun {kind, backend, model, prompt_version, ...})-[:IN_BENCHMARK]->(:Benchmark)
    (:Question)-[:FOR_ENTRY]->(:TermEntry), -[:MADE_BY]->(:GenerationRun),
               -[:DISTRACTOR {position, kind, origin, via, text}]->(:Lemma|:Phrase)

Writes are batched named statements (``cypher/newterm/``); ``drop`` removes all of it and
the benchmark's questions, answers and answer-less runs, leaving terms and lemmas (source
data) as they were.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from knowforge.kg.store import Store
from knowforge.models.questions import property_value, read_benchmark

DELETE_BATCH = 5000


def phrase_id(text: str) -> str:
    """Related terms that are not lemmas are shared by their lower-cased text."""
    return "phrase:" + hashlib.sha1(" ".join(text.lower().split()).encode("utf-8")).hexdigest()[:16]


def clean_props(props: dict[str, Any]) -> dict[str, Any]:
    return {k: property_value(v) for k, v in props.items() if v is not None}


def write_entries(store: Store, benchmark: str, entries: Iterable[dict]) -> int:
    """``entries``: {id, term_id, props}."""
    rows = [{"id": e["id"], "benchmark": benchmark, "term_id": e["term_id"], "props": clean_props(e["props"])}
            for e in entries]
    return store.write("newterm/upsert_term_entries", rows).rows


def write_related(store: Store, rows: Iterable[dict]) -> int:
    """``rows``: {entry_id, rank, text, node_id, props}; a row without a lemma gets a Phrase."""
    out = [{"entry_id": r["entry_id"], "rank": r["rank"], "text": r["text"], "node_id": r.get("node_id"),
            "phrase_id": phrase_id(r["text"]), "props": clean_props({**r["props"], "text": r["text"]})}
           for r in rows]
    return store.write("newterm/upsert_related", out).rows


def write_release_records(store: Store, benchmark: str, records: Iterable[tuple[str, int, dict]]) -> int:
    rows = [{"id": f"{benchmark}:{file}:{line}", "benchmark": benchmark, "file": file, "line": line,
             "record_json": json.dumps(record, sort_keys=True, ensure_ascii=False)}
            for file, line, record in records]
    return store.write("newterm/upsert_release_records", rows).rows


def write_generation_run(store: Store, benchmark: str, run_id: str, props: dict[str, Any]) -> None:
    store.run("newterm/upsert_generation_run", id=run_id, benchmark=benchmark, props=clean_props(props))


def link_questions(store: Store, rows: Iterable[dict]) -> int:
    """``rows``: {question_id, entry_id, run_id, verdict: {filter_picked, filter_rating, ...},
    distractors: [{rank, position}]}."""
    return store.write("newterm/link_questions", rows).rows


def read_release_records(store: Store, benchmark: str) -> list[dict]:
    return store.read("newterm/read_release_records", benchmark=benchmark)


def drop_benchmark(store: Store, name: str, created: dict | None = None) -> dict[str, int]:
    """Delete benchmark ``newterm:NAME`` and everything generation or import added for it.
    ``created``: what an import added to the source graph (``created_terms``, ``created_facts``,
    ``created_meaning_relation``); by default the lists its Benchmark node keeps."""
    benchmark = f"newterm:{name}"
    if created is None:
        created = read_benchmark(store, benchmark) or {}
    counts = {}
    for what, statement in (("questions and answers", "newterm/delete_questions"),
                            ("runs", "newterm/delete_runs"),
                            ("term entries, release records and generation runs", "newterm/delete_entries"),
                            ("phrases", "newterm/delete_orphan_phrases")):
        total = 0
        while True:
            rows = store.run_read_write(statement, benchmark=benchmark, limit=DELETE_BATCH)
            deleted = rows[0]["deleted"] if rows else 0
            total += deleted
            if deleted < DELETE_BATCH:
                break
        counts[what] = total
    # after the questions and entries: what the import added is kept only if another benchmark uses it
    rows = store.run_read_write("newterm/delete_created_terms", facts=list(created.get("created_facts") or []),
                                terms=list(created.get("created_terms") or []),
                                relation=bool(created.get("created_meaning_relation")))
    counts["terms and meaning facts the import added"] = rows[0]["deleted"] if rows else 0
    store.run("benchmark/delete_benchmark", id=benchmark)
    return counts


def related_rows(entry_id: str, pool: Sequence, kept: Sequence[int]) -> list[dict]:
    """RELATED rows of one entry's pool (``Related`` values); ``kept`` are the pool indices
    left after thinning, in their kept order (that order is ``position``)."""
    position = {index: p for p, index in enumerate(kept)}
    rows = []
    for rank, r in enumerate(pool):
        rows.append({"entry_id": entry_id, "rank": rank, "text": r.text, "node_id": r.node_id,
                     "props": {"kind": r.kind, "origin": r.origin, "via": r.via, "head": r.head,
                               "kept": rank in position, "position": position.get(rank)}})
    return rows

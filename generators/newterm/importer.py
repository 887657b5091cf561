"""A NewTerm release (any year, the multilingual set, ``*_clean`` and sample files) as a
benchmark in the graph: ``knowforge generate newterm --import benchmark_2022/``.

Terms go into the graph as for ``knowforge load newterms`` (Term entities with meaning
facts of the release's year, linked to WordNet when it is loaded); each question file's
lines become items, ``new_terms.jsonl`` lines term entries, ``term_generation.jsonl`` lines
the entries' related terms (origin ``release``). Lines that are not valid records are
counted by reason and listed with file and line; the rest is imported.
"""

from __future__ import annotations

import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from knowforge.errors import ConfigError, InputError
from knowforge.kg.loaders.newterms import category_of, entity_id, load_term_records
from knowforge.kg.release_input import parse_release_json, record_problem, release_file, release_lines
from knowforge.kg.store import Store
from knowforge.models.method import GenerationSummary
from knowforge.models.questions import source_graph_hash, write_benchmark, write_questions
from knowforge.models.undo import undone_on_failure

from . import graph
from .params import NewTermParams
from .release import check_record, entry_id, make_item, release_files, year_from_paths

MAX_LISTED = 20


def read_release(files, progress=None) -> tuple[dict, list[str], Counter]:
    """The records of the release files (``release_files``' specs), read by the release rule
    (``kg.release_input``): a line that is not a record of its file is refused with its
    file:line and counted, bytes that are not UTF-8 are replaced and reported, and a release of
    which nothing could be read is an ``InputError``. Returns {spec: [(line, record)]}, the
    problems listed (at most ``MAX_LISTED``) and the counts of what was refused or repaired."""
    problems: list[str] = []
    skipped: Counter = Counter()
    parsed: dict = {}
    for spec in files:
        rows = []
        repaired: list[tuple[int, str]] = []
        for lineno, line in release_lines(release_file(spec.path, "a NewTerm release file"), repaired):
            for at, why in repaired:
                skipped["bytes replaced (kept)"] += 1
                if len(problems) < MAX_LISTED:
                    problems.append(f"{spec.path}:{at}: {why}: kept")
            repaired.clear()
            if not line.strip():
                continue
            reason = "malformed JSON"
            try:
                record = parse_release_json(line)
                reason = "malformed record"
                refused = record_problem(record)
                if refused:
                    raise ValueError(refused)
                _check(record, spec)
            except (ValueError, TypeError) as exc:
                skipped[reason] += 1
                if len(problems) < MAX_LISTED:
                    problems.append(f"{spec.path}:{lineno}: {exc}")
                continue
            rows.append((lineno, record))
        parsed[spec] = rows
        if progress:
            progress(len(rows))
    if not any(parsed.values()):
        # a truncated or emptied release must not register as an empty benchmark
        raise InputError("no record could be read from the release files"
                         + (f" (first problem: {problems[0]})" if problems else ""), path=str(files[0].path))
    return parsed, problems, skipped


def release_items(parsed: dict, *, benchmark: str, year: int | None, run_id: str | None = None) -> list:
    """The questions of the release records ``read_release`` returned, as the import writes
    them (one ``BenchmarkItem`` per line of a question file, in file and line order)."""
    items = []
    for spec, rows in parsed.items():
        if spec.kind != "question":
            continue
        stem = spec.name.rsplit(".", 1)[0]
        for lineno, r in rows:
            extra = {"sample": spec.sample} if spec.sample else {}
            items.append(make_item(r, benchmark=benchmark, task=spec.task, variant=spec.variant, file=spec.name,
                                   position=lineno, year=year, item_id=f"{benchmark}:{stem}:{lineno:05d}",
                                   extra_slices=extra,
                                   extra_metadata={"generation_run": run_id} if run_id else {}))
    return items


def import_release(store: Store, paths, params: NewTermParams, progress=None) -> GenerationSummary:
    started = time.monotonic()
    paths = [Path(p) for p in paths]
    files, other = release_files(paths)
    if not files:
        raise InputError("no NewTerm release files here (COMA.jsonl, COST.jsonl, CSJ.jsonl, *_clean.jsonl, "
                         "new_terms.jsonl, term_generation.jsonl)", path=str(paths[0]))
    year = params.year or year_from_paths(paths)
    if year is None:
        raise ConfigError("the release's year is not in its folder name: pass --year")
    name = params.name or str(year)
    bid = f"newterm:{name}"
    parsed, problems, skipped = read_release(files, progress)

    graph.drop_benchmark(store, name)
    # terms first: every (term, meaning) of every file, so questions can point at their facts
    term_records = [(spec.path, lineno, {"term": r["term"], "meaning": r["meaning"], "type": r.get("type")})
                    for spec, rows in parsed.items() for lineno, r in rows]
    before = term_state(store, term_records)
    with undone_on_failure(bid, lambda: graph.drop_benchmark(store, name, created=created_since(store, before)),
                           drop_command=f"knowforge generate newterm --drop {name}"):
        created = load_release_terms(store, term_records, year, before)
        write_benchmark(store, method="newterm", name=name, seed=params.seed, params=params.model_dump(mode="json"),
                        source_hash=source_graph_hash(store),
                        props={"year": year, "origin": "imported",
                               "imported_from": sorted({str(spec.path) for spec in files}), **created})
        run_id = f"{bid}:run"
        graph.write_generation_run(store, bid, run_id, {
            "kind": "import", "files_json": {spec.name: len(rows) for spec, rows in parsed.items()},
            "created_at": datetime.now(UTC).isoformat(timespec="seconds")})

        entries: dict[str, dict] = {}
        listed = [(lineno, r) for spec, rows in parsed.items() if spec.kind == "terms" for lineno, r in rows]
        for lineno, r in listed:
            eid = entry_id(bid, r["term"], r["meaning"])
            entries.setdefault(eid, _entry(eid, r, year, position=lineno, listed=True))
        for spec, rows in parsed.items():
            for _lineno, r in rows:
                eid = entry_id(bid, r["term"], r["meaning"])
                entries.setdefault(eid, _entry(eid, r, year, position=None, listed=False))
        graph.write_entries(store, bid, entries.values())

        release_rows, related_rows, phrases = [], [], {}
        for spec, rows in parsed.items():
            if spec.kind == "question":
                continue
            for lineno, r in rows:
                release_rows.append((spec.name, lineno, r))
                if spec.kind != "related":
                    continue
                eid = entry_id(bid, r["term"], r["meaning"])
                for position, text in enumerate(r["phrases"]):
                    rank = phrases.setdefault(eid, {}).setdefault(text.lower(), len(phrases[eid]))
                    related_rows.append({"entry_id": eid, "rank": rank, "text": text, "node_id": None,
                                         "props": {"kind": "unknown", "origin": "release", "kept": True,
                                                   "position": position, "line": lineno}})
        graph.write_release_records(store, bid, release_rows)
        graph.write_related(store, related_rows)

        built, links = release_items(parsed, benchmark=bid, year=year, run_id=run_id), []
        for item in built:
            eid = item.metadata["entry_id"]
            ranks = phrases.get(eid, {})
            distractors = [{"rank": ranks[c.lower()], "position": i} for i, c in enumerate(item.choices)
                           if i != item.answer_index and c.lower() in ranks]
            links.append({"question_id": item.id, "entry_id": eid, "run_id": run_id, "verdict": {},
                          "distractors": distractors})
        write_questions(store, built)
        graph.link_questions(store, links)

    by_file = {spec.name: len(rows) for spec, rows in parsed.items()}
    notes = [f"not a release file, left out: {p}" for p in other[:MAX_LISTED]]
    notes += problems
    if skipped and sum(skipped.values()) > len(problems):
        notes.append(f"... {sum(skipped.values()) - len(problems)} more bad lines")
    return GenerationSummary(
        method="newterm", name=name, benchmark=bid,
        counts={"files": len(files), "questions": len(built),
                "terms": sum(e["props"]["listed"] for e in entries.values()),
                "term entries": len(entries), "related terms": len(related_rows)},
        breakdown={"lines by file": by_file, **({"lines skipped": dict(skipped)} if skipped else {}),
                   "questions by task": dict(Counter(i.task.split("/", 1)[1] for i in built))},
        timings={"total": time.monotonic() - started}, notes=notes)


def term_state(store: Store, term_records: list[tuple[Path, int, dict]]) -> dict:
    """The release's terms as the graph holds them before an import: which entities are there,
    with which meaning facts, and whether the ``meaning`` relation is."""
    ids = sorted({entity_id(r["term"].strip()) for _path, _line, r in term_records})
    rows = store.read("newterm/read_term_facts", ids=ids)
    return {"ids": ids, "rows": rows, "relation": store.read("newterm/read_meaning_relation")[0]["present"] > 0}


def created_since(store: Store, before: dict) -> dict:
    """What was added to the release's terms since ``before`` (``term_state``): the lists the
    Benchmark node keeps for ``--drop``."""
    after = store.read("newterm/read_term_facts", ids=before["ids"])
    relation = store.read("newterm/read_meaning_relation")[0]["present"] > 0
    return {"created_terms": sorted({r["id"] for r in after} - {r["id"] for r in before["rows"]}),
            "created_facts": sorted({r["fact_id"] for r in after if r["fact_id"]}
                                    - {r["fact_id"] for r in before["rows"]}),
            "created_meaning_relation": relation and not before["relation"]}


def load_release_terms(store: Store, term_records: list[tuple[Path, int, dict]], year: int, before: dict) -> dict:
    """Load the release's terms and meaning facts as source data, leaving the terms and facts
    already in the graph (``before``) as they are; returns what was added (the Benchmark node
    keeps it, and ``--drop`` deletes exactly that, so a drop restores the graph the import found)."""
    present = {row["id"] for row in before["rows"]}
    known = {(row["id"], row["value"], row["point_in_time"]) for row in before["rows"] if row["fact_id"]}
    fresh = [(path, line, r) for path, line, r in term_records
             if (entity_id(r["term"].strip()), r["meaning"].strip(), str(year)) not in known]
    if fresh:
        load_term_records(store, fresh, year=year, facts_only=frozenset(present))
    return created_since(store, before)


def _check(record, spec) -> None:
    if spec.kind == "question":
        check_record(record, spec.task)
        return
    if not isinstance(record, dict):
        raise ValueError("a record must be a JSON object")
    for key in ("term", "meaning"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            raise ValueError(f"'{key}' must be a non-empty string")
    if spec.kind == "related":
        phrases = record.get("phrases")
        if not isinstance(phrases, list) or not all(isinstance(p, str) for p in phrases):
            raise ValueError("'phrases' must be a list of strings")


def _entry(eid: str, record: dict, year: int, *, position: int | None, listed: bool) -> dict:
    term = record["term"]
    return {"id": eid, "term_id": entity_id(term),
            "props": {"term": term, "meaning": record["meaning"], "term_type": record.get("type"),
                      "category": category_of(record.get("type"), term), "year": year, "position": position,
                      "selected": listed, "listed": listed, "reason": "released"}}

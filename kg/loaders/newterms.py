"""New dictionary terms: our JSONL ``{term, meaning, type, year, source}`` and the official
NewTerm ``new_terms.jsonl`` (``{meaning, term, type}``; the year comes from ``year=``).

Each term is a ``Term`` entity ``term:<slug>``; its meaning is an attribute fact ``meaning``
that holds from the year the dictionary added it (``point_in_time`` = that year,
``start_year`` = that year, open end).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, RecordProgress,
                                       files_under, read_text_lines, slug)
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Store

SOURCE = "newterms"
DOMAIN = "newterm"


def entity_id(term: str) -> str:
    return f"term:{slug(term)}"


def load_newterms(store: Store, paths: Iterable[str | Path], *, year: int | None = None,
                  strict: bool = False, progress: RecordProgress | None = None,
                  batch_size: int = DEFAULT_BATCH_SIZE) -> LoadReport:
    """Load new-term JSONL files. ``year`` is used for records that have none (official format)."""
    ctx = LoadContext(store, SOURCE, strict=strict, progress=progress, batch_size=batch_size)
    ctx.sink.relation(RelationRecord(id="meaning", label="meaning", source=SOURCE))
    for path in files_under(paths, ("*.jsonl", "*.json")):
        ctx.report.files.append(str(path))
        for lineno, line in read_text_lines(ctx, path):
            if not line.strip():
                continue
            ctx.read()
            try:
                record = json.loads(line)
            except ValueError as exc:
                ctx.skip("malformed_json", f"malformed JSON: {exc}", path=path, line=lineno)
                continue
            if not isinstance(record, dict) or not str(record.get("term") or "").strip() \
                    or not str(record.get("meaning") or "").strip():
                ctx.skip("missing_field", "a term record needs 'term' and 'meaning'", path=path,
                         line=lineno)
                continue
            term_year = record.get("year", year)
            try:
                term_year = int(term_year) if term_year is not None else None
            except (TypeError, ValueError):
                ctx.skip("bad_year", f"year {record.get('year')!r} is not a number", path=path, line=lineno)
                continue
            if term_year is None:
                ctx.skip("no_year", "record has no year; pass --year for the official NewTerm "
                         "format", path=path, line=lineno)
                continue
            term = str(record["term"]).strip()
            extra = {k: v for k, v in (("term_type", record.get("type")),
                                       ("dictionary", record.get("source"))) if v}
            eid = entity_id(term)
            ctx.sink.entity(EntityRecord(id=eid, name=term, labels=("Term",), domain=DOMAIN,
                                         source=SOURCE, source_file=path.name,
                                         extra={**extra, "year_added": term_year}))
            ctx.sink.fact(FactRecord(subject_id=eid, relation="meaning",
                                     value=str(record["meaning"]).strip(), datatype="string",
                                     point_in_time=str(term_year), point_in_time_precision="year",
                                     start_year=term_year, source=SOURCE, relation_label="meaning",
                                     subject_name=term, source_file=path.name, extra=extra or None))
    return ctx.finish()

"""Math-KG triples: TSV or CSV with a header ``subject, relation, object`` (``head, relation,
tail`` is accepted too). Time-invariant: facts carry no years.

Ids are ``mathkg:<slug of the name>``; the relation id is the relation text in snake_case
(``slug`` keeps every character that tells two names apart: see docs/loaders.md).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

from knowforge.errors import InputError
from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, PendingRecord,
                                       RecordProgress, files_under, read_text_lines, slug, snake, split_camel)
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Store

SOURCE = "mathkg"
DOMAIN = "math"
_HEADERS = {("subject", "relation", "object"), ("head", "relation", "tail")}


def entity_id(name: str) -> str:
    return f"mathkg:{slug(name)}"


def load_mathkg(store: Store, paths: Iterable[str | Path], *, strict: bool = False,
                progress: RecordProgress | None = None,
                batch_size: int = DEFAULT_BATCH_SIZE) -> LoadReport:
    ctx = LoadContext(store, SOURCE, strict=strict, progress=progress, batch_size=batch_size)
    relations: dict[str, str] = {}
    for path in files_under(paths, ("*.tsv", "*.csv")):
        ctx.report.files.append(str(path))
        delimiter = "," if path.suffix.lower() == ".csv" else "\t"
        header = None
        for lineno, line in read_text_lines(ctx, path):
            if not line.strip():
                continue
            try:
                fields = [f.strip() for f in next(csv.reader(io.StringIO(line), delimiter=delimiter))]
            except csv.Error as exc:
                ctx.read()
                ctx.skip("bad_csv_row", f"not a {'CSV' if delimiter == ',' else 'TSV'} row: {exc}",
                         path=path, line=lineno)
                continue
            if header is None:
                header = tuple(f.lower() for f in fields)
                if header[:3] not in _HEADERS:
                    raise InputError("expected a header 'subject<TAB>relation<TAB>object' "
                                     f"(or head/relation/tail), got {fields!r}", path=str(path), line=lineno)
                continue
            ctx.read()
            with ctx.record(path, lineno) as out:
                _read_triple(out, path, fields, relations)
    for relation, label in sorted(relations.items()):
        with ctx.record() as out:
            out.relation(RelationRecord(id=relation, label=label, source=SOURCE))
    return ctx.finish()


def _read_triple(out: PendingRecord, path: Path, fields: list[str], relations: dict[str, str]) -> None:
    """One row → two MathConcept entities and the fact between them, or the reason it is refused."""
    if len(fields) < 3 or not all(fields[:3]):
        out.refuse("wrong_column_count", f"expected subject, relation and object, got {len(fields)} fields")
        return
    subject, relation_text, obj = fields[:3]
    relation = snake(relation_text)
    if not (out.claim_id(entity_id(subject), subject) and out.claim_id(entity_id(obj), obj)
            and out.claim_id(relation, split_camel(relation_text))):
        return
    relations[relation] = relation_text
    for name in (subject, obj):
        out.entity(EntityRecord(id=entity_id(name), name=name, labels=("MathConcept",),
                                domain=DOMAIN, source=SOURCE, source_file=path.name))
    out.fact(FactRecord(subject_id=entity_id(subject), relation=relation,
                        object_id=entity_id(obj), source=SOURCE,
                        relation_label=relation_text, subject_name=subject,
                        object_name=obj, source_file=path.name))

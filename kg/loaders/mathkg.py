"""Math-KG triples: TSV or CSV with a header ``subject, relation, object`` (``head, relation,
tail`` is accepted too). Time-invariant: facts carry no years.

Ids are ``mathkg:<slug of the name>``; the relation id is the relation text in snake_case.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

from knowforge.errors import InputError
from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, RecordProgress,
                                       files_under, read_text_lines, slug, snake)
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
            fields = [f.strip() for f in next(csv.reader(io.StringIO(line), delimiter=delimiter))]
            if header is None:
                header = tuple(f.lower() for f in fields)
                if header[:3] not in _HEADERS:
                    raise InputError("expected a header 'subject<TAB>relation<TAB>object' "
                                     f"(or head/relation/tail), got {fields!r}", path=str(path), line=lineno)
                continue
            ctx.read()
            if len(fields) < 3 or not all(fields[:3]):
                ctx.skip("wrong_column_count", f"expected subject, relation and object, got "
                         f"{len(fields)} fields", path=path, line=lineno)
                continue
            subject, relation_text, obj = fields[:3]
            relation = snake(relation_text)
            relations[relation] = relation_text
            for name in (subject, obj):
                ctx.sink.entity(EntityRecord(id=entity_id(name), name=name, labels=("MathConcept",),
                                             domain=DOMAIN, source=SOURCE, source_file=path.name))
            ctx.sink.fact(FactRecord(subject_id=entity_id(subject), relation=relation,
                                     object_id=entity_id(obj), source=SOURCE,
                                     relation_label=relation_text, subject_name=subject,
                                     object_name=obj, source_file=path.name))
    for relation, label in sorted(relations.items()):
        ctx.sink.relation(RelationRecord(id=relation, label=label, source=SOURCE))
    return ctx.finish()

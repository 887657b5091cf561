"""CSKG in KGTK TSV: ``id, node1, relation, node2, node1;label, node2;label, relation;label,
relation;dimension, source, sentence``. Time-invariant.

Several objects of one (node1, relation) simply become several facts; ChroKnowBench merges
them into one object list when it builds its benchmark, and so do our generators (a read over
``(subject_id, relation)`` returns them all). A label cell may hold several labels separated
by ``|``: the first is the name, the rest are aliases.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from knowforge.errors import InputError
from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, PendingRecord,
                                       RecordProgress, files_under, read_text_lines)
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Store

SOURCE = "cskg"
DOMAIN = "commonsense"
REQUIRED = ("node1", "relation", "node2")


def entity_id(node: str) -> str:
    return f"cskg:{node}"


def relation_id(relation: str) -> str:
    """``/r/IsA`` → ``IsA``; ``at:xIntent`` stays as it is."""
    return relation[3:] if relation.startswith("/r/") else relation


def _labels(cell: str | None, fallback: str) -> tuple[str, tuple[str, ...]]:
    parts = [p.strip() for p in (cell or "").split("|") if p.strip()]
    if not parts:
        # /c/en/ice_cream → "ice cream"; a node without that shape is its own name
        pieces = fallback.split("/")
        tail = pieces[3] if fallback.startswith("/c/") and len(pieces) > 3 else ""
        parts = [tail.replace("_", " ").strip() or fallback]
    return parts[0], tuple(dict.fromkeys(parts[1:]))


def load_cskg(store: Store, paths: Iterable[str | Path], *, strict: bool = False,
              progress: RecordProgress | None = None,
              batch_size: int = DEFAULT_BATCH_SIZE) -> LoadReport:
    ctx = LoadContext(store, SOURCE, strict=strict, progress=progress, batch_size=batch_size)
    relations: dict[str, str] = {}
    for path in files_under(paths, ("*.tsv", "*.tsv.gz", "*.tsv.bz2")):
        ctx.report.files.append(str(path))
        header: list[str] | None = None
        for lineno, line in read_text_lines(ctx, path):
            if not line.strip():
                continue
            fields = line.split("\t")
            if header is None:
                header = fields
                missing = [c for c in REQUIRED if c not in header]
                if missing:
                    raise InputError(f"KGTK header lacks {', '.join(missing)}", path=str(path), line=lineno)
                continue
            ctx.read()
            if len(fields) != len(header):
                ctx.skip("wrong_column_count", f"row has {len(fields)} columns, header has "
                         f"{len(header)}", path=path, line=lineno)
                continue
            row = dict(zip(header, fields))
            with ctx.record(path, lineno) as out:
                _read_edge(out, path, row, relations)
    for rid, label in sorted(relations.items()):
        with ctx.record() as out:
            out.relation(RelationRecord(id=rid, label=label, source=SOURCE))
    return ctx.finish()


def _read_edge(out: PendingRecord, path: Path, row: dict, relations: dict[str, str]) -> None:
    """One KGTK edge → its two concepts and the fact between them, or the reason it is refused."""
    node1, rel, node2 = row["node1"], row["relation"], row["node2"]
    if not (node1 and rel and node2):
        out.refuse("empty_field", "node1, relation and node2 must be set")
        return
    name1, aliases1 = _labels(row.get("node1;label"), node1)
    name2, aliases2 = _labels(row.get("node2;label"), node2)
    rid = relation_id(rel)
    if not rid:
        out.refuse("empty_field", f"relation {rel!r} names no relation")
        return
    label = (row.get("relation;label") or "").split("|")[0].strip() or rid
    relations[rid] = label
    for node, name, aliases in ((node1, name1, aliases1), (node2, name2, aliases2)):
        out.entity(EntityRecord(id=entity_id(node), name=name, aliases=aliases,
                                labels=("CommonsenseConcept",), domain=DOMAIN,
                                source=SOURCE, source_file=path.name, extra={"node": node}))
    extra = {k: v for k, v in (("edge_id", row.get("id")),
                               ("dimension", row.get("relation;dimension")),
                               ("cskg_source", row.get("source")),
                               ("sentence", row.get("sentence"))) if v}
    out.fact(FactRecord(subject_id=entity_id(node1), relation=rid,
                        object_id=entity_id(node2), source=SOURCE, relation_label=label,
                        subject_name=name1, object_name=name2, source_file=path.name,
                        extra=extra or None))

"""Wikidata JSON dumps: ``latest-all.json[.gz|.bz2]`` (``[`` / one entity per line with a
trailing comma / ``]``) and plain JSONL of entity documents.

``WikidataDocParser`` turns one entity document into records and is pure (the benchmark times
it alone); ``load_wikidata_json`` streams files through it into the store.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, RecordProgress,
                                       TruncatedInput, iter_lines)
from knowforge.kg.loaders.wikidata_common import (TIME_QUALIFIERS, default_properties, parse_time,
                                                  vocabulary)
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Store

log = logging.getLogger(__name__)

SOURCE = "wikidata"
DOMAIN = "general"
SUPPORTED_DATATYPES = frozenset({"wikibase-item", "quantity", "time", "string", "external-id",
                                 "monolingualtext", "url"})
# Reasons that mean the input is malformed (listed with file and line; fatal under --strict).
# Every other reason is a record left out on purpose and only counted.
PROBLEM_REASONS = frozenset({"bad_value", "bad_qualifier"})
# Older dumps leave out the snak datatype; the datavalue type says enough for what we keep.
_DATATYPE_OF_VALUE = {"wikibase-entityid": "wikibase-item", "quantity": "quantity", "time": "time",
                      "string": "string", "monolingualtext": "monolingualtext"}


@dataclass
class ParsedDocument:
    """What one entity document yields. ``skipped`` holds (reason, message) pairs."""

    entity: EntityRecord | None = None
    facts: list[FactRecord] = field(default_factory=list)
    relation: RelationRecord | None = None
    skipped: list[tuple[str, str]] = field(default_factory=list)


def parse_line(raw: bytes) -> dict | None:
    """One dump line → the entity document, or None for ``[``, ``]`` and blank lines.

    Raises ``ValueError`` (``json.JSONDecodeError``) for a malformed line.
    """
    line = raw.strip()
    if not line or line in (b"[", b"]"):
        return None
    if line.endswith(b","):
        line = line[:-1]
    doc = json.loads(line)
    if not isinstance(doc, dict):
        raise ValueError(f"expected an entity object, got {type(doc).__name__}")
    return doc


class WikidataDocParser:
    """Entity document → ``EntityRecord`` + ``FactRecord``s for the allow-listed properties."""

    def __init__(self, properties: Iterable[str] | None = None, *, source_file: str | None = None):
        self.properties = frozenset(properties) if properties is not None else default_properties()
        self.source_file = source_file
        self.vocab = vocabulary()

    def parse(self, doc: dict) -> ParsedDocument:
        out = ParsedDocument()
        kind = doc.get("type")
        qid = doc.get("id")
        if kind == "property":
            if qid in self.properties:
                label = _en(doc.get("labels")) or self.vocab.property_label(qid) or qid
                out.relation = RelationRecord(id=qid, label=label, source=SOURCE,
                                              description=_en(doc.get("descriptions")))
            return out
        if kind != "item" or not isinstance(qid, str):
            out.skipped.append(("not_an_item", f"entity type {kind!r} is not loaded"))
            return out
        name = _en(doc.get("labels")) or qid
        claims = doc.get("claims") or {}
        out.entity = EntityRecord(
            id=qid, name=name, labels=self._domain_labels(claims.get("P31") or ()),
            aliases=tuple(a["value"] for a in (doc.get("aliases") or {}).get("en", ()) if "value" in a),
            description=_en(doc.get("descriptions")),
            popularity=float(len(doc.get("sitelinks") or ())), domain=DOMAIN, source=SOURCE,
            source_file=self.source_file)
        for pid, statements in claims.items():
            if pid not in self.properties:
                continue
            for st in statements:
                self._statement(qid, name, pid, st, out)
        return out

    def referenced(self, doc: dict) -> set[str]:
        """QIDs that the allow-listed, non-deprecated item claims of ``doc`` point to."""
        refs = set()
        for pid, statements in (doc.get("claims") or {}).items():
            if pid not in self.properties:
                continue
            for st in statements:
                if st.get("rank") == "deprecated":
                    continue
                target = _item_id((st.get("mainsnak") or {}).get("datavalue"))
                if target:
                    refs.add(target)
        return refs

    # -- internals ----------------------------------------------------------------------------
    def _domain_labels(self, p31_statements) -> tuple[str, ...]:
        labels = set()
        for st in p31_statements:
            if st.get("rank") == "deprecated":
                continue
            cls = _item_id((st.get("mainsnak") or {}).get("datavalue"))
            label = self.vocab.domain_labels.get(cls) if cls else None
            if label:
                labels.add(label)
        return tuple(sorted(labels))

    def _statement(self, qid: str, name: str, pid: str, st: dict, out: ParsedDocument) -> None:
        sid = st.get("id")
        if st.get("rank") == "deprecated":
            out.skipped.append(("deprecated_rank", f"{sid or pid}: deprecated statement dropped"))
            return
        snak = st.get("mainsnak") or {}
        if snak.get("snaktype", "value") != "value" or "datavalue" not in snak:
            out.skipped.append(("no_value", f"{sid or pid}: {snak.get('snaktype')} (no value)"))
            return
        datavalue = snak["datavalue"]
        datatype = snak.get("datatype") or _DATATYPE_OF_VALUE.get(datavalue.get("type"))
        if datatype not in SUPPORTED_DATATYPES:
            out.skipped.append(("unknown_datatype", f"{sid or pid}: datatype {datatype!r} not loaded"))
            return
        try:
            value_fields = self._value(datatype, datavalue.get("value"))
            time_fields = self._qualifiers(st.get("qualifiers") or {}, out, sid or pid)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            out.skipped.append(("bad_value", f"{sid or pid}: {datatype} value not understood ({exc})"))
            return
        out.facts.append(FactRecord(
            subject_id=qid, relation=pid, source=SOURCE, rank=st.get("rank") or "normal",
            statement_id=sid, source_file=self.source_file, subject_name=name,
            relation_label=self.vocab.property_label(pid), **value_fields, **time_fields))

    def _value(self, datatype: str, value) -> dict:
        if datatype == "wikibase-item":
            target = value.get("id") or f"Q{int(value['numeric-id'])}"
            return {"object_id": target}
        if datatype == "quantity":
            amount = str(value["amount"]).lstrip("+")
            return {"value": amount, "value_num": float(amount), "datatype": "quantity",
                    "unit": self.vocab.unit_label(value.get("unit"))}
        if datatype == "time":
            text, precision = parse_time(value["time"], value.get("precision"))
            return {"value": text, "datatype": "time", "extra": {"value_precision": precision}}
        if datatype == "monolingualtext":
            return {"value": value["text"], "datatype": "monolingualtext",
                    "extra": {"language": value.get("language")}}
        if not isinstance(value, str):
            raise ValueError(f"expected a string, got {type(value).__name__}")
        return {"value": value, "datatype": datatype}

    def _qualifiers(self, qualifiers: dict, out: ParsedDocument, where: str) -> dict:
        fields: dict = {}
        for pid, name in TIME_QUALIFIERS.items():
            for snak in qualifiers.get(pid, ()):
                if snak.get("snaktype", "value") != "value" or "datavalue" not in snak:
                    continue  # "unknown value" start/end: the interval stays open on that side
                value = snak["datavalue"].get("value") or {}
                try:
                    text, precision = parse_time(value["time"], value.get("precision"))
                except (KeyError, TypeError, ValueError) as exc:
                    out.skipped.append(("bad_qualifier", f"{where}: {pid} qualifier ignored ({exc})"))
                    continue
                fields[name] = text
                fields[f"{name}_precision"] = precision
                break
        return fields


def _en(block) -> str | None:
    if not block:
        return None
    entry = block.get("en")
    return entry.get("value") if isinstance(entry, dict) else None


def _item_id(datavalue) -> str | None:
    if not isinstance(datavalue, dict) or datavalue.get("type") != "wikibase-entityid":
        return None
    value = datavalue.get("value") or {}
    if value.get("entity-type", "item") != "item":
        return None
    return value.get("id") or (f"Q{value['numeric-id']}" if "numeric-id" in value else None)


def load_wikidata_json(store: Store, paths: Iterable[str | Path], *,
                       properties: Iterable[str] | None = None,
                       entities: Iterable[str] | None = None, strict: bool = False,
                       progress: RecordProgress | None = None,
                       batch_size: int = DEFAULT_BATCH_SIZE) -> LoadReport:
    """Stream Wikidata JSON dump files into the store.

    ``entities`` restricts the load to those QIDs plus the items their allow-listed claims
    point to (depth 1; a first pass over the files collects them).
    """
    ctx = LoadContext(store, SOURCE, strict=strict, progress=progress, batch_size=batch_size)
    paths = [Path(p) for p in paths]
    props = frozenset(properties) if properties is not None else default_properties()
    wanted = None
    if entities is not None:
        wanted = _with_references(paths, frozenset(entities), props)
    relations: dict[str, RelationRecord] = {}
    seen_properties: set[str] = set()
    for path in paths:
        ctx.report.files.append(str(path))
        parser = WikidataDocParser(props, source_file=path.name)
        try:
            for lineno, raw in iter_lines(path):
                try:
                    doc = parse_line(raw)
                except ValueError as exc:
                    ctx.read()
                    ctx.skip("malformed_json", f"malformed JSON: {exc}", path=path, line=lineno)
                    continue
                if doc is None:
                    continue
                ctx.read()
                if wanted is not None and doc.get("id") not in wanted:
                    ctx.drop("not_in_entity_list")
                    continue
                parsed = parser.parse(doc)
                for reason, message in parsed.skipped:
                    if reason in PROBLEM_REASONS:
                        ctx.skip(reason, message, path=path, line=lineno)
                    else:
                        ctx.drop(reason)
                if parsed.relation:
                    relations[parsed.relation.id] = parsed.relation
                if parsed.entity:
                    ctx.sink.entity(parsed.entity)
                for fact in parsed.facts:
                    seen_properties.add(fact.relation)
                    ctx.sink.fact(fact)
        except TruncatedInput as exc:
            ctx.fail_file("truncated_input", str(exc), path=path, line=exc.line)
    vocab = vocabulary()
    for pid in sorted(seen_properties | set(relations)):
        record = relations.get(pid)
        if record is None and vocab.property_label(pid):
            record = RelationRecord(id=pid, label=vocab.property_label(pid), source=SOURCE)
        if record is not None:
            ctx.sink.relation(record)
    return ctx.finish()


def _with_references(paths: list[Path], entities: frozenset[str], props: frozenset[str]) -> frozenset[str]:
    """First pass: the listed QIDs plus every item their allow-listed claims reference."""
    parser = WikidataDocParser(props)
    wanted = set(entities)
    for path in paths:
        try:
            for _, raw in iter_lines(path):
                try:
                    doc = parse_line(raw)
                except ValueError:
                    continue  # reported by the second pass
                if doc is not None and doc.get("id") in entities:
                    wanted |= parser.referenced(doc)
        except TruncatedInput:
            continue  # reported by the second pass
    return frozenset(wanted)

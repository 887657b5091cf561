"""The Wikidata JSON parser as it was before the msgspec fast path (commit 47a9933), frozen.

It is the oracle of ``tests/test_wikidata_fast_parser.py``: the library's parser must give
exactly the records, skips and errors this one gives, on every line. Do not "fix" it; a
deliberate change of behaviour in the library gets its own test instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from knowforge.kg.loaders.wikidata_common import TIME_QUALIFIERS, default_properties, vocabulary
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord

SOURCE = "wikidata"
DOMAIN = "general"
SUPPORTED_DATATYPES = frozenset({"wikibase-item", "quantity", "time", "string", "external-id",
                                 "monolingualtext", "url"})
_DATATYPE_OF_VALUE = {"wikibase-entityid": "wikibase-item", "quantity": "quantity", "time": "time",
                      "string": "string", "monolingualtext": "monolingualtext"}
PRECISION_NAMES = {14: "second", 13: "minute", 12: "hour", 11: "day", 10: "month", 9: "year",
                   8: "decade", 7: "century", 6: "millennium"}
_TIME = re.compile(r"^([+-]?)(\d+)-(\d\d)-(\d\d)")


@lru_cache(maxsize=1 << 16)
def parse_time(value: str, precision: int | None) -> tuple[str, str | None]:
    m = _TIME.match(value.strip())
    if not m:
        raise ValueError(f"not a Wikibase time value: {value!r}")
    sign, year, month, day = m.groups()
    y = int(year)
    if sign == "-":
        y = -(y - 1)
    return format_date(y, int(month), int(day), precision), PRECISION_NAMES.get(precision or 11, "day")


def format_date(year: int, month: int, day: int, precision: int | None) -> str:
    ytext = f"-{abs(year):04d}" if year < 0 else f"{year:04d}"
    if precision is None or precision >= 11:
        return f"{ytext}-{max(month, 1):02d}-{max(day, 1):02d}" if month else ytext
    if precision == 10:
        return f"{ytext}-{max(month, 1):02d}" if month else ytext
    return ytext


@dataclass
class ParsedDocument:
    entity: EntityRecord | None = None
    facts: list[FactRecord] = field(default_factory=list)
    relation: RelationRecord | None = None
    skipped: list[tuple[str, str]] = field(default_factory=list)


def parse_line(raw: bytes) -> dict | None:
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
                    continue
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

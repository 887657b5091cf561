"""Wikidata JSON dumps: ``latest-all.json[.gz|.bz2]`` (``[`` / one entity per line with a
trailing comma / ``]``) and plain JSONL of entity documents.

``WikidataDocParser`` turns one dump line (``parse_line``) or one decoded entity document
(``parse``) into records and is pure; it is the one parser of both drivers: the streaming
``load_wikidata_json`` below and the Spark job in ``wikidata_spark.py``.

``parse`` on a ``dict`` is the reference: it states every rule. ``parse_line`` decodes the line
with msgspec into typed structs that hold only the fields we read (other languages, sitelink
bodies, references, hashes and qualifiers other than P580/P582/P585 are skipped without
building Python objects) and applies the same rules to them. Anything the typed schema does not accept,
and any exception on the way, sends the line through ``json.loads`` + ``parse`` instead, so
both paths give the same records, skips and errors by construction
(``tests/test_wikidata_fast_parser.py`` checks it against the pre-msgspec parser).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from msgspec import UNSET, Struct, UnsetType

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
# Datatypes whose value is a plain JSON string.
_STRING_TYPES = SUPPORTED_DATATYPES - {"wikibase-item", "quantity", "time", "monolingualtext"}
# Older dumps leave out the snak datatype; the datavalue type says enough for what we keep.
_DATATYPE_OF_VALUE = {"wikibase-entityid": "wikibase-item", "quantity": "quantity", "time": "time",
                      "string": "string", "monolingualtext": "monolingualtext"}


@dataclass
class ParsedDocument:
    """What one entity document yields. ``skipped`` holds (reason, message) pairs.

    ``filtered`` is set (and nothing else) when ``parse_line`` was given ``wanted`` and the
    document's id is not in it.
    """

    entity: EntityRecord | None = None
    facts: list[FactRecord] = field(default_factory=list)
    relation: RelationRecord | None = None
    skipped: list[tuple[str, str]] = field(default_factory=list)
    filtered: bool = False


def _json_text(raw: bytes) -> bytes | None:
    """The JSON of one dump line: None for ``[``, ``]`` and blank lines, trailing comma cut."""
    line = raw.strip()
    if not line or line in (b"[", b"]"):
        return None
    if line.endswith(b","):
        line = line[:-1]
    return line


def parse_line(raw: bytes) -> dict | None:
    """One dump line → the entity document, or None for ``[``, ``]`` and blank lines.

    Raises ``ValueError`` (``json.JSONDecodeError``) for a malformed line.
    """
    line = _json_text(raw)
    if line is None:
        return None
    doc = json.loads(line)
    if not isinstance(doc, dict):
        raise ValueError(f"expected an entity object, got {type(doc).__name__}")
    return doc


# ---- the typed schema of the fast path --------------------------------------------------------
# Only the fields the rules read. A missing key takes the default that ``dict.get`` would give
# (UNSET where the rules tell "missing" from "null"); values the rules only pass on are ``Any``
# (decoded to the same builtins ``json.loads`` gives). Any other shape fails validation and the
# line takes the reference path. gc=False: decoded JSON has no cycles, and untracked structs
# keep the garbage collector from scanning millions of them.

class _Text(Struct, gc=False):
    value: Any = None


class _LangBlock(Struct, gc=False):
    # Anything may stand here; only an object has a text (the rule reads ``entry.get("value")``
    # of a dict and nothing of any other value).
    en: _Text | list | str | int | float | bool | None = None


class _Alias(Struct, gc=False):
    value: Any = UNSET


class _Aliases(Struct, gc=False):
    en: list[_Alias] | UnsetType = UNSET


class _Skip(Struct, gc=False):
    """An object whose content is not read (a sitelink): validated as an object, then skipped."""


class _Value(Struct, gc=False):
    """The fields of every value type we load (item, quantity, time, monolingual text).

    UNSET marks the keys the rules index (``value["time"]``: a KeyError when missing); the
    others are only read with ``.get``, so their default is what ``.get`` gives.
    """

    id: Any = None
    numeric_id: Any = msgspec.field(default=UNSET, name="numeric-id")
    entity_type: Any = msgspec.field(default="item", name="entity-type")
    amount: Any = UNSET
    unit: Any = None
    time: Any = UNSET
    precision: Any = None
    text: Any = UNSET
    language: Any = None


class _DataValue(Struct, gc=False):
    type: Any = None
    value: _Value | str | None = None


class _Snak(Struct, gc=False):
    # UNSET: a missing snaktype counts as "value" but is shown as None in the skip message.
    snaktype: Any = UNSET
    datatype: Any = None
    datavalue: _DataValue | UnsetType = UNSET


class _QualifierSnak(Struct, gc=False):
    snaktype: Any = "value"
    datavalue: _DataValue | UnsetType = UNSET


class _Qualifiers(Struct, gc=False):
    P580: list[_QualifierSnak] = []
    P582: list[_QualifierSnak] = []
    P585: list[_QualifierSnak] = []


class _Statement(Struct, gc=False):
    id: Any = None
    rank: Any = None
    mainsnak: _Snak | None = None
    qualifiers: _Qualifiers | list | None = None


class _Document(Struct, gc=False):
    type: Any = None
    id: Any = None
    labels: _LangBlock | list | None = None
    descriptions: _LangBlock | list | None = None
    aliases: _Aliases | list | None = None
    sitelinks: dict[str, _Skip] | list | None = None
    claims: dict[str, list[_Statement]] | list | None = None


_DOCUMENT = msgspec.json.Decoder(_Document)
_EMPTY_SNAK = _Snak()
_PRECISION_FIELD = {name: f"{name}_precision" for name in TIME_QUALIFIERS.values()}
# _statement_typed reads the qualifiers in this order, as _qualifiers does.
assert tuple(TIME_QUALIFIERS.items()) == (("P580", "start"), ("P582", "end"), ("P585", "point_in_time"))


class _Fallback(Exception):
    """The typed path met a shape it does not mirror exactly: use the reference path."""


def _record_builder(cls) -> tuple[dict, Callable[[dict], Any]]:
    """``(defaults, build)``: ``build(state)`` makes a ``cls`` record from a full field dict
    (start from ``defaults.copy()``) without the frozen dataclass ``__init__``.

    ``FactRecord(...)`` costs about 5 µs (one ``object.__setattr__`` per field, 28 fields),
    more than decoding the statement, and a dump has some 10^9 statements; this costs a
    fifth of that. The record is equal to the ordinary one (``==``, ``repr`` and the
    ``dataclasses`` helpers read the same fields). ``__post_init__`` is not run: its checks
    (exactly one of object and value, a known layer) hold by construction in this parser,
    whose ``_value`` returns exactly one of the two.
    """
    fields = dataclasses.fields(cls)
    defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
    if hasattr(cls, "__slots__") or any(f.default_factory is not dataclasses.MISSING for f in fields):
        return defaults, lambda state: cls(**state)  # the shortcut would be wrong for such a class
    new = object.__new__
    set_state = object.__setattr__  # the class is frozen: its own __setattr__ refuses

    def build(state: dict):
        record = new(cls)
        set_state(record, "__dict__", state)
        return record

    return defaults, build


_FACT_DEFAULTS, _fact = _record_builder(FactRecord)
_ENTITY_DEFAULTS, _entity = _record_builder(EntityRecord)


class WikidataDocParser:
    """Entity document → ``EntityRecord`` + ``FactRecord``s for the allow-listed properties."""

    def __init__(self, properties: Iterable[str] | None = None, *, source_file: str | None = None):
        self.properties = frozenset(properties) if properties is not None else default_properties()
        self.source_file = source_file
        self.vocab = vocabulary()
        self._relation_labels = self.vocab.properties

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

    def parse_line(self, raw: bytes, wanted: frozenset[str] | None = None) -> ParsedDocument | None:
        """One dump line → its records; None for ``[``, ``]`` and blank lines.

        ``wanted``: documents whose id is not in it come back with only ``filtered`` set (no
        records are built for them). Raises ``ValueError`` for a malformed line, exactly as
        ``json.loads`` + ``parse`` would.
        """
        line = _json_text(raw)
        if line is None:
            return None
        try:
            doc = _DOCUMENT.decode(line)
            if wanted is not None and doc.id not in wanted:
                return ParsedDocument(filtered=True)
            return self._parse_typed(doc)
        except Exception:  # noqa: BLE001 - the reference path decides, and raises what it raises
            pass
        data = parse_line(line)
        if wanted is not None and data.get("id") not in wanted:
            return ParsedDocument(filtered=True)
        return self.parse(data)

    def referenced_line(self, raw: bytes, entities: frozenset[str]) -> set[str]:
        """``referenced`` of the line's document when its id is in ``entities``, else empty.

        Malformed lines give nothing here (the loading pass reports them).
        """
        line = _json_text(raw)
        if line is None:
            return set()
        try:
            if _DOCUMENT.decode(line).id not in entities:
                return set()
        except Exception:  # noqa: BLE001 - decided by the reference path below
            pass
        try:
            doc = parse_line(line)
        except ValueError:
            return set()
        return self.referenced(doc) if doc.get("id") in entities else set()

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

    # -- the typed path: the rules of parse(), _statement() and _qualifiers() on the structs ----
    def _parse_typed(self, doc: _Document) -> ParsedDocument:
        out = ParsedDocument()
        kind = doc.type
        qid = doc.id
        if kind == "property":
            if qid in self.properties:
                label = _en_typed(doc.labels) or self.vocab.property_label(qid) or qid
                out.relation = RelationRecord(id=qid, label=label, source=SOURCE,
                                              description=_en_typed(doc.descriptions))
            return out
        if kind != "item" or not isinstance(qid, str):
            out.skipped.append(("not_an_item", f"entity type {kind!r} is not loaded"))
            return out
        name = _en_typed(doc.labels) or qid
        claims = doc.claims
        if not claims:
            claims = {}
        elif isinstance(claims, list):
            raise _Fallback
        properties = self.properties
        p31 = claims.get("P31")
        aliases = doc.aliases
        if not aliases:
            alias_values: tuple = ()
        elif isinstance(aliases, list):
            raise _Fallback
        elif aliases.en is UNSET:
            alias_values = ()
        else:
            alias_values = tuple(a.value for a in aliases.en if a.value is not UNSET)
        sitelinks = doc.sitelinks
        state = _ENTITY_DEFAULTS.copy()
        state.update(id=qid, name=name, labels=self._domain_labels_typed(p31 or ()),
                     aliases=alias_values, description=_en_typed(doc.descriptions),
                     popularity=float(len(sitelinks or ())), domain=DOMAIN, source=SOURCE,
                     source_file=self.source_file)
        out.entity = _entity(state)
        for pid, statements in claims.items():
            if pid not in properties:
                continue
            for st in statements:
                self._statement_typed(qid, name, pid, st, out)
        return out

    def _domain_labels_typed(self, p31_statements) -> tuple[str, ...]:
        labels = set()
        for st in p31_statements:
            if st.rank == "deprecated":
                continue
            snak = st.mainsnak
            datavalue = snak.datavalue if snak is not None else UNSET
            cls = (None if datavalue is UNSET or datavalue.type != "wikibase-entityid"
                   else _item_value_id_typed(datavalue.value))
            label = self.vocab.domain_labels.get(cls) if cls else None
            if label:
                labels.add(label)
        return tuple(sorted(labels))

    def _statement_typed(self, qid: str, name: str, pid: str, st: _Statement, out: ParsedDocument) -> None:
        sid = st.id
        rank = st.rank
        if rank == "deprecated":
            out.skipped.append(("deprecated_rank", f"{sid or pid}: deprecated statement dropped"))
            return
        snak = st.mainsnak or _EMPTY_SNAK
        snaktype = snak.snaktype
        datavalue = snak.datavalue
        if (snaktype if snaktype is not UNSET else "value") != "value" or datavalue is UNSET:
            shown = None if snaktype is UNSET else snaktype
            out.skipped.append(("no_value", f"{sid or pid}: {shown} (no value)"))
            return
        datatype = snak.datatype or _DATATYPE_OF_VALUE.get(datavalue.type)
        if datatype not in SUPPORTED_DATATYPES:
            out.skipped.append(("unknown_datatype", f"{sid or pid}: datatype {datatype!r} not loaded"))
            return
        state = {**_FACT_DEFAULTS, "subject_id": qid, "relation": pid, "source": SOURCE,
                 "rank": rank or "normal", "statement_id": sid, "source_file": self.source_file,
                 "subject_name": name, "relation_label": self._relation_labels.get(pid)}
        try:
            self._value_typed(datatype, datavalue.value, state)
            qualifiers = st.qualifiers
            if qualifiers:
                if qualifiers.__class__ is not _Qualifiers:
                    raise _Fallback  # a non-empty list where an object belongs
                where = sid or pid
                if qualifiers.P580:
                    _time_qualifier(qualifiers.P580, "P580", "start", where, out, state)
                if qualifiers.P582:
                    _time_qualifier(qualifiers.P582, "P582", "end", where, out, state)
                if qualifiers.P585:
                    _time_qualifier(qualifiers.P585, "P585", "point_in_time", where, out, state)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            out.skipped.append(("bad_value", f"{sid or pid}: {datatype} value not understood ({exc})"))
            return
        out.facts.append(_fact(state))

    def _value_typed(self, datatype: str, value, state: dict) -> None:
        """``_value`` on a ``_Value``, into ``state``: the same fields, and the same KeyError
        where a key is missing."""
        if datatype == "wikibase-item":
            if value.__class__ is not _Value:
                raise _Fallback
            target = value.id
            if not target:
                if value.numeric_id is UNSET:
                    raise KeyError("numeric-id")
                target = f"Q{int(value.numeric_id)}"
            state["object_id"] = target
        elif datatype in _STRING_TYPES:
            if not isinstance(value, str):
                shown = "dict" if value.__class__ is _Value else type(value).__name__
                raise ValueError(f"expected a string, got {shown}")
            state["value"] = value
            state["datatype"] = datatype
        elif value.__class__ is not _Value:
            raise _Fallback
        elif datatype == "time":
            if value.time is UNSET:
                raise KeyError("time")
            text, precision = parse_time(value.time, value.precision)
            state["value"] = text
            state["datatype"] = "time"
            state["extra"] = {"value_precision": precision}
        elif datatype == "quantity":
            if value.amount is UNSET:
                raise KeyError("amount")
            amount = str(value.amount).lstrip("+")
            state["value"] = amount
            state["value_num"] = float(amount)
            state["datatype"] = "quantity"
            state["unit"] = self.vocab.unit_label(value.unit)
        else:  # monolingualtext, the last of SUPPORTED_DATATYPES
            if value.text is UNSET:
                raise KeyError("text")
            if value.text is None:
                raise ValueError("monolingual text without text")
            state["value"] = value.text
            state["datatype"] = "monolingualtext"
            state["extra"] = {"language": value.language}

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
            if value["text"] is None:  # a fact needs a value (FactRecord would refuse it)
                raise ValueError("monolingual text without text")
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


def _en_typed(block) -> str | None:
    """``_en`` of a ``_LangBlock`` (an empty ``[]`` block, as PHP writes ``{}``, is no text)."""
    if block is None:
        return None
    if isinstance(block, list):
        if block:
            raise _Fallback
        return None
    entry = block.en
    return entry.value if entry.__class__ is _Text else None


def _time_qualifier(snaks: list[_QualifierSnak], pid: str, name: str, where: str,
                    out: ParsedDocument, state: dict) -> None:
    """``_qualifiers`` for one qualifier property: the first usable time value wins."""
    for snak in snaks:
        if snak.snaktype != "value" or snak.datavalue is UNSET:
            continue  # "unknown value" start/end: the interval stays open on that side
        value = snak.datavalue.value
        if value.__class__ is not _Value:
            if value is not None:
                raise _Fallback
            exc: Exception = KeyError("time")  # dict path: ({} or None)["time"]
        elif value.time is UNSET:
            exc = KeyError("time")
        else:
            try:
                state[name], state[_PRECISION_FIELD[name]] = parse_time(value.time, value.precision)
                return
            except (KeyError, TypeError, ValueError) as error:
                exc = error
        out.skipped.append(("bad_qualifier", f"{where}: {pid} qualifier ignored ({exc})"))


def _item_value_id_typed(value) -> str | None:
    if value is None:
        return None
    if value.__class__ is not _Value:
        raise _Fallback
    if value.entity_type != "item":
        return None
    return value.id or (f"Q{value.numeric_id}" if value.numeric_id is not UNSET else None)


def _item_id(datavalue) -> str | None:
    if not isinstance(datavalue, dict) or datavalue.get("type") != "wikibase-entityid":
        return None
    return _item_value_id(datavalue.get("value"))


def _item_value_id(value) -> str | None:
    value = value or {}
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
                    parsed = parser.parse_line(raw, wanted)
                except ValueError as exc:
                    ctx.read()
                    ctx.skip("malformed_json", f"malformed JSON: {exc}", path=path, line=lineno)
                    continue
                if parsed is None:
                    continue
                ctx.read()
                if parsed.filtered:
                    ctx.drop("not_in_entity_list")
                    continue
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
                wanted |= parser.referenced_line(raw, entities)  # malformed lines: the second pass
        except TruncatedInput:
            continue  # reported by the second pass
    return frozenset(wanted)

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
import logging
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from msgspec import UNSET, Struct, UnsetType

from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, RecordProgress,
                                       TruncatedInput, iter_lines, parse_json, unreadable_reason)
from knowforge.kg.loaders.checks import json_kind, text_problem
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
PROBLEM_REASONS = frozenset({"bad_value", "bad_qualifier", "bad_document"})
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

    Raises ``ValueError`` (``json.JSONDecodeError``) for a malformed line, one nested too deeply
    included.
    """
    line = _json_text(raw)
    if line is None:
        return None
    doc = parse_json(line)
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
            if isinstance(qid, str) and qid in self.properties:
                try:
                    label = _en(doc.get("labels"), "labels")
                    description = _en(doc.get("descriptions"), "descriptions")
                except _Shape as exc:
                    out.skipped.append(("bad_document", f"{qid}: {exc}"))
                    return out
                out.relation = RelationRecord(id=qid, label=label or self.vocab.property_label(qid) or qid,
                                              source=SOURCE, description=description)
            return out
        if kind is not None and not isinstance(kind, str):
            out.skipped.append(("bad_document", f"type is {json_kind(kind)}, expected text"))
            return out
        if kind != "item":
            out.skipped.append(("not_an_item", f"entity type {_shown(kind)} is not loaded"))
            return out
        if not isinstance(qid, str) or not qid.strip() or text_problem(qid):
            out.skipped.append(("bad_document", f"an item's id is {_kind_of_text(qid)}, expected a QID"))
            return out
        try:
            name = _en(doc.get("labels"), "labels") or qid
            description = _en(doc.get("descriptions"), "descriptions")
            aliases = _aliases(doc.get("aliases"))
            sitelinks = _container(doc.get("sitelinks"), "sitelinks", lists=True)
            claims = _container(doc.get("claims"), "claims")
        except _Shape as exc:
            out.skipped.append(("bad_document", f"{qid}: {exc}"))
            return out
        p31 = claims.get("P31")
        out.entity = EntityRecord(
            id=qid, name=name, labels=self._domain_labels(p31 if isinstance(p31, list) else ()),
            aliases=aliases, description=description, popularity=float(len(sitelinks)), domain=DOMAIN,
            source=SOURCE, source_file=self.source_file)
        for pid, statements in claims.items():
            if pid not in self.properties:
                continue
            if not isinstance(statements, list):
                out.skipped.append(("bad_value", f"{pid}: the statements are {json_kind(statements)}, "
                                                 "expected a list"))
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
        if wanted is not None:
            qid = data.get("id")
            if not isinstance(qid, str) or qid not in wanted:
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
        qid = doc.get("id")
        return self.referenced(doc) if isinstance(qid, str) and qid in entities else set()

    def referenced(self, doc: dict) -> set[str]:
        """QIDs that the allow-listed, non-deprecated item claims of ``doc`` point to (parts of
        the wrong shape point nowhere; the loading pass reports them)."""
        refs = set()
        claims = doc.get("claims")
        if not isinstance(claims, dict):
            return refs
        for pid, statements in claims.items():
            if pid not in self.properties or not isinstance(statements, list):
                continue
            for st in statements:
                if not isinstance(st, dict) or st.get("rank") == "deprecated":
                    continue
                snak = st.get("mainsnak")
                target = _item_id(snak.get("datavalue")) if isinstance(snak, dict) else None
                if target:
                    refs.add(target)
        return refs

    # -- the typed path: the rules of parse(), _statement() and _qualifiers() on the structs ----
    def _parse_typed(self, doc: _Document) -> ParsedDocument:
        out = ParsedDocument()
        kind = doc.type
        qid = doc.id
        if kind == "property":
            if qid.__class__ is str and qid in self.properties:
                label = _en_typed(doc.labels) or self.vocab.property_label(qid) or qid
                out.relation = RelationRecord(id=qid, label=label, source=SOURCE,
                                              description=_en_typed(doc.descriptions))
            return out
        if kind is not None and kind.__class__ is not str:
            raise _Fallback
        if kind != "item":
            out.skipped.append(("not_an_item", f"entity type {_shown(kind)} is not loaded"))
            return out
        if qid.__class__ is not str or not qid.strip():
            raise _Fallback
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
            if any(value.__class__ is not str for value in alias_values):
                raise _Fallback
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
        if sid is not None and sid.__class__ is not str:
            raise _Fallback
        rank = st.rank
        if rank == "deprecated":
            out.skipped.append(("deprecated_rank", f"{sid or pid}: deprecated statement dropped"))
            return
        if rank not in _RANKS:
            raise _Fallback
        snak = st.mainsnak or _EMPTY_SNAK
        snaktype = snak.snaktype
        datavalue = snak.datavalue
        if (snaktype if snaktype is not UNSET else "value") != "value" or datavalue is UNSET:
            shown = None if snaktype is UNSET else snaktype
            out.skipped.append(("no_value", f"{sid or pid}: {_plain(shown)} (no value)"))
            return
        value_type = datavalue.type
        datatype = snak.datatype or (_DATATYPE_OF_VALUE.get(value_type)
                                     if value_type.__class__ is str else None)
        if datatype is not None and datatype.__class__ is not str:
            raise _Fallback
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
        where a key is missing; a value of another kind goes the reference way (``_Fallback``),
        which words the problem."""
        if datatype == "wikibase-item":
            if value.__class__ is not _Value:
                raise _Fallback
            target = value.id
            if not target:
                if value.numeric_id is UNSET:
                    raise KeyError("numeric-id")
                number = value.numeric_id
                if number.__class__ is not int or number < 1:
                    raise _Fallback
                target = f"Q{number}"
            elif target.__class__ is not str:
                raise _Fallback
            state["object_id"] = target
        elif datatype in _STRING_TYPES:
            if value.__class__ is not str:
                raise _Fallback
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
            state["value"], state["value_num"] = _amount(value.amount)
            state["datatype"] = "quantity"
            state["unit"] = _unit_label(self.vocab, value.unit)
        else:  # monolingualtext, the last of SUPPORTED_DATATYPES
            if value.text is UNSET:
                raise KeyError("text")
            if value.text is None:
                raise ValueError("monolingual text without text")
            if value.text.__class__ is not str or (value.language is not None
                                                   and value.language.__class__ is not str):
                raise _Fallback
            state["value"] = value.text
            state["datatype"] = "monolingualtext"
            state["extra"] = {"language": value.language}

    # -- internals ----------------------------------------------------------------------------
    def _domain_labels(self, p31_statements) -> tuple[str, ...]:
        labels = set()
        for st in p31_statements:
            if not isinstance(st, dict) or st.get("rank") == "deprecated":
                continue
            snak = st.get("mainsnak")
            cls = _item_id(snak.get("datavalue")) if isinstance(snak, dict) else None
            label = self.vocab.domain_labels.get(cls) if cls else None
            if label:
                labels.add(label)
        return tuple(sorted(labels))

    def _statement(self, qid: str, name: str, pid: str, st, out: ParsedDocument) -> None:
        if not isinstance(st, dict):
            out.skipped.append(("bad_value", f"{pid}: a statement is {json_kind(st)}, expected an object"))
            return
        sid = st.get("id")
        if sid is not None and (not isinstance(sid, str) or text_problem(sid)):
            out.skipped.append(("bad_value", f"{pid}: a statement id is {_kind_of_text(sid)}, expected text"))
            return
        rank = st.get("rank")
        if rank == "deprecated":
            out.skipped.append(("deprecated_rank", f"{sid or pid}: deprecated statement dropped"))
            return
        if rank not in _RANKS:
            out.skipped.append(("bad_value", f"{sid or pid}: rank {_shown(rank)} is not preferred, normal "
                                             "or deprecated"))
            return
        snak = st.get("mainsnak") or {}
        if not isinstance(snak, dict):
            out.skipped.append(("bad_value", f"{sid or pid}: mainsnak is {json_kind(snak)}, "
                                             "expected an object"))
            return
        if snak.get("snaktype", "value") != "value" or "datavalue" not in snak:
            out.skipped.append(("no_value", f"{sid or pid}: {_plain(snak.get('snaktype'))} (no value)"))
            return
        datavalue = snak["datavalue"]
        if not isinstance(datavalue, dict):
            out.skipped.append(("bad_value", f"{sid or pid}: datavalue is {json_kind(datavalue)}, "
                                             "expected an object"))
            return
        value_type = datavalue.get("type")
        datatype = snak.get("datatype") or (_DATATYPE_OF_VALUE.get(value_type)
                                            if isinstance(value_type, str) else None)
        if not isinstance(datatype, str) and datatype is not None:
            out.skipped.append(("bad_value", f"{sid or pid}: datatype is {json_kind(datatype)}, "
                                             "expected text"))
            return
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
            subject_id=qid, relation=pid, source=SOURCE, rank=rank or "normal",
            statement_id=sid, source_file=self.source_file, subject_name=name,
            relation_label=self.vocab.property_label(pid), **value_fields, **time_fields))

    def _value(self, datatype: str, value) -> dict:
        """The fact fields of a value; ``KeyError`` for a missing key, ``ValueError`` for one of
        the wrong kind (both a ``bad_value``)."""
        if datatype in _STRING_TYPES:
            return {"value": _text(value, "the value"), "datatype": datatype}
        if not isinstance(value, dict):
            raise ValueError(f"the value is {json_kind(value)}, expected an object")
        if datatype == "wikibase-item":
            target = value.get("id")
            if target:
                return {"object_id": _text(target, "id")}
            return {"object_id": _numeric_item(value["numeric-id"])}
        if datatype == "quantity":
            text, number = _amount(value["amount"])
            return {"value": text, "value_num": number, "datatype": "quantity",
                    "unit": _unit_label(self.vocab, value.get("unit"))}
        if datatype == "time":
            text, precision = parse_time(value["time"], value.get("precision"))
            return {"value": text, "datatype": "time", "extra": {"value_precision": precision}}
        # monolingualtext, the last of SUPPORTED_DATATYPES
        if value["text"] is None:  # a fact needs a value (FactRecord would refuse it)
            raise ValueError("monolingual text without text")
        language = value.get("language")
        return {"value": _text(value["text"], "text"), "datatype": "monolingualtext",
                "extra": {"language": None if language is None else _text(language, "language")}}

    def _qualifiers(self, qualifiers, out: ParsedDocument, where: str) -> dict:
        """Start, end and point in time. A qualifier of the wrong shape refuses the statement
        (``ValueError``); a time value that cannot be read is left out and reported
        (``bad_qualifier``): the interval stays open on that side."""
        if not isinstance(qualifiers, dict):
            raise ValueError(f"qualifiers are {json_kind(qualifiers)}, expected an object")
        fields: dict = {}
        for pid, name in TIME_QUALIFIERS.items():
            snaks = qualifiers.get(pid, ())
            if not isinstance(snaks, (list, tuple)):
                raise ValueError(f"{pid} qualifiers are {json_kind(snaks)}, expected a list")
            for snak in snaks:
                if not isinstance(snak, dict):
                    raise ValueError(f"a {pid} qualifier is {json_kind(snak)}, expected an object")
                if snak.get("snaktype", "value") != "value" or "datavalue" not in snak:
                    continue  # "unknown value" start/end: the interval stays open on that side
                datavalue = snak["datavalue"]
                if not isinstance(datavalue, dict):
                    raise ValueError(f"a {pid} qualifier's datavalue is {json_kind(datavalue)}, "
                                     "expected an object")
                value = datavalue.get("value") or {}
                try:
                    if not isinstance(value, dict):
                        raise ValueError(f"its value is {json_kind(value)}, expected an object")
                    text, precision = parse_time(value["time"], value.get("precision"))
                except (KeyError, ValueError) as exc:
                    out.skipped.append(("bad_qualifier", f"{where}: {pid} qualifier ignored ({exc})"))
                    continue
                fields[name] = text
                fields[f"{name}_precision"] = precision
                break
        return fields


class _Shape(ValueError):
    """A part of an entity document we read holds the wrong kind of JSON value."""


_RANKS = (None, "", "normal", "preferred")  # the ranks kept ("deprecated" is dropped); none is normal


def _shown(value, limit: int = 60) -> str:
    """``repr(value)`` for a message, cut at ``limit`` characters."""
    try:
        text = repr(value)
    except RecursionError:
        return f"{json_kind(value)} nested too deeply to show"
    return text if len(text) <= limit else text[:limit] + "…"


def _plain(value) -> str:
    """``str(value)`` for a message: text as it is, anything else as ``_shown``."""
    return value if isinstance(value, str) else _shown(value)


def _kind_of_text(value) -> str:
    """``json_kind``, and for text that cannot be stored or is blank, why."""
    if isinstance(value, str):
        problem = text_problem(value)
        return f"text that {problem}" if problem else "blank text" if not value.strip() else "text"
    return json_kind(value)


def _text(value, what: str) -> str:
    """``value`` when it is text the graph can store; else ``ValueError`` naming ``what``."""
    if not isinstance(value, str):
        raise ValueError(f"{what} is {json_kind(value)}, expected text")
    problem = text_problem(value)
    if problem:
        raise ValueError(f"{what} {problem}")
    return value


def _numeric_item(number) -> str:
    if number.__class__ is not int or number < 1:
        raise ValueError(f"numeric-id {_shown(number)} is not a positive whole number")
    return f"Q{number}"


def _amount(amount) -> tuple[str, float]:
    """A quantity's amount (``"+1500"``) → (``"1500"``, 1500.0); NaN and infinities refused."""
    if amount.__class__ not in (str, int, float):
        raise ValueError(f"amount is {json_kind(amount)}, expected a decimal number")
    text = str(amount).lstrip("+")
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"amount {_shown(text)} is not a finite number")
    return text, number


def _unit_label(vocab, unit) -> str | None:
    if unit is not None and not isinstance(unit, str):
        raise ValueError(f"unit is {json_kind(unit)}, expected an entity URI or \"1\"")
    return vocab.unit_label(unit)


def _container(block, what: str, *, lists: bool = False):
    """An object of the document (labels, claims...): ``{}`` when absent or empty (PHP writes
    an empty object as ``[]``); any other kind of value is a ``_Shape`` error. ``lists``: a
    list is read too (sitelinks are only counted)."""
    if block is None or (isinstance(block, list) and (lists or not block)):
        return block or {}
    if not isinstance(block, dict):
        raise _Shape(f"{what} is {json_kind(block)}, expected an object")
    return block


def _en(block, what: str) -> str | None:
    """The English text of a language block (labels, descriptions), or None."""
    entry = _container(block, what).get("en")
    if entry is None:
        return None
    if not isinstance(entry, dict):
        raise _Shape(f"{what}.en is {json_kind(entry)}, expected an object")
    value = entry.get("value")
    if value is None:
        return None
    if not isinstance(value, str) or text_problem(value):
        raise _Shape(f"{what}.en.value is {_kind_of_text(value)}, expected text")
    return value


def _aliases(block) -> tuple[str, ...]:
    """The English aliases (entries without a value are passed over)."""
    entries = _container(block, "aliases").get("en")
    if entries is None:
        return ()
    if not isinstance(entries, list):
        raise _Shape(f"aliases.en is {json_kind(entries)}, expected a list")
    out = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise _Shape(f"aliases.en[{i}] is {json_kind(entry)}, expected an object")
        if "value" in entry:
            value = entry["value"]
            if not isinstance(value, str) or text_problem(value):
                raise _Shape(f"aliases.en[{i}].value is {_kind_of_text(value)}, expected text")
            out.append(value)
    return tuple(out)


def _en_typed(block) -> str | None:
    """``_en`` of a ``_LangBlock`` (an empty ``[]`` block, as PHP writes ``{}``, is no text)."""
    if block is None:
        return None
    if isinstance(block, list):
        if block:
            raise _Fallback
        return None
    entry = block.en
    if entry.__class__ is _Text:
        value = entry.value
        if value is None or value.__class__ is str:
            return value
        raise _Fallback
    if entry is not None:
        raise _Fallback
    return None


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
    target = value.id
    if target:
        return target if target.__class__ is str else None
    number = value.numeric_id
    return f"Q{number}" if number.__class__ is int and number > 0 else None


def _item_id(datavalue) -> str | None:
    if not isinstance(datavalue, dict) or datavalue.get("type") != "wikibase-entityid":
        return None
    return _item_value_id(datavalue.get("value"))


def _item_value_id(value) -> str | None:
    """The QID of an item value (``id``, else ``numeric-id``); None for anything else."""
    if not isinstance(value, dict) or value.get("entity-type", "item") != "item":
        return None
    target = value.get("id")
    if target:
        return target if isinstance(target, str) else None
    number = value.get("numeric-id")
    return f"Q{number}" if number.__class__ is int and number > 0 else None


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
    relations: dict[str, tuple[RelationRecord, str, int]] = {}  # with where its document is
    seen_properties: set[str] = set()
    for path in paths:
        ctx.report.files.append(str(path))
        parser = WikidataDocParser(props, source_file=path.name)
        try:
            for lineno, raw in iter_lines(path):
                with ctx.record(path, lineno) as out:
                    try:
                        parsed = parser.parse_line(raw, wanted)
                    except ValueError as exc:
                        ctx.read()
                        out.refuse("malformed_json", f"malformed JSON: {exc}")
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
                        relations[parsed.relation.id] = (parsed.relation, str(path), lineno)
                    if parsed.entity:
                        out.entity(parsed.entity)
                    for fact in parsed.facts:
                        seen_properties.add(fact.relation)
                        out.fact(fact)
        except TruncatedInput as exc:
            ctx.fail_file(unreadable_reason(exc), str(exc), path=path, line=exc.line)
    vocab = vocabulary()
    for pid in sorted(seen_properties | set(relations)):
        record, where, line = relations.get(pid) or (None, None, None)
        if record is None and vocab.property_label(pid):
            record = RelationRecord(id=pid, label=vocab.property_label(pid), source=SOURCE)
        if record is not None:
            with ctx.record(where, line) as out:
                out.relation(record)
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

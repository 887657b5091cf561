"""What a record must hold before it may join a write batch: values Neo4j stores and JSON carries.

A loader's records are checked here, one at a time, before they are buffered (``LoadContext``
does it), so that one value the driver or the server would refuse never costs the batch it
would have travelled in. Each check returns None for a good record, or one line naming the
field and what is wrong with it; the loader reports that line with the record's file and line.

The rules are those of Neo4j properties plus what ``knowforge query --format json`` must be
able to print:

- text is a ``str`` that UTF-8 can encode (no lone surrogate such as ``"\\ud800"``, which
  ``json.loads`` accepts and the driver refuses);
- a whole number fits a signed 64-bit integer (Neo4j's ``Long``);
- a real number is finite (NaN and Infinity are no JSON);
- a list holds values of one of those kinds, none of them null, no list or map inside;
- no other value (a map, bytes, an object) is a property;
- ids, relation names and sources are non-empty text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from knowforge.errors import UnsafeIdentifier
from knowforge.kg.cypher import validate_labels
from knowforge.kg.records import LAYERS, EntityRecord, FactRecord, RelationRecord

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

# FactRecord fields by what they must hold (the record's own invariants are checked apart).
_FACT_KEYS = ("subject_id", "relation", "source")
_FACT_TEXTS = ("datatype", "unit", "start", "start_precision", "end", "end_precision", "point_in_time",
               "point_in_time_precision", "snapshot", "rank", "statement_id", "source_file",
               "subject_name", "object_name", "relation_label", "id_key", "fact_id")
_ENTITY_TEXTS = ("description", "domain", "source", "source_file")


def json_kind(value) -> str:
    """What a decoded JSON value is, in words: ``an object``, ``a list``, ``a number``..."""
    if value is None:
        return "null"
    if value.__class__ is bool:
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (dict, Mapping)):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


def text_problem(value) -> str | None:
    """None when ``value`` is text the driver can send, else what is wrong with it."""
    if value.__class__ is not str and not isinstance(value, str):
        return f"is a {type(value).__name__}, not text"
    if value.isascii():
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"holds {value[exc.start]!r}, a lone surrogate that UTF-8 cannot encode"
    return None


def key_problem(value) -> str | None:
    problem = text_problem(value)
    if problem is None and (not value or value.isspace()):
        return "is empty"
    return problem


def number_problem(value) -> str | None:
    """A whole number in Neo4j's 64-bit range, or a finite real number (never a bool)."""
    kind = value.__class__
    if kind is int:
        return None if INT64_MIN <= value <= INT64_MAX else f"{value} does not fit a 64-bit integer"
    if kind is float:
        return None if math.isfinite(value) else f"{value} is not a finite number"
    if kind is bool or not isinstance(value, (int, float)):
        return f"is a {type(value).__name__}, not a number"
    return number_problem(int(value) if isinstance(value, int) else float(value))


def property_problem(value) -> str | None:
    """None when ``value`` may be stored as a Neo4j property (None means "no property")."""
    if value is None or value.__class__ is bool:
        return None
    if isinstance(value, str):
        return text_problem(value)
    if isinstance(value, (int, float)):
        return number_problem(value)
    if isinstance(value, (list, tuple)):
        kinds = set()
        for i, item in enumerate(value):
            if item is None:
                return f"[{i}] is null (a stored list cannot hold nulls)"
            if isinstance(item, (list, tuple, dict)):
                return f"[{i}] is a {type(item).__name__} (a stored list holds no lists or maps)"
            problem = property_problem(item)
            if problem:
                return f"[{i}] {problem}"
            kinds.add(str if isinstance(item, str) else bool if item.__class__ is bool else float)
        if len(kinds) > 1:
            return "mixes text, numbers and booleans (a stored list holds one kind)"
        return None
    return f"is a {type(value).__name__}, which Neo4j does not store as a property"


def _map_problem(name: str, values) -> str | None:
    if values is None:
        return None
    if not isinstance(values, Mapping):
        return f"{name} is a {type(values).__name__}, not a map of properties"
    for key, value in values.items():
        if key.__class__ is not str or not key:
            return f"{name} has a property name {key!r} that is not text"
        problem = property_problem(value)
        if problem:
            return f"{name}.{key} {problem}"
    return None


def entity_problem(record: EntityRecord) -> str | None:
    """What keeps ``record`` out of the graph, or None."""
    problem = key_problem(record.id)
    if problem:
        return f"id {problem}"
    problem = key_problem(record.name)
    if problem:
        return f"name {problem}"
    for name in _ENTITY_TEXTS:
        value = getattr(record, name)
        if value is not None:
            problem = text_problem(value)
            if problem:
                return f"{name} {problem}"
    for i, alias in enumerate(record.aliases):
        problem = text_problem(alias)
        if problem:
            return f"aliases[{i}] {problem}"
    if record.popularity is not None:
        problem = number_problem(record.popularity)
        if problem:
            return f"popularity {problem}"
    try:
        validate_labels(record.labels)
    except (UnsafeIdentifier, TypeError) as exc:
        return f"labels: {exc}"
    return _map_problem("extra", record.extra)


def fact_problem(record: FactRecord) -> str | None:
    """What keeps ``record`` out of the graph, or None (its years are worked out here too)."""
    # Checked for every fact of a dump: plain ASCII text takes the short way, without calls.
    fields = record.__dict__
    for name in _FACT_KEYS:
        key = fields[name]
        if key.__class__ is not str or not key or not key.isascii() or key.isspace():
            problem = key_problem(key)
            if problem:
                return f"{name} {problem}"
    object_id, value = fields["object_id"], fields["value"]
    if (object_id is None) == (value is None):
        return "a fact needs exactly one of an object and a value"
    problem = key_problem(object_id) if object_id is not None else text_problem(value)
    if problem:
        return f"{'object_id' if object_id is not None else 'value'} {problem}"
    for name in _FACT_TEXTS:
        text = fields[name]
        if text is not None and (text.__class__ is not str or not text.isascii()):
            problem = text_problem(text)
            if problem:
                return f"{name} {problem}"
    for name in ("value_num", "start_year", "end_year"):
        number = fields[name]
        if number is not None:
            problem = number_problem(number)
            if problem:
                return f"{name} {problem}"
    for name in ("start_year", "end_year"):
        if fields[name] is not None and fields[name].__class__ is not int:
            return f"{name} is not a whole number"
    if fields["seen_in"]:
        for year in fields["seen_in"]:
            if year.__class__ is not int or not INT64_MIN <= year <= INT64_MAX:
                return f"seen_in holds {year!r}, not a year"
    if fields["layer"] not in LAYERS:
        return f"layer {fields['layer']!r} is not one of {', '.join(LAYERS)}"
    if fields["start"] is not None or fields["end"] is not None or fields["point_in_time"] is not None:
        try:
            years = record.years()
        except (ValueError, TypeError) as exc:
            return f"its time cannot be read as years ({exc})"
        for year in years:
            if year is not None and not INT64_MIN <= year <= INT64_MAX:
                return f"year {year} does not fit a 64-bit integer"
    return _map_problem("extra", fields["extra"])


def relation_problem(record: RelationRecord) -> str | None:
    for name in ("id", "label", "source"):
        problem = key_problem(getattr(record, name))
        if problem:
            return f"{name} {problem}"
    for name in ("inverse", "description"):
        value = getattr(record, name)
        if value is not None:
            problem = text_problem(value)
            if problem:
                return f"{name} {problem}"
    return None


def row_problem(row: Mapping) -> str | None:
    """A row of a loader's own ``UNWIND $batch.rows`` statement: an ``id`` and stored values."""
    problem = key_problem(row.get("id"))
    if problem:
        return f"id {problem}"
    return _map_problem("row", row)

"""The bulk layout: graph records as columns, for Parquet and for ``neo4j-admin database import``.

One column list per node kind says what the UNWIND writer leaves on a node, with the
Neo4j type of each property:

- ``ENTITY_COLUMNS``: ``:Entity`` nodes (loaded ones and stubs) with their domain labels;
- ``FACT_COLUMNS``: ``:Fact`` nodes, whose ``subject_id``/``object_id`` also give the
  ``HAS_FACT`` and ``OBJECT`` relationships;
- ``RELATION_COLUMNS``: the ``:Relation`` vocabulary.

``entity_values`` and ``fact_values`` turn records into those columns exactly as
``store/upsert_entities`` and ``store/create_facts`` set them; a property that is not in the
layout is an error (nothing is dropped silently). The CSV files follow the import tool's
rules: a header file per group, ``"`` quoting with doubled quotes, an empty unquoted field
for a missing property, and U+001F between array elements, since aliases may hold ``;``.

Empty lists are the one thing the import tool cannot store (neo4j/neo4j#13566). None of the
columns needs one: an entity without aliases has no ``aliases`` property on either path
(``EntityRecord.to_row`` gives ``None``, and stubs never get one).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from knowforge.errors import InputError
from knowforge.kg.cypher import validate_labels
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord, stable_id
from knowforge.kg.writer import fact_node_properties

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
ARRAY_DELIMITER = "\x1f"
ARRAY_DELIMITER_OPTION = "U+001F"


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # string, double, long, boolean, string[], long[]

    def header(self, id_space: str) -> str:
        if self.name == "id":
            return f"id:ID({id_space})"
        if self.name == "labels":
            return ":LABEL"
        return self.name if self.kind == "string" else f"{self.name}:{self.kind}"


def _columns(spec: str) -> tuple[Column, ...]:
    out = []
    for item in spec.split():
        name, _, kind = item.partition(":")
        out.append(Column(name, kind or "string"))
    return tuple(out)


ENTITY_COLUMNS = _columns("""id labels:string[] name aliases:string[] alias_text description
    popularity:double domain source source_file stub:boolean""")
FACT_COLUMNS = _columns("""id subject_id object_id kind relation relation_label value
    value_num:double datatype unit start start_precision end end_precision point_in_time
    point_in_time_precision start_year:long end_year:long temporal:boolean snapshot rank
    statement_id source source_file layer value_precision language seen_in:long[]
    first_seen:long last_seen:long""")
RELATION_COLUMNS = _columns("id label source inverse description")
# Not node properties: which name a stub gets when the entity is not loaded itself.
FACT_EXTRA_COLUMNS = _columns("subject_name object_name")

_ENTITY_PROPS = frozenset(c.name for c in ENTITY_COLUMNS) - {"id", "labels", "stub"}
_FACT_PROPS = frozenset(c.name for c in FACT_COLUMNS)
_PY_TYPES = {"string": (str,), "double": (float,), "long": (int,), "boolean": (bool,)}
_EXACT = {"string": str, "double": float, "long": int, "boolean": bool}


class NotRepresentable(ValueError):
    """A record whose properties do not fit the bulk layout (name or type)."""


def _fits(kind: str, value) -> bool:
    if kind.endswith("[]"):
        item_types = _PY_TYPES[kind[:-2]]
        ok = isinstance(value, list) and all(
            isinstance(v, item_types) and not (kind == "long[]" and isinstance(v, bool)) for v in value)
        if ok and kind == "string[]":
            ok = not any(ARRAY_DELIMITER in v for v in value) and value != [""]
        return ok
    if kind == "long":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, _PY_TYPES[kind])


def _kinds(columns: Iterable[Column]) -> dict[str, str]:
    return {column.name: column.kind for column in columns}


_ENTITY_KINDS = _kinds(ENTITY_COLUMNS)
_FACT_KINDS = _kinds(FACT_COLUMNS)


def _check(kinds: dict[str, str], values: dict) -> dict:
    # Runs once per record on the Spark executors: only the properties present are looked at,
    # and a value of exactly the column's type (most of them) without the general test.
    for name, value in values.items():
        if value is None:
            continue
        kind = kinds.get(name)
        if kind is None or type(value) is _EXACT.get(kind):
            continue
        if not _fits(kind, value):
            raise NotRepresentable(f"property {name}={value!r} is not a {kind} the import "
                                   "tool can store")
    return values


def entity_values(record: EntityRecord) -> dict:
    """The ``:Entity`` node ``store/upsert_entities`` leaves for ``record`` (not a stub)."""
    row = record.to_row()
    props = row["props"]
    unknown = set(props) - _ENTITY_PROPS
    if unknown:
        raise NotRepresentable(f"entity {record.id}: properties {sorted(unknown)} are not in the "
                               "bulk layout (kg/bulk/layout.py ENTITY_COLUMNS)")
    values = dict(props)
    values["id"] = row["id"]
    values["labels"] = ["Entity", *[label for label in row["labels"] if label != "Entity"]]
    values["stub"] = False
    return _check(_ENTITY_KINDS, values)


def fact_values(record: FactRecord) -> dict:
    """The ``:Fact`` node ``store/create_facts`` creates for ``record``, plus the subject's
    and object's names for stubs."""
    row = record.to_row()
    values = fact_node_properties(row)["props"]
    unknown = set(values) - _FACT_PROPS
    if unknown:
        raise NotRepresentable(f"fact {row['id']}: properties {sorted(unknown)} are not in the "
                               "bulk layout (kg/bulk/layout.py FACT_COLUMNS)")
    _check(_FACT_KINDS, values)
    values["subject_name"] = row["subject_name"]
    values["object_name"] = row["object_name"]
    return values


# ---- rows as tuples (the Spark parse task) ---------------------------------------------------
# A dump has some 10^9 statements: ``fact_values`` (to_row, fact_node_properties, a check of every
# property, four dicts per fact) costs more than parsing the statement. ``fact_row`` and
# ``entity_row`` give the same values as tuples in column order, built straight from the
# record's fields; whatever the short way does not cover takes ``fact_values``/``entity_values``
# (tests/test_bulk_rows.py checks both ways agree).

FACT_ROW_NAMES = tuple(c.name for c in FACT_COLUMNS + FACT_EXTRA_COLUMNS)
ENTITY_ROW_NAMES = tuple(c.name for c in ENTITY_COLUMNS)
_ROW_EXTRAS = frozenset({"value_precision", "language"})  # what the Wikidata parser puts in extra
_STR_OR_NONE = frozenset({str, type(None)})
_INT_OR_NONE = frozenset({int, type(None)})
_FLOAT_OR_NONE = frozenset({float, type(None)})
# What json.dumps(ensure_ascii=False) writes for one string (the C encoder's own function).
_json_string = json.encoder.encode_basestring


def fact_row(record: FactRecord) -> tuple:
    """``fact_values(record)`` as a tuple in ``FACT_ROW_NAMES`` order (None: no property).

    Raises ``NotRepresentable`` where ``fact_values`` does, with the same message.
    """
    d = record.__dict__
    extra = d["extra"]
    if d["seen_in"] or (extra and not extra.keys() <= _ROW_EXTRAS):
        return _row_of(fact_values(record), FACT_ROW_NAMES)
    source, subject_id, relation, object_id = d["source"], d["subject_id"], d["relation"], d["object_id"]
    value, unit, start, end, point_in_time = d["value"], d["unit"], d["start"], d["end"], d["point_in_time"]
    statement_id = d["statement_id"]
    fact_id = d["fact_id"]
    if not fact_id:
        # stable_id's canonical JSON of a list of strings and nulls, joined here; a part of
        # any other type goes through json.dumps as stable_id does.
        parts = (source, subject_id, relation, object_id, value, unit, start, end, point_in_time,
                 statement_id, d["id_key"])
        try:
            text = "[" + ",".join(["null" if p is None else _json_string(p) for p in parts]) + "]"
        except TypeError:
            fact_id = stable_id("f:", *parts)
        else:
            fact_id = "f:" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]
    start_year, end_year = d["start_year"], d["end_year"]
    if start is not None or end is not None or point_in_time is not None \
            or start_year is not None or end_year is not None:
        start_year, end_year = record.years()
    if extra:
        value_precision, language = extra.get("value_precision"), extra.get("language")
    else:
        value_precision = language = None
    strings = (subject_id, object_id, relation, d["relation_label"], value, d["datatype"], unit, start,
               d["start_precision"], end, d["end_precision"], point_in_time,
               d["point_in_time_precision"], d["snapshot"], d["rank"], statement_id, source,
               d["source_file"], d["layer"], value_precision, language, fact_id)
    value_num = d["value_num"]
    if not (set(map(type, strings)) <= _STR_OR_NONE and type(value_num) in _FLOAT_OR_NONE
            and type(start_year) in _INT_OR_NONE and type(end_year) in _INT_OR_NONE):
        return _row_of(fact_values(record), FACT_ROW_NAMES)  # raises, or a str/float subclass
    return (fact_id, subject_id, object_id, "relation" if object_id is not None else "attribute",
            relation, d["relation_label"], value, value_num, d["datatype"], unit, start,
            d["start_precision"], end, d["end_precision"], point_in_time,
            d["point_in_time_precision"], start_year, end_year,
            start_year is not None or end_year is not None, d["snapshot"], d["rank"], statement_id,
            source, d["source_file"], d["layer"], value_precision, language, None, None, None,
            d["subject_name"], d["object_name"])


def entity_row(record: EntityRecord) -> tuple:
    """``entity_values(record)`` as a tuple in ``ENTITY_ROW_NAMES`` order (None: no property).

    Raises what ``entity_values`` raises, with the same message.
    """
    d = record.__dict__
    aliases = d["aliases"]
    if d["extra"] or "" in aliases:  # [""]: entity_values refuses it
        return _row_of(entity_values(record), ENTITY_ROW_NAMES)
    labels = validate_labels(d["labels"])  # as to_row, first
    alias_text = " | ".join(aliases)  # a TypeError for a non-string alias, as to_row
    record_id, name, description, popularity = d["id"], d["name"], d["description"], d["popularity"]
    domain, source, source_file = d["domain"], d["source"], d["source_file"]
    if not (set(map(type, (record_id, name, description, domain, source, source_file))) <= _STR_OR_NONE
            and type(popularity) in _FLOAT_OR_NONE and ARRAY_DELIMITER not in alias_text):
        return _row_of(entity_values(record), ENTITY_ROW_NAMES)  # raises, or a str/float subclass
    return (record_id, ["Entity", *[label for label in labels if label != "Entity"]], name, list(aliases) or None,
            alias_text, description, popularity, domain, source, source_file, False)


def _row_of(values: dict, names: tuple[str, ...]) -> tuple:
    return tuple([values.get(name) for name in names])


def relation_values(record: RelationRecord) -> dict:
    row = record.to_row()
    return {"id": row["id"], **row["props"]}


# ---- CSV -----------------------------------------------------------------------------------

def header_line(columns: Iterable[Column], id_space: str) -> str:
    return ",".join(c.header(id_space) for c in columns) + "\n"


def csv_field(value, kind: str) -> str | None:
    """A value as the import tool reads it; None for a missing property (empty, unquoted)."""
    if value is None:
        return None
    if kind.endswith("[]"):
        return ARRAY_DELIMITER.join(str(v) for v in value)
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "double":
        return repr(float(value))
    return str(value)


def write_small_csv(path: Path, columns: tuple[Column, ...], rows: Iterable[dict]) -> int:
    """Write rows (header-less) with Python's csv module; for the small vocabulary files.

    A missing property must be an empty *unquoted* field and an empty string a quoted
    ``""``, which the csv module cannot tell apart, so each line is assembled here.
    """
    n = 0
    with open(path, "w", encoding="utf-8", newline="") as fh:
        for row in rows:
            fields = []
            for column in columns:
                text = csv_field(row.get(column.name), column.kind)
                if text is None:
                    fields.append("")
                elif text == "" or any(ch in text for ch in ',"\n\r') or text != text.strip():
                    fields.append('"' + text.replace('"', '""') + '"')
                else:
                    fields.append(text)
            fh.write(",".join(fields) + "\n")
            n += 1
    return n


# ---- manifest --------------------------------------------------------------------------------

@dataclass(frozen=True)
class FileGroup:
    """One ``--nodes`` or ``--relationships`` argument: a label or type, a header, the parts."""

    kind: str  # nodes or relationships
    name: str  # label for nodes (or "" when the files carry :LABEL), type for relationships
    header: str
    parts: tuple[str, ...]
    rows: int

    def argument(self, root: Path) -> str:
        files = ",".join(str(root / f) for f in (self.header, *self.parts))
        return f"--{self.kind}={self.name}={files}" if self.name else f"--{self.kind}={files}"


def write_manifest(root: Path, *, groups: list[FileGroup], multiline: bool, counts: dict,
                   report: dict, source: dict) -> Path:
    data = {"version": FORMAT_VERSION, "array_delimiter": ARRAY_DELIMITER_OPTION,
            "multiline_fields": multiline, "counts": counts, "source": source,
            "groups": [{"kind": g.kind, "name": g.name, "header": g.header, "parts": list(g.parts),
                        "rows": g.rows} for g in groups],
            "load_report": report}
    path = root / MANIFEST
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def read_manifest(root: Path) -> dict:
    path = Path(root) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(f"no {MANIFEST}: not a folder written by `knowforge load wikidata "
                         "--engine spark`", path=str(root)) from exc
    except ValueError as exc:
        raise InputError(f"unreadable manifest: {exc}", path=str(path)) from exc
    if data.get("version") != FORMAT_VERSION:
        raise InputError(f"bulk layout version {data.get('version')!r}; this knowforge reads "
                         f"version {FORMAT_VERSION}", path=str(path))
    for group in data["groups"]:
        for name in (group["header"], *group["parts"]):
            if not (Path(root) / name).is_file():
                raise InputError(f"file {name} listed in the manifest is missing", path=str(root))
    return data


def manifest_groups(data: dict) -> list[FileGroup]:
    return [FileGroup(g["kind"], g["name"], g["header"], tuple(g["parts"]), g["rows"])
            for g in data["groups"]]

"""The Spark task's rows (``layout.fact_row``, ``layout.entity_row``) against the dict rows of
``fact_values``/``entity_values``, the reference: the same values of the same types in the same
columns, and the same ``NotRepresentable`` (or other exception) with the same message.

Checked on every record of the bundled sample, of the synthetic dump, of randomly damaged
documents, and on hand-made records that leave the short way (years seen, extra properties,
values of the wrong type, a given fact id, strings JSON must escape).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

import wikidata_reference as reference
from knowforge.kg.bulk import layout
from knowforge.kg.loaders.base import iter_lines
from knowforge.kg.loaders.samples import samples_dir
from knowforge.kg.loaders.wikidata_json import WikidataDocParser
from knowforge.kg.records import EntityRecord, FactRecord
from test_wikidata_fast_parser import damage

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from make_wikidata_dump import entity_document, write_dump  # noqa: E402

SAMPLE = samples_dir() / "wikidata" / "entities.json"


def typed(row):
    # 1 == 1.0 == True: compare the types too
    return None if row is None else tuple((type(v).__name__, v) for v in row)


def outcome(fn, record):
    try:
        return ("row", typed(fn(record)))
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome compared
        return ("raised", type(exc).__name__, str(exc))


def reference_fact_row(record):
    values = layout.fact_values(record)
    return tuple(values.get(name) for name in layout.FACT_ROW_NAMES)


def reference_entity_row(record):
    values = layout.entity_values(record)
    return tuple(values.get(name) for name in layout.ENTITY_ROW_NAMES)


def assert_same_rows(facts, entities=()):
    for record in facts:
        assert outcome(layout.fact_row, record) == outcome(reference_fact_row, record), record
    for record in entities:
        assert outcome(layout.entity_row, record) == outcome(reference_entity_row, record), record


def parsed_records(lines):
    parser = WikidataDocParser(source_file="dump.json.bz2")
    facts, entities = [], []
    for _, raw in lines:
        try:
            parsed = parser.parse_line(raw)
        except Exception:  # noqa: BLE001 - damaged documents the parser refuses give no rows
            continue
        if parsed is None:
            continue
        facts += parsed.facts
        if parsed.entity:
            entities.append(parsed.entity)
    return facts, entities


def test_row_columns_are_the_part_columns():
    assert layout.FACT_ROW_NAMES == tuple(c.name for c in layout.FACT_COLUMNS + layout.FACT_EXTRA_COLUMNS)
    assert layout.ENTITY_ROW_NAMES == tuple(c.name for c in layout.ENTITY_COLUMNS)


def test_sample_and_synthetic_dump_rows(tmp_path, monkeypatch):
    facts, entities = parsed_records(iter_lines(SAMPLE))
    more_facts, more_entities = parsed_records(iter_lines(write_dump(tmp_path / "dump.json", 1500, seed=5)))
    facts += more_facts
    entities += more_entities
    assert len(facts) > 8000 and len(entities) > 1500
    kinds = {f.datatype or "item" for f in facts}
    assert {"item", "time", "quantity", "string"} <= kinds
    assert any(f.start for f in facts) and any(f.point_in_time for f in facts)
    assert_same_rows(facts, entities)
    # the parser's records all take the short way (fact_values is the way out of it)
    calls = []
    original = layout.fact_values
    monkeypatch.setattr(layout, "fact_values", lambda record: calls.append(1) or original(record))
    for record in facts:
        layout.fact_row(record)
    assert calls == []


def test_damaged_documents_rows():
    rng = random.Random("bulk-rows:damage")
    sample_docs = [doc for _, raw in iter_lines(SAMPLE) if (doc := reference.parse_line(raw))]
    pool = [d for d in sample_docs if d.get("claims")][:60] + \
        [entity_document(i, random.Random(f"doc:{i}")) for i in range(40)]
    lines = [(i, json.dumps(damage(rng.choice(pool), rng), separators=(",", ":")).encode() + b",")
             for i in range(2000)]
    facts, entities = parsed_records(lines)
    assert len(facts) > 3000
    assert_same_rows(facts, entities)
    # damage never reaches the rows as a value the import tool cannot store: the loaders' record
    # checks (kg/loaders/checks.py) refuse such records, with their line, before any row is made
    raised = [r for r in facts if outcome(reference_fact_row, r)[0] == "raised"]
    assert raised == []


BASE = dict(subject_id="Q1", relation="P39", source="wikidata", object_id="Q2", rank="normal",
            statement_id="Q1$a", source_file="d.json.bz2", subject_name="One", relation_label="position")


@pytest.mark.parametrize("changes", [
    {},
    {"object_id": None, "value": "5", "value_num": 5.0, "datatype": "quantity", "unit": "metre"},
    {"object_id": None, "value": 'quote " back \\ slash \x1f\x00\u2028 é 😀 \ud7ff', "datatype": "string"},
    {"object_id": None, "value": "x", "datatype": "monolingualtext", "extra": {"language": "en"}},
    {"object_id": None, "value": "x", "datatype": "monolingualtext", "extra": {"language": None}},
    {"object_id": None, "value": "1990", "datatype": "time", "extra": {"value_precision": "year"}},
    {"start": "1990-05", "start_precision": "month", "end": "-0044", "end_precision": "year"},
    {"end": "2001-01-01"},
    {"point_in_time": "2004", "point_in_time_precision": "year"},
    {"point_in_time": "2004", "start": "2001"},
    {"start_year": 1900},
    {"start_year": 1900, "end_year": 1950, "start": "1800"},
    {"seen_in": (2022, 2021, 2022)},
    {"seen_in": ()},
    {"fact_id": "f:given"},
    {"fact_id": ""},
    {"id_key": "v2"},
    {"id_key": 7},
    {"snapshot": "2024-01", "layer": "edit"},
    {"statement_id": 17},
    {"rank": True},
    {"object_id": ["Q2"]},
    {"object_id": None, "value": "5", "value_num": 5},
    {"object_id": None, "value": "5", "value_num": True},
    {"object_id": None, "value": 5},
    {"object_id": None, "value": "x", "extra": {"language": 3}},
    {"extra": {"qualifier": "x"}},
    {"extra": {"rank": "preferred"}},
    {"extra": {}},
    {"start_year": True},
    {"start_year": 1.5},
    {"relation_label": None, "source_file": None, "statement_id": None, "subject_name": None},
    {"subject_id": type("Sub", (str,), {})("Q1")},
    {"start": "not a date"},
])
def test_hand_made_fact_rows(changes):
    record = FactRecord(**{**BASE, **changes})
    assert_same_rows([record])


@pytest.mark.parametrize("changes", [
    {}, {"labels": ("Human", "Person"), "aliases": ("a;b", "c"), "description": "d", "popularity": 3.0},
    {"aliases": ("a\x1fb",)}, {"aliases": ("",)}, {"aliases": [""]}, {"aliases": ("", "a")},
    {"aliases": ("a", 5)}, {"aliases": ["a", "b"]}, {"popularity": 3}, {"popularity": None},
    {"name": 5}, {"name": None}, {"id": 7}, {"description": ["x"]}, {"source_file": "f.bz2"},
    {"extra": {"qualifier": 1}}, {"extra": {"name": "x"}}, {"labels": ("Entity",)},
    {"labels": ("Person", "Entity")}, {"labels": ("No Such Label",)}, {"labels": (5,)},
])
def test_hand_made_entity_rows(changes):
    record = EntityRecord(**{"id": "Q1", "name": "One", "source": "wikidata", "domain": "general", **changes})
    assert_same_rows([], [record])

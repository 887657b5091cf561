"""Fuzzing the Wikidata and newterms parsers with Hypothesis: any JSON value in any field of a
valid record.

Properties, for every generated line:

- the parser never raises (a line that is not JSON at all is the one ``ValueError``);
- the Wikidata fast path and the reference path give the same records and skips;
- every record is loaded or reported: the document gives its entity (or relation) or a reason,
  and each statement of an allow-listed property gives exactly one fact or one skip;
- a newterms record gives its entity and fact, or exactly one reported problem.

A few examples go through the real loaders into the test Neo4j, between two good records.
The examples are derandomized (the same ones on every run) and bounded, so ``make test`` runs
them in seconds.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import wipe
from knowforge.kg.loaders.base import LoadContext
from knowforge.kg.loaders.newterms import _term, load_newterms
from knowforge.kg.loaders.wikidata_json import WikidataDocParser, load_wikidata_json, parse_line

FUZZ = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
THROUGH_NEO4J = settings(FUZZ, max_examples=15)

# Any JSON value: text with lone surrogates too, integers of any size, NaN and infinities
# (json.dumps writes them as NaN/Infinity, which json.loads reads back).
TEXT = st.text(st.characters(exclude_categories=()), max_size=12)
SCALARS = (st.none() | st.booleans() | st.integers() | st.floats() | TEXT
           | st.sampled_from(["", "value", "item", "normal", "deprecated", "+2020-13-45T00:00:00Z",
                              "-0000-01-01T00:00:00Z", "NaN", "1e400", "Q5", "http://www.wikidata.org/entity/Q11573"]))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(TEXT | st.sampled_from(["en", "value", "time", "id"]), inner, max_size=3),
                    max_leaves=8)


def statement(pid: str, datatype: str, value, vtype: str, sid: str, **extra) -> dict:
    return {"mainsnak": {"snaktype": "value", "property": pid, "datatype": datatype,
                         "datavalue": {"value": value, "type": vtype}},
            "type": "statement", "id": sid, "rank": "normal", **extra}


TIME = {"time": "+1961-08-04T00:00:00Z", "timezone": 0, "before": 0, "after": 0, "precision": 11,
        "calendarmodel": "http://www.wikidata.org/entity/Q1985727"}
ITEM = {"type": "item", "id": "Q2", "labels": {"en": {"language": "en", "value": "Two"}},
        "descriptions": {"en": {"language": "en", "value": "the second"}},
        "aliases": {"en": [{"language": "en", "value": "II"}]},
        "sitelinks": {"enwiki": {"site": "enwiki", "title": "Two"}},
        "claims": {
            "P31": [statement("P31", "wikibase-item", {"entity-type": "item", "numeric-id": 5, "id": "Q5"},
                              "wikibase-entityid", "Q2$a")],
            "P569": [statement("P569", "time", TIME, "time", "Q2$b")],
            "P1082": [statement("P1082", "quantity", {"amount": "+1500", "unit": "1"}, "quantity", "Q2$c")],
            "P1448": [statement("P1448", "monolingualtext", {"text": "Two", "language": "en"},
                                "monolingualtext", "Q2$d")],
            "P39": [statement("P39", "wikibase-item", {"entity-type": "item", "id": "Q30185"},
                              "wikibase-entityid", "Q2$e",
                              qualifiers={"P580": [{"snaktype": "value", "property": "P580", "datatype": "time",
                                                    "datavalue": {"value": TIME, "type": "time"}}]})],
        }}


def paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from paths(value, prefix + (i,))


ITEM_PATHS = [p for p in paths(ITEM) if p]


@st.composite
def damaged_items(draw) -> str:
    """The item with one to three of its fields (at any depth) replaced by any JSON value or
    deleted, as one dump line."""
    doc = copy.deepcopy(ITEM)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(ITEM_PATHS))
        parent = doc
        try:
            for key in where[:-1]:
                parent = parent[key]
            if isinstance(parent, dict) and draw(st.booleans()) and draw(st.booleans()):
                del parent[where[-1]]
            else:
                parent[where[-1]] = draw(JSON)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier replacement took this path away
    return json.dumps(doc) + ","


STATEMENT_OUTCOMES = {"bad_value", "deprecated_rank", "no_value", "unknown_datatype"}


def allowed_statements(doc, properties) -> int:
    """How many statement slots of allow-listed properties the document holds (a property whose
    statements are not a list counts as one)."""
    claims = doc.get("claims")
    if not isinstance(claims, dict):
        return 0
    return sum(len(v) if isinstance(v, list) else 1 for k, v in claims.items() if k in properties)


@FUZZ
@given(damaged_items())
def test_wikidata_parser_never_raises_and_accounts_for_every_statement(raw):
    parser = WikidataDocParser(source_file="fuzz.json")
    fast = parser.parse_line(raw.encode("utf-8"))
    doc = parse_line(raw.encode("utf-8"))
    reference = parser.parse(doc)
    assert (fast.entity, fast.facts, fast.relation, fast.skipped) == \
        (reference.entity, reference.facts, reference.relation, reference.skipped)
    if fast.entity is None:  # the document as a whole is refused or left out, with its reason
        assert fast.relation is not None or [r for r, _ in fast.skipped if r in ("bad_document", "not_an_item")]
        return
    outcomes = [r for r, _ in fast.skipped if r in STATEMENT_OUTCOMES]
    assert len(fast.facts) + len(outcomes) == allowed_statements(doc, parser.properties)


@FUZZ
@given(st.integers(1, 20_000), st.sampled_from("[{"))
def test_wikidata_parser_refuses_any_depth_as_malformed_json(depth, bracket):
    raw = ('{"type": "item", "id": "Q2", "x": ' + bracket * depth + ("]" if bracket == "[" else "")
           * depth + "}").encode()
    try:
        parsed = WikidataDocParser().parse_line(raw)
    except ValueError:
        return                                         # malformed (unbalanced "{") or too deep
    assert parsed.entity is not None and parsed.entity.id == "Q2"


TERM = {"term": "alpha", "meaning": "the first", "type": "new word", "year": 2022, "source": "Collins"}


@st.composite
def term_records(draw):
    record = dict(TERM)
    for key in draw(st.lists(st.sampled_from([*TERM, "whole"]), min_size=1, max_size=3, unique=True)):
        if key == "whole":
            return draw(JSON)
        if draw(st.booleans()) and draw(st.booleans()):
            record.pop(key, None)
        else:
            record[key] = draw(JSON)
    return record


@FUZZ
@given(term_records())
def test_newterms_record_is_loaded_or_reported_once(record):
    # One record is only buffered (the sink writes at 10): no store is needed, and the sink's
    # buffers show what would be written.
    ctx = LoadContext(None, "newterms", batch_size=10)
    _term(ctx, Path("fuzz.jsonl"), 1, record, None)
    buffered = len(ctx.sink._entities), len(ctx.sink._facts)
    assert (buffered, ctx.report.problem_count) in (((1, 1), 0), ((0, 0), 1)), (record, ctx.report.as_dict())


# ---- through the real loaders and Neo4j ---------------------------------------------------------

GOOD = [{"type": "item", "id": q, "labels": {"en": {"value": name}},
         "claims": {"P569": [statement("P569", "time", TIME, "time", f"{q}$t")]}}
        for q, name in (("Q1", "Alpha"), ("Q3", "Omega"))]


def good_ids(store, query: str) -> list[str]:
    return [r["id"] for r in store.user_query(query)]


@THROUGH_NEO4J
@given(damaged_items())
def test_wikidata_loader_keeps_the_good_documents_around_any_damage(session_store, tmp_path_factory, raw):
    wipe(session_store)
    path = tmp_path_factory.mktemp("fuzz") / "dump.json"
    path.write_text("\n".join(["[", json.dumps(GOOD[0]) + ",", raw, json.dumps(GOOD[1]), "]"]) + "\n",
                    encoding="utf-8")
    report = load_wikidata_json(session_store, [path])
    assert report.records_read == 3
    assert good_ids(session_store, "MATCH (e:Entity)-[:HAS_FACT]->(:Fact {relation: 'P569'}) "
                                   "WHERE e.id IN ['Q1', 'Q3'] RETURN e.id AS id ORDER BY id") == ["Q1", "Q3"]
    # the damaged document: loaded (under whatever id it now has), reported at its line, or
    # counted as something other than an item
    assert (report.entities_written == 3 or any(p.line == 3 for p in report.problems)
            or report.skipped["not_an_item"] == 1), report.as_dict()


@THROUGH_NEO4J
@given(term_records())
def test_newterms_loader_keeps_the_good_terms_around_any_record(session_store, tmp_path_factory, record):
    wipe(session_store)
    path = tmp_path_factory.mktemp("fuzz") / "terms.jsonl"
    lines = [{"term": "first good term", "meaning": "m1", "year": 2022}, record,
             {"term": "last good term", "meaning": "m2", "year": 2022}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    report = load_newterms(session_store, [path])
    assert report.records_read == 3
    terms = good_ids(session_store, "MATCH (t:Term)-[:HAS_FACT]->(:Fact {relation: 'meaning'}) "
                                    "RETURN DISTINCT t.name AS id ORDER BY id")
    assert {"first good term", "last good term"} <= set(terms)
    reported = [p for p in report.problems if p.line == 2]
    assert (len(reported) == 1) != (report.facts_written == 3), report.as_dict()

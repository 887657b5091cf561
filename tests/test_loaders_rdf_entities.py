"""``load_wikidata_rdf(entities=...)``: the listed QIDs plus the entities they reference (depth 1),
for N-Triples (streamed in chunks) and Turtle, truthy ``wdt:`` and statement ``p:/ps:/pq:`` forms."""

from __future__ import annotations

import pytest
import rdflib

from knowforge.kg.loaders import wikidata_rdf
from knowforge.kg.loaders.wikidata_rdf import load_wikidata_rdf

PREFIXES = """
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wds: <http://www.wikidata.org/entity/statement/> .
@prefix wdv: <http://www.wikidata.org/value/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix p: <http://www.wikidata.org/prop/> .
@prefix ps: <http://www.wikidata.org/prop/statement/> .
@prefix pq: <http://www.wikidata.org/prop/qualifier/> .
@prefix pqv: <http://www.wikidata.org/prop/qualifier/value/> .
@prefix wikibase: <http://wikiba.se/ontology#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""


def entity_blocks(filler: int) -> list[str]:
    """Q1001 is listed. It references Q2001 (truthy wdt:P39) and Q2002 (statement P54); its
    deprecated P54 statement points at Q2004, which is therefore NOT referenced. Q3001/Q3002
    are depth 2, Q9999 and the fillers are referenced by nobody that is listed."""
    blocks = ["""
wd:Q1001 rdfs:label "Listed person"@en ; wdt:P31 wd:Q5 ; wdt:P39 wd:Q2001 ;
  p:P54 wds:Q1001-s1, wds:Q1001-s2 .
wds:Q1001-s1 ps:P54 wd:Q2002 ; wikibase:rank wikibase:NormalRank ;
  pq:P580 "2010-07-01T00:00:00Z"^^xsd:dateTime ; pqv:P580 wdv:a1 .
wds:Q1001-s2 ps:P54 wd:Q2004 ; wikibase:rank wikibase:DeprecatedRank .
wdv:a1 wikibase:timeValue "2010-07-01T00:00:00Z"^^xsd:dateTime ; wikibase:timePrecision 11 .
""", """
wd:Q2001 rdfs:label "Referenced office"@en ; wdt:P17 wd:Q3001 .
""", """
wd:Q2002 rdfs:label "Referenced club"@en ; p:P118 wds:Q2002-s1 .
wds:Q2002-s1 ps:P118 wd:Q3002 ; wikibase:rank wikibase:PreferredRank ;
  pq:P580 "1999-01-01T00:00:00Z"^^xsd:dateTime ; pqv:P580 wdv:a2 .
wdv:a2 wikibase:timeValue "1999-01-01T00:00:00Z"^^xsd:dateTime ; wikibase:timePrecision 9 .
""", """
wd:Q2004 rdfs:label "Only deprecated target"@en ; wdt:P17 wd:Q3003 .
""", """
wd:Q3001 rdfs:label "Depth two country"@en ; wdt:P36 wd:Q3004 .
""", """
wd:Q3002 rdfs:label "Depth two league"@en ; wdt:P17 wd:Q3001 .
""", """
wd:Q9999 rdfs:label "Not referenced"@en ; wdt:P39 wd:Q2001 ; p:P54 wds:Q9999-s1 .
wds:Q9999-s1 ps:P54 wd:Q2002 ; wikibase:rank wikibase:NormalRank .
"""]
    blocks += [f'\nwd:Q{50000 + i} rdfs:label "Filler {i}"@en ; wdt:P17 wd:Q3001 .\n'
               for i in range(filler)]
    return blocks


def write_dump(path, blocks):
    if path.suffix == ".ttl":
        path.write_text(PREFIXES + "".join(blocks), encoding="utf-8")
        return path
    lines = []
    for block in blocks:  # grouped by entity, as the dumps are
        g = rdflib.Graph()
        g.parse(data=PREFIXES + block, format="turtle")
        lines.extend(sorted(g.serialize(format="nt").strip().splitlines()))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def facts_of(store, qid):
    return store.user_query(
        "MATCH (:Entity {id:$id})-[:HAS_FACT]->(f:Fact) "
        "RETURN f.relation AS r, f.object_id AS o, f.start AS start ORDER BY r, o", {"id": qid})


@pytest.mark.parametrize("name", ["dump.nt", "dump.ttl"])
def test_rdf_entities_loads_depth_one(store, tmp_path, monkeypatch, name):
    # Tiny chunks so the N-Triples reader cuts the dump between entities many times.
    monkeypatch.setattr(wikidata_rdf, "CHUNK_LINES", 3)
    path = write_dump(tmp_path / name, entity_blocks(filler=20))
    report = load_wikidata_rdf(store, [path], entities=["Q1001"])
    assert report.errors == 0
    assert facts_of(store, "Q1001") == [
        {"r": "P31", "o": "Q5", "start": None}, {"r": "P39", "o": "Q2001", "start": None},
        {"r": "P54", "o": "Q2002", "start": "2010-07-01"}]
    # the referenced objects' own triples, truthy and statement forms, are loaded
    assert facts_of(store, "Q2001") == [{"r": "P17", "o": "Q3001", "start": None}]
    assert facts_of(store, "Q2002") == [{"r": "P118", "o": "Q3002", "start": "1999"}]
    names = {r["id"]: r["name"] for r in store.user_query(
        "MATCH (e:Entity) WHERE e.id IN ['Q2001','Q2002'] RETURN e.id AS id, e.name AS name")}
    assert names == {"Q2001": "Referenced office", "Q2002": "Referenced club"}
    # depth 2, the deprecated-only target, the unreferenced entity and the fillers are not loaded
    for qid in ("Q3001", "Q3002", "Q2004", "Q9999", "Q50000"):
        assert facts_of(store, qid) == [], qid
    absent = store.user_query("MATCH (e:Entity) WHERE e.id IN ['Q2004','Q9999','Q3003','Q3004','Q50000'] "
                              "RETURN e.id AS id")
    assert absent == []
    # Q3001/Q3002 exist only as objects of depth-1 facts, never with their own label
    depth2 = store.user_query("MATCH (e:Entity) WHERE e.id IN ['Q3001','Q3002'] "
                              "RETURN e.id AS id, e.name = 'Depth two country' OR "
                              "e.name = 'Depth two league' AS own ORDER BY id")
    assert depth2 == [{"id": "Q3001", "own": False}, {"id": "Q3002", "own": False}]
    assert report.skipped["not_in_entity_list"] == 4 + 20  # Q2004, Q3001, Q3002, Q9999, fillers
    assert report.skipped["deprecated_rank"] == 1


def test_rdf_entities_bad_line_reported_once(store, tmp_path):
    blocks = entity_blocks(filler=0)
    path = write_dump(tmp_path / "dump.nt", blocks)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.insert(2, "<http://www.wikidata.org/entity/Q1001> this is not a triple .")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = load_wikidata_rdf(store, [path], entities=["Q1001"])
    assert [p.line for p in report.problems if p.reason == "malformed_triple"] == [3]
    assert facts_of(store, "Q2001") == [{"r": "P17", "o": "Q3001", "start": None}]

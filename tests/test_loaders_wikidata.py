"""Wikidata JSON dump loader against the real Neo4j: layouts, compression, damage, qualifiers."""

from __future__ import annotations

import bz2
import gzip
import json

import pytest

from knowforge.errors import InputError
from knowforge.kg.loaders.wikidata_common import parse_time, parse_xsd_time
from knowforge.kg.loaders.wikidata_json import WikidataDocParser, load_wikidata_json
from knowforge.kg.temporal import object_timeline


def time_value(text, precision):
    return {"time": text, "timezone": 0, "before": 0, "after": 0, "precision": precision,
            "calendarmodel": "http://www.wikidata.org/entity/Q1985727"}


def time_snak(pid, text, precision):
    return {"snaktype": "value", "property": pid, "datatype": "time",
            "datavalue": {"value": time_value(text, precision), "type": "time"}}


def item_statement(qid, pid, target, sid, *, rank="normal", start=None, end=None, pit=None):
    qualifiers = {}
    for qpid, spec in (("P580", start), ("P582", end), ("P585", pit)):
        if spec:
            qualifiers[qpid] = [time_snak(qpid, *spec)]
    return {"mainsnak": {"snaktype": "value", "property": pid, "datatype": "wikibase-item",
                         "datavalue": {"value": {"entity-type": "item", "numeric-id": int(target[1:]),
                                                 "id": target}, "type": "wikibase-entityid"}},
            "type": "statement", "id": f"{qid}${sid}", "rank": rank, "qualifiers": qualifiers,
            "qualifiers-order": list(qualifiers)}


def value_statement(qid, pid, datatype, datavalue, sid):
    return {"mainsnak": {"snaktype": "value", "property": pid, "datatype": datatype,
                         "datavalue": datavalue},
            "type": "statement", "id": f"{qid}${sid}", "rank": "normal"}


def entity(qid, label, claims=None, *, description=None, aliases=(), sitelinks=0):
    doc = {"type": "item", "id": qid, "labels": {"en": {"language": "en", "value": label}},
           "claims": {}}
    if description:
        doc["descriptions"] = {"en": {"language": "en", "value": description}}
    if aliases:
        doc["aliases"] = {"en": [{"language": "en", "value": a} for a in aliases]}
    doc["sitelinks"] = {f"site{i}wiki": {"site": f"site{i}wiki", "title": label} for i in range(sitelinks)}
    for st in claims or ():
        doc["claims"].setdefault(st["mainsnak"]["property"], []).append(st)
    return doc


def instance_of(qid, cls, sid):
    return item_statement(qid, "P31", cls, sid)


def sample_documents():
    """A small, hand-checked set: Obama's offices, a club's coaches, BCE dates, odd values."""
    return [
        entity("Q76", "Barack Obama", [
            instance_of("Q76", "Q5", "a1"),
            item_statement("Q76", "P39", "Q11696", "p1", start=("+2009-01-20T00:00:00Z", 11),
                           end=("+2017-01-20T00:00:00Z", 11)),
            item_statement("Q76", "P39", "Q13217683", "p2", start=("+2005-01-03T00:00:00Z", 11),
                           end=("+2008-11-16T00:00:00Z", 11)),
            item_statement("Q76", "P27", "Q30", "c1", rank="preferred"),
            item_statement("Q76", "P27", "Q884", "c2", rank="deprecated"),
            value_statement("Q76", "P569", "time",
                            {"value": time_value("+1961-08-04T00:00:00Z", 11), "type": "time"}, "b1"),
            value_statement("Q76", "P1618", "string", {"value": "44", "type": "string"}, "n1"),
            # an allow-listed property with a datatype the loader does not know
            value_statement("Q76", "P19", "geo-shape-of-the-future",
                            {"value": "Data:Hawaii.map", "type": "string"}, "x1"),
        ], description="president of the United States from 2009 to 2017",
            aliases=("Obama", "Barack Hussein Obama II"), sitelinks=7),
        entity("Q11696", "President of the United States", [instance_of("Q11696", "Q4164871", "a2")]),
        entity("Q30", "United States of America", [
            instance_of("Q30", "Q6256", "a3"),
            value_statement("Q30", "P1082", "quantity",
                            {"value": {"amount": "+331449281", "unit": "1"}, "type": "quantity"}, "q1"),
        ], sitelinks=3),
        entity("Q913", "Socrates", [
            instance_of("Q913", "Q5", "a4"),
            value_statement("Q913", "P569", "time",
                            {"value": time_value("-0470-00-00T00:00:00Z", 9), "type": "time"}, "b2"),
            item_statement("Q913", "P27", "Q1073", "c3", pit=("-0399-00-00T00:00:00Z", 9)),
        ]),
        entity("Q18656", "Chelsea F.C.", [
            instance_of("Q18656", "Q476028", "a5"),
            item_statement("Q18656", "P286", "Q1000001", "h1", start=("+2010-03-00T00:00:00Z", 10),
                           end=("+2011-05-00T00:00:00Z", 10)),
            item_statement("Q18656", "P286", "Q1000002", "h2", start=("+2011-06-22T00:00:00Z", 11)),
            value_statement("Q18656", "P1082", "quantity",
                            {"value": {"amount": "+41837", "unit": "http://www.wikidata.org/entity/Q11570"},
                             "type": "quantity"}, "q2"),
        ]),
    ]


def write_dump(path, docs, *, layout="dump", opener=open, bad_line_after=None):
    lines = []
    for i, doc in enumerate(docs):
        lines.append(json.dumps(doc, separators=(",", ":")))
        if bad_line_after is not None and i == bad_line_after:
            lines.append('{"type":"item","id":"Q999","labels":{')
    if layout == "dump":
        body = "[\n" + ",\n".join(lines) + "\n]\n"
    else:
        body = "\n".join(lines) + "\n"
    with opener(path, "wt", encoding="utf-8") as fh:
        fh.write(body)
    return path


def graph_counts(store):
    row = store.user_query(
        "MATCH (n) WITH count(n) AS nodes, sum(size(keys(n))) AS props, "
        "sum(size(labels(n))) AS labels "
        "OPTIONAL MATCH ()-[r]->() RETURN nodes, props, labels, count(r) AS rels")[0]
    return row


def fact(store, statement_id):
    rows = store.user_query("MATCH (f:Fact {statement_id: $sid}) RETURN properties(f) AS f",
                            {"sid": statement_id})
    return rows[0]["f"] if rows else None


# ---- pure parsing ------------------------------------------------------------------------------

def test_parse_time_precisions_and_bce():
    assert parse_time("+2009-01-20T00:00:00Z", 11) == ("2009-01-20", "day")
    assert parse_time("+2010-03-00T00:00:00Z", 10) == ("2010-03", "month")
    assert parse_time("+2010-00-00T00:00:00Z", 9) == ("2010", "year")
    # historical -0470 (470 BCE) is astronomical -469
    assert parse_time("-0470-00-00T00:00:00Z", 9) == ("-0469", "year")
    assert parse_time("-0001-00-00T00:00:00Z", 9) == ("0000", "year")          # 1 BCE
    assert parse_time("-0001-02-29T00:00:00Z", 11) == ("0000-02-29", "day")    # a leap year


@pytest.mark.parametrize("precision,name", [(0, "billion years"), (1, "hundred million years"),
                                            (2, "ten million years"), (3, "million years"),
                                            (4, "hundred thousand years"), (5, "ten thousand years"),
                                            (6, "millennium"), (7, "century"), (8, "decade"),
                                            (12, "hour"), (13, "minute"), (14, "second")])
def test_every_precision_of_the_data_model_has_its_own_name(precision, name):
    text, got = parse_time("-13798000000-00-00T00:00:00Z" if precision < 9 else "+2001-02-03T04:05:06Z",
                           precision)
    assert got == name
    # coarser than a year: the year alone, and a BCE number names an era, so it is not moved
    assert text == ("-13798000000" if precision < 9 else "2001-02-03")


@pytest.mark.parametrize("value,precision,why", [
    ("+2020-13-45T00:00:00Z", 11, "month 13"),
    ("+2020-13-00T00:00:00Z", 9, "month 13"),
    ("+2020-04-31T00:00:00Z", 11, "day 31 does not exist in month 04"),
    ("+2021-02-29T00:00:00Z", 11, "day 29"),
    ("+2020-00-00T00:00:00Z", 10, "month 00"),
    ("+2020-05-00T00:00:00Z", 11, "day 00"),
    ("-0000-01-01T00:00:00Z", 11, "year 0"),
    ("+0000-00-00T00:00:00Z", 9, "year 0"),
    ("+2020-01-01T00:00:00Z", 15, "precision 15"),
    ("+2020-01-01T00:00:00Z", -1, "precision -1"),
    ("+2020-01-01T00:00:00Z", True, "precision True"),
    ("+2020-01-01T00:00:00Z", 11.0, "precision 11.0"),
    ("+12345678901234567-01-01T00:00:00Z", 9, "16 digits"),
    ("2020", 9, "not a Wikibase time"),
])
def test_dates_the_data_model_does_not_allow_are_refused(value, precision, why):
    with pytest.raises(ValueError, match=why):
        parse_time(value, precision)


def test_xsd_dates_are_checked_too():
    assert parse_xsd_time("0000-01-01T00:00:00Z", 9) == ("0000", "year")    # XSD 1.1: 1 BCE
    assert parse_xsd_time("2009-01-20T00:00:00Z", 3) == ("2009", "million years")
    for bad, why in (("2020-13-01T00:00:00Z", "month 13"), ("2019-02-29T00:00:00Z", "day 29"),
                     ("2020-01-01T00:00:00Z", "precision 20")):
        with pytest.raises(ValueError, match=why):
            parse_xsd_time(bad, 20 if "precision" in why else None)


def test_parser_reads_labels_ranks_and_values():
    parsed = WikidataDocParser().parse(sample_documents()[0])
    assert parsed.entity.name == "Barack Obama"
    assert parsed.entity.labels == ("Person",)
    assert parsed.entity.popularity == 7.0
    assert parsed.entity.aliases == ("Obama", "Barack Hussein Obama II")
    by_sid = {f.statement_id: f for f in parsed.facts}
    assert by_sid["Q76$c1"].rank == "preferred"
    assert "Q76$c2" not in by_sid
    assert by_sid["Q76$p1"].start == "2009-01-20" and by_sid["Q76$p1"].end_precision == "day"
    assert by_sid["Q76$b1"].value == "1961-08-04" and by_sid["Q76$b1"].datatype == "time"
    reasons = [r for r, _ in parsed.skipped]
    assert reasons.count("deprecated_rank") == 1 and reasons.count("unknown_datatype") == 1


def test_parser_property_allow_list():
    parsed = WikidataDocParser({"P27"}).parse(sample_documents()[0])
    assert {f.relation for f in parsed.facts} == {"P27"}
    # domain labels still come from P31 even when P31 facts are not loaded
    assert parsed.entity.labels == ("Person",)


# ---- loading into Neo4j --------------------------------------------------------------------------

def test_load_dump_layout(store, tmp_path):
    path = write_dump(tmp_path / "entities.json", sample_documents())
    report = load_wikidata_json(store, [path])
    assert report.records_read == 5
    assert report.entities_written == 5
    assert report.skipped["deprecated_rank"] == 1
    assert report.skipped["unknown_datatype"] == 1
    assert report.errors == 0

    obama = store.user_query("MATCH (e:Entity {id:'Q76'}) RETURN e, labels(e) AS labels")[0]
    assert obama["e"]["name"] == "Barack Obama" and obama["e"]["popularity"] == 7.0
    assert "Person" in obama["labels"]
    assert "Country" in store.user_query("MATCH (e {id:'Q30'}) RETURN labels(e) AS l")[0]["l"]
    assert "Club" in store.user_query("MATCH (e {id:'Q18656'}) RETURN labels(e) AS l")[0]["l"]

    # month-precision qualifiers
    coach = fact(store, "Q18656$h1")
    assert coach["start"] == "2010-03" and coach["start_precision"] == "month"
    assert coach["end"] == "2011-05" and coach["start_year"] == 2010 and coach["end_year"] == 2011
    # BCE: value and point-in-time qualifier
    born = fact(store, "Q913$b2")
    assert born["value"] == "-0469" and born["value_precision"] == "year"
    citizen = fact(store, "Q913$c3")
    assert citizen["point_in_time"] == "-0398" and citizen["start_year"] == -398
    # quantities: unitless and a unit resolved to its label
    assert fact(store, "Q30$q1")["value_num"] == 331449281.0
    assert "unit" not in fact(store, "Q30$q1")
    assert fact(store, "Q18656$q2")["unit"] == "kilogram"
    # ranks and the relation vocabulary
    assert fact(store, "Q76$c1")["rank"] == "preferred"
    assert fact(store, "Q76$c2") is None
    labels = {r["id"]: r["label"] for r in store.user_query("MATCH (r:Relation) RETURN r.id AS id, r.label AS label")}
    assert labels["P39"] == "position held" and labels["P286"] == "head coach"

    timeline = object_timeline(store, "Q76", "P39", 2004, 2018, gap_fill=False)
    assert timeline[2004] == []
    assert timeline[2006] == ["Q13217683"]  # not in the file: a stub named by its QID
    assert timeline[2008] == timeline[2006]
    assert timeline[2009] == ["President of the United States"]
    assert timeline[2017] == ["President of the United States"]
    assert timeline[2018] == []


def test_reload_changes_nothing(store, tmp_path):
    path = write_dump(tmp_path / "entities.json", sample_documents())
    first = load_wikidata_json(store, [path])
    before = graph_counts(store)
    second = load_wikidata_json(store, [path])
    assert graph_counts(store) == before
    assert (first.entities_written, first.facts_written) == (second.entities_written, second.facts_written)


def test_plain_jsonl(store, tmp_path):
    path = write_dump(tmp_path / "entities.jsonl", sample_documents(), layout="jsonl")
    report = load_wikidata_json(store, [path])
    assert report.entities_written == 5 and report.errors == 0


@pytest.mark.parametrize("suffix,opener", [(".json.gz", gzip.open), (".json.bz2", bz2.open)])
def test_compressed(store, tmp_path, suffix, opener):
    path = write_dump(tmp_path / f"entities{suffix}", sample_documents(), opener=opener)
    report = load_wikidata_json(store, [path])
    assert report.entities_written == 5 and report.errors == 0


def many_documents(n):
    return [entity(f"Q{100000 + i}", f"Person {i}", [
        instance_of(f"Q{100000 + i}", "Q5", f"a{i}"),
        item_statement(f"Q{100000 + i}", "P54", f"Q{200000 + i % 97}", f"t{i}",
                       start=(f"+{2000 + i % 20}-00-00T00:00:00Z", 9))])
        for i in range(n)]


@pytest.mark.parametrize("suffix,compress", [(".json.gz", gzip.compress), (".json.bz2", bz2.compress)])
def test_truncated_archive_keeps_what_was_read(store, tmp_path, suffix, compress):
    docs = many_documents(3000)
    plain = write_dump(tmp_path / "full.json", docs)
    data = compress(plain.read_bytes())
    path = tmp_path / f"cut{suffix}"
    path.write_bytes(data[: len(data) * 2 // 3])
    report = load_wikidata_json(store, [path])
    assert report.errors == 1
    problem = [p for p in report.problems if p.reason == "truncated_input"][0]
    assert problem.path == str(path) and problem.line is not None
    # every complete line before the damage was loaded: lines 2 .. line-1 are documents
    assert 0 < report.entities_written == problem.line - 2 < 3000
    loaded = store.user_query("MATCH (e:Entity:Person) RETURN count(e) AS n")[0]["n"]
    assert loaded == report.entities_written


def test_truncated_archive_strict_raises_after_writing(store, tmp_path):
    plain = write_dump(tmp_path / "full.json", many_documents(3000))
    data = gzip.compress(plain.read_bytes())
    path = tmp_path / "cut.json.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="cut.json.gz:"):
        load_wikidata_json(store, [path], strict=True)
    assert store.user_query("MATCH (e:Entity:Person) RETURN count(e) AS n")[0]["n"] > 0


def test_malformed_line_in_the_middle(store, tmp_path):
    path = write_dump(tmp_path / "entities.json", sample_documents(), bad_line_after=1)
    report = load_wikidata_json(store, [path])
    # line 1 "[", lines 2-3 documents, line 4 the broken one
    bad = [p for p in report.problems if p.reason == "malformed_json"]
    assert [(p.path, p.line) for p in bad] == [(str(path), 4)]
    assert report.skipped["malformed_json"] == 1
    assert report.entities_written == 5  # the rest is loaded


def test_malformed_line_strict(store, tmp_path):
    path = write_dump(tmp_path / "entities.json", sample_documents(), bad_line_after=1)
    with pytest.raises(InputError, match=r"entities.json:line 4: malformed JSON"):
        load_wikidata_json(store, [path], strict=True)


def test_entities_restricts_to_list_and_depth_one(store, tmp_path):
    docs = sample_documents() + [entity("Q1073", "Classical Athens", [instance_of("Q1073", "Q515", "z")])]
    path = write_dump(tmp_path / "entities.json", docs)
    report = load_wikidata_json(store, [path], entities={"Q76"})
    ids = {r["id"] for r in store.user_query("MATCH (e:Entity) WHERE NOT e.stub RETURN e.id AS id")}
    # Q76 plus the documents of the items it references (Q11696, Q30); not Socrates or Athens
    assert ids == {"Q76", "Q11696", "Q30"}
    assert report.skipped["not_in_entity_list"] == 3

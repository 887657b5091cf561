"""Hostile records, a table per loader: a good record, a bad one, a good one, into the real Neo4j.

Every row of a table writes the loader's own input with the bad record between two good ones
and loads it. The load must not raise, both good records must be in the graph (one bad value
never costs its batch), and the bad record must be reported with its reason, file and line.
The bad records are the ones a careful user found (issue 28): JSON nested 10,000 deep, parts of
the wrong shape, numbers past 64 bits or past a float, NaN, impossible dates, lone surrogates,
empty ids, values the driver refuses.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.kg.loaders.registry import load_source
from knowforge.kg.loaders.wikidata_sparql import load_wikidata_sparql
from test_newterm_wordnet import write_wordnet

DEEP = "[" * 10_000 + "]" * 10_000


@dataclass
class Case:
    """The input written for one row, and what must come of it."""

    paths: list[Path]
    bad_path: str
    bad_line: int | None
    good: list[str]                     # ids of entities (or fact subjects, see `facts`) to find
    facts: str | None = None            # when set: `good` are subjects of facts with this relation


def present(store, case: Case) -> list[str]:
    if case.facts is None:
        rows = store.user_query("MATCH (e:Entity) WHERE e.id IN $ids AND NOT coalesce(e.stub, false) "
                                "RETURN e.id AS id ORDER BY id", {"ids": case.good})
    else:
        rows = store.user_query("MATCH (e:Entity)-[:HAS_FACT]->(:Fact {relation: $r}) WHERE e.id IN $ids "
                                "RETURN DISTINCT e.id AS id ORDER BY id", {"ids": case.good, "r": case.facts})
    return [r["id"] for r in rows]


def check(store, report, case: Case, reason: str) -> None:
    assert present(store, case) == sorted(case.good)
    found = [(p.path, p.line) for p in report.problems if p.reason == reason]
    assert (case.bad_path, case.bad_line) in found, (reason, report.as_dict()["problems"])


# ---- newterms -----------------------------------------------------------------------------------

def term(name: str, **extra) -> str:
    return json.dumps({"term": name, "meaning": f"the meaning of {name}", "year": 2022, **extra})


NEWTERMS = [
    ("nested 10,000 deep", '{"term": "x", "meaning": "m", "year": ' + DEEP + "}", "malformed_json"),
    ("a list, not a record", "[1, 2]", "missing_field"),
    ("type is a number", term("t", type=5), "bad_field"),
    ("source is an object", term("t", source={"a": 1}), "bad_field"),
    ("meaning is a list", json.dumps({"term": "t", "meaning": ["m"], "year": 2022}), "bad_field"),
    ("year past a float", '{"term": "t", "meaning": "m", "year": 1e400}', "bad_year"),
    ("year past 64 bits", json.dumps({"term": "t", "meaning": "m", "year": 10**30}), "bad_year"),
    ("year is true", json.dumps({"term": "t", "meaning": "m", "year": True}), "bad_year"),
    ("year is NaN", '{"term": "t", "meaning": "m", "year": NaN}', "bad_year"),
    ("a lone surrogate", '{"term": "t\\ud800", "meaning": "m", "year": 2022}', "bad_value"),
    ("no meaning", json.dumps({"term": "t", "year": 2022}), "missing_field"),
]


@pytest.mark.parametrize("bad,reason", [c[1:] for c in NEWTERMS], ids=[c[0] for c in NEWTERMS])
def test_newterms(store, tmp_path, bad, reason):
    path = tmp_path / "terms.jsonl"
    path.write_text("\n".join([term("alpha"), bad, term("omega")]) + "\n", encoding="utf-8")
    case = Case([path], str(path), 2, ["term:alpha", "term:omega"])
    check(store, load_source(store, "newterms", case.paths), case, reason)


NEWTERMS_TSV = [("wrong column count", "t\tm\tnew word", "wrong_column_count"),
                ("year is not a number", "t\tm\tnew word\t20x2\tCollins", "bad_year")]


@pytest.mark.parametrize("bad,reason", [c[1:] for c in NEWTERMS_TSV], ids=[c[0] for c in NEWTERMS_TSV])
def test_newterms_tsv(store, tmp_path, bad, reason):
    path = tmp_path / "terms.tsv"
    path.write_text("term\tmeaning\ttype\tyear\tsource\n" "alpha\tfirst\tnew word\t2021\tCollins\n"
                    f"{bad}\n" "omega\tlast\tnew word\t2021\tCollins\n", encoding="utf-8")
    case = Case([path], str(path), 3, ["term:alpha", "term:omega"])
    check(store, load_source(store, "newterms", case.paths), case, reason)


# ---- Wikidata JSON ------------------------------------------------------------------------------

def item(qid: str, label, **parts) -> dict:
    return {"type": "item", "id": qid, "labels": {"en": {"language": "en", "value": label}}, **parts}


def claim(pid: str, datatype: str, value, *, sid: str = "Q2$s", qualifiers=None, vtype=None) -> dict:
    snak = {"snaktype": "value", "property": pid, "datatype": datatype,
            "datavalue": {"type": vtype or datatype, "value": value}}
    statement = {"mainsnak": snak, "type": "statement", "id": sid, "rank": "normal"}
    if qualifiers:
        statement["qualifiers"] = qualifiers
    return {pid: [statement]}


def born(time: str, precision=11) -> dict:
    return claim("P569", "time", {"time": time, "precision": precision, "timezone": 0,
                                  "calendarmodel": "http://www.wikidata.org/entity/Q1985727"})


def good_item(qid: str, name: str) -> dict:
    return item(qid, name, claims=born("+1961-08-04T00:00:00Z"))


def line(doc) -> str:
    return (doc if isinstance(doc, str) else json.dumps(doc)) + ","


WIKIDATA = [
    ("nested 10,000 deep", '{"type": "item", "id": "Q2", "x": ' + DEEP + "}", "malformed_json"),
    ("labels as a list", {"type": "item", "id": "Q2", "labels": [{"en": "x"}]}, "bad_document"),
    ("claims as a list", {"type": "item", "id": "Q2", "claims": [{"P569": []}]}, "bad_document"),
    ("a label that is an object", item("Q2", {"a": 1}), "bad_document"),
    ("a label with a lone surrogate", '{"type": "item", "id": "Q2", "labels": {"en": {"value": "x\\ud800"}}}',
     "bad_document"),
    ("type is a number", {"type": 5, "id": "Q2"}, "bad_document"),
    ("id is a list", {"type": "item", "id": ["Q2"]}, "bad_document"),
    ("a statement that is a number", item("Q2", "Two", claims={"P569": [5]}), "bad_value"),
    ("month 13, day 45", item("Q2", "Two", claims=born("+2020-13-45T00:00:00Z")), "bad_value"),
    ("year 0", item("Q2", "Two", claims=born("-0000-01-01T00:00:00Z")), "bad_value"),
    ("precision 15", item("Q2", "Two", claims=born("+2020-01-01T00:00:00Z", 15)), "bad_value"),
    ("a NaN amount", item("Q2", "Two", claims=claim("P1082", "quantity", {"amount": "NaN", "unit": "1"})),
     "bad_value"),
    ("an amount past a float", '{"type": "item", "id": "Q2", "claims": {"P1082": [{"mainsnak": {"snaktype": '
     '"value", "datatype": "quantity", "datavalue": {"type": "quantity", "value": {"amount": 1e400}}}, '
     '"id": "Q2$q", "rank": "normal"}]}}', "bad_value"),
    ("a numeric id past a float", '{"type": "item", "id": "Q2", "claims": {"P27": [{"mainsnak": {"snaktype": '
     '"value", "datatype": "wikibase-item", "datavalue": {"type": "wikibase-entityid", "value": '
     '{"numeric-id": 1e400}}}, "id": "Q2$c", "rank": "normal"}]}}', "bad_value"),
    ("an unknown rank", item("Q2", "Two", claims={"P569": [{**born("+2001-01-01T00:00:00Z")["P569"][0],
                                                            "rank": ["normal"]}]}), "bad_value"),
    ("a start of day 45", item("Q2", "Two", claims=claim(
        "P39", "wikibase-item", {"entity-type": "item", "id": "Q30185"}, vtype="wikibase-entityid",
        qualifiers={"P580": [{"snaktype": "value", "datavalue": {
            "type": "time", "value": {"time": "+2005-11-45T00:00:00Z", "precision": 11}}}]})),
     "bad_qualifier"),
]


@pytest.mark.parametrize("bad,reason", [c[1:] for c in WIKIDATA], ids=[c[0] for c in WIKIDATA])
def test_wikidata_json(store, tmp_path, bad, reason):
    path = tmp_path / "dump.json"
    path.write_text("\n".join(["[", line(good_item("Q1", "Alpha")), line(bad),
                               line(good_item("Q3", "Omega")), "]"]) + "\n", encoding="utf-8")
    case = Case([path], str(path), 3, ["Q1", "Q3"])
    report = load_source(store, "wikidata", case.paths)
    check(store, report, case, reason)
    assert present(store, Case([], "", None, ["Q1", "Q3"], facts="P569")) == ["Q1", "Q3"]


# ---- Wikidata RDF (N-Triples) -------------------------------------------------------------------

WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
XSD = "http://www.w3.org/2001/XMLSchema#"


def label_triple(qid: str, name: str) -> str:
    return f'<{WD}{qid}> <http://www.w3.org/2000/01/rdf-schema#label> "{name}"@en .'


RDF = [
    ("not a triple", f"<{WD}Q2> <{WDT}P31", "malformed_triple"),
    ("an infinite double", f'<{WD}Q2> <{WDT}P1082> "INF"^^<{XSD}double> .', "bad_value"),
    ("month 13", f'<{WD}Q2> <{WDT}P569> "2020-13-01T00:00:00Z"^^<{XSD}dateTime> .', "bad_value"),
    ("a sitelink count below 0", f'<{WD}Q2> <http://wikiba.se/ontology#sitelinks> "-5"^^<{XSD}integer> .',
     "bad_value"),
    ("a precision that is not a number", '<http://www.wikidata.org/value/t9> '
     '<http://wikiba.se/ontology#timePrecision> "eleven" .', "bad_value"),
]


@pytest.mark.parametrize("bad,reason", [c[1:] for c in RDF], ids=[c[0] for c in RDF])
def test_wikidata_rdf(store, tmp_path, bad, reason):
    path = tmp_path / "dump.nt"
    path.write_text("\n".join([label_triple("Q1", "Alpha"), bad, label_triple("Q3", "Omega")]) + "\n",
                    encoding="utf-8")
    case = Case([path], str(path), 2, ["Q1", "Q3"])
    check(store, load_source(store, "rdf", case.paths), case, reason)


# ---- Wikidata over SPARQL -----------------------------------------------------------------------

class CannedSparql:
    """A SPARQL endpoint on 127.0.0.1 that answers every query with the same result rows."""

    def __init__(self, rows: list):
        body = json.dumps({"head": {"vars": []}, "results": {"bindings": rows}}).encode("utf-8")

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(200)
                self.send_header("Content-Type", "application/sparql-results+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/sparql"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def uri(value: str) -> dict:
    return {"type": "uri", "value": value}


def population(qid: str, value: dict) -> dict:
    return {"item": uri(WD + qid), "statement": uri(f"{WD}statement/{qid}-p"),
            "rank": uri("http://wikiba.se/ontology#NormalRank"), "value": value,
            "itemLabel": {"type": "literal", "value": qid, "xml:lang": "en"}}


def number(text: str, datatype: str = "decimal") -> dict:
    return {"type": "literal", "datatype": XSD + datatype, "value": text}


SPARQL = [
    ("an infinite double", population("Q2", number("INF", "double")), "bad_value"),
    ("not a number", population("Q2", number("lots")), "bad_value"),
    ("a date past the month", population("Q2", number("2021-02-29T00:00:00Z", "dateTime")), "bad_value"),
    ("no value", {k: v for k, v in population("Q2", number("1")).items() if k != "value"}, "bad_sparql_row"),
    ("a binding that is a number", {**population("Q2", number("1")), "item": 5}, "bad_sparql_row"),
]


@pytest.mark.parametrize("bad,reason", [c[1:] for c in SPARQL], ids=[c[0] for c in SPARQL])
def test_wikidata_sparql(store, bad, reason):
    server = CannedSparql([population("Q1", number("5")), bad, population("Q3", number("7"))])
    try:
        report = load_wikidata_sparql(store, properties=["P1082"], endpoint=server.url, max_pages=1)
    finally:
        server.close()
    case = Case([], f"{server.url} P1082 offset 1", None, ["Q1", "Q3"], facts="P1082")
    check(store, report, case, reason)


# ---- UMLS ---------------------------------------------------------------------------------------

def conso(cui: str, text: str) -> str:
    return "|".join([cui, "ENG", "P", "L1", "PF", "S1", "Y", f"A{cui}", "", "", "", "MSH", "PT", "D1",
                     text, "0", "N", ""]) + "|"


def rrf_rel(cui1: str, cui2: str) -> str:
    return "|".join([cui1, "A1", "SCUI", "RO", cui2, "A2", "SCUI", "may_treat", "R1", "", "NDFRT",
                     "NDFRT", "", "N", "N", ""]) + "|"


UMLS = [
    ("MRCONSO", "an empty CUI", conso("", "Nameless"), "missing_cui"),
    ("MRCONSO", "too few columns", "C9|ENG|P|", "wrong_column_count"),
    ("MRREL", "an empty second CUI", rrf_rel("C1", ""), "missing_cui"),
    ("MRSTY", "an empty semantic type", "C1|T047|B2||AT1||", "empty_field"),
]


@pytest.mark.parametrize("table,bad,reason", [c[:1] + c[2:] for c in UMLS], ids=[c[1] for c in UMLS])
def test_umls(store, tmp_path, table, bad, reason):
    meta = tmp_path / "2021AA" / "META"
    meta.mkdir(parents=True)
    files = {"MRCONSO": [conso("C1", "Alphaitis"), conso("C3", "Omegamycin")],
             "MRREL": [rrf_rel("C1", "C3"), rrf_rel("C3", "C1")],
             "MRSTY": ["C1|T047|B2|Disease or Syndrome|AT1||", "C3|T121|A1|Pharmacologic Substance|AT2||"]}
    files[table].insert(1, bad)
    for name, rows in files.items():
        (meta / f"{name}.RRF").write_text("\n".join(rows) + "\n", encoding="utf-8")
    case = Case([tmp_path / "2021AA"], str(meta / f"{table}.RRF"), 2, ["umls:C1", "umls:C3"],
                facts="may_treat" if table == "MRREL" else None)
    report = load_source(store, "umls", case.paths)
    check(store, report, case, reason)
    assert not store.user_query("MATCH (e:Entity {id: 'umls:'}) RETURN e")


# ---- taxonomy: NCBI dmp and EOL CSV -------------------------------------------------------------

def dmp(*fields: str) -> str:
    return "\t|\t".join(fields) + "\t|"


def node(tax_id: str, parent: str) -> str:
    return dmp(tax_id, parent, "species", "", "2", "1", "1", "1", "2", "1", "0", "0", "")


TAXONOMY_DMP = [
    ("names.dmp", "a tax id that is not a number", dmp("x9", "Bad", "", "scientific name"), "bad_tax_id"),
    ("names.dmp", "an empty name", dmp("2", "", "", "scientific name"), "empty_field"),
    ("names.dmp", "a row that does not end in tab-bar", "2\t|\tBad\t|\t\t|\tscientific name", "bad_dmp_row"),
    ("nodes.dmp", "a parent that is not a number", node("2", "one"), "bad_tax_id"),
]


@pytest.mark.parametrize("name,bad,reason", [c[:1] + c[2:] for c in TAXONOMY_DMP],
                         ids=[c[1] for c in TAXONOMY_DMP])
def test_taxonomy_dmp(store, tmp_path, name, bad, reason):
    files = {"names.dmp": [dmp("1", "Alphidae", "", "scientific name"), dmp("3", "Omegidae", "", "scientific name")],
             "nodes.dmp": [node("1", "1"), node("3", "1")]}
    files[name].insert(1, bad)
    for file, rows in files.items():
        (tmp_path / file).write_text("\n".join(rows) + "\n", encoding="utf-8")
    case = Case([tmp_path], str(tmp_path / name), 2, ["ncbi:1", "ncbi:3"])
    check(store, load_source(store, "taxonomy", case.paths), case, reason)


TRAITS_HEADER = "eol_pk,page_id,scientific_name,predicate,object_page_id,value_uri,measurement,units,literal,source"
TAXONOMY_CSV = [
    ("traits.csv", "a NaN measurement", "R2,2,Bad,body mass,,,nan,kg,,x", "bad_measurement"),
    ("traits.csv", "an infinite measurement", "R2,2,Bad,body mass,,,1e400,kg,,x", "bad_measurement"),
    ("traits.csv", "no page id", "R2,,Bad,body mass,,,5,kg,,x", "empty_field"),
    ("traits.csv", "no predicate", "R2,2,Bad,,,,5,kg,,x", "no_predicate"),
    ("pages.csv", "a tax id that is not a number", "2,Badus,species,x9", "bad_tax_id"),
    ("pages.csv", "no page id", ",Badus,species,", "empty_field"),
]


@pytest.mark.parametrize("name,bad,reason", [c[:1] + c[2:] for c in TAXONOMY_CSV],
                         ids=[c[1] for c in TAXONOMY_CSV])
def test_taxonomy_csv(store, tmp_path, name, bad, reason):
    files = {"pages.csv": ["page_id,canonical_name,rank,ncbi_tax_id", "1,Alphus,species,", "3,Omegus,species,"],
             "traits.csv": [TRAITS_HEADER, "R1,1,Alphus,body mass,,,5,kg,,x", "R3,3,Omegus,body mass,,,7,kg,,x"]}
    files[name].insert(2, bad)
    for file, rows in files.items():
        (tmp_path / file).write_text("\n".join(rows) + "\n", encoding="utf-8")
    case = Case([tmp_path], str(tmp_path / name), 3, ["eol:1", "eol:3"], facts="body_mass")
    check(store, load_source(store, "taxonomy", case.paths), case, reason)


# ---- Math-KG and CSKG ---------------------------------------------------------------------------

MATHKG = [("two fields", b"lonely\tis a", "wrong_column_count"),
          ("an empty subject", b"\tis a\tnumber", "wrong_column_count"),
          ("not UTF-8", b"caf\xe9\tis a\tnumber", "bad_encoding")]


@pytest.mark.parametrize("bad,reason", [c[1:] for c in MATHKG], ids=[c[0] for c in MATHKG])
def test_mathkg(store, tmp_path, bad, reason):
    path = tmp_path / "triples.tsv"
    path.write_bytes(b"subject\trelation\tobject\nalpha\tis a\tnumber\n" + bad + b"\nomega\tis a\tnumber\n")
    case = Case([path], str(path), 3, ["mathkg:alpha", "mathkg:omega"], facts="is_a")
    check(store, load_source(store, "mathkg", case.paths), case, reason)


CSKG_HEADER = "id\tnode1\trelation\tnode2\tnode1;label\tnode2;label\trelation;label\trelation;dimension\tsource\tsentence"
CSKG = [("no node1", "e2\t\t/r/IsA\t/c/en/fruit\t\tfruit\tis a\t\tCN\t", "empty_field"),
        ("a relation with no name", "e2\t/c/en/pear\t/r/\t/c/en/fruit\tpear\tfruit\t\t\tCN\t", "empty_field"),
        ("too few columns", "e2\t/c/en/pear\t/r/IsA", "wrong_column_count")]


@pytest.mark.parametrize("bad,reason", [c[1:] for c in CSKG], ids=[c[0] for c in CSKG])
def test_cskg(store, tmp_path, bad, reason):
    path = tmp_path / "cskg.tsv"
    path.write_text("\n".join([CSKG_HEADER, "e1\t/c/en/apple\t/r/IsA\t/c/en/fruit\tapple\tfruit\tis a\t\tCN\t",
                               bad, "e3\t/c/en/plum\t/r/IsA\t/c/en/fruit\tplum\tfruit\tis a\t\tCN\t"]) + "\n",
                    encoding="utf-8")
    case = Case([path], str(path), 3, ["cskg:/c/en/apple", "cskg:/c/en/plum"], facts="IsA")
    check(store, load_source(store, "cskg", case.paths), case, reason)


# ---- CFR and WordNet ----------------------------------------------------------------------------

PART = ('<?xml version="1.0" encoding="UTF-8"?>\n<ECFR><DIV1 N="14" TYPE="TITLE"><DIV5 N="107" TYPE="PART">\n'
        '<DIV8 N="107.51" TYPE="SECTION">\n<HEAD>§ 107.51 Limits.</HEAD>\n'
        '<P>(a) The groundspeed may not exceed {speed}.</P>\n</DIV8>\n</DIV5></DIV1></ECFR>\n')


def test_cfr_a_broken_edition_between_two_good_ones(store, tmp_path):
    for year, text in ((2019, PART.format(speed="100 miles per hour")),
                       (2020, PART.format(speed="90 knots").replace("</P>", "")),
                       (2021, PART.format(speed="87 knots"))):
        (tmp_path / str(year)).mkdir()
        (tmp_path / str(year) / "title-14-part-107.xml").write_text(text, encoding="utf-8")
    report = load_source(store, "cfr", [tmp_path])
    bad = str(tmp_path / "2020" / "title-14-part-107.xml")
    assert [(p.reason, p.path) for p in report.problems] == [("xml_parse_error", bad)]
    assert report.problems[0].line == 6  # where the parser finds the <P> unclosed
    texts = store.user_query("MATCH (:Entity {id: 'cfr:14/107/107.51/a'})-[:HAS_FACT]->(f:Fact) "
                             "RETURN f.seen_in AS years ORDER BY years")
    assert texts == [{"years": [2019]}, {"years": [2021]}]


def test_wordnet_a_broken_synset_between_two_good_ones(store, tmp_path):
    write_wordnet(tmp_path / "wn")   # data.adj: good, bad, broken (stops early), nice
    report = load_source(store, "wordnet", [tmp_path / "wn"])
    data_adj = str(tmp_path / "wn" / "data.adj")
    assert ("malformed_data_line", data_adj, 3) in [(p.reason, p.path, p.line) for p in report.problems]
    case = Case([], "", None, ["wn:lemma:bad", "wn:lemma:nice"])
    assert present(store, case) == ["wn:lemma:bad", "wn:lemma:nice"]


# ---- through the CLI: no traceback, the problems listed -----------------------------------------

def test_cli_prints_each_bad_record_and_no_traceback(store, graph_env, tmp_path):
    path = tmp_path / "terms.jsonl"
    path.write_text("\n".join([term("alpha"), NEWTERMS[0][1], term("t", type=5),
                               '{"term": "t", "meaning": "m", "year": 1e400}', term("omega")]) + "\n",
                    encoding="utf-8")
    result = CliRunner().invoke(cli, ["load", "newterms", str(path), "--silent"])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    for lineno, reason in ((2, "malformed_json"), (3, "bad_field"), (4, "bad_year")):
        assert f"{path}:{lineno}:" in result.output.replace("\n", "") and reason in result.output
    assert present(store, Case([], "", None, ["term:alpha", "term:omega"])) == ["term:alpha", "term:omega"]


# ---- the write path: a value that slips past the checks costs only its own record ---------------

def test_a_batch_the_server_refuses_loses_only_the_refused_records(store):
    """Records handed to the sink directly skip the checks of ``LoadContext.record``: the batch
    fails in the driver (an int past 64 bits) and on the server (a map), is written again in
    halves, and only those two records are reported, each with its file and line."""
    from knowforge.kg.loaders.base import LoadContext
    from knowforge.kg.records import EntityRecord, FactRecord

    ctx = LoadContext(store, "test", batch_size=1000)
    for i in range(40):
        extra = {"v": {"a": 1}} if i == 7 else {"v": 10**30} if i == 29 else {"v": i}
        ctx.sink.entity(EntityRecord(id=f"t:{i}", name=f"n{i}", extra=extra), ("e.jsonl", i + 1))
        ctx.sink.fact(FactRecord(subject_id=f"t:{i}", relation="r", value=f"v{i}", source="test",
                                 value_num=float("nan") if i == 13 else None,
                                 extra={"w": ["a", 1]} if i == 13 else None), ("f.jsonl", i + 1))
    report = ctx.finish()
    refused = sorted((p.path, p.line) for p in report.problems if p.reason == "write_refused")
    assert refused == [("e.jsonl", 8), ("e.jsonl", 30), ("f.jsonl", 14)]
    assert report.entities_written == 38 and report.facts_written == 39
    n = store.user_query("MATCH (e:Entity) WHERE e.id STARTS WITH 't:' AND NOT coalesce(e.stub, false) "
                         "RETURN count(e) AS n")
    assert n == [{"n": 38}]


def test_a_statement_that_fails_for_every_row_is_not_blamed_on_the_rows(store):
    from knowforge.kg.loaders.base import LoadContext
    from knowforge.kg.records import EntityRecord

    ctx = LoadContext(store, "test", batch_size=1000)
    for i in range(40):
        ctx.sink.entity(EntityRecord(id=f"t:{i}", name="n", extra={"v": {"a": i}}), ("e.jsonl", i + 1))
    import neo4j

    with pytest.raises(neo4j.exceptions.ClientError):
        ctx.finish()

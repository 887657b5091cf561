"""Wikidata via SPARQL (against a SPARQL-protocol server on 127.0.0.1) and via RDF dumps."""

from __future__ import annotations

import gzip
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import rdflib

from knowforge.kg.loaders.wikidata_rdf import load_wikidata_rdf
from knowforge.kg.loaders.wikidata_sparql import USER_AGENT, SparqlClient, SparqlError, load_wikidata_sparql

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
@prefix schema: <http://schema.org/> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix data: <https://www.wikidata.org/wiki/Special:EntityData/> .
@prefix cc: <http://creativecommons.org/ns#> .
"""

# Angela Merkel: Chancellor 2005-11-22 .. 2021-12-08; a deprecated statement; a month-precision
# start; a BCE point in time on another subject. As in the real dumps, the counts sit on the
# entity's data node (schema:about the entity), listed just before it.
BLOCKS = ["""
data:Q567 a schema:Dataset ; schema:about wd:Q567 ; cc:license <http://creativecommons.org/publicdomain/zero/1.0/> ;
  schema:softwareVersion "1.0.0" ; schema:version "2254145498"^^xsd:integer ;
  schema:dateModified "2024-10-01T08:00:00Z"^^xsd:dateTime ;
  wikibase:statements "412"^^xsd:integer ; wikibase:sitelinks "250"^^xsd:integer ;
  wikibase:identifiers "156"^^xsd:integer .
wd:Q567 a wikibase:Item ; rdfs:label "Angela Merkel"@en ; skos:altLabel "Merkel"@en ;
  schema:description "German politician"@en ;
  wdt:P31 wd:Q5 ; wdt:P39 wd:Q4970706 ;
  p:P39 wds:Q567-aaa, wds:Q567-bbb, wds:Q567-ccc .
wds:Q567-aaa ps:P39 wd:Q4970706 ; wikibase:rank wikibase:NormalRank ;
  pq:P580 "2005-11-22T00:00:00Z"^^xsd:dateTime ; pqv:P580 wdv:t1 ;
  pq:P582 "2021-12-08T00:00:00Z"^^xsd:dateTime ; pqv:P582 wdv:t2 .
wds:Q567-bbb ps:P39 wd:Q1939555 ; wikibase:rank wikibase:PreferredRank ;
  pq:P580 "1991-01-01T00:00:00Z"^^xsd:dateTime ; pqv:P580 wdv:t3 .
wds:Q567-ccc ps:P39 wd:Q30185 ; wikibase:rank wikibase:DeprecatedRank .
wdv:t1 wikibase:timeValue "2005-11-22T00:00:00Z"^^xsd:dateTime ; wikibase:timePrecision 11 .
wdv:t2 wikibase:timeValue "2021-12-08T00:00:00Z"^^xsd:dateTime ; wikibase:timePrecision 11 .
wdv:t3 wikibase:timeValue "1991-01-01T00:00:00Z"^^xsd:dateTime ; wikibase:timePrecision 10 .
""", """
wd:Q4970706 rdfs:label "Chancellor of Germany"@en ; wdt:P31 wd:Q4164871 .
""", """
wd:Q1939555 rdfs:label "Member of the Bundestag"@en .
""", """
wd:Q913 rdfs:label "Socrates"@en ; p:P39 wds:Q913-ddd .
wds:Q913-ddd ps:P39 wd:Q1000003 ; wikibase:rank wikibase:NormalRank ;
  pq:P585 "-0405-01-01T00:00:00Z"^^xsd:dateTime ; pqv:P585 wdv:t4 .
wdv:t4 wikibase:timeValue "-0405-01-01T00:00:00Z"^^xsd:dateTime ; wikibase:timePrecision 9 .
""", """
wd:Q183 rdfs:label "Germany"@en ; wdt:P31 wd:Q6256 ; wdt:P36 wd:Q64 ; wdt:P1082 "83190556"^^xsd:decimal ;
  wikibase:sitelinks "380"^^xsd:integer .
"""]
# Germany carries its sitelinks on wd:Q183 itself, as the query service's munged RDF does.
DATA = PREFIXES + "".join(BLOCKS)


class SparqlServer:
    """A SPARQL-protocol endpoint: rdflib evaluates GET/POST ``query=`` and answers SPARQL JSON.

    ``fail_first`` requests are answered 429 to exercise the client's retries.
    """

    def __init__(self, graph: rdflib.Graph, fail_first: int = 0, fail_status: int = 429):
        self.graph, self.fail_first, self.fail_status = graph, fail_first, fail_status
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, params):
                server.requests.append({"agent": self.headers.get("User-Agent"),
                                        "query": params.get("query", [""])[0]})
                if len(server.requests) <= server.fail_first:
                    self.send_response(server.fail_status)
                    self.send_header("Retry-After", "0")
                    self.end_headers()
                    return
                body = server.graph.query(params["query"][0]).serialize(format="json")
                self.send_response(200)
                self.send_header("Content-Type", "application/sparql-results+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                self._answer(urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query))

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                self._answer(urllib.parse.parse_qs(self.rfile.read(length).decode("utf-8")))

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/sparql"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def graph():
    g = rdflib.Graph()
    g.parse(data=DATA, format="turtle")
    return g


def facts_by_statement(store):
    return {r["f"]["statement_id"]: r["f"] for r in store.user_query(
        "MATCH (f:Fact) WHERE f.statement_id IS NOT NULL RETURN properties(f) AS f")}


def test_sparql_paging_qualifiers_ranks_and_retry(store, graph):
    waits = []
    with SparqlServer(graph, fail_first=2) as server:
        client = SparqlClient(server.url, backoff=0.01, sleep=waits.append)
        report = load_wikidata_sparql(store, properties=["P39"], endpoint=server.url, page_size=2,
                                      client=client)
    assert waits == [0.01, 0.02]  # exponential backoff on the two 429s
    assert all(r["agent"] == USER_AGENT for r in server.requests)
    assert "knowforge" in USER_AGENT
    # 4 statements in pages of 2: pages at offset 0, 2, 4 (the last one short)
    queries = [r["query"] for r in server.requests[2:]]
    assert [q.rsplit("OFFSET", 1)[1].strip() for q in queries] == ["0", "2", "4"]
    assert report.skipped["deprecated_rank"] == 1 and report.facts_written == 3
    facts = facts_by_statement(store)
    chancellor = facts["Q567$aaa"]
    assert chancellor["start"] == "2005-11-22" and chancellor["end_precision"] == "day"
    assert chancellor["start_year"] == 2005 and chancellor["end_year"] == 2021
    assert facts["Q567$bbb"]["rank"] == "preferred" and facts["Q567$bbb"]["start"] == "1991-01"
    assert facts["Q567$bbb"]["start_precision"] == "month"
    assert facts["Q913$ddd"]["point_in_time"] == "-0405" and facts["Q913$ddd"]["start_year"] == -405
    names = store.user_query("MATCH (e:Entity {id:'Q4970706'}) RETURN e.name AS n")
    assert names == [{"n": "Chancellor of Germany"}]


def test_sparql_gives_up_after_retries(store, graph):
    with SparqlServer(graph, fail_first=100, fail_status=503) as server:
        client = SparqlClient(server.url, retries=2, backoff=0.0, sleep=lambda s: None)
        with pytest.raises(SparqlError, match="503"):
            load_wikidata_sparql(store, properties=["P39"], endpoint=server.url, client=client)
    assert len(server.requests) == 3


def write_nt(path, *, bad_line_at=None):
    """N-Triples grouped by entity as in the dumps (an entity's statements and value nodes together)."""
    lines = []
    for block in BLOCKS:
        g = rdflib.Graph()
        g.parse(data=PREFIXES + block, format="turtle")
        # the dumps write an entity's data node first, then the entity and its statements
        lines.extend(sorted(g.serialize(format="nt").strip().splitlines(),
                            key=lambda line: ("Special:EntityData" not in line.split(" ", 1)[0], line)))
    if bad_line_at is not None:
        lines.insert(bad_line_at, "<http://www.wikidata.org/entity/Q1> this is not a triple .")
    text = "\n".join(lines) + "\n"
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode("utf-8")))
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["dump.nt", "dump.nt.gz", "dump.ttl"])
def test_rdf_statements_and_truthy(store, graph, tmp_path, name):
    path = tmp_path / name
    if name.endswith(".ttl"):
        path.write_text(DATA, encoding="utf-8")
    else:
        write_nt(path)
    report = load_wikidata_rdf(store, [path])
    assert report.errors == 0 and report.skipped["deprecated_rank"] == 1
    facts = facts_by_statement(store)
    assert facts["Q567$aaa"]["start"] == "2005-11-22" and facts["Q567$aaa"]["end"] == "2021-12-08"
    assert facts["Q567$bbb"]["start"] == "1991-01" and facts["Q567$bbb"]["rank"] == "preferred"
    assert facts["Q913$ddd"]["point_in_time"] == "-0405"
    # the truthy P39 triple of Q567 duplicates a statement: not loaded twice
    assert store.user_query("MATCH (f:Fact {subject_id:'Q567', relation:'P39'}) RETURN count(f) AS n")[0]["n"] == 2
    germany = store.user_query("MATCH (e:Entity:Country {id:'Q183'})-[:HAS_FACT]->(f:Fact) "
                               "RETURN f.relation AS r, f.object_id AS o, f.value_num AS v ORDER BY r")
    assert germany == [{"r": "P1082", "o": None, "v": 83190556.0}, {"r": "P31", "o": "Q6256", "v": None},
                       {"r": "P36", "o": "Q64", "v": None}]
    merkel = store.user_query("MATCH (e:Person {id:'Q567'}) RETURN e.name AS n, e.aliases AS a, e.popularity AS p, "
                              "e.statement_count AS s, e.identifier_count AS i")
    assert merkel == [{"n": "Angela Merkel", "a": ["Merkel"], "p": 250.0, "s": 412, "i": 156}]
    germany = store.user_query("MATCH (e:Entity {id:'Q183'}) RETURN e.popularity AS p, e.statement_count AS s")
    assert germany == [{"p": 380.0, "s": None}]
    # the chancellor position has no data node and no counts: no popularity
    assert store.user_query("MATCH (e:Entity {id:'Q4970706'}) RETURN e.popularity AS p") == [{"p": None}]


def test_rdf_data_node_about_another_entity_is_not_used(store, tmp_path):
    path = tmp_path / "odd.ttl"
    path.write_text(PREFIXES + """
data:Q1 schema:about wd:Q2 ; wikibase:sitelinks "99"^^xsd:integer .
wd:Q1 rdfs:label "One"@en .
""", encoding="utf-8")
    report = load_wikidata_rdf(store, [path])
    assert report.skipped["data_node_about_another_entity"] == 1
    assert store.user_query("MATCH (e:Entity {id:'Q1'}) RETURN e.popularity AS p") == [{"p": None}]


def test_rdf_malformed_line_and_reload(store, graph, tmp_path):
    path = write_nt(tmp_path / "dump.nt", bad_line_at=3)
    report = load_wikidata_rdf(store, [path])
    bad = [p for p in report.problems if p.reason == "malformed_triple"]
    assert [(p.line) for p in bad] == [4]
    assert len(facts_by_statement(store)) == 3
    q = "MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, count(r) AS r, sum(size(keys(n))) AS p"
    before = store.user_query(q)
    load_wikidata_rdf(store, [path])
    assert store.user_query(q) == before
    assert json.dumps(report.as_dict())  # the report serialises

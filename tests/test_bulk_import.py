"""``knowforge neo4j import`` of the Spark output gives the graph the UNWIND loader gives for the
same Wikidata input: same nodes, labels, properties and relationships (a digest of the whole
graph and `knowforge stats --json`), and later UNWIND loads work on top of it.

The import stops and restarts its server, so this module runs its own managed Neo4j.
"""

from __future__ import annotations

import json
import socket

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.errors import ConfigError
from knowforge.kg.bulk.admin_import import import_bulk
from knowforge.kg.bulk.digest import graph_digest, graph_lines
from knowforge.kg.connection import GraphSettings, open_store
from knowforge.kg.loaders.samples import samples_dir
from knowforge.kg.loaders.wikidata_json import load_wikidata_json
from knowforge.kg.loaders.wikidata_spark import load_wikidata_spark
from knowforge.kg.neo4j_server import ManagedNeo4j

pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")

SAMPLE = samples_dir() / "wikidata" / "entities.json"


def item(qid, name, claims=(), description=None):
    doc = {"type": "item", "id": qid, "labels": {"en": {"language": "en", "value": name}},
           "aliases": {"en": [{"language": "en", "value": f"{name}; alias"}]}, "claims": {}}
    if description:
        doc["descriptions"] = {"en": {"language": "en", "value": description}}
    for pid, target, sid in claims:
        doc["claims"].setdefault(pid, []).append({
            "mainsnak": {"snaktype": "value", "property": pid, "datatype": "wikibase-item",
                         "datavalue": {"value": {"entity-type": "item", "id": target}, "type": "wikibase-entityid"}},
            "type": "statement", "id": f"{qid}${sid}", "rank": "normal"})
    return json.dumps(doc)


def write_lines(path, lines):
    path.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def bulk_server(neo4j_server, tmp_path_factory):
    """A managed Neo4j of this module's own (the import stops and restarts it)."""
    session_server, _ = neo4j_server
    if session_server is None:
        pytest.skip("needs the managed server's jars (tests run against an external server)")
    server = ManagedNeo4j(home=tmp_path_factory.mktemp("bulk-home"), cache_dir=session_server.cache_dir)
    server.start(timeout=240)
    yield server
    server.stop(timeout=30)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The bundled sample plus a second file whose facts point at entities nobody loads (stubs)
    and whose texts need quoting in CSV; and a later file loaded on top of either graph."""
    folder = tmp_path_factory.mktemp("bulk-inputs")
    extra = write_lines(folder / "extra.json", [
        item("Q900001", 'Ana "the" Tester', [("P27", "Q900100", "a"), ("P26", "Q76", "b")],
             description="line one,\nline two"),
        item("Q900002", "  spaced  ", [("P27", "Q900100", "c"), ("P108", "Q900101", "d")], description=""),
    ])
    later = write_lines(folder / "later.json", [
        item("Q900100", "Stub no more", [("P17", "Q900001", "e")]),
        item("Q900003", "New after import", [("P27", "Q30", "f")]),
    ])
    return [SAMPLE, extra], later


@pytest.fixture(scope="module")
def sample_bulk(spark, inputs, tmp_path_factory):
    """The Spark output of the inputs, parsed once for every test of the module (an import adds
    its import.log and report to the folder and changes nothing else): Spark's jobs cost the
    same on any small input, so one run, not one per test."""
    out = tmp_path_factory.mktemp("sample-bulk") / "bulk"
    return out, load_wikidata_spark(inputs[0], out, partitions=3, spark=spark)


def connect(server):
    status = server.start()
    store = open_store(GraphSettings(uri=status.uri, user="neo4j", password=server.password()))
    store.apply_schema()
    return store


def wipe(store):
    with store.driver.session(database=store.database) as session:
        session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()


def cli_stats(server, monkeypatch):
    monkeypatch.setenv("NEO4J_URI", server.status().uri)
    monkeypatch.setenv("NEO4J_USER", "neo4j")
    monkeypatch.setenv("NEO4J_PASSWORD", server.password())
    result = CliRunner().invoke(cli, ["stats", "--json"], catch_exceptions=False)
    monkeypatch.delenv("NEO4J_URI")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.slow
@pytest.mark.timeout(1800)  # two loads, a Spark run, an import with a server restart
def test_import_gives_the_unwind_graph(bulk_server, inputs, sample_bulk, monkeypatch):
    monkeypatch.delenv("NEO4J_URI", raising=False)
    files, later = inputs

    store = connect(bulk_server)
    wipe(store)
    load_wikidata_json(store, files)
    unwind_lines = list(graph_lines(store))
    unwind_digest = graph_digest(store)
    unwind_stats = cli_stats(bulk_server, monkeypatch)
    load_wikidata_json(store, [later])
    unwind_then_later = graph_digest(store)
    store.close()
    assert any('"stub":true' in line for line in unwind_lines)

    out, spark_result = sample_bulk
    assert spark_result.counts["stubs"] >= 2
    assert spark_result.report.problem_count == 0

    with pytest.raises(ConfigError, match="--overwrite"):
        import_bulk(out, home=bulk_server.home)
    warnings = []
    port = bulk_server.status().bolt_port
    result = import_bulk(out, home=bulk_server.home, overwrite=True, warn=warnings.append)
    assert warnings and "being replaced" in warnings[0]
    assert bulk_server.status().bolt_port == port  # the same URI after the restart
    assert {"stop", "import", "restart", "schema", "indexes"} <= set(result.seconds)

    status = bulk_server.status()
    store = open_store(GraphSettings(uri=status.uri, user="neo4j", password=bulk_server.password()))
    try:  # the command returned a graph ready to query: every index of the schema online
        states = store.index_states()
    finally:
        store.close()
    assert {"entity_names", "entity_id", "fact_id", "fact_subject_relation"} <= {r["name"] for r in states}
    assert [r["name"] for r in states if r["state"] != "ONLINE"] == []

    store = connect(bulk_server)
    try:
        imported_lines = list(graph_lines(store))
        assert len(imported_lines) == len(unwind_lines)
        for ours, theirs in zip(imported_lines, unwind_lines):
            assert ours == theirs
        assert graph_digest(store) == unwind_digest
        assert cli_stats(bulk_server, monkeypatch) == unwind_stats
        assert result.counts["facts"] == unwind_stats["labels"]["Fact"]
        constraints = store.user_query("SHOW CONSTRAINTS YIELD name RETURN count(*) AS n")[0]["n"]
        assert constraints >= 9
        # Later loads go through the UNWIND writer, on top of the imported graph.
        load_wikidata_json(store, [later])
        assert graph_digest(store) == unwind_then_later
    finally:
        store.close()


def test_cli_import_with_neo4j_uri_stops_nothing(bulk_server, sample_bulk, monkeypatch):
    out, _ = sample_bulk
    pid = bulk_server.status().pid
    monkeypatch.setenv("NEO4J_URI", "neo4j://db.example:7687")
    result = CliRunner().invoke(cli, ["neo4j", "import", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "does not stop or replace" in result.output
    assert "neo4j-admin database import full" in result.output
    assert "--array-delimiter=U+001F" in result.output
    assert bulk_server.status().pid == pid  # untouched


@pytest.mark.timeout(1200)
def test_cli_import_refuses_a_database_with_data(bulk_server, sample_bulk, monkeypatch):
    monkeypatch.delenv("NEO4J_URI", raising=False)
    store = connect(bulk_server)
    load_wikidata_json(store, [SAMPLE])
    store.close()
    out, _ = sample_bulk
    result = CliRunner().invoke(cli, ["neo4j", "import", str(out), "--home", str(bulk_server.home)])
    assert result.exit_code == 1
    assert "--overwrite" in result.output and "Traceback" not in result.output
    # a heap that is no size is refused before the server is stopped, even with --overwrite
    pid = bulk_server.status().pid
    result = CliRunner().invoke(cli, ["neo4j", "import", str(out), "--home", str(bulk_server.home),
                                      "--overwrite", "--heap", "2 GB"])
    assert result.exit_code == 1 and "--heap must be a memory size" in result.output
    assert bulk_server.status().pid == pid


@pytest.mark.timeout(1200)
def test_import_restarts_elsewhere_when_its_port_was_taken(bulk_server, sample_bulk, monkeypatch):
    # Another process grabs the Bolt port while the server is down for the import tool: the
    # imported graph must still come up (on a free port, with a warning), not fail after it.
    monkeypatch.delenv("NEO4J_URI", raising=False)
    out, _ = sample_bulk
    old_port = bulk_server.status().bolt_port
    squatter = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # As a server would: the stopped Neo4j's closed connections can leave the port in TIME_WAIT.
    squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)

    def step(text):
        if text == "neo4j-admin database import":
            squatter.bind(("127.0.0.1", old_port))
            squatter.listen(1)

    warnings = []
    try:
        result = import_bulk(out, home=bulk_server.home, overwrite=True, warn=warnings.append, step=step)
        new_port = bulk_server.status().bolt_port
    finally:
        squatter.close()
    assert new_port != old_port
    assert any(f"port {old_port} was taken" in w for w in warnings)
    assert str(new_port) in result.uri
    store = open_store(GraphSettings(uri=result.uri, user="neo4j", password=bulk_server.password()))
    try:
        facts = store.user_query("MATCH (f:Fact) RETURN count(f) AS n")[0]["n"]
    finally:
        store.close()
    assert facts == result.counts["facts"] > 0

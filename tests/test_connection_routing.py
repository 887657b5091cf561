"""``neo4j://`` routing URIs (clusters, Aura) against the managed server: the driver asks the
server for a routing table and sends reads and writes where it says. A standalone server
answers with itself, so the same code path runs here as against a cluster."""

from __future__ import annotations

import json

from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.kg.connection import GraphSettings, open_store
from knowforge.kg.records import EntityRecord, FactRecord
from knowforge.kg.writer import write_entities, write_facts


def routing(settings: GraphSettings) -> GraphSettings:
    assert settings.uri.startswith("bolt://")
    return GraphSettings(uri="neo4j://" + settings.uri[len("bolt://"):], user=settings.user,
                         password=settings.password, database=settings.database)


def test_neo4j_scheme_reads_and_writes(neo4j_server, store):
    _, settings = neo4j_server
    with open_store(routing(settings)) as routed:
        assert routed.uri.startswith("neo4j://")
        write_entities(routed, [EntityRecord(id="R1", name="Routed", source="test")])
        write_facts(routed, [FactRecord(subject_id="R1", relation="P31", object_id="R2", source="test")])
        rows = routed.read("stats/label_counts")
        table = routed.driver.get_server_info()
    labels = {r["label"]: r["nodes"] for r in rows}
    assert labels["Entity"] == 2 and labels["Fact"] == 1
    assert table.address is not None
    # the plain bolt:// store sees the same graph
    assert store.user_query("MATCH (:Entity {id:'R1'})-[:HAS_FACT]->(f)-[:OBJECT]->(o) "
                            "RETURN o.id AS o")[0]["o"] == "R2"


def test_cli_with_a_neo4j_uri(neo4j_server, store, monkeypatch):
    _, settings = neo4j_server
    routed = routing(settings)
    monkeypatch.setenv("NEO4J_URI", routed.uri)
    monkeypatch.setenv("NEO4J_USER", routed.user)
    monkeypatch.setenv("NEO4J_PASSWORD", routed.password)
    write_entities(store, [EntityRecord(id="R9", name="Nine", source="test")])
    result = CliRunner().invoke(cli, ["stats", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["labels"]["Entity"] == 1

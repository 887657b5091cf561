"""Schema, batched idempotent writes, injection safety and temporal reads on a real Neo4j."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.errors import ConfigError, KnowforgeError, UnsafeIdentifier
from knowforge.kg.cypher import (GraphSide, list_statements, load_cypher, register_package, split_statements,
                                 unregister_package, validate_label)
from knowforge.kg.driver import neo4j
from knowforge.kg.records import EntityRecord, FactRecord
from knowforge.kg.store import Store, _reads_rows
from knowforge.kg.temporal import (build_timeline, classify_change, facts_valid_in, fill_gaps,
                                   object_timeline, object_timelines, TimelineFact)
from knowforge.kg.writer import write_entities, write_facts


def counts(store) -> tuple[int, int, int]:
    rows = store.user_query(
        "MATCH (n) WITH count(n) AS nodes, sum(size(keys(n))) AS nprops "
        "OPTIONAL MATCH ()-[r]->() RETURN nodes, nprops, count(r) AS rels")
    return rows[0]["nodes"], rows[0]["nprops"], rows[0]["rels"]


def test_schema_applies_twice(store):
    before = store.user_query("SHOW CONSTRAINTS YIELD name RETURN count(*) AS n")[0]["n"]
    store.apply_schema()
    store.apply_schema()
    after = store.user_query("SHOW CONSTRAINTS YIELD name RETURN count(*) AS n")[0]["n"]
    assert before == after >= 9
    names = {r["name"] for r in store.user_query("SHOW INDEXES YIELD name RETURN name")}
    assert {"fact_subject_relation", "fact_relation_years", "entity_names"} <= names


def test_apply_schema_waits_until_indexes_are_online(store):
    write_entities(store, [EntityRecord(id=f"Q{i}", name=f"entity {i}", aliases=[f"alias {i}"],
                                        source="test") for i in range(3000)])
    store.driver.execute_query("DROP INDEX entity_names", database_=store.database)
    seen = []
    store.apply_schema(progress=lambda states, waited: seen.append(states))
    # the last report is the one that let apply_schema return: everything online
    assert seen and all(r["state"] == "ONLINE" for r in seen[-1])
    assert {r["name"] for r in store.index_states()} >= {"entity_names", "fact_id", "entity_id"}
    hits = store.user_query("CALL db.index.fulltext.queryNodes('entity_names', 'alias 2999') "
                            "YIELD node RETURN node.id AS id LIMIT 1")
    assert hits == [{"id": "Q2999"}]


def test_fulltext_index_is_created_first():
    """It populates slowest on an imported graph, so it must start first."""
    first = split_statements(load_cypher("schema"))[0]
    assert "FULLTEXT INDEX entity_names" in first


class _CannedIndexes(Store):
    """The real store with index states given by the test (a FAILED index cannot be made to
    order on a real server)."""

    def __init__(self, store, states):
        super().__init__(store.driver, store.database)
        self.states = iter(states)

    def index_states(self):
        return next(self.states)


def _index(name, state, percent=100.0, failure=""):
    return {"name": name, "type": "RANGE", "state": state, "percent": percent, "labels": ["Fact"],
            "properties": ["id"], "failure": failure}


def test_await_indexes_names_a_failed_index_and_a_timeout(store):
    failed = _CannedIndexes(store, [[_index("fact_id", "POPULATING", 40.0)],
                                    [_index("fact_id", "FAILED", 60.0, "duplicate id F1")]])
    with pytest.raises(KnowforgeError, match="fact_id: duplicate id F1"):
        failed.await_indexes(60, poll_s=0)
    slow = _CannedIndexes(store, [[_index("a", "ONLINE"), _index("fact_id", "POPULATING", 12.0)]] * 3)
    with pytest.raises(KnowforgeError, match=r"not online after 0s: fact_id POPULATING 12%"):
        slow.await_indexes(0, poll_s=0)
    ready = _CannedIndexes(store, [[_index("fact_id", "POPULATING", 90.0)], [_index("fact_id", "ONLINE")]])
    seen = []
    assert ready.await_indexes(60, poll_s=0, progress=lambda states, waited: seen.append(states)) >= 0
    assert [s[0]["state"] for s in seen] == ["POPULATING", "ONLINE"]


def test_every_cypher_file_explains(store):
    """EXPLAIN every statement under cypher/ against the real server (syntax and schema)."""
    failures = {}
    for name in list_statements():
        if name == "schema" or name.startswith("queries/"):
            continue
        text = load_cypher(name)
        try:
            store.driver.execute_query("EXPLAIN " + text, database_=store.database)
        except Exception as exc:  # parameters are unknown at EXPLAIN time; syntax is not
            if "ParameterMissing" not in str(exc) and "Expected parameter" not in str(exc):
                failures[name] = str(exc)[:300]
    assert failures == {}


def _sample_facts():
    return [
        FactRecord(subject_id="Q1", relation="P54", object_id="Q10", object_name="Club A", source="test",
                   start="2010-05", start_precision="month", end="2012-06-30", end_precision="day"),
        FactRecord(subject_id="Q1", relation="P54", object_id="Q11", object_name="Club B", source="test",
                   start="2015", start_precision="year"),  # open-ended
        FactRecord(subject_id="Q1", relation="P166", object_id="Q20", object_name="Award", source="test",
                   point_in_time="2013-12-01", point_in_time_precision="day"),
        FactRecord(subject_id="Q1", relation="P2048", value="1.87", value_num=1.87, unit="metre",
                   datatype="quantity", source="test"),  # timeless
        FactRecord(subject_id="umls:C1", relation="may_treat", object_id="umls:C2", source="umls",
                   seen_in=(2021,)),
    ]


def test_writes_are_idempotent(store):
    ents = [EntityRecord(id="Q1", name="Alice", labels=("Entity", "Person"), aliases=("Al", "A."),
                         popularity=12.0, domain="general", source="test")]
    write_entities(store, ents)
    write_facts(store, _sample_facts())
    first = counts(store)
    write_entities(store, ents)
    write_facts(store, _sample_facts())
    assert counts(store) == first
    # a small batch size exercises several UNWIND batches
    store.write("store/upsert_facts", (f.to_row() for f in _sample_facts()), batch_size=2)
    assert counts(store) == first


def test_stub_entities_are_completed_by_a_later_load(store):
    write_facts(store, _sample_facts())
    stub = store.user_query("MATCH (e:Entity {id:'Q10'}) RETURN e.stub AS stub, e.name AS name")
    assert stub == [{"stub": True, "name": "Club A"}]
    write_entities(store, [EntityRecord(id="Q10", name="Club A FC", labels=("Entity", "Club"))])
    row = store.user_query("MATCH (e:Entity:Club {id:'Q10'}) RETURN e.stub AS stub, e.name AS name")
    assert row == [{"stub": False, "name": "Club A FC"}]


def test_release_years_accumulate(store):
    write_facts(store, _sample_facts())
    for year in (2023, 2022, 2023):
        write_facts(store, [FactRecord(subject_id="umls:C1", relation="may_treat",
                                       object_id="umls:C2", source="umls", seen_in=(year,))])
    row = store.user_query("MATCH (f:Fact {subject_id:'umls:C1'}) RETURN f.seen_in AS s, "
                           "f.first_seen AS a, f.last_seen AS b")
    assert row == [{"s": [2021, 2022, 2023], "a": 2021, "b": 2023}]
    timeline = object_timeline(store, "umls:C1", "may_treat", 2020, 2024, gap_fill=False)
    assert timeline == {2020: [], 2021: ["umls:C2"], 2022: ["umls:C2"], 2023: ["umls:C2"], 2024: []}


def test_timeline_open_interval_point_in_time_and_gap(store):
    write_facts(store, _sample_facts())
    raw = object_timeline(store, "Q1", "P54", 2009, 2017, gap_fill=False)
    assert raw[2009] == [] and raw[2010] == ["Club A"] and raw[2012] == ["Club A"]
    assert raw[2013] == [] and raw[2014] == []          # the gap
    assert raw[2015] == raw[2017] == ["Club B"]          # open end holds to the frame end
    filled = object_timeline(store, "Q1", "P54", 2009, 2017)
    assert filled[2013] == filled[2014] == ["Club A"]    # earlier object fills the gap
    assert filled[2009] == []                            # leading years are not invented
    award = object_timeline(store, "Q1", "P166", 2012, 2014, gap_fill=False)
    assert award == {2012: [], 2013: ["Award"], 2014: []}


def test_facts_valid_in_year(store):
    write_facts(store, _sample_facts())
    rels_2011 = sorted(r["relation"] for r in facts_valid_in(store, "Q1", 2011))
    assert rels_2011 == ["P54"]
    rels_2013 = sorted(r["relation"] for r in facts_valid_in(store, "Q1", 2013))
    assert rels_2013 == ["P166"]
    with_timeless = sorted(r["relation"] for r in facts_valid_in(store, "Q1", 2013, include_timeless=True))
    assert with_timeless == ["P166", "P2048"]


def test_batched_timelines_match_single(store):
    write_facts(store, _sample_facts())
    pairs = [("Q1", "P54"), ("umls:C1", "may_treat"), ("Q404", "P54")]
    many = object_timelines(store, pairs, 2010, 2022)
    for s, r in pairs:
        assert many[(s, r)] == object_timeline(store, s, r, 2010, 2022)
    assert classify_change(many[("Q1", "P54")]) == "dynamic"
    assert classify_change(many[("umls:C1", "may_treat")]) == "static"
    assert classify_change(many[("Q404", "P54")]) == "empty"


def test_pure_timeline_helpers():
    facts = [TimelineFact("f1", "X", None, 2010, 2011), TimelineFact("f2", "Y", None, 2014, None),
             TimelineFact("f3", "Z", None, None, None, seen_in=(2012,))]
    tl = build_timeline(facts, 2009, 2015)
    assert tl == {2009: [], 2010: ["X"], 2011: ["X"], 2012: ["Z"], 2013: [], 2014: ["Y"], 2015: ["Y"]}
    assert fill_gaps(tl)[2013] == ["Z"]
    assert fill_gaps({2010: [], 2011: []}) == {2010: [], 2011: []}
    assert classify_change({2010: ["A", "B"], 2011: ["B", "A"]}) == "static"


@pytest.mark.parametrize("bad", ["Person`) DETACH DELETE n //", "Person:Admin", "person",
                                 "Entity} RETURN 1", "", "DROP"])
def test_injection_through_label_is_rejected(store, bad):
    with pytest.raises(UnsafeIdentifier):
        write_entities(store, [EntityRecord(id="Q1", name="x", labels=("Entity", bad))])
    assert counts(store)[0] == 0


# Statements that take a label at run time ($(...)), and where the label is validated first.
DYNAMIC_LABELS = {
    "store/upsert_entities": "kg/records.py EntityRecord.to_row",
    "knowgen/apply_entities": "generators/knowgen/apply.py entity_row",
    "events/read_slot_members": "generators/events/instantiate.py Planner._members",
    "events/read_slot_entities": "generators/events/instantiate.py Planner._members",
}


def test_dynamic_labels_only_where_validated_and_no_dynamic_relationship_types():
    """README's claim, checked: a new $(...) statement must be added here with its validation."""
    dynamic = {}
    for name in list_statements():
        text = "\n".join(line for line in load_cypher(name).splitlines()
                         if not line.strip().startswith("//"))
        if "$(" in text:
            dynamic[name] = text
        # a relationship type from a parameter: [:$(...)] / [r:$(...)] / [:$any(...)]
        assert not re.search(r"\[\s*\w*\s*:\s*\$(any|all)?\(", text), name
    assert set(dynamic) == set(DYNAMIC_LABELS)
    assert validate_label("Person") == "Person"
    with pytest.raises(UnsafeIdentifier):
        validate_label("Person) DETACH DELETE n //")


def test_batches_are_read_from_one_map_and_a_rows_statement_is_refused(tmp_path, monkeypatch):
    """Store.write sends a batch as ``$batch: {rows, ids}`` (one plan whatever its size): no
    statement reads ``$rows`` (the list that was planned again per size bucket), and one that
    does, such as a plug-in's written for the old convention, is refused with the fix before
    anything is sent; so is a parameter named batch, which would replace the rows. No server:
    the refusals come before the driver connects."""
    assert [name for name in list_statements() if _reads_rows(load_cypher(name))] == []
    package = tmp_path / "kf_rows_probe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "old.cypher").write_text("// $rows: [{id}]\nUNWIND $rows AS row MERGE (:Entity {id: row.id})\n")
    (package / "new.cypher").write_text("// $rows was the old name\nUNWIND $batch.rows AS row MERGE (:Entity {id: row.id})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    register_package(GraphSide(owner="kfrowsprobe", package="kf_rows_probe"))
    driver = neo4j.GraphDatabase.driver("bolt://127.0.0.1:1", auth=("neo4j", "unused"))
    try:
        store = Store(driver)
        with pytest.raises(ConfigError, match=r"kfrowsprobe/old.*reads \$rows.*\$batch\.rows"):
            store.write("kfrowsprobe/old", [{"id": "x"}])
        with pytest.raises(ConfigError, match=r"reads \$rows"):
            store.write_new("kfrowsprobe/new", "kfrowsprobe/old", [{"id": "x"}])
        with pytest.raises(ValueError, match="parameter named batch"):
            store.write("kfrowsprobe/new", [{"id": "x"}], batch="b1")
    finally:
        driver.close()
        unregister_package("kfrowsprobe")


def test_relation_names_are_data_not_cypher(store):
    """A hostile relation name is stored verbatim as a property; it can never run."""
    evil = "P39'}) MATCH (n) DETACH DELETE n //"
    write_entities(store, [EntityRecord(id="Q1", name="x", labels=("Entity",))])
    write_facts(store, [FactRecord(subject_id="Q1", relation=evil, value="v", source="test")])
    rows = store.user_query("MATCH (f:Fact) RETURN f.relation AS r")
    assert rows == [{"r": evil}]
    assert counts(store)[0] == 2


def test_query_is_read_only_unless_write(store):
    with pytest.raises(KnowforgeError, match="--write"):
        store.user_query("CREATE (:Entity {id: 'x', name: 'x'})")
    store.user_query("CREATE (:Entity {id: 'x', name: 'x'})", write=True)
    assert store.user_query("MATCH (e:Entity {id:'x'}) RETURN e.name AS n") == [{"n": "x"}]


def test_cli_init_stats_query(store, graph_env):
    runner = CliRunner()
    assert runner.invoke(cli, ["init"], catch_exceptions=False).exit_code == 0
    write_facts(store, _sample_facts())
    res = runner.invoke(cli, ["stats", "--json"], catch_exceptions=False)
    assert res.exit_code == 0
    import json
    stats = json.loads(res.output)
    assert stats["labels"]["Fact"] == 5
    by_source = {r["source"]: r for r in stats["facts_by_source"]}
    assert by_source["umls"]["with_releases"] == 1
    assert by_source["test"]["with_point_in_time"] == 1
    res = runner.invoke(cli, ["query", "MATCH (f:Fact {subject_id: $s}) RETURN count(f) AS n",
                              "-p", "s=Q1", "--format", "json"], catch_exceptions=False)
    assert json.loads(res.output) == [{"n": 4}]
    res = runner.invoke(cli, ["query", "MATCH (n) DETACH DELETE n"])
    assert res.exit_code == 1 and "--write" in res.output


def _all_commands(group, prefix=()):
    import click

    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        yield prefix + (name,), cmd
        if isinstance(cmd, click.Group):
            yield from _all_commands(cmd, prefix + (name,))


def test_every_command_has_help_with_an_example():
    runner = CliRunner()
    missing = []
    for path, cmd in _all_commands(cli):
        result = runner.invoke(cli, [*path, "--help"], catch_exceptions=False)
        assert result.exit_code == 0, path
        if not (cmd.help or "").strip() or "xample" not in (cmd.help or ""):
            missing.append(" ".join(path))
    assert missing == []

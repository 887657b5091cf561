"""Every KnowGen Cypher file explains on the real server, and the exploration queries in
cypher/queries/knowgen_*.cypher return what docs/knowgen.md says they do."""

from __future__ import annotations

import json

from knowforge.generators.knowgen import KnowGenParams, generate_batch
from knowforge.generators.knowgen.synthetic import synthetic_taxonomy, write_taxonomy
from knowforge.kg.cypher import list_statements, load_cypher


def test_every_knowgen_statement_explains(store):
    # knowgen/* files are explained by test_store.py::test_every_cypher_file_explains (every
    # statement outside queries/); planning costs the server ~0.15-0.25 s of CPU per statement
    # and no plan of an EXPLAIN without parameters is cached, so explaining them here again
    # doubled that. This test explains the exploration queries, which that test skips, with
    # their parameters, and still checks that the knowgen statements are there to be explained.
    knowgen = [n for n in list_statements() if n.startswith("knowgen/")]
    assert len(knowgen) >= 15
    names = [n for n in list_statements() if n.startswith("queries/knowgen_")]
    assert len(names) >= 5
    params = {"batch": "x", "benchmark": "knowgen:x", "ids": [], "rows": [], "parent_rel": "P171",
              "class_keys": None, "member_label": "Taxon", "min_members": 2, "seed": 0, "params": "{}",
              "created_at": "", "source_hash": "", "limit": 10, "max_chains": 3, "class": "c",
              "entity": "e", "question": "q"}
    for name in names:
        store.driver.execute_query("EXPLAIN " + load_cypher(name), params, database_=store.database)


def test_exploration_queries(store):
    entities, facts = synthetic_taxonomy(40, seed=9)
    write_taxonomy(store, entities, facts)
    generate_batch(store, KnowGenParams(batch="xq", seed=1, n=20, max_ka2=2, max_ka3=1))
    one = store.driver.execute_query(
        "MATCH (e:Artificial {batch:'xq'}) WHERE EXISTS { (e)-[:DERIVED_FROM {op:'dropout'}]->() } "
        "AND EXISTS { (e)-[:HAS_FACT]->(:Fact {op:'variation'}) } RETURN e.id AS id, e.class_id AS c, "
        "e.name AS name ORDER BY e.id LIMIT 1", database_=store.database).records[0]

    listed = store.user_query(load_cypher("queries/knowgen_list_artificial_entities"),
                              {"class": one["c"], "batch": "xq"})
    assert one["id"] in {r["id"] for r in listed}
    assert all(r["heredity"] >= 1 for r in listed)   # the class-membership fact at least

    diff = store.user_query(load_cypher("queries/knowgen_diff_against_parent"), {"entity": one["name"]})
    ops = {r["op"] for r in diff}
    assert {"heredity", "variation", "dropout"} <= ops
    for r in diff:
        if r["op"] == "variation":
            assert r["parent_value"] != r["new_value"]
        if r["op"] == "heredity":
            assert r["parent_value"] == r["new_value"]
        if r["op"] == "dropout":
            assert r["new_value"] is None and r["parent_value"]

    ka_q = store.driver.execute_query(
        "MATCH (q:Question {benchmark:'knowgen:xq', slice_type:'KA'})-[:ABOUT]->(e) "
        "RETURN q.id AS id, q.item_json AS item, e.id AS e ORDER BY q.id LIMIT 1",
        database_=store.database).records[0]
    chains = store.user_query(load_cypher("queries/knowgen_ka_chains"), {"entity": ka_q["e"], "limit": 1000})
    item = json.loads(ka_q["item"])
    first = item["metadata"]["hop_triplets"]
    assert any(r["hop1"] == first[0][1] and r["x"] == first[0][2] and r["hop2"] == first[1][1]
               and r["y"] == first[1][2] for r in chains)

    sources = store.user_query(load_cypher("queries/knowgen_question_sources"), {"question": ka_q["id"]})
    assert {r["fact_id"] for r in sources} == set(item["fact_ids"])
    assert any(r["layer"] == "generated" for r in sources) and any(r["layer"] == "source" for r in sources)

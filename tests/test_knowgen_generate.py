"""KnowGen generation against the real Neo4j: every operation checked in the graph,
determinism, drop restores the graph, KA chains are valid paths."""

from __future__ import annotations

import pytest

from knowforge.errors import InputError
from knowforge.generators.knowgen import KnowGenParams, drop_batch, generate_batch
from knowforge.models.questions import source_graph_hash
from knowforge.generators.knowgen.synthetic import synthetic_taxonomy, write_taxonomy
from knowforge.generators.knowgen.names import NameIndex


def q(store, text, **params):
    return store.driver.execute_query(text, params, database_=store.database).records


@pytest.fixture
def taxonomy(store):
    entities, facts = synthetic_taxonomy(48, seed=3)
    write_taxonomy(store, entities, facts)
    return entities, facts


def params(**kw):
    base = dict(batch="t1", seed=7, n=30, max_extension=3)
    base.update(kw)
    return KnowGenParams(**base)


def test_generate_writes_entities_facts_and_provenance(store, taxonomy):
    summary = generate_batch(store, params())
    assert summary.entities == 30 and summary.questions > 0
    rows = q(store, "MATCH (e:Entity:Artificial {batch:'t1'})-[:DERIVED_FROM {op:'parent'}]->(p:Entity) "
                    "RETURN e.id AS id, e.name AS name, p.id AS parent, e.parent_id AS cls, "
                    "'Taxon' IN labels(e) AS taxon")
    assert len(rows) == 30
    assert all(r["id"].startswith("gen:t1:") and r["taxon"] for r in rows)
    # ẽ is a member of its parent's class (class-level fact inherited)
    bad = q(store, "MATCH (e:Artificial {batch:'t1'})-[:DERIVED_FROM {op:'parent'}]->(p) "
                   "MATCH (p)-[:HAS_FACT]->(:Fact {relation:'P171'})-[:OBJECT]->(c) "
                   "WHERE NOT EXISTS { (e)-[:HAS_FACT]->(:Fact {relation:'P171', layer:'generated'})-[:OBJECT]->(c) } "
                   "RETURN count(e) AS n")
    assert bad[0]["n"] == 0
    assert q(store, "MATCH (b:Batch {id:'t1'}) RETURN b.method AS m, b.seed AS s")[0].values() == ["knowgen", 7]


def test_heredity_facts_equal_the_parents(store, taxonomy):
    generate_batch(store, params())
    rows = q(store, """
        MATCH (e:Artificial {batch:'t1'})-[:HAS_FACT]->(g:Fact {op:'heredity'})-[:DERIVED_FROM]->(s:Fact)
        MATCH (e)-[:DERIVED_FROM {op:'parent'}]->(p)
        RETURN g.relation = s.relation AS rel, g.value = s.value OR (g.value IS NULL AND s.value IS NULL) AS val,
               g.unit = s.unit OR (g.unit IS NULL AND s.unit IS NULL) AS unit,
               g.object_id = s.object_id OR (g.object_id IS NULL AND s.object_id IS NULL) AS obj,
               EXISTS { (p)-[:HAS_FACT]->(s) } AS of_parent, s.layer AS layer""")
    assert rows
    assert all(r["rel"] and r["val"] and r["unit"] and r["obj"] and r["of_parent"] for r in rows)
    assert {r["layer"] for r in rows} == {"source"}


def test_dropout_facts_are_absent(store, taxonomy):
    generate_batch(store, params(dropout_ratio=0.4))
    rows = q(store, """
        MATCH (e:Artificial {batch:'t1'})-[:DERIVED_FROM {op:'dropout'}]->(s:Fact)
        MATCH (e)-[:DERIVED_FROM {op:'parent'}]->(p)-[:HAS_FACT]->(s)
        RETURN e.id AS e, s.id AS s,
               EXISTS { (e)-[:HAS_FACT]->(g:Fact)-[:DERIVED_FROM]->(s) } AS derived,
               EXISTS { (e)-[:HAS_FACT]->(g:Fact) WHERE g.relation = s.relation AND s.kind = 'attribute' }
                 AS attr_present,
               EXISTS { (e)-[:HAS_FACT]->(g:Fact)-[:OBJECT]->(o) WHERE g.relation = s.relation
                        AND o.id = s.object_id } AS rel_present""")
    assert len(rows) > 5
    assert not any(r["derived"] or r["attr_present"] or r["rel_present"] for r in rows)


def test_numeric_variation_keeps_unit_and_stays_in_bound(store, taxonomy):
    generate_batch(store, params(n=48, variation_ratio=0.8, heredity_ratio=0.1, dropout_ratio=0.1))
    rows = q(store, """
        MATCH (:Artificial {batch:'t1'})-[:HAS_FACT]->(g:Fact {op:'variation', kind:'attribute'})
              -[:DERIVED_FROM {role:'varied'}]->(s:Fact)
        WHERE s.value_num IS NOT NULL
        RETURN g.value_num AS new, s.value_num AS old, g.unit AS gu, s.unit AS su, g.value AS text""")
    assert len(rows) > 10
    for r in rows:
        assert r["gu"] == r["su"]
        assert r["new"] > 0 and r["new"] != r["old"]
        # truncated at 4 sigma (sigma = v/10), then rounded to 3 significant digits
        assert 0.6 * r["old"] * 0.995 <= r["new"] <= 1.4 * r["old"] * 1.005
        assert float(r["text"]) == r["new"]


def test_relation_variation_objects_are_in_the_objects_class(store, taxonomy):
    generate_batch(store, params(n=48, variation_ratio=0.8, heredity_ratio=0.1, dropout_ratio=0.1))
    rows = q(store, """
        MATCH (:Artificial {batch:'t1'})-[:HAS_FACT]->(g:Fact {op:'variation', kind:'relation'})
              -[:DERIVED_FROM {role:'varied'}]->(s:Fact)
        MATCH (g)-[:OBJECT]->(new:Entity), (s)-[:OBJECT]->(old:Entity)
        RETURN new.id AS new, old.id AS old, g.relation = s.relation AS same_rel,
          EXISTS { (old)-[:HAS_FACT]->(:Fact {relation:'P171'})-[:OBJECT]->(c)
                   <-[:OBJECT]-(:Fact {relation:'P171'})<-[:HAS_FACT]-(new) } AS same_class""")
    assert len(rows) > 5
    assert all(r["same_rel"] and r["same_class"] and r["new"] != r["old"] for r in rows)


def test_categorical_variation_copies_a_siblings_value(store, taxonomy):
    generate_batch(store, params(n=48, variation_ratio=0.8, heredity_ratio=0.1, dropout_ratio=0.1))
    rows = q(store, """
        MATCH (e:Artificial {batch:'t1'})-[:HAS_FACT]->(g:Fact {op:'variation', kind:'attribute'})
              -[:DERIVED_FROM {role:'value_from'}]->(src:Fact)<-[:HAS_FACT]-(sib:Entity)
        MATCH (e)-[:DERIVED_FROM {op:'parent'}]->(p)
        MATCH (g)-[:DERIVED_FROM {role:'varied'}]->(old:Fact)
        RETURN g.value = src.value AS copied, g.value <> old.value AS changed,
               sib.id <> p.id AND sib.parent_id = p.parent_id AS sibling""")
    assert len(rows) > 3
    assert all(r["copied"] and r["changed"] and r["sibling"] for r in rows)


def test_extension_facts_come_from_siblings(store, taxonomy):
    generate_batch(store, params(n=48, max_extension=4))
    rows = q(store, """
        MATCH (e:Artificial {batch:'t1'})-[:HAS_FACT]->(g:Fact {op:'extension'})-[:DERIVED_FROM]->(s:Fact)
              <-[:HAS_FACT]-(sib:Entity)
        MATCH (e)-[:DERIVED_FROM {op:'parent'}]->(p)
        RETURN sib.id <> p.id AND sib.parent_id = p.parent_id AS sibling,
               g.relation = s.relation AND coalesce(g.value, '') = coalesce(s.value, '')
               AND coalesce(g.object_id, '') = coalesce(s.object_id, '') AS same""")
    assert len(rows) > 10
    assert all(r["sibling"] and r["same"] for r in rows)
    # at most one value per attribute on ẽ
    dup = q(store, """MATCH (e:Artificial {batch:'t1'})-[:HAS_FACT]->(g:Fact {kind:'attribute'})
                      WITH e, g.relation AS r, count(*) AS c WHERE c > 1 RETURN count(*) AS n""")
    assert dup[0]["n"] == 0


def test_source_facts_unchanged_and_drop_restores_graph(store, taxonomy):
    def snapshot():
        counts = q(store, "MATCH (n) RETURN count(n) AS n")[0]["n"], \
            q(store, "MATCH ()-[r]->() RETURN count(r) AS n")[0]["n"]
        props = q(store, "MATCH (f:Fact) WITH f ORDER BY f.id RETURN collect(properties(f)) AS p")[0]["p"]
        return counts, source_graph_hash(store), props

    before = snapshot()
    summary = generate_batch(store, params())
    assert snapshot()[1] == before[1]          # source facts never modified
    after_props = q(store, "MATCH (f:Fact) WHERE f.layer <> 'generated' WITH f ORDER BY f.id "
                           "RETURN collect(properties(f)) AS p")[0]["p"]
    assert after_props == before[2]
    result = drop_batch(store, "t1")
    assert result.nodes_deleted >= summary.entities + summary.facts + summary.questions
    assert snapshot() == before
    with pytest.raises(InputError):
        drop_batch(store, "t1")


def test_same_seed_same_batch_and_different_seed_differs(store, taxonomy):
    def dump():
        return q(store, """
            MATCH (e:Artificial {batch:'t1'})-[:HAS_FACT]->(f:Fact)
            OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(s:Fact)
            WITH e, f, s, d ORDER BY e.id, f.id, s.id
            RETURN collect([e.id, e.name, f.id, f.op, f.value, f.object_id, s.id, d.role]) AS rows""")[0]["rows"], \
            q(store, "MATCH (q:Question {benchmark:'knowgen:t1'}) WITH q ORDER BY q.id "
                     "RETURN collect(q.item_json) AS items")[0]["items"]

    generate_batch(store, params())
    first = dump()
    drop_batch(store, "t1")
    generate_batch(store, params())
    assert dump() == first
    drop_batch(store, "t1")
    generate_batch(store, params(seed=8))
    assert dump() != first


def test_existing_batch_is_refused(store, taxonomy):
    generate_batch(store, params(n=3))
    with pytest.raises(InputError, match="already exists"):
        generate_batch(store, params(n=3))


def test_generated_names_do_not_collide(store, taxonomy):
    entities, _ = taxonomy
    generate_batch(store, params(n=48))
    names = [r["name"] for r in q(store, "MATCH (e:Artificial {batch:'t1'}) RETURN e.name AS name ORDER BY e.id")]
    assert len(set(names)) == len(names)
    existing = NameIndex([n for e in entities for n in (e.name, *e.aliases)])
    assert all(existing.find_match(n) is None for n in names)
    generated = NameIndex([])
    for n in names:
        generated.check_and_add(n)   # raises on a fuzzy duplicate among generated names


def test_ka_chains_are_valid_paths(store, taxonomy):
    generate_batch(store, params(n=48, max_ka2=3, max_ka3=2))
    rows = q(store, """
        MATCH (qn:Question {benchmark:'knowgen:t1', slice_type:'KA'})
        RETURN qn.item_json AS item""")
    assert rows
    import json
    hops = set()
    for r in rows:
        item = json.loads(r["item"])
        hops.add(item["slices"]["hop_count"])
        for chain in item["metadata"]["chains"]:
            assert len(chain) == item["slices"]["hop_count"]
            for (s1, _, o1), (s2, _, _) in zip(chain, chain[1:]):
                assert o1 == s2
        # every tested fact id is a real fact, and the chain is a path in the graph
        facts = q(store, """
            UNWIND $ids AS fid MATCH (s:Entity)-[:HAS_FACT]->(f:Fact {id: fid})-[:OBJECT]->(o:Entity)
            RETURN s.name AS s, f.relation_label AS r, o.name AS o""", ids=item["fact_ids"])
        triples = {(f["s"], f["r"], f["o"]) for f in facts}
        for chain in item["metadata"]["chains"]:
            assert all(tuple(t) in triples for t in chain)
        # answers: all end entities reachable along the relation path
        assert item["answers"]
    assert hops == {2, 3}


def test_a_plan_failing_midway_leaves_no_partial_batch(store, taxonomy, monkeypatch):
    """Entities are applied while the next ones are planned: a plan that fails after some
    statements were written must leave the graph as it was, and the batch can be re-run."""
    import knowforge.generators.knowgen.apply as apply_module
    import knowforge.generators.knowgen.plan as plan_module
    from knowforge.generators.knowgen.names import NameCollisionError

    def snapshot():
        return (q(store, "MATCH (n) RETURN count(n) AS n")[0]["n"],
                q(store, "MATCH ()-[r]->() RETURN count(r) AS n")[0]["n"])

    before = snapshot()
    monkeypatch.setattr(apply_module, "APPLY_BATCH_SIZE", 5)
    real = plan_module.plan_entity

    def failing(rng, inputs, p, *, index, **kw):
        if index == 17:
            raise NameCollisionError("no new name left")
        return real(rng, inputs, p, index=index, **kw)

    monkeypatch.setattr(plan_module, "plan_entity", failing)
    written = []
    with pytest.raises(NameCollisionError):
        generate_batch(store, params(n=30), progress=lambda stage, n, total: written.append((stage, n)))
    assert written == [("entities", 5)] * 3          # three statements were applied, then dropped
    assert snapshot() == before
    monkeypatch.setattr(plan_module, "plan_entity", real)
    summary = generate_batch(store, params(n=30))
    assert summary.entities == 30

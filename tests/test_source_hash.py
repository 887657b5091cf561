"""``source_graph_hash`` read in pages along the id indexes gives the value of its definition
(the per-record stream, ``streamed_source_graph_hash``) on the same graph, changes when a source
fact or a real entity changes, and ignores what is not the source layer (issue 33)."""

from __future__ import annotations

import hashlib

import pytest

from knowforge.kg.loaders.registry import load_source
from knowforge.kg.loaders.samples import sample_paths
from knowforge.models import questions
from knowforge.models.questions import source_graph_hash, streamed_source_graph_hash


def write(store, text: str, **params) -> None:
    store.user_query(text, params, write=True)


def test_the_definition_on_a_hand_made_graph(store):
    write(store, "CREATE (:Entity {id: 'e:b', name: 'B'}), (:Entity {id: 'e:a', name: 'A'}), "
                 "(:Entity:Artificial {id: 'e:z', name: 'Z'}), "
                 "(:Fact {id: 'f:2', relation: 'born', value: '1970', value_num: 1970}), "
                 "(:Fact {id: 'f:1', relation: 'knows', object_id: 'e:b', layer: 'source'}), "
                 "(:Fact {id: 'f:3', object_id: 'e:a', value_num: 2.5}), "
                 "(:Fact {id: 'f:0', relation: 'edited', value: 'x', layer: 'edit'})")
    expected = hashlib.sha256("f:1|knows|e:b||\nf:2|born||1970|1970\nf:3||e:a||2.5\n--entities--\ne:a\ne:b\n"
                              .encode("utf-8")).hexdigest()
    assert source_graph_hash(store) == streamed_source_graph_hash(store) == expected
    assert questions._paged(store, "benchmark/source_facts_page", "rows", hashlib.sha256(), str) == 4


def test_pages_give_the_streamed_value_on_the_samples(store, monkeypatch):
    paths = sample_paths()
    for source in ("umls", "cskg", "cfr"):
        load_source(store, source, paths[source])
    # generated and artificial nodes between the source ones, so pages end on them too
    write(store, "UNWIND range(1, 40) AS i "
                 "CREATE (:Fact {id: 'gen:' + i, relation: 'r', layer: 'generated'}), "
                 "(:Entity:Artificial {id: 'art:' + i, name: 'n'})")
    streamed = streamed_source_graph_hash(store)
    facts = store.user_query("MATCH (f:Fact) RETURN count(f) AS n")[0]["n"]
    # the number of facts: the last page is full, and the walk asks once more to find it empty
    for size in (50, facts, questions.SOURCE_HASH_PAGE):
        monkeypatch.setattr(questions, "SOURCE_HASH_PAGE", size)
        assert source_graph_hash(store) == streamed, size


def test_a_changed_source_fact_or_entity_changes_it_and_other_layers_do_not(store):
    paths = sample_paths()
    load_source(store, "cskg", paths["cskg"])
    before = source_graph_hash(store)
    write(store, "CREATE (:Fact {id: 'gen:1', relation: 'r', value: 'v', layer: 'generated'}), "
                 "(:Entity:Artificial {id: 'art:1', name: 'n'})")
    assert source_graph_hash(store) == before
    fact = store.user_query("MATCH (f:Fact) WHERE f.layer IS NULL OR f.layer = 'source' "
                            "RETURN f.id AS id ORDER BY id LIMIT 1")[0]["id"]
    write(store, "MATCH (f:Fact {id: $id}) SET f.value = 'changed'", id=fact)
    changed = source_graph_hash(store)
    assert changed != before and changed == streamed_source_graph_hash(store)
    write(store, "CREATE (:Entity {id: 'new:1', name: 'n'})")
    assert source_graph_hash(store) not in (before, changed)


@pytest.mark.parametrize("odd", ["''", "42", "null"])
def test_ids_a_page_walk_cannot_order_take_the_stream(store, monkeypatch, odd):
    # an empty, numeric or missing id is not after '' in the index: the count store tells the
    # walk it missed a node, and the hash is the stream's, which orders them as Cypher does
    write(store, "CREATE (:Fact {id: 'f:1', relation: 'r', value: 'a'}), (:Entity {id: 'e:1'})")
    write(store, f"CREATE (:Fact {{relation: 'odd', value: 'b'{', id: ' + odd if odd != 'null' else ''}}})")
    streamed = []
    monkeypatch.setattr(questions, "streamed_source_graph_hash",
                        lambda s: streamed.append(streamed_source_graph_hash(s)) or streamed[-1])
    with_odd = source_graph_hash(store)
    assert streamed == [with_odd]
    write(store, "MATCH (f:Fact {relation: 'odd'}) DELETE f")
    assert source_graph_hash(store) != with_odd and len(streamed) == 1   # paged again

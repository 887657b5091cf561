"""The one (:Question) writer: a new question gets its properties and links; a generator
(overwrite) rewrites an existing one; the eval engine (overwrite=False) never does."""

from __future__ import annotations

import pytest

from knowforge.models.questions import read_items, write_benchmark, write_questions
from knowforge.models.types import BenchmarkItem


def _item(question: str) -> BenchmarkItem:
    return BenchmarkItem(id="t:q1", benchmark="test:w", task="test/w", form="fill-in-blank",
                         question=question, answers=["a"], scorer="fuzzy", slices={"year": 2020})


def _question(store) -> dict:
    rows = store.driver.execute_query(
        "MATCH (q:Question {id: 't:q1'}) "
        "RETURN q.text AS text, q.slice_year AS year, q.marker AS marker, "
        "COUNT { (q)-[:IN_BENCHMARK]->() } AS links", database_=store.database).records
    assert len(rows) == 1
    return rows[0].data()


def test_create_then_overwrite_or_keep(store):
    write_benchmark(store, method="test", name="w", seed=0, params={}, source_hash=None)
    assert write_questions(store, [_item("first")], extra_props={"marker": "one"}) == 1
    assert _question(store) == {"text": "first", "year": 2020, "marker": "one", "links": 1}

    write_questions(store, [_item("second")], extra_props={"marker": "two"}, overwrite=False)
    assert _question(store) == {"text": "first", "year": 2020, "marker": "one", "links": 1}

    write_questions(store, [_item("third")], extra_props={"marker": "three"})
    assert _question(store) == {"text": "third", "year": 2020, "marker": "three", "links": 1}
    assert [i.question for i in read_items(store, "test:w")] == ["third"]


def _items(n: int) -> list[BenchmarkItem]:
    # every item links to two facts (one listed twice) and one entity, as a KnowGen item does
    return [BenchmarkItem(id=f"t:n{i:02d}", benchmark="test:new", task="test/new", form="fill-in-blank",
                          question=f"q{i}", answers=["a"], scorer="fuzzy", slices={"k": i % 3},
                          fact_ids=[f"f{i % 4}", f"f{(i + 1) % 4}", f"f{i % 4}"],
                          entity_ids=[f"e{i % 2}"], metadata={"i": i})
            for i in range(n)]


def _graph(store) -> list:
    """Every test:new question with all its properties and its links, in id order."""
    return [r.data() for r in store.driver.execute_query(
        "MATCH (q:Question {benchmark: 'test:new'}) "
        "RETURN q.id AS id, properties(q) AS props, "
        "COLLECT { MATCH (q)-[r]->(x) RETURN type(r) + '>' + coalesce(x.id, '') ORDER BY type(r), x.id } "
        "AS links ORDER BY id", database_=store.database).records]


def _setup(store) -> None:
    write_benchmark(store, method="test", name="new", seed=0, params={}, source_hash=None)
    store.driver.execute_query("UNWIND range(0, 3) AS i CREATE (:Fact {id: 'f' + i}) "
                               "WITH i WHERE i < 2 CREATE (:Entity {id: 'e' + i})", database_=store.database)


def test_create_only_write_gives_the_merge_graph(store):
    _setup(store)
    items = _items(7)
    assert write_questions(store, items, extra_props={"batch": "b"}, batch_size=3) == 7
    merged = _graph(store)
    store.driver.execute_query("MATCH (q:Question) DETACH DELETE q", database_=store.database)
    assert write_questions(store, items, new=True, extra_props={"batch": "b"}, batch_size=3) == 7
    assert _graph(store) == merged
    assert len(merged) == 7 and all(len(q["links"]) == 4 for q in merged)  # 1 benchmark, 2 facts, 1 entity
    assert [i.id for i in read_items(store, "test:new")] == [i.id for i in items]


def test_create_only_write_with_statements_in_parallel_gives_the_same_graph(store):
    """Several statements at once share facts, entities and the benchmark node (locks on the
    same nodes from concurrent transactions): the graph is the serial one, links included."""
    _setup(store)
    items = _items(40)
    assert write_questions(store, items, new=True, extra_props={"batch": "b"}, batch_size=3) == 40
    serial = _graph(store)
    store.driver.execute_query("MATCH (q:Question) DETACH DELETE q", database_=store.database)
    done = []
    assert write_questions(store, items, new=True, extra_props={"batch": "b"}, batch_size=3,
                           workers=3, progress=done.append) == 40
    assert _graph(store) == serial and len(serial) == 40
    assert done == [3] * 13 + [1]                                   # in batch order


def test_in_parallel_keeps_order_limits_calls_and_raises():
    import threading
    import time

    from knowforge.kg.store import in_parallel

    running, most, lock = [0], [0], threading.Lock()

    def slow(x):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.01 * (x % 3))  # later items may finish first
        with lock:
            running[0] -= 1
        if x == 7:
            raise ValueError("bad 7")
        return x * 10

    assert list(in_parallel(slow, range(7), 3)) == [(x, x * 10) for x in range(7)]
    assert most[0] == 3
    assert list(in_parallel(slow, range(4), 1)) == [(x, x * 10) for x in range(4)]
    read = []

    def items():
        for x in range(20):
            read.append(x)
            yield x

    got = []
    with pytest.raises(ValueError, match="bad 7"):
        for x, _ in in_parallel(slow, items(), 2):
            got.append(x)
    assert got == list(range(7))
    assert len(read) <= 10  # the input is not run ahead of the calls


def test_create_only_write_rerun_after_a_crash_duplicates_nothing(store):
    """A run that died after its first statements is re-run: statements whose rows already
    exist (in part: the re-run may cut batches elsewhere) go to the MERGE, the rest is created."""
    from knowforge.models.questions import question_row

    _setup(store)
    items = _items(10)
    write_questions(store, items[:4], new=True, batch_size=2)     # the crashed run's two statements
    rows = [question_row(i) for i in items]
    summary = store.write_new("benchmark/create_questions", "benchmark/upsert_questions", rows,
                              batch_size=3, overwrite=True)
    assert summary.rows == 10 and summary.batches == 4
    assert summary["fallbacks"] == 2                                # rows 0-2 and 3-5 held old ones
    assert summary["nodes_created"] == 6
    graph = _graph(store)
    assert [q["id"] for q in graph] == [i.id for i in items]
    assert all(len(q["links"]) == 4 for q in graph)
    store.driver.execute_query("MATCH (q:Question) DETACH DELETE q", database_=store.database)
    write_questions(store, items, batch_size=3)
    assert _graph(store) == graph


def test_prefetched_rows_keep_order_and_raise_the_builders_error():
    from knowforge.kg.store import prefetched

    assert list(prefetched(iter(range(10)), 3)) == list(range(10))
    assert list(prefetched([], 3)) == []

    def broken():
        yield 1
        yield 2
        raise ValueError("bad item")

    got = []
    with pytest.raises(ValueError, match="bad item"):
        for x in prefetched(broken(), 1):
            got.append(x)
    assert got == [1, 2]
    it = prefetched(iter(range(1000)), 10)         # a consumer that stops early ends the thread
    assert next(it) == 0
    it.close()

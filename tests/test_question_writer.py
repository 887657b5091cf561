"""The one (:Question) writer: a new question gets its properties and links; a generator
(overwrite) rewrites an existing one; the eval engine (overwrite=False) never does."""

from __future__ import annotations

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

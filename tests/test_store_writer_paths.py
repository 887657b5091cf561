"""The fact writer's fast paths (update / create / general MERGE) leave the same graph as the
general ``store/upsert_facts`` statement alone, on first loads, reloads, mixed batches,
repeated ids, release years and a writer that lost a race. Real Neo4j, compared node by node
and relationship by relationship (``graph_lines``)."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest
from conftest import wipe

from knowforge.kg.bulk.digest import graph_digest, graph_lines
from knowforge.kg.records import EntityRecord, FactRecord
from knowforge.kg.store import Store
from knowforge.kg.writer import FACT_WRITERS, write_entities, write_facts


def facts_a() -> list[FactRecord]:
    out = []
    for i in range(40):
        subject = f"T{i // 4}"
        if i % 3:
            out.append(FactRecord(subject_id=subject, relation="P54", object_id=f"O{i % 7}",
                                  object_name=None if i % 2 else f"Object {i % 7}", source="test",
                                  subject_name=f"Subject {i // 4}", start=str(1990 + i),
                                  start_precision="year"))
        else:
            out.append(FactRecord(subject_id=subject, relation="P1082", value=str(i), value_num=float(i),
                                  datatype="quantity", source="test", subject_name=f"Subject {i // 4}"))
    # an entity first referenced as an object without a name, later as a subject with one
    out.append(FactRecord(subject_id="T0", relation="P26", object_id="T9", source="test"))
    out.append(FactRecord(subject_id="T9", relation="P27", object_id="O1", source="test",
                          subject_name="Named later"))
    return out


def facts_b() -> list[FactRecord]:
    """A second load: half the facts again (one with a changed property), half new, years."""
    old = facts_a()
    changed = [replace(f, rank="preferred") if i == 3 else f for i, f in enumerate(old[::2])]
    new = [FactRecord(subject_id=f"T{i}", relation="P39", object_id=f"N{i}", source="test") for i in range(10)]
    years = [FactRecord(subject_id="umls:C1", relation="may_treat", object_id="umls:C2", source="umls",
                        seen_in=(2022, 2021)),
             FactRecord(subject_id="umls:C3", relation="isa", object_id="umls:C1", source="umls", seen_in=(2020,))]
    return changed + new + years


def load_all(store: Store, loads, *, reference: bool, workers: int = FACT_WRITERS) -> list[str]:
    wipe(store)
    write_entities(store, [EntityRecord(id="T1", name="Entity one", labels=("Person",), source="test")])
    for facts in loads:
        if reference:
            store.write("store/upsert_facts", [f.to_row() for f in facts])
        else:
            write_facts(store, facts, workers=workers)
    return list(graph_lines(store))


def small_batches(store: Store, size: int) -> Store:
    return Store(store.driver, store.database, batch_size=size, uri=store.uri)


def assert_same(expected: list[str], got: list[str]) -> None:
    assert len(got) == len(expected)
    for a, b in zip(expected, got):
        assert a == b


def test_paths_leave_the_graph_upsert_facts_leaves(store):
    loads = [facts_a(), facts_a(), facts_b(),
             [replace(f, seen_in=(2023,)) for f in facts_b()[-2:]]]
    expected = load_all(store, loads, reference=True)
    nodes = [json.loads(line) for line in expected if line.startswith('["node"')]
    years = [props["seen_in"] for _, _, _, props in nodes if props.get("subject_id") == "umls:C1"]
    assert years == [[2021, 2022, 2023]]  # the load sequence does accumulate release years
    for size in (10_000, 7, 3):  # one batch; several, switching between lookup and update
        got = load_all(small_batches(store, size), loads, reference=False)
        assert_same(expected, got)
    assert_same(expected, load_all(small_batches(store, 3), loads, reference=False, workers=1))


class SlowFirstSteps(Store):
    """Records when each batch's property update ran, each slowed so that the batches the
    writer lets overlap do overlap."""

    def __init__(self, store: Store, size: int):
        super().__init__(store.driver, store.database, batch_size=size, uri=store.uri)
        self.spans: list[tuple[float, float, set[str]]] = []

    def write_returning(self, name, **params):
        if name != "store/update_facts":
            return super().write_returning(name, **params)
        start = time.monotonic()
        time.sleep(0.3)
        out = super().write_returning(name, **params)
        self.spans.append((start, time.monotonic(), {row["id"] for row in params["batch"]["rows"]}))
        return out


def overlapping(spans) -> list[tuple[set[str], set[str]]]:
    return [(a[2], b[2]) for i, a in enumerate(spans) for b in spans[i + 1:]
            if a[0] < b[1] and b[0] < a[1]]


def twice_over(facts: list[FactRecord]) -> list[FactRecord]:
    """The facts twice, with a property that both copies set to different values (one that
    only the second set would survive either order, as SET += keeps what a row leaves out)."""
    return ([replace(f, relation_label="first") for f in facts]
            + [replace(f, relation_label="second") for f in facts])


def test_batches_in_flight_together_never_share_a_fact(store):
    """A reload keeps several batches' updates in flight; a batch that repeats a fact of one
    still running waits for it, so the later record wins as in one serial pass."""
    facts = facts_a()
    again = twice_over(facts[:14])
    expected = load_all(store, [facts, again], reference=True)

    load_all(store, [facts], reference=False)
    reload = SlowFirstSteps(store, 7)
    write_facts(reload, facts, workers=3)
    assert len(reload.spans) == 6
    assert overlapping(reload.spans), "a reload's batches should be written in parallel"
    assert all(a.isdisjoint(b) for a, b in overlapping(reload.spans))

    repeated = SlowFirstSteps(store, 7)
    write_facts(repeated, again, workers=3)
    assert len(repeated.spans) == 4
    assert all(a.isdisjoint(b) for a, b in overlapping(repeated.spans))
    assert overlapping(repeated.spans)  # batches 1 and 2 share no fact; nor do 3 and 4
    assert_same(expected, list(graph_lines(store)))


def test_repeated_ids_in_one_batch(store):
    twice = facts_a()[:10] + [replace(f, rank="preferred") for f in facts_a()[:5]]
    expected = load_all(store, [twice], reference=True)
    assert_same(expected, load_all(store, [twice], reference=False))


def test_a_writer_that_lost_the_race_falls_back(store):
    """The facts exist when create_facts runs, though the lookup said they did not."""
    facts = facts_a()
    expected = load_all(store, [facts, facts], reference=True)
    wipe(store)
    write_entities(store, [EntityRecord(id="T1", name="Entity one", labels=("Person",), source="test")])
    write_facts(store, facts)

    class Forgetful(Store):
        def run_read_write(self, name, **params):
            if name == "store/existing_facts":
                return []  # as if another writer created them after we looked
            return super().run_read_write(name, **params)

    summary = write_facts(Forgetful(store.driver, store.database, batch_size=10_000), facts)
    assert summary.rows == len(facts)
    assert_same(expected, list(graph_lines(store)))


def test_reload_is_idempotent_and_digest_is_stable(store):
    write_facts(store, facts_a())
    first = graph_digest(store)
    write_facts(store, facts_a())
    assert graph_digest(store) == first
    write_facts(store, facts_b())
    assert graph_digest(store) != first



class SlowCreates(Store):
    """Records when each batch's create ran; the first one is slowed most, so that a later
    batch that is let through early would commit before it."""

    def __init__(self, store: Store, size: int):
        super().__init__(store.driver, store.database, batch_size=size, uri=store.uri)
        self.spans: list[tuple[float, float, set[str]]] = []
        self.calls = 0

    def write(self, name, rows, **kwargs):
        if name != "store/create_facts":
            return super().write(name, rows, **kwargs)
        start = time.monotonic()
        self.calls += 1
        time.sleep(0.6 if self.calls == 1 else 0.1)
        out = super().write(name, rows, **kwargs)
        self.spans.append((start, time.monotonic(), {row["props"]["id"] for row in rows}))
        return out


def test_creates_in_flight_together_never_share_a_fact(store):
    """A first load keeps two batches' creates in flight; a batch that repeats a fact of one
    still being created waits for it (else its lookup would find the fact missing, and
    whichever create committed second would fall back to the merge with its own record)."""
    facts = facts_a()
    load_all(store, [], reference=False)
    first = SlowCreates(store, 7)
    write_facts(first, facts, workers=3)
    assert len(first.spans) == 6
    assert overlapping(first.spans), "a first load's creates should run in parallel"
    assert all(a.isdisjoint(b) for a, b in overlapping(first.spans))
    assert_same(load_all(store, [facts], reference=True),
                load_all(store, [facts], reference=False))

    again = twice_over(facts[:14])
    expected = load_all(store, [again], reference=True)
    load_all(store, [], reference=False)
    repeated = SlowCreates(store, 7)
    write_facts(repeated, again, workers=3)
    assert all(a.isdisjoint(b) for a, b in overlapping(repeated.spans))
    assert_same(expected, list(graph_lines(store)))


def test_a_write_killed_between_stubs_and_facts_reruns_to_the_same_graph(store):
    """A batch's stubs commit before its facts are created: a run that dies in between leaves
    stubs without facts, and running it again gives the graph one whole run gives."""
    facts = facts_a()
    expected = load_all(store, [facts], reference=True)
    load_all(store, [], reference=False)

    class DiesAtCreate(Store):
        def write(self, name, rows, **kwargs):
            if name == "store/create_facts":
                raise RuntimeError("killed")
            return super().write(name, rows, **kwargs)

    with pytest.raises(RuntimeError, match="killed"):
        write_facts(DiesAtCreate(store.driver, store.database, batch_size=7), facts)
    left = store.user_query("MATCH (e:Entity {stub: true}) WHERE NOT (e)--() RETURN count(e) AS n")
    assert left[0]["n"] > 0
    assert not store.user_query("MATCH (f:Fact) RETURN f.id LIMIT 1")
    write_facts(small_batches(store, 7), facts)
    assert_same(expected, list(graph_lines(store)))

def test_a_bad_record_stops_the_write_after_the_batches_before_it(store):
    """The batches read before a record that cannot be turned into a row are all written,
    those still in flight included, then the record's error is raised."""
    wipe(store)

    def records():
        yield from facts_a()[:10]
        raise ValueError("bad record 11")

    with pytest.raises(ValueError, match="bad record 11"):
        write_facts(small_batches(store, 3), records(), workers=3)
    ids = {r["id"] for r in store.user_query("MATCH (f:Fact) RETURN f.id AS id")}
    assert ids == {f.id for f in facts_a()[:9]}  # three whole batches; the fourth never formed


def test_batch_rows_share_the_batch_size_among_the_writers():
    from knowforge.kg.writer import SPLIT_FLOOR, _batch_rows

    assert _batch_rows(10_000, 3, None) == 3334     # a stream: a third of a batch each
    assert _batch_rows(10_000, 3, 100_000) == 3334
    assert _batch_rows(10_000, 3, 5_000) == 1667    # a loader's 5,000-fact buffer, still in three
    assert _batch_rows(10_000, 3, 10) == SPLIT_FLOOR  # a small write stays one statement
    assert _batch_rows(10_000, 1, 5_000) == 5_000
    assert _batch_rows(7, 3, 42) == 7               # never more than, nor split below, a tiny batch size


def test_fact_writers_come_from_the_environment(monkeypatch):
    from knowforge.errors import ConfigError
    from knowforge.kg.writer import fact_writers

    monkeypatch.delenv("KNOWFORGE_FACT_WRITERS", raising=False)
    assert fact_writers() == FACT_WRITERS
    monkeypatch.setenv("KNOWFORGE_FACT_WRITERS", " 8 ")
    assert fact_writers() == 8
    for bad in ("0", "-2", "two", "1.5"):
        monkeypatch.setenv("KNOWFORGE_FACT_WRITERS", bad)
        with pytest.raises(ConfigError, match="KNOWFORGE_FACT_WRITERS"):
            fact_writers()


def test_one_fact_writer_from_the_environment_writes_one_batch_at_a_time(store, monkeypatch):
    monkeypatch.setenv("KNOWFORGE_FACT_WRITERS", "1")
    load_all(store, [facts_a()], reference=False)
    serial = SlowFirstSteps(store, 7)
    write_facts(serial, facts_a())
    assert len(serial.spans) == 6 and not overlapping(serial.spans)

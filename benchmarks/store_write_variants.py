"""The issue's ideas for a faster first load, measured against the current fact writer in one run.

Every variant writes the same new facts (stubs, :Fact nodes, HAS_FACT and OBJECT) into the
scratch namespace of ``store_write_rate.py`` and must leave the graph the writer leaves (the
script checks node, relationship and property counts after each and says when one differs):

  baseline CREATE    UNWIND CREATE (:BenchFact) SET props: no constraint, no index, no edges
  baseline :Fact     the same with the :Fact label and the whole property map (its indexes)
  writer             kg.writer.write_facts: ids-only lookup, merge_stubs + create_facts
  rels after nodes   the lookup, then merge_stubs, CREATE of the fact nodes alone, and a
                     second statement for HAS_FACT/OBJECT, all in one transaction
  lean maps          create_facts with the subject and object ids sent once per row instead
                     of twice (once for the MATCH, once inside the property map)
  in transactions    the lookup per batch, then two auto-commit statements over all new facts
                     of the run: CALL { MERGE stub } IN TRANSACTIONS, then CALL { CREATE
                     fact and edges } IN TRANSACTIONS (the server commits every batch)
  two sessions       write_facts on two threads, each with half the facts (split by subject)
  batch N            write_facts with batches of N facts (the writer's default is 10,000)
  writer (again)     the writer once more, later in the order: how far two runs of the same
                     code differ here is the noise the other rows must beat

The variants run in a different order each round (--rounds), and each round uses new facts,
so that a machine whose load changes treats them alike. With the managed server it also
prints CPU seconds (Neo4j plus this process) per variant, steadier than wall time on a
shared machine. The load average is printed before and after.

    python benchmarks/store_write_variants.py --facts 20000 --rounds 3 [--warm-up 2000]
"""

from __future__ import annotations

import argparse
import os
import threading
import time

from store_write_rate import BASELINE, BASELINE_FACT, CpuClock, cleanup, synthetic_facts

from knowforge.kg.connection import hide_query_notifications, open_store
from knowforge.kg.writer import _stub_rows, fact_node_properties, write_facts

# Variants' statements: benchmark-only, so they stay here next to the baselines.
CREATE_NODES = """
UNWIND $rows AS row
CREATE (f:Fact) SET f = row.props
"""
CREATE_EDGES = """
UNWIND $rows AS row
MATCH (f:Fact {id: row.props.id})
MATCH (s:Entity {id: row.subject_id})
CREATE (s)-[:HAS_FACT]->(f)
WITH f, row WHERE row.object_id IS NOT NULL
MATCH (o:Entity {id: row.object_id})
CREATE (f)-[:OBJECT]->(o)
"""
CREATE_LEAN = """
UNWIND $rows AS row
MATCH (s:Entity {id: row.s})
CREATE (f:Fact)
SET f = row.p, f.subject_id = row.s, f.object_id = row.o
CREATE (s)-[:HAS_FACT]->(f)
WITH f, row WHERE row.o IS NOT NULL
MATCH (o:Entity {id: row.o})
CREATE (f)-[:OBJECT]->(o)
"""
# Two auto-commit statements: the stubs of each writer batch, then the facts, each committed
# in inner transactions by the server.
STUBS_IN_TRANSACTIONS = """
UNWIND $rows AS row
CALL (row) {
  MERGE (e:Entity {id: row.id})
    ON CREATE SET e.name = row.name, e.stub = true
} IN TRANSACTIONS OF $size ROWS
"""
CREATE_IN_TRANSACTIONS = """
UNWIND $rows AS row
CALL (row) {
  MATCH (s:Entity {id: row.subject_id})
  CREATE (f:Fact)
  SET f = row.props
  CREATE (s)-[:HAS_FACT]->(f)
  WITH f, row WHERE row.object_id IS NOT NULL
  MATCH (o:Entity {id: row.object_id})
  CREATE (f)-[:OBJECT]->(o)
} IN TRANSACTIONS OF $size ROWS
"""
COUNTS = """
CALL () { MATCH (f:Fact {source: 'bench'}) RETURN count(f) AS facts, sum(size(keys(f))) AS fprops }
CALL () { MATCH (e:Entity) WHERE e.id STARTS WITH 'bench'
          RETURN count(e) AS entities, sum(size(keys(e))) AS eprops }
CALL () { MATCH (:Entity)-[r:HAS_FACT]->(:Fact {source: 'bench'}) RETURN count(r) AS has_fact }
CALL () { MATCH (:Fact {source: 'bench'})-[r:OBJECT]->() RETURN count(r) AS object }
RETURN facts, fprops, entities, eprops, has_fact, object
"""


def new_rows(store, rows: list[dict]) -> list[dict]:
    """The rows whose fact is not in the graph (the writer's ids-only lookup)."""
    found = {r["id"] for r in store.run_read_write("store/existing_facts", batch={"ids": [r["id"] for r in rows]})}
    return [r for r in rows if r["id"] not in found]


def batches(rows: list[dict], size: int):
    for i in range(0, len(rows), size):
        yield rows[i:i + size]


def tx_steps(store, steps: list[tuple[str, dict]]) -> None:
    """Run literal statements in order in one transaction."""
    def work(tx):
        for text, params in steps:
            tx.run(text, params).consume()
    with store.driver.session(database=store.database) as session:
        session.execute_write(work)


def rels_after_nodes(store, rows: list[dict]) -> None:
    for chunk in batches(rows, store.batch_size):
        new = new_rows(store, chunk)
        nodes = [fact_node_properties(r) for r in new]
        tx_steps(store, [(_load("store/merge_stubs"), {"batch": {"rows": _stub_rows(new)}}),
                         (CREATE_NODES, {"rows": nodes}), (CREATE_EDGES, {"rows": nodes})])


def lean_maps(store, rows: list[dict]) -> None:
    for chunk in batches(rows, store.batch_size):
        new = new_rows(store, chunk)
        lean = []
        for r in new:
            props = fact_node_properties(r)["props"]
            props.pop("subject_id")
            props.pop("object_id", None)
            lean.append({"s": r["subject_id"], "o": r["object_id"], "p": props})
        tx_steps(store, [(_load("store/merge_stubs"), {"batch": {"rows": _stub_rows(new)}}),
                         (CREATE_LEAN, {"rows": lean})])


def in_transactions(store, rows: list[dict]) -> None:
    new = [r for chunk in batches(rows, store.batch_size) for r in new_rows(store, chunk)]
    # stubs in the writer's batches, so the first reference names a stub as it does there
    stubs = [stub for chunk in batches(new, store.batch_size) for stub in _stub_rows(chunk)]
    with store.driver.session(database=store.database) as session:
        session.run(STUBS_IN_TRANSACTIONS, rows=stubs, size=store.batch_size).consume()
        session.run(CREATE_IN_TRANSACTIONS, rows=[fact_node_properties(r) for r in new],
                    size=store.batch_size).consume()


def two_sessions(store, facts) -> None:
    halves = ([f for f in facts if hash(f.subject_id) % 2 == 0],
              [f for f in facts if hash(f.subject_id) % 2 == 1])
    errors: list[BaseException] = []

    def run(part):
        try:
            write_facts(store, part)
        except BaseException as exc:  # reported after both threads finished
            errors.append(exc)
    threads = [threading.Thread(target=run, args=(half,)) for half in halves]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def with_batch_size(store, facts, size: int) -> None:
    saved, store.batch_size = store.batch_size, size
    try:
        write_facts(store, facts)
    finally:
        store.batch_size = saved


def _load(name: str) -> str:
    from knowforge.kg.cypher import load_cypher
    return load_cypher(name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=20000)
    ap.add_argument("--warm-up", type=int, default=2000,
                    help="facts each phase writes (and deletes) before the timed rounds")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--batch-sizes", default="2000,5000,20000")
    args = ap.parse_args()
    hide_query_notifications()
    cpu = CpuClock()
    load_before = os.getloadavg()
    with open_store() as store:
        store.apply_schema()
        cleanup(store)

        def create(statement, convert):
            return lambda rows, facts: [
                store.driver.execute_query(statement, rows=[convert(r) for r in chunk], database_=store.database)
                for chunk in batches(rows, store.batch_size)]
        variants = {
            "baseline CREATE": create(BASELINE, lambda r: r),
            "baseline :Fact": create(BASELINE_FACT, lambda r: fact_node_properties(r)["props"]),
            "writer": lambda rows, facts: write_facts(store, facts),
            "rels after nodes": lambda rows, facts: rels_after_nodes(store, rows),
            "lean maps": lambda rows, facts: lean_maps(store, rows),
            "in transactions": lambda rows, facts: in_transactions(store, rows),
            "two sessions": lambda rows, facts: two_sessions(store, facts),
        }
        for size in (int(s) for s in args.batch_sizes.split(",") if s):
            variants[f"batch {size:,}"] = (lambda size: lambda rows, facts: with_batch_size(store, facts, size))(size)
        variants["writer (again)"] = variants["writer"]
        # Warm-up: the server's first queries pay for planning and JIT compilation.
        warm = synthetic_facts(args.warm_up, prefix="benchwarm")
        for run in variants.values():
            run([f.to_row() for f in warm], warm)
            cleanup(store)
        wall: dict[str, float] = {}
        cpus: dict[str, float] = {}
        graphs: dict[str, dict] = {}
        names = list(variants)
        for r in range(args.rounds):
            facts = synthetic_facts(args.facts, seed=100 + r)
            rows = [f.to_row() for f in facts]
            for name in names[r % len(names):] + names[:r % len(names)]:
                c0, t0 = cpu(), time.perf_counter()
                variants[name](rows, facts)
                wall[name] = wall.get(name, 0.0) + time.perf_counter() - t0
                if c0 is not None:
                    cpus[name] = cpus.get(name, 0.0) + cpu() - c0
                if not name.startswith("baseline"):
                    graphs.setdefault(name, {})[r] = store.driver.execute_query(
                        COUNTS, database_=store.database).records[0].data()
                cleanup(store)
    n = args.facts * args.rounds
    print(f"facts: {args.facts:,} x {args.rounds} round(s), new facts only (a first load); "
          f"writer batch size {store.batch_size:,}")
    base, fact_base, writer = wall["baseline CREATE"], wall["baseline :Fact"], wall["writer"]
    for name in names:
        line = (f"{name:17s}: {n / wall[name]:9,.0f} facts/s  vs CREATE {base / wall[name]:.2f}  "
                f"vs :Fact {fact_base / wall[name]:.2f}  vs writer {writer / wall[name]:.2f}")
        if cpus:
            line += f"  cpu {cpus[name]:6.1f}s (writer/this {cpus['writer'] / cpus[name]:.2f})"
        if name in graphs and graphs[name] != graphs["writer"]:
            line += f"  GRAPH DIFFERS: {graphs[name]} vs {graphs['writer']}"
        print(line)
    print("load average " + " → ".join("/".join(f"{v:.1f}" for v in la)
                                       for la in (load_before, os.getloadavg())))


if __name__ == "__main__":
    main()

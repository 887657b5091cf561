"""Fact write rate of the store's idempotent upsert, against a plain CREATE baseline.

Runs against the configured server (NEO4J_URI) or the managed one, in a scratch namespace
of ids that it deletes afterwards. Prints facts/s for:
  baseline  UNWIND $rows CREATE (:BenchFact) SET props  (no MERGE, no relationships)
  upsert    kg.writer.write_facts (stubs + MERGE fact + HAS_FACT/OBJECT), first load
  reload    the same facts again (the idempotent path a re-run takes)
and the ratios upsert/baseline and reload/baseline.

    python benchmarks/store_write_rate.py --facts 20000
"""

from __future__ import annotations

import argparse
import random
import time

from knowforge.kg.connection import open_store
from knowforge.kg.records import FactRecord
from knowforge.kg.writer import write_facts

BASELINE = "UNWIND $rows AS row CREATE (f:BenchFact) SET f = row.props"


def synthetic_facts(n: int, seed: int = 0) -> list[FactRecord]:
    rng = random.Random(f"{seed}:bench-facts")
    facts = []
    for i in range(n):
        subject = f"bench:S{i // 5}"
        if i % 3:
            start = rng.randint(1990, 2020)
            facts.append(FactRecord(subject_id=subject, relation=rng.choice(["P39", "P54", "P108"]),
                                    object_id=f"bench:O{rng.randint(0, n // 10)}", source="bench",
                                    start=str(start), start_precision="year",
                                    end=str(start + rng.randint(0, 6)), end_precision="year"))
        else:
            facts.append(FactRecord(subject_id=subject, relation="P2048", value=str(i),
                                    value_num=float(i), unit="metre", datatype="quantity",
                                    source="bench"))
    return facts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=20000)
    args = ap.parse_args()
    facts = synthetic_facts(args.facts)
    rows = [f.to_row() for f in facts]
    with open_store() as store:
        store.apply_schema()
        cleanup(store)
        t0 = time.perf_counter()
        for i in range(0, len(rows), store.batch_size):
            store.driver.execute_query(BASELINE, rows=rows[i:i + store.batch_size], database_=store.database)
        baseline = time.perf_counter() - t0
        t0 = time.perf_counter()
        write_facts(store, facts)
        upsert = time.perf_counter() - t0
        t0 = time.perf_counter()
        write_facts(store, facts)
        reload = time.perf_counter() - t0
        cleanup(store)
    n = len(facts)
    print(f"facts: {n:,}  batch size: {store.batch_size:,}")
    print(f"baseline CREATE : {n / baseline:10,.0f} facts/s")
    print(f"upsert (first)  : {n / upsert:10,.0f} facts/s   ratio to baseline {baseline / upsert:.2f}")
    print(f"upsert (reload) : {n / reload:10,.0f} facts/s   ratio to baseline {baseline / reload:.2f}")


def cleanup(store) -> None:
    with store.driver.session(database=store.database) as session:
        session.run("MATCH (n:BenchFact) CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
        session.run("MATCH (f:Fact {source: 'bench'}) CALL (f) { DETACH DELETE f } "
                    "IN TRANSACTIONS OF 10000 ROWS").consume()
        session.run("MATCH (e:Entity) WHERE e.id STARTS WITH 'bench:' CALL (e) { DETACH DELETE e } "
                    "IN TRANSACTIONS OF 10000 ROWS").consume()


if __name__ == "__main__":
    main()

"""Fact write rate of the store's idempotent upsert, against a plain CREATE baseline.

Runs against the configured server (NEO4J_URI) or the managed one, in a scratch namespace
of ids that it deletes afterwards. Prints facts/s for:
  baseline   UNWIND $rows CREATE (:BenchFact) SET props  (no MERGE, no relationships)
  baseline :Fact  the same CREATE with the :Fact label and the whole fact property map (id,
             subject_id, object_id, ...), so the schema's uniqueness constraint and indexes on
             :Fact are maintained as they are for the writer: the cost no writer of facts
             avoids, a fairer baseline next to the plain one (still no stubs, no relationships)
  upsert     kg.writer.write_facts (stubs + fact + HAS_FACT/OBJECT), first load
  reload     the same facts again (the idempotent path a re-run takes)
  serial     the same two runs with workers=1: one batch of the store's batch size at a time,
             as write_facts wrote before it kept several in flight
  reference  the same two runs through store/upsert_facts alone, the single MERGE statement
             write_facts used before it chose a path per batch (the "before" figures)
and the ratios to the baseline. Every phase runs on the same facts after a small warm-up;
the phases alternate (--rounds) so that a machine whose load changes treats them alike.

With the managed server on this machine it also prints CPU seconds (the Neo4j process plus
this one) per phase and the CPU ratios: on a machine shared with other work the CPU a phase
costs is steadier than its wall time. From those it prints each writer phase's ceiling: the
ratio to the baseline that phase would reach if its CPU seconds were spread over every core
of this machine with no wait at all. A phase whose ceiling is below a target cannot reach
that target here by more overlap, only by costing less CPU (or on more cores).

    python benchmarks/store_write_rate.py --facts 20000 [--rounds 2] [--warm-up 2000]
"""

from __future__ import annotations

import argparse
import os
import random
import time

from knowforge.kg.connection import hide_query_notifications, open_store
from knowforge.kg.neo4j_server import ManagedNeo4j
from knowforge.kg.records import FactRecord
from knowforge.kg.writer import fact_node_properties, write_facts

BASELINE = "UNWIND $rows AS row CREATE (f:BenchFact) SET f = row.props"
BASELINE_FACT = "UNWIND $rows AS row CREATE (f:Fact) SET f = row"


def synthetic_facts(n: int, seed: int = 0, prefix: str = "bench") -> list[FactRecord]:
    rng = random.Random(f"{seed}:bench-facts")
    facts = []
    for i in range(n):
        subject = f"{prefix}:S{i // 5}"
        if i % 3:
            start = rng.randint(1990, 2020)
            facts.append(FactRecord(subject_id=subject, relation=rng.choice(["P39", "P54", "P108"]),
                                    object_id=f"{prefix}:O{rng.randint(0, n // 10)}", source="bench",
                                    start=str(start), start_precision="year",
                                    end=str(start + rng.randint(0, 6)), end_precision="year"))
        else:
            facts.append(FactRecord(subject_id=subject, relation="P2048", value=str(i),
                                    value_num=float(i), unit="metre", datatype="quantity",
                                    source="bench"))
    return facts


class CpuClock:
    """CPU seconds of this process plus the managed Neo4j's (None when the server is elsewhere)."""

    def __init__(self):
        status = ManagedNeo4j().status() if not os.environ.get("NEO4J_URI") else None
        self.pid = status.pid if status and status.running else None
        self.tick = os.sysconf("SC_CLK_TCK")

    def __call__(self) -> float | None:
        if self.pid is None:
            return None
        with open(f"/proc/{self.pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self.tick + time.process_time()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=20000)
    ap.add_argument("--warm-up", type=int, default=2000,
                    help="facts each phase writes (and deletes) before the timed rounds")
    ap.add_argument("--rounds", type=int, default=1, help="repeat the phases, alternating (default 1)")
    args = ap.parse_args()
    hide_query_notifications()
    cpu = CpuClock()
    load_before = os.getloadavg()
    with open_store() as store:
        store.apply_schema()
        cleanup(store)
        phases = {
            "baseline": lambda rows, facts: [
                store.driver.execute_query(BASELINE, rows=rows[i:i + store.batch_size],
                                           database_=store.database)
                for i in range(0, len(rows), store.batch_size)],
            "baseline :Fact": lambda rows, facts: [
                store.driver.execute_query(
                    BASELINE_FACT, rows=[fact_node_properties(r)["props"] for r in rows[i:i + store.batch_size]],
                    database_=store.database)
                for i in range(0, len(rows), store.batch_size)],
            "upsert": lambda rows, facts: write_facts(store, facts),
            "serial": lambda rows, facts: write_facts(store, facts, workers=1),
            "reference": lambda rows, facts: store.write("store/upsert_facts",
                                                         (f.to_row() for f in facts)),
        }
        # Warm-up: the server's first queries pay for planning and JIT compilation.
        warm = synthetic_facts(args.warm_up, prefix="benchwarm")
        for name, run in phases.items():
            run([f.to_row() for f in warm], warm)
            cleanup(store)
        wall: dict[str, float] = {}
        cpus: dict[str, float] = {}

        def timed(key: str, fn) -> None:
            c0, t0 = cpu(), time.perf_counter()
            fn()
            wall[key] = wall.get(key, 0.0) + time.perf_counter() - t0
            if c0 is not None:
                cpus[key] = cpus.get(key, 0.0) + cpu() - c0

        for r in range(args.rounds):
            facts = synthetic_facts(args.facts, seed=r)
            rows = [f.to_row() for f in facts]
            order = ["baseline", "baseline :Fact", "upsert", "serial", "reference"]
            order = order[r % 5:] + order[:r % 5]
            for name in order:
                timed(f"{name} first", lambda: phases[name](rows, facts))
                if not name.startswith("baseline"):
                    timed(f"{name} reload", lambda: phases[name](rows, facts))
                cleanup(store)
    n = args.facts * args.rounds
    print(f"facts: {args.facts:,} x {args.rounds} round(s)  batch size: {store.batch_size:,}")
    base, base_cpu = wall["baseline first"], cpus.get("baseline first")
    labels = {"baseline first": "baseline CREATE", "baseline :Fact first": "baseline :Fact",
              "upsert first": "upsert (first)",
              "upsert reload": "upsert (reload)", "serial first": "serial (first)",
              "serial reload": "serial (reload)", "reference first": "reference (first)",
              "reference reload": "reference (reload)"}
    for key, label in labels.items():
        line = (f"{label:19s}: {n / wall[key]:10,.0f} facts/s   ratio to baseline {base / wall[key]:.2f}"
                f"   to :Fact {wall['baseline :Fact first'] / wall[key]:.2f}")
        if base_cpu is not None:
            line += f"   cpu {cpus[key]:6.1f}s, cpu ratio {base_cpu / cpus[key]:.2f}"
        print(line)
    if base_cpu is not None:
        cores = len(os.sched_getaffinity(0))
        for key in ("upsert first", "upsert reload", "serial first", "serial reload"):
            # The best wall time that many CPU seconds allow here: all cores busy, none waiting.
            ceiling = base / (cpus[key] / cores)
            print(f"{labels[key]:19s}: ceiling on {cores} cores {ceiling:.2f}x the baseline "
                  f"(now {base / wall[key]:.2f}x, {cpus[key] / cores / wall[key]:.0%} of the "
                  "cores' time busy)")
    print("load average " + " → ".join("/".join(f"{v:.1f}" for v in la)
                                       for la in (load_before, os.getloadavg())))
    print(f"upsert vs reference: first {wall['reference first'] / wall['upsert first']:.2f}x, "
          f"reload {wall['reference reload'] / wall['upsert reload']:.2f}x faster (wall)")
    print(f"upsert vs serial: first {wall['serial first'] / wall['upsert first']:.2f}x, "
          f"reload {wall['serial reload'] / wall['upsert reload']:.2f}x faster (wall)")


def cleanup(store) -> None:
    with store.driver.session(database=store.database) as session:
        session.run("MATCH (n:BenchFact) CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
        session.run("MATCH (f:Fact {source: 'bench'}) CALL (f) { DETACH DELETE f } "
                    "IN TRANSACTIONS OF 10000 ROWS").consume()
        session.run("MATCH (e:Entity) WHERE e.id STARTS WITH 'bench' CALL (e) { DETACH DELETE e } "
                    "IN TRANSACTIONS OF 10000 ROWS").consume()


if __name__ == "__main__":
    main()

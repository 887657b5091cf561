"""KnowGen at scale: entities/s, questions/s and Neo4j round trips per entity at 1k and 10k
artificial entities generated from a synthetic taxonomy of 10k+ species, plus the fuzzy
name-collision check against a few hundred thousand names (indexed vs brute force).

Wall seconds per stage are printed with the CPU seconds this process spent in each stage and
the CPU seconds the managed Neo4j server spent (read from /proc, per statement): on a machine
shared with other work the wall time mostly measures the other work.

Needs an EMPTY graph (it writes a synthetic taxonomy): set NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD
or let it start the managed server, and pass --wipe to clear a non-empty graph first.

    python benchmarks/knowgen_scale.py --species 10000 --sizes 1000,10000 --wipe

``--sample`` loads the bundled taxonomy sample (122 entities, the graph of
tests/test_knowgen_sample.py and the demo) instead of the synthetic taxonomy. ``--compare-ka``
runs, after each batch is generated, the four KA statements as they were before issue 33
(kept below as baselines: every path from every artificial entity) and as they are now (the
tails past the first hop's source entity read once per entity), back to back on the same
chunks of the batch, alternating which goes first; it checks that both give the same records
and prints the server CPU and wall seconds of each.

    python benchmarks/knowgen_scale.py --sample --sizes 1000 --compare-ka --names 0 --wipe
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from importlib import resources

import neo4j
from rapidfuzz import fuzz, process

from knowforge.generators.knowgen import KnowGenParams, drop_batch, generate_batch
from knowforge.generators.knowgen.generate import KA_BATCH_SIZE
from knowforge.generators.knowgen.names import NameIndex, make_name
from knowforge.generators.knowgen.questions import pick_ka_groups
from knowforge.generators.knowgen.synthetic import synthetic_taxonomy, write_taxonomy
from knowforge.kg.connection import hide_query_notifications, open_store
from knowforge.kg.cypher import load_cypher
from knowforge.kg.loaders.taxonomy import load_taxonomy
from knowforge.kg.neo4j_server import ManagedNeo4j
from knowforge.kg.store import Store

# The KA statements before issue 33 (benchmark baselines for --compare-ka; the product's are in
# cypher/knowgen/). Each follows every path from every artificial entity of the chunk.
BASELINE_KA = {
    "knowgen/read_ka_groups2": """
// Two-hop Knowledge Association candidates: for each ẽ, the relation paths ẽ -r1-> x -r2-> y
// that start at one of ẽ's generated relation facts and continue through an existing (source)
// entity's fact. Only (r1, r2) keys and counts come back (aggregated while streaming, so the
// memory is per key, not per path); Python picks which to ask. Ordered by stable keys.
UNWIND $ids AS eid
MATCH (e:Entity {id: eid})-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation'})
      -[:OBJECT]->(x:Entity)-[:HAS_FACT]->(f2:Fact {kind: 'relation'})-[:OBJECT]->(y:Entity)
WHERE f1.relation <> $parent_rel AND f2.relation <> $parent_rel
  AND coalesce(f2.layer, 'source') = 'source'
  AND NOT x:Artificial AND NOT y:Artificial AND y.id <> x.id
RETURN eid AS entity_id, f1.relation AS r1, f2.relation AS r2, count(*) AS paths
ORDER BY entity_id, r1, r2
""",
    "knowgen/read_ka_groups3": """
// Three-hop Knowledge Association candidates: relation paths ẽ -r1-> x -r2-> y -r3-> z
// (distinct x, y, z) from ẽ's generated relation facts through source facts. Keys and counts
// only (see read_ka_groups2). Ordered by stable keys.
UNWIND $ids AS eid
MATCH (e:Entity {id: eid})-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation'})
      -[:OBJECT]->(x:Entity)-[:HAS_FACT]->(f2:Fact {kind: 'relation'})-[:OBJECT]->(y:Entity)
      -[:HAS_FACT]->(f3:Fact {kind: 'relation'})-[:OBJECT]->(z:Entity)
WHERE f1.relation <> $parent_rel AND f2.relation <> $parent_rel AND f3.relation <> $parent_rel
  AND coalesce(f2.layer, 'source') = 'source' AND coalesce(f3.layer, 'source') = 'source'
  AND NOT x:Artificial AND NOT y:Artificial AND NOT z:Artificial
  AND y.id <> x.id AND z.id <> x.id AND z.id <> y.id
RETURN eid AS entity_id, f1.relation AS r1, f2.relation AS r2, f3.relation AS r3, count(*) AS paths
ORDER BY entity_id, r1, r2, r3
""",
    "knowgen/read_ka_chains2": """
// For chosen (ẽ, r1, r2) relation paths: every answer y (the complete answer set) and the
// first $max_chains chains ẽ -r1-> x -r2-> y by fact id (the recorded hop triplets).
// $rows: [{entity_id, r1, r2}]. Ordered by stable ids.
UNWIND $rows AS row
MATCH (e:Entity {id: row.entity_id})
CALL (e, row) {
  MATCH (e)-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation', relation: row.r1})
        -[:OBJECT]->(x:Entity)-[:HAS_FACT]->(f2:Fact {kind: 'relation', relation: row.r2})
        -[:OBJECT]->(y:Entity)
  WHERE coalesce(f2.layer, 'source') = 'source' AND NOT x:Artificial AND NOT y:Artificial
    AND y.id <> x.id
  WITH DISTINCT y ORDER BY y.id
  RETURN collect({id: y.id, name: y.name, aliases: coalesce(y.aliases, [])}) AS answers
}
CALL (e, row) {
  MATCH (e)-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation', relation: row.r1})
        -[:OBJECT]->(x:Entity)-[:HAS_FACT]->(f2:Fact {kind: 'relation', relation: row.r2})
        -[:OBJECT]->(y:Entity)
  WHERE coalesce(f2.layer, 'source') = 'source' AND NOT x:Artificial AND NOT y:Artificial
    AND y.id <> x.id
  WITH f1, x, f2, y ORDER BY f1.id, f2.id LIMIT $max_chains
  RETURN collect({f1: f1.id, r1_label: coalesce(f1.relation_label, f1.relation), op1: f1.op,
                  x: x.id, x_name: x.name, f2: f2.id,
                  r2_label: coalesce(f2.relation_label, f2.relation),
                  y: y.id, y_name: y.name}) AS chains
}
RETURN row.entity_id AS entity_id, row.r1 AS r1, row.r2 AS r2, answers, chains
ORDER BY entity_id, r1, r2
""",
    "knowgen/read_ka_chains3": """
// For chosen (ẽ, r1, r2, r3) relation paths: every answer z (the complete answer set) and the
// first $max_chains chains ẽ -r1-> x -r2-> y -r3-> z by fact id (the recorded hop triplets).
// $rows: [{entity_id, r1, r2, r3}]. Ordered by stable ids.
UNWIND $rows AS row
MATCH (e:Entity {id: row.entity_id})
CALL (e, row) {
  MATCH (e)-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation', relation: row.r1})
        -[:OBJECT]->(x:Entity)-[:HAS_FACT]->(f2:Fact {kind: 'relation', relation: row.r2})
        -[:OBJECT]->(y:Entity)-[:HAS_FACT]->(f3:Fact {kind: 'relation', relation: row.r3})
        -[:OBJECT]->(z:Entity)
  WHERE coalesce(f2.layer, 'source') = 'source' AND coalesce(f3.layer, 'source') = 'source'
    AND NOT x:Artificial AND NOT y:Artificial AND NOT z:Artificial
    AND y.id <> x.id AND z.id <> x.id AND z.id <> y.id
  WITH DISTINCT z ORDER BY z.id
  RETURN collect({id: z.id, name: z.name, aliases: coalesce(z.aliases, [])}) AS answers
}
CALL (e, row) {
  MATCH (e)-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation', relation: row.r1})
        -[:OBJECT]->(x:Entity)-[:HAS_FACT]->(f2:Fact {kind: 'relation', relation: row.r2})
        -[:OBJECT]->(y:Entity)-[:HAS_FACT]->(f3:Fact {kind: 'relation', relation: row.r3})
        -[:OBJECT]->(z:Entity)
  WHERE coalesce(f2.layer, 'source') = 'source' AND coalesce(f3.layer, 'source') = 'source'
    AND NOT x:Artificial AND NOT y:Artificial AND NOT z:Artificial
    AND y.id <> x.id AND z.id <> x.id AND z.id <> y.id
  WITH f1, x, f2, y, f3, z ORDER BY f1.id, f2.id, f3.id LIMIT $max_chains
  RETURN collect({f1: f1.id, r1_label: coalesce(f1.relation_label, f1.relation), op1: f1.op,
                  x: x.id, x_name: x.name, f2: f2.id,
                  r2_label: coalesce(f2.relation_label, f2.relation), y: y.id, y_name: y.name,
                  f3: f3.id, r3_label: coalesce(f3.relation_label, f3.relation),
                  z: z.id, z_name: z.name}) AS chains
}
RETURN row.entity_id AS entity_id, row.r1 AS r1, row.r2 AS r2, row.r3 AS r3, answers, chains
ORDER BY entity_id, r1, r2, r3
""",
}


def server_cpu_seconds(pid: int | None) -> float:
    """utime + stime of the Neo4j server process (0 when it is not ours to read)."""
    if not pid:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CountingStore(Store):
    """The real store, counting driver round trips (one per read/run/stream, one per write batch)
    and the server's CPU seconds per statement."""

    def __init__(self, inner: Store, server_pid: int | None):
        super().__init__(inner.driver, inner.database, batch_size=inner.batch_size, uri=inner.uri)
        self.round_trips = 0
        self.server_pid = server_pid
        self.server_cpu: dict[str, float] = {}

    def _charge(self, name: str, since: float) -> None:
        spent = server_cpu_seconds(self.server_pid) - since
        self.server_cpu[name] = self.server_cpu.get(name, 0.0) + spent

    def read(self, name, **params):
        self.round_trips += 1
        c = server_cpu_seconds(self.server_pid)
        try:
            return super().read(name, **params)
        finally:
            self._charge(name, c)

    def stream(self, name, **params):
        self.round_trips += 1
        c = server_cpu_seconds(self.server_pid)
        try:
            yield from super().stream(name, **params)
        finally:
            self._charge(name, c)

    def run(self, name, **params):
        self.round_trips += 1
        c = server_cpu_seconds(self.server_pid)
        try:
            return super().run(name, **params)
        finally:
            self._charge(name, c)

    def write(self, name, rows, **kw):
        c = server_cpu_seconds(self.server_pid)
        try:
            summary = super().write(name, rows, **kw)
        finally:
            self._charge(name, c)
        self.round_trips += summary.batches
        return summary

    def write_new(self, name, fallback, rows, **kw):
        c = server_cpu_seconds(self.server_pid)
        try:
            summary = super().write_new(name, fallback, rows, **kw)
        finally:
            self._charge(name, c)
        self.round_trips += summary.batches + summary["fallbacks"]
        return summary


def bench_names(n_names: int, n_queries: int) -> None:
    rng = random.Random("bench-names")
    syll = ["ba", "ca", "de", "fi", "go", "hu", "la", "me", "ni", "po", "ra", "si", "tu", "vo", "za",
            "ler", "mon", "tis", "gan", "dor"]
    names = ["".join(rng.choice(syll) for _ in range(rng.randint(2, 5))) for _ in range(n_names)]
    t = time.perf_counter()
    index = NameIndex(names)
    build = time.perf_counter() - t
    queries = ["".join(rng.choice(syll) for _ in range(rng.randint(2, 5))) for _ in range(n_queries)]
    t = time.perf_counter()
    hits = sum(index.find_match(q) is not None for q in queries)
    indexed = (time.perf_counter() - t) / n_queries
    keys = sorted(set(names))
    t = time.perf_counter()
    brute_hits = sum(process.extractOne(q, keys, scorer=fuzz.ratio, score_cutoff=85) is not None
                     for q in queries[:50])
    brute = (time.perf_counter() - t) / 50
    t = time.perf_counter()
    made = [make_name(random.Random(f"b:{i}"), ["Alpaca"], ["Vicuna", "Guanaco", "Llama"], index)
            for i in range(200)]
    make = (time.perf_counter() - t) / len(made)
    print(f"names: {len(index):,} indexed strings, index build {build:.1f}s; lookup {indexed * 1e3:.2f} ms "
          f"(brute force extractOne {brute * 1e3:.2f} ms, x{brute / indexed:.1f}); "
          f"{hits}/{n_queries} queries collide (brute force {brute_hits}/50 on the first 50); "
          f"make_name {make * 1e3:.2f} ms per new name")


def compare_ka(store: Store, server_pid: int | None, params: KnowGenParams) -> None:
    """Old and new KA statements on the same chunks of the batch; records compared, costs printed."""
    ids = [r["id"] for r in store.driver.execute_query(
        "MATCH (:Batch {id: $batch})<-[:IN_BATCH]-(e:Artificial) RETURN e.id AS id ORDER BY id",
        batch=params.batch, database_=store.database).records]
    cost: dict[str, dict[str, list[float]]] = {}

    def both(name: str, turn: int, **statement_params) -> list[dict]:
        out = {}
        for which in (("old", "new") if turn % 2 == 0 else ("new", "old")):
            text = BASELINE_KA[name] if which == "old" else load_cypher(name)
            params = statement_params
            if which == "new":   # the product's KA statements read $batch.rows / $batch.ids
                batch = {k: v for k, v in params.items() if k in ("rows", "ids")}
                params = {**{k: v for k, v in params.items() if k not in batch}, "batch": batch}
            c, t = server_cpu_seconds(server_pid), time.perf_counter()
            records = store.driver.execute_query(text, params, database_=store.database,
                                                 routing_=neo4j.RoutingControl.READ).records
            spent = cost.setdefault(name, {}).setdefault(which, [0.0, 0.0])
            spent[0] += server_cpu_seconds(server_pid) - c
            spent[1] += time.perf_counter() - t
            out[which] = [r.data() for r in records]
        # the old chains statements also answered a path with no chain (never asked: every
        # asked path comes from a group with at least one path); the new ones leave it out
        old = [r for r in out["old"] if "chains" not in r or (r["answers"] and r["chains"])]
        if len(old) != len(out["old"]) or old != out["new"]:
            raise SystemExit(f"{name}: old and new statements differ ({len(out['old'])} vs "
                             f"{len(out['new'])} records)")
        return out["new"]

    for turn, start in enumerate(range(0, len(ids), KA_BATCH_SIZE)):
        chunk = ids[start:start + KA_BATCH_SIZE]
        groups: list[dict[str, list[dict]]] = [{}, {}]
        for hop, name in ((0, "knowgen/read_ka_groups2"), (1, "knowgen/read_ka_groups3")):
            for r in both(name, turn, ids=chunk, parent_rel=params.parent_rel):
                groups[hop].setdefault(r["entity_id"], []).append(r)
        rows2, rows3 = [], []
        for index, eid in enumerate(chunk, start):
            p2, p3 = pick_ka_groups(params, index, groups[0].get(eid, []), groups[1].get(eid, []))
            rows2 += [{"entity_id": eid, "r1": g["r1"], "r2": g["r2"]} for g in p2]
            rows3 += [{"entity_id": eid, "r1": g["r1"], "r2": g["r2"], "r3": g["r3"]} for g in p3]
        both("knowgen/read_ka_chains2", turn, rows=rows2, max_chains=params.max_hop_triplets)
        both("knowgen/read_ka_chains3", turn, rows=rows3, max_chains=params.max_hop_triplets)
    total = {"old": [0.0, 0.0], "new": [0.0, 0.0]}
    for name, spent in cost.items():
        for which in total:
            total[which][0] += spent[which][0]
            total[which][1] += spent[which][1]
        print(f"          {name}: server CPU {spent['old'][0]:.2f}s -> {spent['new'][0]:.2f}s, wall "
              f"{spent['old'][1]:.2f}s -> {spent['new'][1]:.2f}s (same records)")
    print(f"          KA reads of {len(ids):,} entities: server CPU {total['old'][0]:.2f}s -> "
          f"{total['new'][0]:.2f}s (x{total['old'][0] / max(total['new'][0], 0.01):.1f}), wall "
          f"{total['old'][1]:.2f}s -> {total['new'][1]:.2f}s (x{total['old'][1] / max(total['new'][1], 0.01):.1f})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--species", type=int, default=10000)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--wipe", action="store_true", help="Delete everything in the graph first.")
    ap.add_argument("--names", type=int, default=300000,
                    help="Names for the name-index benchmark (0: skip it).")
    ap.add_argument("--sample", action="store_true",
                    help="Load the bundled taxonomy sample instead of a synthetic taxonomy.")
    ap.add_argument("--compare-ka", action="store_true",
                    help="Run the old and the new KA statements on each batch (see above).")
    args = ap.parse_args(argv)
    hide_query_notifications()

    if args.names:
        bench_names(args.names, 500)
    inner = open_store()
    # the server's CPU is only readable when it is the managed one on this machine
    server_pid = None if os.environ.get("NEO4J_URI") else ManagedNeo4j().status().pid
    store = CountingStore(inner, server_pid)
    count = store.driver.execute_query("MATCH (n) RETURN count(n) AS n", database_=store.database).records[0]["n"]
    if count and not args.wipe:
        print(f"the graph holds {count} nodes; rerun with --wipe to clear it (this benchmark writes a "
              "synthetic taxonomy)", file=sys.stderr)
        return 2
    for attempt in range(3 if count else 0):  # an implicit transaction: the driver does not retry it
        try:
            with store.driver.session(database=store.database) as session:
                session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS").consume()
            break
        except neo4j.exceptions.TransientError as exc:  # seen once: a deadlock right after a run
            if attempt == 2:
                raise
            print(f"wiping the graph: {exc.code}; trying again", file=sys.stderr)
            time.sleep(5)
    inner.apply_schema()
    t = time.perf_counter()
    if args.sample:
        load_taxonomy(inner, [str(resources.files("knowforge.kg.samples").joinpath("taxonomy"))])
        print(f"taxonomy sample loaded in {time.perf_counter() - t:.1f}s")
    else:
        entities, facts = synthetic_taxonomy(args.species, seed=0)
        write_taxonomy(inner, entities, facts)
        print(f"synthetic taxonomy: {args.species:,} species, {len(entities):,} entities, {len(facts):,} facts "
              f"written in {time.perf_counter() - t:.1f}s")
    results = {}
    for size in (int(s) for s in args.sizes.split(",")):
        store.round_trips = 0
        store.server_cpu = {}
        params = KnowGenParams(batch=f"bench{size}", seed=1, n=size)
        load = os.getloadavg()[0]
        server0 = server_cpu_seconds(server_pid)
        t = time.perf_counter()
        summary = generate_batch(store, params)
        seconds = time.perf_counter() - t
        server = server_cpu_seconds(server_pid) - server0
        results[size] = (seconds, summary, store.round_trips)
        stages = ", ".join(f"{k} {v:.1f}s" for k, v in summary.timings.items())
        print(f"n={size:>6}: {seconds:7.1f}s  {size / seconds:8.1f} entities/s  "
              f"{summary.questions / seconds:8.1f} questions/s  ({summary.questions:,} questions, "
              f"{summary.facts:,} facts)  round trips {store.round_trips} "
              f"= {store.round_trips / size:.4f} per entity  [{stages}]")
        cpu = ", ".join(f"{k} {v:.1f}s" for k, v in summary.cpu.items())
        top = sorted(store.server_cpu.items(), key=lambda kv: -kv[1])[:6]
        print(f"          load average {load:.1f} -> {os.getloadavg()[0]:.1f}; client CPU [{cpu}]; "
              f"server CPU {server:.1f}s, by statement: "
              + ", ".join(f"{k} {v:.1f}s" for k, v in top))
        if args.compare_ka:
            compare_ka(inner, server_pid, params)
        t = time.perf_counter()
        drop_batch(inner, params.batch)
        print(f"          drop {time.perf_counter() - t:.1f}s")
    sizes = sorted(results)
    if len(sizes) >= 2:
        (s0, r0), (s1, r1) = (sizes[0], results[sizes[0]]), (sizes[-1], results[sizes[-1]])
        print(f"ratio n={s1}/n={s0}: size x{s1 / s0:.0f}, time x{r1[0] / r0[0]:.2f} "
              f"(linear = x{s1 / s0:.0f}), entities/s x{(s1 / r1[0]) / (s0 / r0[0]):.2f}, "
              f"round trips x{r1[2] / r0[2]:.2f}")
    inner.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

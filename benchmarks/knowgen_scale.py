"""KnowGen at scale: entities/s, questions/s and Neo4j round trips per entity at 1k and 10k
artificial entities generated from a synthetic taxonomy of 10k+ species, plus the fuzzy
name-collision check against a few hundred thousand names (indexed vs brute force).

Wall seconds per stage are printed with the CPU seconds this process spent in each stage and
the CPU seconds the managed Neo4j server spent (read from /proc, per statement): on a machine
shared with other work the wall time mostly measures the other work.

Needs an EMPTY graph (it writes a synthetic taxonomy): set NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD
or let it start the managed server, and pass --wipe to clear a non-empty graph first.

    python benchmarks/knowgen_scale.py --species 10000 --sizes 1000,10000 --wipe
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

import neo4j
from rapidfuzz import fuzz, process

from knowforge.generators.knowgen import KnowGenParams, drop_batch, generate_batch
from knowforge.generators.knowgen.names import NameIndex, make_name
from knowforge.generators.knowgen.synthetic import synthetic_taxonomy, write_taxonomy
from knowforge.kg.connection import hide_query_notifications, open_store
from knowforge.kg.neo4j_server import ManagedNeo4j
from knowforge.kg.store import Store


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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--species", type=int, default=10000)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--wipe", action="store_true", help="Delete everything in the graph first.")
    ap.add_argument("--names", type=int, default=300000, help="Names for the name-index benchmark.")
    args = ap.parse_args(argv)
    hide_query_notifications()

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

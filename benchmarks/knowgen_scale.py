"""KnowGen at scale: entities/s, questions/s and Neo4j round trips per entity at 1k and 10k
artificial entities generated from a synthetic taxonomy of 10k+ species, plus the fuzzy
name-collision check against a few hundred thousand names (indexed vs brute force).

Needs an EMPTY graph (it writes a synthetic taxonomy): set NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD
or let it start the managed server, and pass --wipe to clear a non-empty graph first.

    python benchmarks/knowgen_scale.py --species 10000 --sizes 1000,10000 --wipe
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from rapidfuzz import fuzz, process

from knowforge.generators.knowgen import KnowGenParams, drop_batch, generate_batch
from knowforge.generators.knowgen.names import NameIndex, make_name
from knowforge.generators.knowgen.synthetic import synthetic_taxonomy, write_taxonomy
from knowforge.kg.connection import open_store
from knowforge.kg.store import Store


class CountingStore(Store):
    """The real store, counting driver round trips (one per read/run/stream, one per write batch)."""

    def __init__(self, inner: Store):
        super().__init__(inner.driver, inner.database, batch_size=inner.batch_size, uri=inner.uri)
        self.round_trips = 0

    def read(self, name, **params):
        self.round_trips += 1
        return super().read(name, **params)

    def stream(self, name, **params):
        self.round_trips += 1
        return super().stream(name, **params)

    def run(self, name, **params):
        self.round_trips += 1
        return super().run(name, **params)

    def write(self, name, rows, **kw):
        summary = super().write(name, rows, **kw)
        self.round_trips += summary.batches
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

    bench_names(args.names, 500)
    inner = open_store()
    store = CountingStore(inner)
    count = store.driver.execute_query("MATCH (n) RETURN count(n) AS n", database_=store.database).records[0]["n"]
    if count and not args.wipe:
        print(f"the graph holds {count} nodes; rerun with --wipe to clear it (this benchmark writes a "
              "synthetic taxonomy)", file=sys.stderr)
        return 2
    if count:
        with store.driver.session(database=store.database) as session:   # implicit transaction
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS").consume()
    inner.apply_schema()
    t = time.perf_counter()
    entities, facts = synthetic_taxonomy(args.species, seed=0)
    write_taxonomy(inner, entities, facts)
    print(f"synthetic taxonomy: {args.species:,} species, {len(entities):,} entities, {len(facts):,} facts "
          f"written in {time.perf_counter() - t:.1f}s")
    results = {}
    for size in (int(s) for s in args.sizes.split(",")):
        store.round_trips = 0
        params = KnowGenParams(batch=f"bench{size}", seed=1, n=size)
        t = time.perf_counter()
        summary = generate_batch(store, params)
        seconds = time.perf_counter() - t
        results[size] = (seconds, summary, store.round_trips)
        stages = ", ".join(f"{k} {v:.1f}s" for k, v in summary.timings.items())
        print(f"n={size:>6}: {seconds:7.1f}s  {size / seconds:8.1f} entities/s  "
              f"{summary.questions / seconds:8.1f} questions/s  ({summary.questions:,} questions, "
              f"{summary.facts:,} facts)  round trips {store.round_trips} "
              f"= {store.round_trips / size:.4f} per entity  [{stages}]")
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

"""``source_graph_hash`` (pages along the id indexes, one record per page) against its
per-record stream (``streamed_source_graph_hash``, the way it was read before), in one process.

Every ``knowforge generate`` and every release import hashes the source graph once. Loads the
bundled samples named by ``--samples`` into the configured server (``NEO4J_URI`` or the managed
one, never started here) unless ``--no-load``, adds ``--synthetic N`` source facts in a scratch
namespace (deleted afterwards), then times the two readings alternately ``--repeat`` times,
checks that they give the same value, and prints the medians of wall and client CPU seconds
and their ratios.

    python benchmarks/source_hash.py [--samples taxonomy,wikidata,...] [--synthetic 50000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from knowforge.kg.connection import hide_query_notifications, open_store
from knowforge.kg.loaders.registry import load_source
from knowforge.kg.loaders.samples import sample_paths
from knowforge.models.questions import source_graph_hash, streamed_source_graph_hash

# a scratch namespace of source facts, created and deleted here (a benchmark's own statements)
SYNTHETIC = ("UNWIND range(1, $n) AS i CREATE (:Fact {id: 'bench-hash:' + i, relation: 'r' + (i % 17), "
             "value: 'v' + i, value_num: i})")
CLEANUP = ("MATCH (f:Fact) WHERE f.id STARTS WITH 'bench-hash:' "
           "CALL (f) { DELETE f } IN TRANSACTIONS OF 10000 ROWS")


def timed(fn, store) -> tuple[float, float, str]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn(store)
    return time.perf_counter() - wall, time.process_time() - cpu, value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", default=",".join(sample_paths()),
                    help="bundled samples to load first (comma-separated; default: all)")
    ap.add_argument("--no-load", action="store_true", help="hash the graph as it is")
    ap.add_argument("--synthetic", type=int, default=0, help="extra source facts to add (and delete after)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    hide_query_notifications()
    with open_store() as store:
        store.apply_schema()
        if not args.no_load:
            paths = sample_paths()
            for name in filter(None, args.samples.split(",")):
                load_source(store, name, paths[name])
        try:
            if args.synthetic:
                store.driver.execute_query(SYNTHETIC, n=args.synthetic, database_=store.database)
            counts = store.read_values("benchmark/count_facts_entities")[0]
            print(f"graph: {counts['facts']:,} facts, {counts['entities']:,} entities; load "
                  f"{'/'.join(f'{v:.1f}' for v in os.getloadavg())}")
            runs: dict[str, list[tuple[float, float]]] = {"streamed": [], "paged": []}
            values = set()
            for i in range(args.repeat):
                order = [("streamed", streamed_source_graph_hash), ("paged", source_graph_hash)]
                for name, fn in order if i % 2 == 0 else order[::-1]:
                    wall, cpu, value = timed(fn, store)
                    runs[name].append((wall, cpu))
                    values.add(value)
        finally:
            if args.synthetic:
                with store.driver.session(database=store.database) as session:
                    session.run(CLEANUP).consume()
    med = {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
           for name, r in runs.items()}
    for name, (wall, cpu) in med.items():
        print(f"{name:9s}: wall median {wall:.3f} s, client CPU median {cpu:.3f} s ({args.repeat} runs)")
    print(f"ratio streamed / paged: wall {med['streamed'][0] / med['paged'][0]:.1f}x, "
          f"client CPU {med['streamed'][1] / max(med['paged'][1], 1e-6):.1f}x")
    print(f"same value: {'yes' if len(values) == 1 else 'NO'}")
    if len(values) != 1:
        sys.exit(1)


if __name__ == "__main__":
    main()

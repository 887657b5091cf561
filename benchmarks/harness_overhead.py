"""Harness overhead of `knowforge eval` vs calling the backend directly (cache off, tiny hf model).

Both sides use the same loaded ``HFBackend`` (model loading is excluded from both):
- baseline: ``backend.generate(requests)`` on the already rendered requests;
- harness:  the library path of ``knowforge eval --benchmark FILE --no-cache``: read the JSONL,
  render, run (chunks), score, write Run/Answers/Questions to the graph, write the report
  (JSON, markdown, PNG plots). The graph part runs when a Neo4j is reachable (NEO4J_URI, the
  running managed server, or ``--start-neo4j`` for a throw-away one); otherwise it is skipped
  and the script says so.

Prints each side's wall time (best of ``--repeat``), the breakdown of the harness and the ratio.

    .venv/bin/python benchmarks/harness_overhead.py [--items 200] [--max-tokens 8] [--start-neo4j]
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import statistics
import tempfile
import time
from pathlib import Path

from knowforge.kg.connection import hide_query_notifications

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def make_items(n: int):
    from knowforge.models.types import BenchmarkItem

    items = []
    for i in range(n):
        kind = i % 3
        common = dict(id=f"h{i}", benchmark="overhead", slices={"relation": f"P{i % 8}", "year": 2010 + i % 14})
        if kind == 0:
            items.append(BenchmarkItem(**common, task="o/generation", form="generation",
                                       question=f"In {2010 + i % 14}, who led organisation {i}?",
                                       answers=[f"Person {i}", f"P. {i}"]))
        elif kind == 1:
            items.append(BenchmarkItem(**common, task="o/mc", form="multi-choice", question=f"Pick for {i}",
                                       choices=["red", "green", "blue", "grey"], answer_index=i % 4,
                                       scorer="multi-choice"))
        else:
            items.append(BenchmarkItem(**common, task="o/bool", form="boolean", question=f"Is {i} even?",
                                       answers=["yes" if i % 2 == 0 else "no"], scorer="boolean"))
    return items


@contextlib.contextmanager
def graph(start: bool):
    """A store when one is reachable (or started on request), else None."""
    from knowforge.errors import GraphUnavailable
    from knowforge.kg.connection import GraphSettings, open_store

    try:
        store = open_store(autostart=False)
    except GraphUnavailable:
        store = None
    if store is not None or not start:
        try:
            yield store
        finally:
            if store is not None:
                store.close()
        return
    from knowforge.kg.neo4j_server import ManagedNeo4j, free_port

    os.environ.setdefault("KNOWFORGE_NEO4J_HEAP", "512m")
    os.environ.setdefault("KNOWFORGE_NEO4J_PAGECACHE", "128m")
    with tempfile.TemporaryDirectory() as home:
        server = ManagedNeo4j(home=Path(home))
        if not server.is_installed():
            server.install()
        result = server.start(port=free_port(), timeout=240)   # not 7687, which another server may take
        store = open_store(GraphSettings(uri=result.uri, user="neo4j", password=server.password()))
        store.apply_schema()
        try:
            yield store
        finally:
            store.close()
            server.stop(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--start-neo4j", action="store_true", help="start a throw-away managed Neo4j")
    args = parser.parse_args()
    hide_query_notifications()
    logging.basicConfig(level=logging.WARNING)

    from knowforge import workflow
    from knowforge.eval import tasks
    from knowforge.eval.prompts import render_request
    from knowforge.eval.solvers import solve_prompted
    from knowforge.eval.types import EvalOptions
    from knowforge.eval.unit import SolveContext
    from knowforge.models.backends.hf import HFBackend
    from knowforge.models.items_io import read_items, write_items
    from knowforge.models.tiny_model import build_tiny_model

    with tempfile.TemporaryDirectory() as tmp, graph(args.start_neo4j) as store:
        tmp = Path(tmp)
        model_dir = build_tiny_model(tmp / "model", seed=0)
        bench = tmp / "bench.jsonl"
        write_items(bench, make_items(args.items))
        options = EvalOptions(backend="hf", model=str(model_dir), max_tokens=args.max_tokens, cache=False,
                              batch_size=args.batch_size, out_dir=tmp / "runs", silent=True)
        backend = HFBackend.from_options(options)
        items = read_items(bench)
        requests = [render_request(i, "zero-shot", options) for i in items]
        backend.generate(requests[:args.batch_size])  # warm-up (first forward passes, allocator)

        def direct():
            t = time.perf_counter()
            backend.generate(requests)
            return time.perf_counter() - t

        # Instrument the harness so each run also reports how much of it was generation: the
        # in-run ratio total / generate is robust to other load on the machine.
        spent: dict[str, float] = {}

        def timed(name, fn):
            def wrapper(*a, **kw):
                t = time.perf_counter()
                try:
                    return fn(*a, **kw)
                finally:
                    spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
            return wrapper

        # graph: the file's questions checked (written on the first run) and the Run with its
        # Answers recorded; report: each run's report with plots, and the evaluation's summary
        workflow.ensure_questions = timed("graph", workflow.ensure_questions)
        tasks.record_run = timed("graph", tasks.record_run)
        tasks.write_report = timed("report", tasks.write_report)
        workflow.write_summary = timed("report", workflow.write_summary)
        backend.generate = timed("backend.generate", backend.generate)

        def harness():
            spent.clear()
            t = time.perf_counter()
            loaded = read_items(bench)
            if store is None:
                solve_prompted(loaded, "zero-shot", SolveContext(backend=backend, options=options))
            else:
                workflow.evaluate_file(store, bench, options, backend=backend)
            return time.perf_counter() - t, dict(spent)

        direct_times, harness_runs = [], []
        for _ in range(args.repeat):   # interleaved, so drifting load hits both sides alike
            direct_times.append(direct())
            harness_runs.append(harness())

    harness_times = [t for t, _ in harness_runs]
    best_direct, best_harness = min(direct_times), min(harness_times)
    print(f"items: {args.items}, max_tokens: {args.max_tokens}, hf batch size: {args.batch_size}, "
          f"graph: {'yes' if store is not None else 'NOT reachable: graph writes and report skipped'}")
    print(f"direct backend.generate : best {best_direct:7.3f} s, median {statistics.median(direct_times):7.3f} s "
          f"({', '.join(f'{t:.2f}' for t in direct_times)})")
    print(f"knowforge eval (library): best {best_harness:7.3f} s, median {statistics.median(harness_times):7.3f} s "
          f"({', '.join(f'{t:.2f}' for t in harness_times)})")
    print(f"ratio harness / direct  : best/best {best_harness / best_direct:6.3f}, "
          f"median/median {statistics.median(harness_times) / statistics.median(direct_times):6.3f}")
    in_run = []
    for total, parts in harness_runs:
        generate = parts.get("backend.generate", 0.0)
        in_run.append(total / generate if generate else float("nan"))
        graph_s, report_s = parts.get("graph", 0.0), parts.get("report", 0.0)
        rest = total - generate - graph_s - report_s
        print(f"  harness run {total:7.3f} s = generate {generate:7.3f} + graph {graph_s:6.3f}"
              f" + report {report_s:6.3f} + read/render/score {rest:6.3f}"
              f"  (total/generate {in_run[-1]:.3f})")
    print(f"in-run ratio total / generate (median): {statistics.median(in_run):.3f}")


if __name__ == "__main__":
    main()

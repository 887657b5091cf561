"""How fast `knowforge view` opens a large run: its run page and the first page of its samples.

Makes one run of ``--samples`` answers (default 100,000: ``--samples / --per-item`` questions,
each answered ``--per-item`` times, over 4 tasks with relation and year slices) with the
project's own writers (``write_benchmark``, ``record_run``) in a private graph, serves the
viewer on 127.0.0.1 in this process, and times over HTTP:

- baseline: the named read ``view/read_run`` (``MATCH (r:Run {id: $run_id}) RETURN r`` and a
  degree count), called directly;
- the run page ``/runs/<id>``: what opens when a run is clicked (a run this large opens without
  its numbers, which the page then fetches);
- its numbers ``/runs/<id>/numbers``: accuracy overall, per task and per slice with intervals,
  aggregated over every answer (what the page fetches);
- the first page of its samples ``/runs/<id>/samples``.

The viewer keeps a run's numbers once computed; here that cache is off, so every request
aggregates all the answers again (a first visit's cost). Each is timed ``--repeat`` times; the
first request (cold query plans) and the median are printed, with the ratio of the median to
the baseline's.

    .venv/bin/python benchmarks/view_first_page.py                  # a throw-away Neo4j of its own
    .venv/bin/python benchmarks/view_first_page.py --graph env --samples 500   # NEO4J_URI's server

With ``--graph env`` the benchmark's questions, answers and run are deleted afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path

from _throwaway import throwaway_store

from knowforge.kg.connection import hide_query_notifications

TASKS = 4


@contextlib.contextmanager
def private_graph(kind: str):
    """A store on a throw-away managed Neo4j (``private``) or on the configured server (``env``)."""
    from knowforge.kg.connection import open_store

    if kind == "env":
        with open_store(autostart=False) as store:
            yield store
        return
    with throwaway_store(heap="768m", pagecache="512m", stop_timeout=60) as (store, _):
        yield store


def build_run(store, samples: int, per_item: int, name: str, out_dir: Path) -> str:
    """One run of ``samples`` answers to ``samples // per_item`` questions; returns its id."""
    from knowforge.eval.results import record_run
    from knowforge.eval.types import EvalOptions, SampleResult
    from knowforge.models.questions import write_benchmark, write_questions
    from knowforge.models.types import BenchmarkItem

    benchmark = f"viewbench:{name}"
    write_benchmark(store, method="viewbench", name=name, seed=0, params={"samples": samples}, source_hash=None)
    questions = max(1, samples // per_item)
    items = [BenchmarkItem(id=f"{benchmark}:{i:07d}", benchmark=benchmark, task=f"viewbench/t{i % TASKS}",
                           form="generation", question=f"In {2010 + i % 14}, who led organisation {i}?",
                           answers=[f"Person {i}"], slices={"relation": f"P{i % 8}", "year": 2010 + i % 14})
             for i in range(questions)]
    write_questions(store, items)          # the benchmark's questions; a run never writes them
    rng = random.Random(0)
    results = []
    for i, item in enumerate(items):
        for s in range(per_item):
            right = rng.random() < 0.6
            results.append(SampleResult(item.id, s, f"Person {i if right else 0}", f"Person {i if right else 0}",
                                        float(right), prompt=f"Q: {item.question}\nA:",
                                        explanation="fuzzy match >= 70" if right else "no match"))
    options = EvalOptions(backend="openai", model="viewbench", out_dir=out_dir)
    return record_run(store, options, items, results, name=benchmark, run_id=f"run-viewbench-{name}")


def drop_run(store, name: str) -> None:
    """Delete what ``build_run`` wrote (the generic drop statements of a benchmark's questions,
    answers and answerless runs)."""
    benchmark = f"viewbench:{name}"
    while store.run("link/delete_questions", benchmark=benchmark, limit=10_000)["nodes_deleted"]:
        pass
    store.run("link/delete_runs", benchmark=benchmark, limit=100)
    store.run("benchmark/delete_benchmark", id=benchmark)


@contextlib.contextmanager
def viewer(store):
    """The viewer on a free port of 127.0.0.1, without its per-run cache; yields its base URL."""
    import uvicorn

    from knowforge.view.app import build_app
    from knowforge.view.numbers import StatsCache
    from knowforge.view.server import bind

    app = build_app(store, stats_cache=StatsCache(size=0))
    sock = bind(0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def timed(fn, repeat: int) -> tuple[float, float]:
    """(first call, median of the next ``repeat``) in seconds."""
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times)


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as response:
        if response.status != 200:
            raise RuntimeError(f"{url} answered {response.status}")
        return response.read()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=100_000, help="answers in the run (default 100,000)")
    parser.add_argument("--per-item", type=int, default=2, help="answers per question (samples per item)")
    parser.add_argument("--repeat", type=int, default=5, help="timed requests after the first")
    parser.add_argument("--graph", choices=("private", "env"), default="private",
                        help="private: a throw-away managed Neo4j; env: NEO4J_URI's server (cleaned up after)")
    args = parser.parse_args()
    hide_query_notifications()
    name = uuid.uuid4().hex[:8]
    with private_graph(args.graph) as store, tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        run_id = build_run(store, args.samples, args.per_item, name, Path(out))
        built = time.perf_counter() - t0
        try:
            baseline = timed(lambda: store.read("view/read_run", run_id=run_id), args.repeat)
            with viewer(store) as base:
                run_page = timed(lambda: get(f"{base}/runs/{run_id}"), args.repeat)
                numbers = timed(lambda: get(f"{base}/runs/{run_id}/numbers?fragment=1"), args.repeat)
                samples = timed(lambda: get(f"{base}/runs/{run_id}/samples"), args.repeat)
                deferred = "data-numbers=" in get(f"{base}/runs/{run_id}").decode("utf-8")
                body = get(f"{base}/runs/{run_id}/samples").decode("utf-8")
                shown = body.count('class="sample-link"')
        finally:
            if args.graph == "env":
                drop_run(store, name)
    print(f"run of {args.samples:,} samples ({args.samples // args.per_item:,} questions x {args.per_item}) "
          f"written in {built:.1f}s; the samples page shows {shown} rows; the run page "
          + ("opens without its numbers and fetches them" if deferred else "carries its numbers"))
    print(f"{'':34s} {'first':>10s} {'median':>10s} {'x baseline':>11s}")
    for label, (first, median) in (("baseline: view/read_run", baseline), ("run page /runs/<id>", run_page),
                                   ("its numbers /runs/<id>/numbers", numbers), ("first samples page", samples)):
        print(f"{label:34s} {1000 * first:8.1f}ms {1000 * median:8.1f}ms {median / baseline[1]:10.1f}x")


if __name__ == "__main__":
    main()

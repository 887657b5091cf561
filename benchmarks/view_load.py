"""The viewer under load (issue 36, item 6): ``--clients`` (default 32) clients at once over
every page kind for ``--seconds`` (default 60), on 127.0.0.1. Any 5xx fails the run.

The graph holds a run of ``--samples`` answers (``view_first_page.build_run``: the project's
own writers), a second run over its questions (for the comparison page) and the bundled
taxonomy sample (an entity page). The page kinds: the runs list,
a run page, its numbers, its samples (first and second page), one sample, a plot that is not
there (404), the comparison of the two runs, an entity, the views list, every declared method
view (opened without its key: the 400 page that says which key it needs, as this graph holds
no method's data), and a static file. The viewer keeps run numbers as it does for a
user (its default cache).

Each client keeps one HTTP/1.1 connection and walks the page kinds from its own offset. Printed:
requests, status counts, p50/p99 latency per kind and overall, and the baseline: the same pages
asked by one client, in this process, before the load (ratio of the loaded p50 to it).

    .venv/bin/python benchmarks/view_load.py                         # a throw-away Neo4j of its own
    .venv/bin/python benchmarks/view_load.py --graph env --seconds 5 --clients 4 --samples 100
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from view_first_page import build_run, drop_run, private_graph  # noqa: E402

from knowforge.kg.connection import hide_query_notifications  # noqa: E402


@contextlib.contextmanager
def viewer(store):
    """The viewer as ``knowforge view`` serves it, on a free port of 127.0.0.1; yields the port."""
    import uvicorn

    from knowforge.view.app import build_app
    from knowforge.view.server import bind

    sock = bind(0)
    server = uvicorn.Server(uvicorn.Config(build_app(store), log_level="warning", access_log=False,
                                           lifespan="off", backlog=256))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def second_run(store, name: str, out_dir: Path) -> str:
    """Another model's run over the benchmark ``build_run`` made (a comparison needs two runs of
    one benchmark): right where ``build_run``'s answers are wrong, on every other question."""
    from knowforge.eval.results import record_run
    from knowforge.eval.types import EvalOptions, SampleResult
    from knowforge.models.questions import read_items

    benchmark = f"viewbench:{name}"
    items = read_items(store, benchmark)
    results = [SampleResult(item.id, 0, item.answers[0] if i % 2 else "Person 0", item.answers[0] if i % 2 else "Person 0",
                            float(i % 2), prompt=f"Q: {item.question}\nA:") for i, item in enumerate(items)]
    options = EvalOptions(backend="openai", model="viewbench-other", out_dir=out_dir)
    return record_run(store, options, items, results, name=benchmark, run_id=f"run-viewbench-{name}-other")


def page_kinds(store, run_a: str, run_b: str, question: str) -> list[tuple[str, str]]:
    """(kind, path) for every page kind the viewer serves."""
    from knowforge.view.graphs import declared_views

    entity = store.user_query("MATCH (e:Entity) RETURN e.id AS id ORDER BY id LIMIT 1")
    pages = [("runs list", "/"), ("run page", f"/runs/{run_a}"), ("run numbers", f"/runs/{run_a}/numbers?fragment=1"),
             ("samples", f"/runs/{run_a}/samples"), ("samples page 2", f"/runs/{run_a}/samples?page=2"),
             ("one sample", f"/runs/{run_a}/sample?q={question}&i=0"),
             ("missing plot (404)", f"/runs/{run_a}/plots/accuracy.png"),
             ("compare", f"/compare?run={run_a}&run={run_b}"),
             ("entity", f"/entity?id={entity[0]['id'] if entity else 'none'}"), ("views list", "/views"),
             ("static file", "/static/view.css")]
    pages += [(f"view {d.method}/{d.view.name}", f"/view/{d.method}/{d.view.name}") for d in declared_views().views]
    return pages


def client(port: int, pages: list[tuple[str, str]], offset: int, until: float, out: list,
           count: int | None = None) -> None:
    """Ask ``pages`` in turn from ``offset`` until ``until`` (or ``count`` requests)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    i = offset
    try:
        while time.monotonic() < until and (count is None or i - offset < count):
            kind, path = pages[i % len(pages)]
            i += 1
            t0 = time.perf_counter()
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
                status = f"error {type(exc).__name__}"
            out.append((kind, status, time.perf_counter() - t0))
    finally:
        conn.close()


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--samples", type=int, default=2000, help="answers in each of the two runs")
    parser.add_argument("--graph", choices=("private", "env"), default="private",
                        help="private: a throw-away managed Neo4j; env: NEO4J_URI's server (cleaned up after)")
    args = parser.parse_args()
    hide_query_notifications()
    from knowforge.kg.loaders.registry import load_source
    from knowforge.kg.loaders.samples import samples_dir

    name = uuid.uuid4().hex[:8]
    with private_graph(args.graph) as store, tempfile.TemporaryDirectory() as out:
        if args.graph == "private":
            load_source(store, "taxonomy", [samples_dir() / "taxonomy"])
        t0 = time.perf_counter()
        runs = [build_run(store, args.samples, 2, name, Path(out)), second_run(store, name, Path(out))]
        print(f"graph built in {time.perf_counter() - t0:.1f}s", flush=True)
        try:
            pages = page_kinds(store, runs[0], runs[1], f"viewbench:{name}:0000000")
            with viewer(store) as port:
                t0 = time.perf_counter()
                client(port, pages, 0, float("inf"), [], count=len(pages))    # warm-up: query plans, templates
                print(f"warm-up pass over every page kind: {time.perf_counter() - t0:.1f}s", flush=True)
                single: list = []       # the baseline: one client alone, every page kind twice
                client(port, pages, 0, float("inf"), single, count=2 * len(pages))
                loaded: list = []
                until = time.monotonic() + args.seconds
                threads = [threading.Thread(target=client, args=(port, pages, k * len(pages) // args.clients, until,
                                                         loaded)) for k in range(args.clients)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
        finally:
            if args.graph == "env":
                drop_run(store, name)
    statuses = Counter(str(s) for _, s, _ in loaded)
    server_errors = sum(n for s, n in statuses.items() if s.startswith("5") or s.startswith("error"))
    print(f"{args.clients} clients for {args.seconds:g}s over {len(pages)} page kinds (a run of "
          f"{args.samples:,} answers and a second run of its questions): {len(loaded):,} requests, {len(loaded) / args.seconds:,.1f} per second")
    print("statuses: " + ", ".join(f"{s} {n}" for s, n in sorted(statuses.items())))
    by_kind: dict[str, list[float]] = defaultdict(list)
    for kind, _, seconds in loaded:
        by_kind[kind].append(seconds)
    alone: dict[str, list[float]] = defaultdict(list)
    for kind, _, seconds in single:
        alone[kind].append(seconds)
    status_of: dict[str, Counter] = defaultdict(Counter)
    for kind, status, _ in loaded:
        status_of[kind][str(status)] += 1
    print(f"{'page kind':34s} {'requests':>8s} {'p50':>9s} {'p99':>9s} {'p50 alone':>10s}  statuses")
    for kind, _ in pages:
        times = by_kind.get(kind)
        solo = alone.get(kind)
        loaded_at = (f"{1000 * quantile(times, 0.5):7.1f}ms {1000 * quantile(times, 0.99):7.1f}ms " if times
                     else f"{'-':>9s} {'-':>9s} ")
        print(f"{kind[:34]:34s} {len(times or []):8d} " + loaded_at
              + (f"{1000 * statistics.median(solo):8.1f}ms" if solo else f"{'-':>10s}")
              + "  " + " ".join(f"{s}x{n}" for s, n in sorted(status_of[kind].items())))
    every = [s for _, _, s in loaded]
    solo_all = [s for _, _, s in single]
    p50, p99, base = quantile(every, 0.5), quantile(every, 0.99), statistics.median(solo_all)
    print(f"all pages: p50 {1000 * p50:.1f}ms, p99 {1000 * p99:.1f}ms; one client alone p50 {1000 * base:.1f}ms; "
          f"ratio {p50 / base:.1f}x")
    print(f"5xx or failed requests: {server_errors}")
    return 1 if server_errors else 0


if __name__ == "__main__":
    raise SystemExit(main())

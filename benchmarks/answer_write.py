"""The eval's write of a run's answers: the current MERGE statement against CREATE for a new
run, and batch sizes, in one process on one server.

Every variant records the same answers (one per question of a scratch benchmark, rows built by
``eval.results._answer_row``) under a new run id, then checks the graph it left (answers, GAVE
and ANSWERS links, properties) against the current statement's and deletes them:

  merge B    eval/create_answers through ``Store.write`` in batches of B answers (the current
             write, at the store's default batch size, is the baseline)
  create B   eval/create_new_answers through ``Store.write_new`` (create-only; a batch that
             finds one of its answers falls back to the MERGE) in batches of B
  re-run     the MERGE statement over answers that exist (a run recorded again): the path a
             re-run keeps, timed for reference

The variants run in a different order each round (--rounds), so that a machine whose load
changes treats them alike. Wall time, and CPU seconds of this process plus the Neo4j server's
(the managed server's, or the throw-away one's of --start-neo4j) are printed per variant with
the ratio to the baseline. The load average is printed before and after.

    .venv/bin/python benchmarks/answer_write.py --answers 4000 20000 --rounds 3 [--start-neo4j]
        [--batches 2000 10000]

Batches of 50,000 answers exceeded the transaction memory of the throw-away server (512 MiB
heap: MemoryPoolOutOfMemoryError at 358 MiB), which is also the test suite's server size.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time

from _throwaway import throwaway_store

from knowforge.eval.results import _answer_row, new_run_id
from knowforge.eval.types import SampleResult
from knowforge.kg.connection import hide_query_notifications
from knowforge.kg.store import DEFAULT_BATCH_SIZE

BENCHMARK = "answerbench:scratch"


@contextlib.contextmanager
def server(start: bool):
    """(store, server pid or None): the configured or managed server, or a throw-away one."""
    from knowforge.kg.connection import open_store
    from knowforge.kg.neo4j_server import ManagedNeo4j

    if start:
        with throwaway_store() as (store, pid):
            yield store, pid
        return
    status = ManagedNeo4j().status() if not os.environ.get("NEO4J_URI") else None
    with open_store() as store:
        store.apply_schema()
        yield store, status.pid if status and status.running else None


class CpuClock:
    """CPU seconds of this process plus the server's (the server's part is 0 when unknown)."""

    def __init__(self, pid: int | None):
        self.pid = pid
        self.tick = os.sysconf("SC_CLK_TCK")

    def __call__(self) -> float:
        own = time.process_time()
        if self.pid is None:
            return own
        with open(f"/proc/{self.pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return own + (int(fields[11]) + int(fields[12])) / self.tick


def write_questions(store, n: int) -> list[str]:
    from knowforge.models.questions import write_questions as write
    from knowforge.models.types import BenchmarkItem

    items = [BenchmarkItem(id=f"answerbench-{i}", benchmark=BENCHMARK, task="ab/gen", form="generation",
                           question=f"Q{i}?", answers=[f"A{i}"], slices={"year": 2000 + i % 20})
             for i in range(n)]
    write(store, items, overwrite=False)
    return [i.id for i in items]


def answer_rows(run_id: str, ids: list[str]) -> list[dict]:
    return [_answer_row(run_id, SampleResult(qid, 0, raw=f"answer {k}", parsed=f"answer {k}", score=float(k % 2),
                                             finish_reason="stop", prompt=f"Question: Q{k}?\nAnswer:",
                                             rule="exact:knowforge"))
            for k, qid in enumerate(ids)]


def start_run(store, run_id: str) -> None:
    store.run("eval/upsert_run", id=run_id, props={"model": "bench", "benchmark": BENCHMARK})


def shape(store, run_id: str) -> dict:
    """What a run's answers left in the graph, to check that every variant leaves the same."""
    rows = store.user_query(
        "MATCH (:Run {id: $id})-[g:GAVE]->(a:Answer) OPTIONAL MATCH (a)-[l:ANSWERS]->(:Question) "
        "RETURN count(DISTINCT a) AS answers, count(DISTINCT g) AS gave, count(l) AS answers_links, "
        "sum(size(keys(a))) AS properties, sum(a.score) AS scores", {"id": run_id})
    return rows[0]


def delete_run(store, run_id: str) -> None:
    with store.driver.session(database=store.database) as session:
        session.run("MATCH (:Run {id: $id})-[:GAVE]->(a:Answer) CALL (a) { DETACH DELETE a } "
                    "IN TRANSACTIONS OF 10000 ROWS", id=run_id).consume()
        session.run("MATCH (r:Run {id: $id}) DETACH DELETE r", id=run_id).consume()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--answers", type=int, nargs="+", default=[4000, 100_000])
    ap.add_argument("--batches", type=int, nargs="+", default=[2000, DEFAULT_BATCH_SIZE])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--start-neo4j", action="store_true", help="start a throw-away managed Neo4j")
    args = ap.parse_args()
    hide_query_notifications()
    load_before = os.getloadavg()
    with server(args.start_neo4j) as (store, pid):
        cpu = CpuClock(pid)
        print(f"server CPU counted: {'yes' if pid else 'no (server not managed here): this process only'}")
        for n in args.answers:
            ids = write_questions(store, n)
            variants = {}
            for b in args.batches:
                variants[f"merge {b}"] = lambda run_id, rows, b=b: store.write(
                    "eval/create_answers", rows, run_id=run_id, batch_size=b)
                variants[f"create {b}"] = lambda run_id, rows, b=b: store.write_new(
                    "eval/create_new_answers", "eval/create_answers", rows, run_id=run_id, batch_size=b)
            baseline = f"merge {DEFAULT_BATCH_SIZE}"
            # warm-up: the server plans and compiles each statement once
            for name, write in variants.items():
                run_id = new_run_id()
                start_run(store, run_id)
                write(run_id, answer_rows(run_id, ids[:500]))
                delete_run(store, run_id)
            wall: dict[str, list[float]] = {k: [] for k in [*variants, "re-run"]}
            cpus: dict[str, list[float]] = {k: [] for k in wall}
            expected = None
            for r in range(args.rounds):
                order = list(variants)
                order = order[r % len(order):] + order[:r % len(order)]
                for name in order:
                    run_id = new_run_id()
                    start_run(store, run_id)
                    rows = answer_rows(run_id, ids)
                    c0, t0 = cpu(), time.perf_counter()
                    variants[name](run_id, rows)
                    wall[name].append(time.perf_counter() - t0)
                    cpus[name].append(cpu() - c0)
                    got = shape(store, run_id)
                    expected = expected or got
                    if got != expected:
                        print(f"  ! {name} left another graph: {got} (expected {expected})")
                    if name == baseline:   # the same answers recorded again: MERGE over existing ones
                        c0, t0 = cpu(), time.perf_counter()
                        store.write("eval/create_answers", rows, run_id=run_id)
                        wall["re-run"].append(time.perf_counter() - t0)
                        cpus["re-run"].append(cpu() - c0)
                        if shape(store, run_id) != expected:
                            print(f"  ! the re-run doubled something: {shape(store, run_id)}")
                    delete_run(store, run_id)
            print(f"\nanswers: {n:,} x {args.rounds} round(s); graph per run: {expected}")
            base_wall, base_cpu = statistics.median(wall[baseline]), statistics.median(cpus[baseline])
            for name in wall:
                w, c = statistics.median(wall[name]), statistics.median(cpus[name])
                print(f"  {name:14s}: wall median {w:7.3f} s ({', '.join(f'{x:.2f}' for x in wall[name])}), "
                      f"{n / w:9,.0f} answers/s, ratio to {baseline} {base_wall / w:5.2f}; "
                      f"CPU median {c:7.3f} s, ratio {base_cpu / c:5.2f}")
            # in transactions of 10,000: 100,000 questions in one failed on the 512 MiB server
            with store.driver.session(database=store.database) as session:
                session.run("MATCH (q:Question {benchmark: $b}) CALL (q) { DETACH DELETE q } "
                            "IN TRANSACTIONS OF 10000 ROWS", b=BENCHMARK).consume()
    print("load average " + " → ".join("/".join(f"{v:.1f}" for v in la) for la in (load_before, os.getloadavg())))


if __name__ == "__main__":
    main()

"""The eval's per-question reads, one record per question against one record per chunk of
questions, in one process on one server.

An eval of a file benchmark reads every question it answers once (eval/question_items:
stored item, benchmark and the fields the run's report reads), an eval of a benchmark in the graph once too (eval/question_benchmarks: benchmark and
the report's fields); until engine10 (2026-11-29) a file benchmark's eval read both. Each read
is timed

  rows        the statement returning one record per question, read as ``Store.read_values``
              did (a dict of each record's values): the statements' form before 2026-11-29 (engine7;
              question_items with the fields it returns now: from 2026-11-30 without the per-question
              look-up of a Benchmark node), kept here as text to measure against
  collected   the statement as it is now, one record whose ``rows`` collects them, ids sent in
              chunks of 10,000 (``Store.read_collected``)

on N questions of a scratch benchmark (harness_overhead.py's items), in a rotating order over
--rounds, and both must give the same rows. Printed per variant: wall, CPU seconds of this
process, and of the server (the throw-away one of --start-neo4j, or the managed server), medians,
with the ratio to ``rows``; and the load average before and after.

    .venv/bin/python benchmarks/question_reads.py --items 4000 20000 --rounds 3 [--start-neo4j]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from answer_write import server
from harness_overhead import make_items

from knowforge.kg.connection import hide_query_notifications
from neo4j import Query, RoutingControl

# the statements as they were, returning one record per question
ROWS = {
    "eval/question_items": (
        "UNWIND $ids AS id MATCH (q:Question {id: id}) "
        "RETURN q.item_json AS item_json, q.id AS id, q.benchmark AS benchmark, "
        "q.task AS task, q.form AS form, q.answers AS answers, q.metadata_json AS metadata_json, "
        "[key IN keys(q) WHERE key STARTS WITH 'slice_' | [key, q[key]]] AS slices"),
    "eval/question_benchmarks": (
        "UNWIND $ids AS id MATCH (q:Question {id: id}) "
        "RETURN q.id AS id, q.benchmark AS benchmark, q.task AS task, q.form AS form, q.answers AS answers, "
        "q.metadata_json AS metadata_json, [key IN keys(q) WHERE key STARTS WITH 'slice_' | [key, q[key]]] AS slices"),
}


def per_record(store, name: str, ids: list[str]) -> list[list]:
    """The old read: one record per question, each made a dict of its values (``Store.read_values``, now gone)."""
    def values(result):
        keys = result.keys()
        return [dict(zip(keys, record)) for record in result]

    rows = store.driver.execute_query(Query(ROWS[name]), {"ids": ids}, routing_=RoutingControl.READ,
                                      database_=store.database, result_transformer_=values)
    return [list(r.values()) for r in rows]


class Clocks:
    def __init__(self, pid: int | None):
        self.pid, self.tick = pid, os.sysconf("SC_CLK_TCK")

    def server(self) -> float:
        if self.pid is None:
            return 0.0
        with open(f"/proc/{self.pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self.tick


def ratio(base: float, value: float) -> str:
    """``x1.23``: how many times ``value`` goes into the baseline's (a clock that read no time
    at a tiny size reads as the smallest tick, not a division by zero)."""
    return f"x{base / max(value, 1e-6):5.2f}"


def main() -> None:
    from knowforge.models.questions import write_questions

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, nargs="+", default=[4000, 20_000])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--start-neo4j", action="store_true", help="start a throw-away managed Neo4j")
    args = ap.parse_args()
    hide_query_notifications()
    load_before = os.getloadavg()
    with server(args.start_neo4j) as (store, pid):
        clocks = Clocks(pid)
        print(f"server CPU counted: {'yes' if pid else 'no (server not managed here)'}")
        for n in args.items:
            items = make_items(n)
            write_questions(store, items, overwrite=False)
            ids = [i.id for i in items]
            variants = {"rows": lambda name: per_record(store, name, ids),
                        "collected": lambda name: store.read_collected(name, ids)}
            for name in ROWS:
                for read in variants.values():        # warm-up: each statement planned once
                    read(name)
                wall: dict[str, list[float]] = {k: [] for k in variants}
                own: dict[str, list[float]] = {k: [] for k in variants}
                srv: dict[str, list[float]] = {k: [] for k in variants}
                results = {}
                for r in range(args.rounds):
                    order = list(variants)[r % 2:] + list(variants)[:r % 2]
                    for variant in order:
                        s0, c0, t0 = clocks.server(), time.process_time(), time.perf_counter()
                        got = variants[variant](name)
                        wall[variant].append(time.perf_counter() - t0)
                        own[variant].append(time.process_time() - c0)
                        srv[variant].append(clocks.server() - s0)
                        results[variant] = sorted(got, key=lambda row: row[1] if name == "eval/question_items" else row[0])
                same = results["rows"] == results["collected"] and len(results["rows"]) == n
                print(f"\n{name}, {n:,} questions x {args.rounds} round(s); same rows: {'yes' if same else 'NO'}")
                base = {k: statistics.median(v["rows"]) for k, v in (("wall", wall), ("own", own), ("srv", srv))}
                for variant in variants:
                    w, c, s = (statistics.median(x[variant]) for x in (wall, own, srv))
                    print(f"  {variant:9s}: wall {w:7.3f} s ({ratio(base['wall'], w)}), this process CPU {c:7.3f} s "
                          f"({ratio(base['own'], c)}), server CPU {s:7.3f} s" + (f" ({ratio(base['srv'], s)})" if s else ""))
            store.user_query("MATCH (q:Question {benchmark: 'overhead'}) DETACH DELETE q", {}, write=True)
    print("load average " + " → ".join("/".join(f"{v:.1f}" for v in la) for la in (load_before, os.getloadavg())))


if __name__ == "__main__":
    main()

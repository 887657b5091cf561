"""Dump → Neo4j: ``neo4j-admin database import`` of the Spark output against the UNWIND path.

1. Writes a synthetic Wikidata dump (``make_wikidata_dump.py``) with at least ``--facts``
   facts (about 6.7 per entity) and parses it with the Spark engine into a bulk folder.
2. Runs a managed Neo4j of its own (a temporary home, or ``--home``) and times:
   - the UNWIND path: ``load_wikidata_json`` (the streaming loader, parse + batched writes)
     on the first ``--unwind-facts`` facts' worth of the dump (default: all of it);
   - the bulk path: ``import_bulk`` (stop, ``database import full``, restart, schema and
     index population, count check) of the whole folder, and the import tool's step alone.
3. Prints facts/s of each and the ratios, measured in this run. When the UNWIND run covers
   only part of the dump its rate is measured on that part, and the script says so.

The load average is printed next to each phase: on a shared machine wall times move with it.
``--keep DIR`` keeps the dump and the Spark output (and the Spark timings, ``spark.json``);
``--reuse-bulk DIR`` starts from such a folder instead of generating and parsing again, so the
1M-fact run can be repeated in the time of its Neo4j phases.

    python benchmarks/bulk_import.py [--facts 1000000] [--unwind-facts 100000] [--home DIR]
                                     [--keep DIR | --reuse-bulk DIR] [--conf KEY=VALUE ...]

``--conf`` sets a Spark option, e.g. ``--conf spark.sql.shuffle.partitions=4`` for a tiny input.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_wikidata_dump import write_dump  # noqa: E402
from spark_parse import spark_option  # noqa: E402

from knowforge.kg.bulk.admin_import import import_bulk  # noqa: E402
from knowforge.kg.connection import GraphSettings, hide_query_notifications, open_store  # noqa: E402
from knowforge.kg.loaders.base import iter_lines  # noqa: E402
from knowforge.kg.loaders.wikidata_json import load_wikidata_json  # noqa: E402
from knowforge.kg.loaders.wikidata_spark import load_wikidata_spark, spark_session  # noqa: E402
from knowforge.kg.neo4j_server import ManagedNeo4j, free_port  # noqa: E402

FACTS_PER_ENTITY = 6.7  # of make_wikidata_dump's documents with the default allow-list


def head(path: Path, target: Path, lines: int) -> Path:
    with open(target, "wb") as out:
        out.write(b"[\n")
        for lineno, raw in iter_lines(path):
            if lineno == 1:
                continue
            if lineno > lines + 1:
                break
            out.write(raw.rstrip(b",") + b",\n")
        out.write(b"]\n")
    return target


SPARK_INFO = "spark.json"


def loads(values=None) -> str:
    """The 1, 5 and 15 minute load averages (now, or the ones given)."""
    return "/".join(f"{v:.1f}" for v in (values or os.getloadavg()))


class CpuClock:
    """CPU seconds of this process, its finished children (the import tool, a stopped
    server) and the servers named: on a shared machine the CPU a phase costs moves far
    less with the load than its wall time."""

    def __init__(self):
        self.pids: set[int] = set()
        self.tick = os.sysconf("SC_CLK_TCK")

    def __call__(self, server: ManagedNeo4j) -> float:
        pid = server.status().pid
        if pid:
            self.pids.add(pid)
        total = sum(getattr(resource.getrusage(who), f)
                    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
                    for f in ("ru_utime", "ru_stime"))
        for pid in self.pids:  # running, or exited but not reaped yet (then not in CHILDREN)
            try:
                with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / self.tick
        return total


def parse(work: Path, dump: Path, entities: int, master: str, conf: dict[str, str]) -> dict:
    """Generate the dump (unless there) and parse it with Spark into ``work/bulk``."""
    if not dump.exists():
        t0 = time.perf_counter()
        write_dump(dump, entities)
        print(f"generated {entities:,} entities ({dump.stat().st_size / 1e6:,.0f} MB) in "
              f"{time.perf_counter() - t0:.0f}s")
    spark = spark_session(master, conf, log_file=work / "spark.log")
    before = os.getloadavg()
    t0 = time.perf_counter()
    bulk = load_wikidata_spark([dump], work / "bulk", spark=spark, overwrite=True)
    info = {"seconds": time.perf_counter() - t0, "parse": bulk.seconds["parse"],
            "graph": bulk.seconds["graph"], "counts": bulk.counts, "load_before": before,
            "load_after": os.getloadavg()}
    spark.stop()
    (work / SPARK_INFO).write_text(json.dumps(info, indent=1))
    return info


def wipe(store) -> None:
    with store.driver.session(database=store.database) as session:
        session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()


def step_printer():
    """Prints each step of the import as it starts, and index progress every 15 s."""
    last = [0.0]

    def step(text: str) -> None:
        if text.startswith("populating indexes:"):
            if time.monotonic() - last[0] < 15:
                return
            last[0] = time.monotonic()
        print(f"  [{time.strftime('%H:%M:%S')} load {loads()}] {text}", flush=True)
    return step


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--unwind-facts", type=int, default=None,
                    help="facts' worth of the dump to load through UNWIND (default: all)")
    ap.add_argument("--home", type=Path, default=None, help="managed Neo4j home (default: temporary)")
    ap.add_argument("--master", default="local[2]")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--keep", type=Path, default=None, help="work in this folder and keep it")
    group.add_argument("--reuse-bulk", type=Path, default=None, metavar="DIR",
                       help="a folder kept by --keep: reuse its dump and Spark output")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", type=spark_option,
                    help="a Spark option (repeatable)")
    args = ap.parse_args()
    hide_query_notifications()
    if args.reuse_bulk:
        work = args.reuse_bulk
        dump, spark_info = work / "latest-all.json", json.loads((work / SPARK_INFO).read_text())
        print(f"reusing {dump} ({dump.stat().st_size / 1e6:,.0f} MB) and {work / 'bulk'} "
              f"(Spark took {spark_info['seconds']:.0f}s when it was made)")
    else:
        work = args.keep or Path(tempfile.mkdtemp(prefix="knowforge-bulk-bench-"))
        work.mkdir(parents=True, exist_ok=True)
        dump = work / "latest-all.json"
        spark_info = parse(work, dump, int(args.facts / FACTS_PER_ENTITY) + 1, args.master, dict(args.conf))
    t_spark = spark_info["seconds"]
    counts = spark_info["counts"]
    facts = counts["facts"]
    print(f"Spark: {counts['entities']:,} entities, {counts['stubs']:,} stubs, {facts:,} facts "
          f"in {t_spark:.0f}s (parse {spark_info['parse']:.0f}s, graph {spark_info['graph']:.0f}s; "
          f"load {loads(spark_info['load_before'])} → {loads(spark_info['load_after'])})")

    # A fresh server home each run (unless --home): wiping a previous run's imported graph
    # would take longer than starting from an empty one.
    home = args.home or work / "neo4j"
    if args.home is None:
        shutil.rmtree(home, ignore_errors=True)
    server = ManagedNeo4j(home)
    if not server.is_installed():
        server.install()
    # a free port, not 7687: another server starting on this machine may take 7687 between
    # the check that it is free and this server binding it
    started = server.start(port=free_port(), timeout=300)
    store = open_store(GraphSettings(uri=started.uri, user="neo4j", password=server.password()))
    store.apply_schema()
    wipe(store)
    unwind_input = dump
    if args.unwind_facts and args.unwind_facts < facts:
        unwind_input = head(dump, work / "unwind-part.json", int(args.unwind_facts / FACTS_PER_ENTITY) + 1)
    cpu = CpuClock()
    load_before, c0 = loads(), cpu(server)
    t0 = time.perf_counter()
    report = load_wikidata_json(store, [unwind_input])
    t_unwind = time.perf_counter() - t0
    cpu_unwind = cpu(server) - c0
    unwind_rate = report.facts_written / t_unwind
    store.close()
    partial = unwind_input != dump
    print(f"UNWIND path: {report.facts_written:,} facts, {report.entities_written:,} entities in "
          f"{t_unwind:.0f}s = {unwind_rate:,.0f} facts/s"
          + (f" (measured on the first {report.facts_written:,} facts of the dump)" if partial else "")
          + f"; {cpu_unwind:.0f} CPU s (Neo4j and this process); load {load_before} → {loads()}")

    load_before, c0 = loads(), cpu(server)
    result = import_bulk(work / "bulk", home=server.home, overwrite=True, step=step_printer())
    cpu_import = cpu(server) - c0
    t_import = result.total_seconds
    t_tool = result.seconds["import"]
    server.stop()
    print("bulk path steps: " + ", ".join(f"{k} {v:.1f}s" for k, v in result.seconds.items())
          + f"; load {load_before} → {loads()}")
    print(f"admin import (whole command): {facts:,} facts in {t_import:.0f}s = {facts / t_import:,.0f} facts/s")
    print(f"admin import (import tool)  : {facts:,} facts in {t_tool:.0f}s = {facts / t_tool:,.0f} facts/s")
    print(f"ratio import command / UNWIND : {facts / t_import / unwind_rate:.1f}x")
    print(f"ratio import tool / UNWIND    : {facts / t_tool / unwind_rate:.1f}x")
    print(f"CPU seconds per 1k facts: UNWIND {1000 * cpu_unwind / report.facts_written:.2f}, "
          f"import command {1000 * cpu_import / facts:.2f} (stopped server, import tool, restarted "
          f"server); ratio {cpu_unwind / report.facts_written / (cpu_import / facts):.1f}x")
    print(f"dump → graph, Spark + import vs streaming loader: "
          f"{facts / (t_spark + t_import) / unwind_rate:.1f}x")
    if partial:
        print(f"UNWIND for all {facts:,} facts at the measured rate would take "
              f"{facts / unwind_rate / 60:.0f} min (an extrapolation; the rate falls as the graph grows)")
    if not (args.keep or args.reuse_bulk):
        shutil.rmtree(work, ignore_errors=True)
    elif args.home is None:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

"""What class data sharing saves per managed Neo4j start: the server's CPU seconds from its
launch until Bolt answers, with and without the class-data archive, interleaved.

Each round starts a throw-away server (a fresh temporary home, as a test session or a bulk
import's restart does) once with ``KNOWFORGE_NEO4J_CDS=0`` (the baseline) and once with the
archive, reading the JVM's user + system time from ``/proc/<pid>/stat`` the moment the start
returns. When the installed jars have no archive yet, one recording start and stop makes it
first and is reported on its own line (a one-off cost per JDK and install).

    .venv/bin/python benchmarks/neo4j_cds.py --repeat 3
    .venv/bin/python benchmarks/neo4j_cds.py --jvm-options=-XX:TieredStopAtLevel=1   # as the tests run

Prints, per mode, the median CPU seconds and wall seconds of a start, and the ratio of the
archive's median CPU to the baseline's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from knowforge.kg.neo4j_cds import CDS_ENV
from knowforge.kg.neo4j_server import ManagedNeo4j, free_port, java_executable


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_start(root: Path, cds: bool) -> tuple[float, float, float]:
    """(server CPU s, start wall s, stop wall s) of one start and stop in a fresh home."""
    os.environ[CDS_ENV] = "1" if cds else "0"
    server = ManagedNeo4j(home=Path(tempfile.mkdtemp(dir=root)) / "home")
    server._write_config(free_port(), free_port())
    t0 = time.perf_counter()
    started = server.start(port=free_port(), timeout=600)
    wall = time.perf_counter() - t0
    cpu = _cpu_seconds(started.pid)
    t1 = time.perf_counter()
    server.stop(timeout=600)
    return cpu, wall, time.perf_counter() - t1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds of (baseline, archive) starts")
    parser.add_argument("--jvm-options", default=None,
                        help="KNOWFORGE_JVM_OPTIONS for every start (default: the environment's)")
    args = parser.parse_args(argv)
    if args.jvm_options is not None:
        os.environ["KNOWFORGE_JVM_OPTIONS"] = args.jvm_options
    os.environ.setdefault("KNOWFORGE_NEO4J_HEAP", "512m")
    os.environ.setdefault("KNOWFORGE_NEO4J_PAGECACHE", "128m")
    probe = ManagedNeo4j(home=Path(tempfile.mkdtemp()) / "probe")
    if not probe.is_installed():
        probe.install()
    archive = probe.cds_archive(java_executable())
    with tempfile.TemporaryDirectory(prefix="neo4j-cds-") as tmp:
        root = Path(tmp)
        if not archive.exists():
            cpu, wall, stop = one_start(root, cds=True)
            print(f"recording start (once per JDK and install): {cpu:.1f} CPU s, {wall:.1f} s wall; "
                  f"stop with the archive's write {stop:.1f} s; archive {archive.stat().st_size / 2**20:.0f} MiB")
        results: dict[str, list[tuple[float, float, float]]] = {"baseline": [], "archive": []}
        for i in range(args.repeat):
            order = ("baseline", "archive") if i % 2 == 0 else ("archive", "baseline")
            for mode in order:
                results[mode].append(one_start(root, cds=mode == "archive"))
                cpu, wall, _ = results[mode][-1]
                print(f"round {i + 1} {mode:8s}: {cpu:5.1f} CPU s, {wall:5.1f} s wall "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)
    medians = {mode: (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows))
               for mode, rows in results.items()}
    print(f"median start, baseline (no archive): {medians['baseline'][0]:.1f} CPU s, {medians['baseline'][1]:.1f} s wall")
    print(f"median start, archive:               {medians['archive'][0]:.1f} CPU s, {medians['archive'][1]:.1f} s wall")
    print(f"archive/baseline CPU ratio: {medians['archive'][0] / medians['baseline'][0]:.2f}")


if __name__ == "__main__":
    main()

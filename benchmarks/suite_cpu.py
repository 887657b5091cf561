"""Where a command's CPU goes, by kind of process: run it (a pytest run, typically) and sample
``/proc`` while it runs, counting only the processes it starts (its descendants), so other work
on a shared machine is left out.

    python benchmarks/suite_cpu.py -- .venv/bin/python -m pytest tests/test_store.py -q -n 2
    python benchmarks/suite_cpu.py --threads --json cpu.json -- .venv/bin/python -m pytest ...

Prints the command's wall time; CPU seconds (user + system) per category (``java-neo4j`` for
Neo4j servers, split into ``java-neo4j-session`` for a test session's server, whose home is a
``neo4j-home*`` folder; ``java-spark``, ``java-other``, ``py-pytest`` for pytest and its xdist
workers, ``py-knowforge-cli``, ``py-other``, ``other:<program>``); the whole tree's CPU from
the kernel's accounting of reaped children (``getrusage``), whose difference from the sampled
sum is CPU of processes too short-lived to be sampled; the whole machine's busy and idle
core-seconds from ``/proc/stat`` over the same time, and the load average, so a reader can see
how much else ran beside it. ``--threads`` adds the Neo4j JVMs' CPU by thread (names with
their numbers removed: JIT compilers, GC, Bolt workers...).

The sampler loses at most one interval of CPU of a process that exits between samples; it is
a subreaper, so processes orphaned by their parent are still counted. The exit status is the
command's.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field

TICK = os.sysconf("SC_CLK_TCK")
PR_SET_CHILD_SUBREAPER = 36


def _stat(path: str) -> tuple[str, list[str]] | None:
    """(comm, fields after comm) of a /proc stat file, or None when the task is gone."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read().decode(errors="replace")
    except OSError:
        return None
    close = raw.rfind(")")
    return raw[raw.find("(") + 1:close], raw[close + 2:].split()


def _cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return [a.decode(errors="replace") for a in fh.read().split(b"\0") if a]
    except OSError:
        return []


def category(args: list[str], comm: str) -> str:
    """The kind of process a command line is (see the module's docstring)."""
    while args and (os.path.basename(args[0]) == "env" or "=" in args[0] and not args[0].startswith("-")):
        args = args[1:]   # `env VAR=value program ...`: the program is what counts
    if not args:
        return f"other:{comm}"
    program = os.path.basename(args[0])
    joined = " ".join(args)
    if program.startswith("java"):
        if "org.neo4j" in joined:
            homes = [a.split("=", 1)[1] for a in args if a.startswith("--home-dir=")]
            if any(os.path.basename(h.rstrip("/")).startswith("neo4j-home") for h in homes):
                return "java-neo4j-session"
            return "java-neo4j"
        return "java-spark" if "spark" in joined.lower() else "java-other"
    if program.startswith("python") or comm.startswith("python"):
        if "pytest" in joined or "xdist" in joined:
            return "py-pytest"
        if any(os.path.basename(a) == "knowforge" for a in args[:2]):
            return "py-knowforge-cli"
        return "py-other"
    if os.path.basename(args[0]) == "knowforge":
        return "py-knowforge-cli"
    return f"other:{program}"


def thread_kind(comm: str) -> str:
    """A JVM thread's name without its trailing number ("GC Thread#1" -> "GC Thread"); names are
    cut to 15 characters by the kernel ("C2 CompilerThre")."""
    return re.sub(r"[-#]?[0-9]+$", "", comm).strip() or "?"


def machine_ticks() -> tuple[int, int]:
    """(busy, idle) jiffies of all cores since boot, from /proc/stat."""
    with open("/proc/stat") as fh:
        values = [int(v) for v in fh.readline().split()[1:]]
    idle = values[3] + values[4]          # idle + iowait
    return sum(values[:8]) - idle, idle   # user nice system idle iowait irq softirq steal


@dataclass
class Tracker:
    root: int
    threads: bool = False
    procs: dict[tuple[int, str], list] = field(default_factory=dict)       # (pid, start) -> [cat, ticks]
    thread_ticks: dict[tuple[int, int, str], list] = field(default_factory=dict)  # -> [kind, ticks]
    known: set[int] = field(default_factory=set)
    loads: list[float] = field(default_factory=list)

    def sample(self) -> None:
        parents: dict[int, int] = {}
        stats: dict[int, tuple[str, list[str]]] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            st = _stat(f"/proc/{entry}/stat")
            if st is not None:
                pid = int(entry)
                stats[pid] = st
                parents[pid] = int(st[1][1])
        children: dict[int, list[int]] = defaultdict(list)
        for pid, ppid in parents.items():
            children[ppid].append(pid)
        ours, todo = set(), [self.root]
        while todo:
            pid = todo.pop()
            if pid in ours:
                continue
            ours.add(pid)
            todo.extend(children.get(pid, ()))
        for pid in ours & stats.keys():
            comm, rest = stats[pid]
            key = (pid, rest[19])
            ticks = int(rest[11]) + int(rest[12])
            if key not in self.procs:
                self.procs[key] = [category(_cmdline(pid), comm), ticks]
            else:
                self.procs[key][1] = ticks
            if self.threads and self.procs[key][0].startswith("java-neo4j"):
                self._sample_threads(pid)
        try:
            self.loads.append(os.getloadavg()[0])
        except OSError:
            pass

    def _sample_threads(self, pid: int) -> None:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return
        for tid in tids:
            st = _stat(f"/proc/{pid}/task/{tid}/stat")
            if st is None:
                continue
            comm, rest = st
            key = (pid, int(tid), rest[19])
            ticks = int(rest[11]) + int(rest[12])
            if key not in self.thread_ticks:
                self.thread_ticks[key] = [thread_kind(comm), ticks]
            else:
                self.thread_ticks[key][1] = ticks

    def by_category(self) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        for cat, ticks in self.procs.values():
            out[cat] += ticks / TICK
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))

    def by_thread(self) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        for kind, ticks in self.thread_ticks.values():
            out[kind] += ticks / TICK
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def _reap_orphans() -> None:
    """Wait for orphans handed to us as their subreaper, so their CPU reaches getrusage."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def measure(command: list[str], interval: float, threads: bool) -> dict:
    """Run ``command`` and return what the module's docstring says is printed, as a dict."""
    try:  # orphans of the command (a server whose parent died) stay ours to count
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    busy0, idle0 = machine_ticks()
    load0 = os.getloadavg()
    t0 = time.monotonic()
    proc = subprocess.Popen(command)
    tracker = Tracker(proc.pid, threads=threads)
    old_int = signal.signal(signal.SIGINT, lambda *_: proc.send_signal(signal.SIGINT))
    try:
        while proc.poll() is None:
            tracker.sample()
            time.sleep(interval)
    finally:
        signal.signal(signal.SIGINT, old_int)
    rc = proc.wait()
    wall = time.monotonic() - t0
    _reap_orphans()
    busy1, idle1 = machine_ticks()
    load1 = os.getloadavg()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = resource.getrusage(resource.RUSAGE_SELF)
    categories = tracker.by_category()
    sampled = sum(categories.values())
    tree = usage.ru_utime + usage.ru_stime
    return {
        "command": command, "returncode": rc, "wall_s": round(wall, 1),
        "cpu_by_category_s": {k: round(v, 1) for k, v in categories.items()},
        "cpu_sampled_s": round(sampled, 1), "cpu_tree_s": round(tree, 1),
        "cpu_unsampled_s": round(max(tree - sampled, 0.0), 1),
        "sampler_cpu_s": round(own.ru_utime + own.ru_stime, 1),
        "machine_busy_core_s": round((busy1 - busy0) / TICK, 1),
        "machine_idle_core_s": round((idle1 - idle0) / TICK, 1),
        "cores": os.cpu_count(),
        "load_start": round(load0[0], 2), "load_end": round(load1[0], 2),
        "load_mean": round(sum(tracker.loads) / len(tracker.loads), 2) if tracker.loads else None,
        "neo4j_threads_s": {k: round(v, 1) for k, v in tracker.by_thread().items()} if threads else None,
    }


def report(result: dict, top_threads: int) -> list[str]:
    tree = result["cpu_tree_s"] or 1.0
    lines = [f"wall {result['wall_s']:.1f} s, exit {result['returncode']}",
             f"CPU of the command's processes: {result['cpu_tree_s']:.1f} s "
             f"({result['cpu_tree_s'] / max(result['wall_s'], 1e-9):.2f} cores on average)"]
    for cat, seconds in result["cpu_by_category_s"].items():
        lines.append(f"  {seconds:9.1f} s  {100 * seconds / tree:5.1f}%  {cat}")
    lines.append(f"  {result['cpu_unsampled_s']:9.1f} s  {100 * result['cpu_unsampled_s'] / tree:5.1f}%  "
                 "(short-lived, not sampled)")
    lines.append(f"machine ({result['cores']} cores): busy {result['machine_busy_core_s']:.1f} core-s, "
                 f"idle {result['machine_idle_core_s']:.1f} core-s; the command's share of the busy "
                 f"{100 * result['cpu_tree_s'] / max(result['machine_busy_core_s'], 1e-9):.0f}%")
    lines.append(f"load average: {result['load_start']} at the start, {result['load_end']} at the end, "
                 f"mean {result['load_mean']}; sampler's own CPU {result['sampler_cpu_s']:.1f} s")
    if result["neo4j_threads_s"]:
        lines.append("Neo4j JVMs' CPU by thread:")
        for kind, seconds in list(result["neo4j_threads_s"].items())[:top_threads]:
            lines.append(f"  {seconds:9.1f} s  {kind}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between samples (0.5)")
    parser.add_argument("--threads", action="store_true", help="also the Neo4j JVMs' CPU by thread")
    parser.add_argument("--top-threads", type=int, default=15, help="thread kinds printed (15)")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given: suite_cpu.py [options] -- COMMAND ...")
    if args.interval <= 0:
        parser.error(f"--interval must be positive, not {args.interval}")
    result = measure(command, args.interval, args.threads)
    print("\n".join(report(result, args.top_threads)), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)
    return result["returncode"]


if __name__ == "__main__":
    sys.exit(main())

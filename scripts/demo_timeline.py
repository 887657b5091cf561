#!/usr/bin/env python
"""One demo run (scripts/demo.py) with a per-second CPU timeline by process: where its wall goes.

Runs ``DEMO --out OUT/demo`` (default: this checkout's scripts/demo.py) with its own fresh
``KNOWFORGE_NEO4J_HOME`` and ``KNOWFORGE_CACHE_DIR`` under OUT (the Neo4j jars copied in from the
user cache, as a first install has them; with ``--model-from DIR`` a trained control model of
DIR/control-models too, so the demo reuses it and the run times everything but the training),
and samples /proc every second:

- ``demo``: the demo's own process; ``child-N``: its spawned processes in start order (the
  training, the evaluation worker; multiprocessing's resource tracker is left out, it sleeps);
- ``neo4j``: the managed server's JVM (the one started in OUT's home);
- ``other``: every other process on the machine (other people's work: the load);
- ``idle``: the machine's idle and iowait time.

Writes OUT/timeline.tsv (one row a second, CPU seconds in that second by category) and
OUT/stdout.txt, OUT/stderr.txt (the demo's), and prints each section's wall span (from the
demo's ``== title (Ns, ...) ==`` headings) with the CPU seconds of each category within it.

    .venv/bin/python scripts/demo_timeline.py --out /tmp/tl [--model-from ~/.cache/knowforge] \
        [--demo path/to/demo.py] [-- extra demo.py arguments]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")
CATEGORIES = ("demo", "child-1", "child-2", "child-3", "neo4j", "other", "idle")


def proc_ticks(pid: str) -> tuple[int, int, str] | None:
    """(ppid, user + system ticks, start time) of a process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    rest = stat[stat.rfind(")") + 2:].split()
    return int(rest[1]), int(rest[11]) + int(rest[12]), rest[19]


def cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def machine_ticks() -> tuple[int, int]:
    """(busy, idle + iowait) ticks of the whole machine."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields[:8]) - idle, idle


class Sampler(threading.Thread):
    def __init__(self, demo_pid: int, home: Path) -> None:
        super().__init__(daemon=True)
        self.demo, self.home = str(demo_pid), str(home)
        self.rows: list[dict[str, float]] = []
        self.stop = threading.Event()
        self.last: dict[tuple[str, str], int] = {}     # (pid, start) -> ticks at the last sample
        self.kind: dict[tuple[str, str], str | None] = {}
        self.children = 0

    def category(self, pid: str, ppid: int, start: str) -> str | None:
        key = (pid, start)
        if key not in self.kind:
            kind = None
            if pid == self.demo:
                kind = "demo"
            elif str(ppid) == self.demo:
                line = cmdline(pid)
                if "resource_tracker" not in line and "java" not in line.split(" ")[0]:
                    self.children += 1
                    kind = f"child-{self.children}"
            if kind is None and "java" in cmdline(pid).split(" ")[0] and self.home in cmdline(pid):
                kind = "neo4j"
            self.kind[key] = kind
        return self.kind[key]

    def run(self) -> None:
        busy0, idle0 = machine_ticks()
        began = time.monotonic()
        for pid in os.listdir("/proc"):       # what ran before the demo counts from now
            got = proc_ticks(pid) if pid.isdigit() else None
            if got is not None:
                self.last[(pid, got[2])] = got[1]
        while not self.stop.wait(1.0):
            row = dict.fromkeys(CATEGORIES, 0.0)
            ours = 0
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                got = proc_ticks(pid)
                if got is None:
                    continue
                ppid, ticks, start = got
                key = (pid, start)
                kind = self.category(pid, ppid, start)
                delta = ticks - self.last.get(key, 0)
                self.last[key] = ticks
                if kind is not None and delta > 0:
                    row[kind] += delta / TICK
                    ours += delta
            busy, idle = machine_ticks()
            row["other"] = max(0.0, (busy - busy0 - ours) / TICK)
            row["idle"] = (idle - idle0) / TICK
            busy0, idle0 = busy, idle
            row["t"] = time.monotonic() - began      # a sample takes time: the rows drift from 1 s apart
            self.rows.append(row)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--demo", type=Path, default=REPO / "scripts" / "demo.py")
    parser.add_argument("--model-from", type=Path, default=None,
                        help="A cache folder whose control-models/ to copy in (the demo reuses the model).")
    parser.add_argument("rest", nargs="*", help="Arguments for demo.py (after --).")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    home, cache = out / "neo4j-home", out / "cache"
    user_cache = Path(os.environ.get("KNOWFORGE_CACHE_DIR", Path.home() / ".cache" / "knowforge"))
    for jars in user_cache.glob("neo4j-*"):
        if not (cache / jars.name).exists():
            shutil.copytree(jars, cache / jars.name)
    if args.model_from is not None:
        shutil.copytree(args.model_from / "control-models", cache / "control-models", dirs_exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env.update(KNOWFORGE_NEO4J_HOME=str(home), KNOWFORGE_CACHE_DIR=str(cache), PYTHONUNBUFFERED="1")
    started = time.monotonic()
    with open(out / "stdout.txt", "w") as stdout, open(out / "stderr.txt", "w") as stderr:
        process = subprocess.Popen([sys.executable, str(args.demo), "--out", str(out / "demo"), *args.rest],
                                   env=env, stdout=stdout, stderr=stderr)
        sampler = Sampler(process.pid, home)
        sampler.start()
        code = process.wait()
        sampler.stop.set()
        sampler.join()
    wall = time.monotonic() - started
    # the managed server the demo started (it leaves it running, as `make demo` does)
    subprocess.run([str(Path(sys.executable).with_name("knowforge")), "neo4j", "stop"], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    rows = sampler.rows
    with open(out / "timeline.tsv", "w") as f:
        f.write("t\t" + "\t".join(CATEGORIES) + "\n")
        for row in rows:
            f.write(f"{row['t']:.1f}\t" + "\t".join(f"{row[c]:.2f}" for c in CATEGORIES) + "\n")
    text = (out / "stdout.txt").read_text(errors="replace")
    marks = [(int(m.group(2)), m.group(1)) for m in re.finditer(r"^== (.*?) \((\d+)s, CPU \d+s\) ==$", text, re.M)]
    end = rows[-1]["t"] if rows else 0.0
    spans = [(t, marks[i + 1][0] if i + 1 < len(marks) else end, title) for i, (t, title) in enumerate(marks)]
    print(f"exit {code}, wall {wall:.0f} s; CPU seconds by category within each section (a sample about every second)")
    print(f"{'from':>5s} {'to':>5s}  " + " ".join(f"{c:>8s}" for c in CATEGORIES) + "  section")
    for a, b, title in spans:
        part = [r for r in rows if a < r["t"] <= b]
        print(f"{a:5.0f} {b:5.0f}  " + " ".join(f"{sum(r[c] for r in part):8.1f}" for c in CATEGORIES)
              + f"  {title[:60]}")
    print(f"{0:5d} {end:5.0f}  " + " ".join(f"{sum(r[c] for r in rows):8.1f}" for c in CATEGORIES) + "  all")
    return code


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""How often a test session's Neo4j plans each statement: first plans against plans again.

Runs pytest (the arguments after ``--``) with the ``_plancount`` plugin, which has the session
server record every query's compile and execution time (``db.stats``), then prints the
planning time split into each statement's first plan and every plan after it (a statement
planned again: its counts moved and the replan interval passed, or it ran with new parameter
types, such as an empty list or a null where a string was), by gap since the statement's last
plan, and the statements planned again most (test paths are the repository's: pytest runs
there). ``--summarise FILES`` prints that for JSON files
an earlier run wrote.

    .venv/bin/python benchmarks/plan_counts.py --out /tmp/pc -- -n 2 --dist loadfile tests/
    .venv/bin/python benchmarks/plan_counts.py --summarise /tmp/pc/stats-gw0.json /tmp/pc/stats-gw1.json

A compile time under 5 ms is a cache hit (the server still reports a little); at most the last
100 invocations of a query and plan are kept, so on long runs the counts are a floor. With
``--server-from-env`` the session uses the server in ``NEO4J_URI``/``_USER``/``_PASSWORD``
(as ``KNOWFORGE_TEST_NEO4J_URI`` does) instead of starting one: its graph is emptied.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
HIT_US = 5_000      # a compile time below this is a plan-cache hit
GAPS = ((2, "<2 s"), (10, "2-10 s"), (60, "10-60 s"), (float("inf"), ">60 s"))


def statement_name(text: str) -> str:
    """A statement's first comment line, or its first 70 characters (whitespace folded)."""
    folded = " ".join(text.split())
    if folded.startswith("EXPLAIN "):
        folded = folded[len("EXPLAIN "):]
    return folded[:70]


def summarise(rows: list[dict]) -> dict:
    """First plans and plans after them from db.stats QUERIES rows (one worker's server)."""
    invocations = defaultdict(list)
    for data in rows:
        invocations[statement_name(data["query"])].extend(data["invocations"])
    first_us = again_us = execute_us = 0
    firsts = 0
    again = Counter()
    again_n = Counter()
    by_gap = {label: [0, 0] for _, label in GAPS}
    for name, calls in invocations.items():
        calls.sort(key=lambda c: c["startTimestampMillis"])
        last = None
        for call in calls:
            execute_us += call["elapsedExecutionTimeInUs"]
            compile_us = call["elapsedCompileTimeInUs"]
            if compile_us < HIT_US:
                continue
            if last is None:
                first_us += compile_us
                firsts += 1
            else:
                again_us += compile_us
                again[name] += compile_us
                again_n[name] += 1
                gap = (call["startTimestampMillis"] - last) / 1000
                label = next(label for limit, label in GAPS if gap < limit)
                by_gap[label][0] += 1
                by_gap[label][1] += compile_us
            last = call["startTimestampMillis"]
    return {"statements": len(invocations), "first": (firsts, first_us), "again": (sum(again_n.values()), again_us),
            "execute_us": execute_us, "by_gap": by_gap,
            "top": [(name, again_n[name], us) for name, us in again.most_common(12)]}


def report(name: str, s: dict) -> list[str]:
    firsts, first_us = s["first"]
    agains, again_us = s["again"]
    total = first_us + again_us
    share = 100 * again_us / total if total else 0.0
    lines = [f"{name}: {s['statements']} statements; planning {total / 1e6:.1f} s, execution {s['execute_us'] / 1e6:.1f} s",
             f"  first plans {firsts} in {first_us / 1e6:.1f} s; plans again {agains} in {again_us / 1e6:.1f} s "
             f"({share:.0f} % of planning)"]
    lines += [f"  planned again after {label}: {n} in {us / 1e6:.1f} s" for label, (n, us) in s["by_gap"].items()]
    lines += [f"  {us / 1e6:7.2f} s {n:4d}x  {stmt}" for stmt, n, us in s["top"]]
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    pytest_args = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="plan-counts", help="folder for the servers' JSON (default: %(default)s)")
    parser.add_argument("--summarise", nargs="+", metavar="JSON", help="only summarise these files")
    parser.add_argument("--server-from-env", action="store_true",
                        help="the session uses the server in NEO4J_URI/_USER/_PASSWORD")
    args = parser.parse_args(own)
    files = [Path(f) for f in args.summarise or []]
    if not files:
        if not pytest_args:
            parser.error("give pytest's arguments after --, or --summarise FILES")
        out = Path(args.out).resolve()
        out.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, PLAN_COUNTS_OUT=str(out / "stats"),
                   PYTHONPATH=os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])))
        if args.server_from_env:
            env.update(KNOWFORGE_TEST_NEO4J_URI=os.environ["NEO4J_URI"],
                       KNOWFORGE_TEST_NEO4J_USER=os.environ.get("NEO4J_USER", "neo4j"),
                       KNOWFORGE_TEST_NEO4J_PASSWORD=os.environ["NEO4J_PASSWORD"])
        for old in out.glob("stats-*.json"):
            old.unlink()
        # from the repository, as `make test` runs: test paths are the repository's
        code = subprocess.call([sys.executable, "-m", "pytest", "-p", "_plancount", *pytest_args], env=env,
                               cwd=HERE.parent)
        print(f"pytest exited {code}")
        files = sorted(out.glob("stats-*.json"))
        if code not in (0, 1) or not files:
            return code or 1
    for path in files:
        for line in report(path.name, summarise(json.loads(path.read_text(encoding="utf-8")))):
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

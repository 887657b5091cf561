"""The engine's bulk steps with Python's cyclic garbage collector on, and paused
(``knowforge.models.gc_pause``), in one process.

  read     a JSONL benchmark of N items read into ``BenchmarkItem``s (``models.items_io``), as
           ``knowforge eval FILE`` reads it
  report   the (question, answer) pairs of a run's report (``results.report_samples``) over
           those items' samples

  after    the allocations just after a pause in which the items were read: with a pause that
           only turned the collector back on (before 2026-11-29, engine9: everything the pause
           made sat in the youngest generation, which the first collection after walked) and
           with ``paused_gc`` (what the pause made moved to the oldest generation)

Each with a live heap of earlier objects beside it (--heap, as an eval holds its items, requests
and samples), gc on then paused, in alternating order over --repeat; CPU seconds, best, and the
ratio. The results of both ways are checked equal.

    .venv/bin/python benchmarks/gc_pause.py [--items 4000 100000] [--repeat 3] [--heap 300000]
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from pathlib import Path

from harness_overhead import make_items

from knowforge.eval.results import report_samples
from knowforge.eval.types import SampleResult
from knowforge.models.gc_pause import paused_gc
from knowforge.models.items_io import read_items, write_items


def timed(fn, paused: bool):
    t = time.process_time()
    if paused:
        with paused_gc():
            out = fn()
    else:
        out = fn()
    return time.process_time() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, nargs="+", default=[4000, 100_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--heap", type=int, default=300_000, help="live objects kept beside the steps")
    args = ap.parse_args()
    heap = [{"n": i} for i in range(args.heap)]
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.items:
            path = Path(tmp) / f"bench-{n}.jsonl"
            write_items(path, make_items(n))
            items = read_items(path)
            questions = {i.id: {"id": i.id, "benchmark": i.benchmark, "task": i.task, "form": i.form} for i in items}
            results = [SampleResult(i.id, 0, raw="yes", parsed="yes", score=float(k % 2), prompt=i.question,
                                    rule="exact:knowforge") for k, i in enumerate(items)]
            steps = {"read": lambda: read_items(path),
                     "report": lambda: report_samples("run-x", questions, results)}
            for name, fn in steps.items():
                times: dict[bool, list[float]] = {False: [], True: []}
                outs = {}
                for r in range(args.repeat):
                    for paused in ((False, True) if r % 2 == 0 else (True, False)):
                        gc.collect()
                        spent, outs[paused] = timed(fn, paused)
                        times[paused].append(spent)
                same = outs[False] == outs[True]
                on, off = min(times[False]), min(times[True])
                print(f"{name}, {n:,} items: gc on {on:.3f} s, paused {off:.3f} s: {on / max(off, 1e-6):.2f}x; "
                      f"same result: {'yes' if same else 'NO'}")
            after = {"old exit": [], "paused_gc": []}
            for r in range(args.repeat):
                for name in (("old exit", "paused_gc") if r % 2 == 0 else ("paused_gc", "old exit")):
                    gc.collect()
                    after[name].append(allocations_after_pause(lambda: read_items(path), name == "old exit"))
            old, new = min(after["old exit"]), min(after["paused_gc"])
            print(f"after a pause that read {n:,} items: 20,000 allocations {old:.3f} s with the old exit, "
                  f"{new:.3f} s with paused_gc: {old / max(new, 1e-6):.0f}x")
    del heap


def allocations_after_pause(fn, old_exit: bool) -> float:
    """CPU seconds of 20,000 small allocations just after ``fn`` ran with the collector paused."""
    if old_exit:
        gc.disable()
        try:
            kept = fn()
        finally:
            gc.enable()
    else:
        with paused_gc():
            kept = fn()
    t = time.process_time()
    junk = [[] for _ in range(20_000)]
    spent = time.process_time() - t
    del junk, kept
    return spent


if __name__ == "__main__":
    main()

"""Eval at concurrency 64 against an OpenAI-compatible server on 127.0.0.1 that fails at random
(issue 36, item 6): does every item end answered exactly once, and is the cache right?

``--requests`` items (default 10,000) are evaluated through the engine's ``ask_and_score`` with
the OpenAI backend behind a fresh response cache; the server (``tests/flaky_openai.py``) fails
each attempt with a chance per kind: 429 with retry-after-ms, a TCP reset, a hang past the
client's timeout, or HTTP 200 with its JSON cut short. A run the backend stops (a systemic error
after the SDK's retries) or one that leaves failed samples is run again, as a user would.

Baseline: the same evaluation against the same server with no faults, in this process. Printed:
the runs it took, the requests per item (ratio to the baseline's), the wall time (ratio to the
baseline's), the items answered once / more than once / never, and the cache's rows, distinct
keys, wrong rows and integrity check.

    .venv/bin/python benchmarks/eval_faults.py                       # 10,000 requests
    .venv/bin/python benchmarks/eval_faults.py --requests 300 --timeout 1
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from flaky_openai import FAULTS, eval_under_faults  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--timeout", type=float, default=2.0, help="client timeout per attempt (s)")
    parser.add_argument("--seed", type=int, default=0)
    for kind, default in (("429", 0.06), ("reset", 0.03), ("hang", 0.002), ("malformed", 0.002)):
        parser.add_argument(f"--rate-{kind}", type=float, default=default, help=f"chance of a {kind} per attempt")
    args = parser.parse_args()
    rates = {kind: getattr(args, f"rate_{kind}") for kind in FAULTS}
    with tempfile.TemporaryDirectory() as tmp:
        # warm-up, not timed: the first evaluation in a process imports the scorers and the SDK
        eval_under_faults(8, Path(tmp) / "warm", concurrency=args.concurrency, rates={}, timeout=args.timeout)
        base = eval_under_faults(args.requests, Path(tmp) / "clean", concurrency=args.concurrency, rates={},
                                 seed=args.seed, timeout=args.timeout, hang_s=args.timeout + 0.5)
        hit = eval_under_faults(args.requests, Path(tmp) / "faults", concurrency=args.concurrency, rates=rates,
                                seed=args.seed, timeout=args.timeout, hang_s=args.timeout + 0.5)
    print(f"{args.requests} items at concurrency {args.concurrency}, client timeout {args.timeout:g}s, fault rates "
          + ", ".join(f"{k} {v:g}" for k, v in rates.items()))
    print("faults met: " + ", ".join(f"{k} {hit.faults[k]}" for k in FAULTS))
    print(f"runs until done: {hit.runs} ({hit.stopped_runs} stopped by the backend, "
          f"{hit.failed_samples} failed samples over all runs); baseline {base.runs}")
    print(f"requests per item: {hit.requests / hit.items:.3f}; baseline {base.requests / base.items:.3f}; "
          f"ratio {hit.requests / base.requests:.3f}")
    print(f"wall time: {hit.seconds:.1f}s; baseline {base.seconds:.1f}s; ratio {hit.seconds / base.seconds:.2f}x")
    once = hit.answers_per_item.get(1, 0)
    never = hit.answers_per_item.get(0, 0)
    print(f"items answered once: {once}; more than once: {hit.items - once - never}; never: {never}; "
          f"right in the last run: {hit.final_correct}; asked again after an answer: {hit.asked_after_answer}")
    print(f"cache: {hit.cache_rows} rows, {hit.cache_distinct_keys} distinct keys, {hit.cache_wrong_rows} wrong, "
          f"integrity {hit.cache_integrity}; one more run: {hit.rerun_requests} requests, {hit.rerun_cached} cached")
    ok = (once == hit.items and hit.final_correct == hit.items and hit.cache_rows == hit.items
          and hit.cache_wrong_rows == 0 and hit.cache_integrity == "ok" and hit.rerun_requests == 0)
    print("every item answered exactly once, cache consistent: " + ("yes" if ok else "NO"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

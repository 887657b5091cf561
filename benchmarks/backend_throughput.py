"""Throughput of the hf backend and the response cache on the tiny model (CPU).

Prints ratios against a baseline measured in the same process:
- batched generation (batch_size=B) vs one-by-one (batch_size=1);
- a fully cached rerun vs calling the backend directly;
- the cost of a cold cached run (lookup + write) vs calling the backend directly.

    .venv/bin/python benchmarks/backend_throughput.py [--requests 64] [--batch-size 8]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=16)
    args = parser.parse_args()

    from knowforge.models.backends import cached
    from knowforge.models.backends.hf import HFBackend
    from knowforge.models.cache import ResponseCache
    from knowforge.models.tiny_model import build_tiny_model
    from knowforge.models.types import GenerationRequest

    with tempfile.TemporaryDirectory() as tmp:
        model = build_tiny_model(Path(tmp) / "model")
        requests = [GenerationRequest(prompt=f"Question {i}: where was the city of Lyon founded? Answer:",
                                      max_tokens=args.max_tokens) for i in range(args.requests)]
        one = HFBackend(str(model), device="cpu", batch_size=1)
        many = HFBackend(str(model), device="cpu", batch_size=args.batch_size)
        many.generate(requests[:2])  # warm-up

        t_one, _ = timed(lambda: one.generate(requests))
        t_many, direct = timed(lambda: many.generate(requests))
        cache = ResponseCache(Path(tmp) / "cache")
        wrapped = cached(many, cache)
        t_cold, _ = timed(lambda: wrapped.generate(requests))
        t_warm, again = timed(lambda: wrapped.generate(requests))
        assert [r.texts for r in again] == [r.texts for r in direct]

    n = args.requests
    print(f"requests={n} max_tokens={args.max_tokens} batch_size={args.batch_size}")
    print(f"one-by-one         {t_one:8.3f}s  {n / t_one:8.1f} req/s")
    print(f"batched            {t_many:8.3f}s  {n / t_many:8.1f} req/s  speed-up x{t_one / t_many:.2f}")
    print(f"cached, cold       {t_cold:8.3f}s  ratio to direct {t_cold / t_many:.3f}")
    print(f"cached, all hits   {t_warm:8.3f}s  ratio to direct {t_warm / t_many:.4f} "
          f"({1e6 * t_warm / n:.0f} us per request)")


if __name__ == "__main__":
    main()

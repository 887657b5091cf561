"""Throughput of the hf backend and the response cache on the tiny model (CPU).

Prints ratios against a baseline measured in the same process:
- batched generation (batch_size=B) vs one-by-one (batch_size=1);
- a fully cached rerun vs calling the backend directly;
- the cost of a cold cached run (lookup + write) vs calling the backend directly;
- multiple-choice log-likelihoods (four one-token options after each context, as the demo's
  KnowGen, NewTerm and LINK ask them) vs the per-request loop the backend ran before issue 33
  (one row per option, logits and their log-softmax at every position), same results checked.
  ``--model DIR`` runs it on a trained model (e.g. the demo's control model) instead of the
  tiny one.

    .venv/bin/python benchmarks/backend_throughput.py [--requests 64] [--batch-size 8] [--model DIR]
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


def per_request_loglikelihood(backend, requests):
    """The hf backend's loglikelihood before issue 33: one right-padded row per request and the
    log-softmax over every position; the baseline of the ratio and the check of the results."""
    import torch

    pairs = [backend.encode_pair(r.context, r.continuation) for r in requests]
    out = [None] * len(requests)
    order = sorted(range(len(pairs)), key=lambda k: -(len(pairs[k][0]) + len(pairs[k][1])))
    for start in range(0, len(order), backend.batch_size):
        batch = order[start:start + backend.batch_size]
        seqs = [(pairs[k][0] + pairs[k][1])[:-1] or [backend.prefix_id] for k in batch]
        width = max(len(q) for q in seqs)
        ids = torch.full((len(batch), width), backend.pad_id, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for b, q in enumerate(seqs):
            ids[b, :len(q)] = torch.tensor(q)
            mask[b, :len(q)] = 1
        with torch.inference_mode():
            logprobs = torch.log_softmax(backend.lm(input_ids=ids, attention_mask=mask).logits.float(), dim=-1)
        for b, k in enumerate(batch):
            ctx, cont = pairs[k]
            span = logprobs[b, len(ctx) - 1:len(ctx) - 1 + len(cont)]
            out[k] = float(span.gather(-1, torch.tensor(cont).unsqueeze(-1)).sum())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--model", help="a local model folder for the likelihood comparison (default: the tiny model)")
    args = parser.parse_args()

    from knowforge.models.backends import cached
    from knowforge.models.backends.hf import HFBackend
    from knowforge.models.cache import ResponseCache
    from knowforge.models.tiny_model import build_tiny_model
    from knowforge.models.types import GenerationRequest, LoglikelihoodRequest

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

        scorer = HFBackend(args.model or str(model), device="cpu", batch_size=args.batch_size)
        context = ("Question {i}: which of these is the capital of France? (A) Lyon (B) Paris (C) Nice (D) Metz. "
                   "Think of the rivers, the museums and the history of each city before you answer.\nAnswer:")
        options = [" A", " B", " C", " D"]
        ll = [LoglikelihoodRequest(context.format(i=i), o) for i in range(args.requests) for o in options]
        t_old, old = timed(lambda: per_request_loglikelihood(scorer, ll))
        t_new, new = timed(lambda: scorer.loglikelihood(ll))
        worst = max(abs(a - b.total) for a, b in zip(old, new, strict=True))
        assert worst < 1e-3, worst

    n = args.requests
    print(f"requests={n} max_tokens={args.max_tokens} batch_size={args.batch_size}")
    print(f"one-by-one         {t_one:8.3f}s  {n / t_one:8.1f} req/s")
    print(f"batched            {t_many:8.3f}s  {n / t_many:8.1f} req/s  speed-up x{t_one / t_many:.2f}")
    print(f"cached, cold       {t_cold:8.3f}s  ratio to direct {t_cold / t_many:.3f}")
    print(f"cached, all hits   {t_warm:8.3f}s  ratio to direct {t_warm / t_many:.4f} "
          f"({1e6 * t_warm / n:.0f} us per request)")
    print(f"likelihood, {len(ll)} options of {n} questions ({'--model' if args.model else 'tiny model'}): "
          f"per-request loop {t_old:.3f}s, shared rows {t_new:.3f}s, speed-up x{t_old / t_new:.2f} "
          f"(largest difference {worst:.1e})")


if __name__ == "__main__":
    main()

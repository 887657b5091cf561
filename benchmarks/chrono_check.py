"""Cost of ChroKnowledge's knowledge check: requests and wall time per 1,000 facts.

Builds synthetic ChroKnow records in process (no graph needed), turns them into items with the
real item builder, and runs the knowledge check with the tiny local transformers model and the
cache off. In the same process it sends the very same requests straight to
``backend.generate`` (same chunks) as the baseline, and prints the ratio: the harness overhead
of request building, parsing and categorisation on top of the model calls.

    .venv/bin/python benchmarks/chrono_check.py --facts 100 --years 2 --max-tokens 4

Wall time is measured on ``--facts`` facts and scaled linearly to 1,000 (the check's work is
per fact); the request count per 1,000 facts is exact.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from knowforge.models.backends.hf import HFBackend
from knowforge.eval.chrono.check import CheckConfig, build_check_asks, run_knowledge_check
from knowforge.models.tiny_model import build_tiny_model
from knowforge.models.types import GenerationResult
from knowforge.generators.chrono.items import build_items
from knowforge.generators.chrono.records import ChronoRecord

CLUBS = ["Ajax", "Benfica", "Celtic", "Dynamo Kyiv", "Espanyol", "Fiorentina", "Galatasaray", "Hertha BSC"]


def synthetic_records(n_facts: int, years: int, pool: int = 8) -> list[ChronoRecord]:
    frame = list(range(2020, 2020 + years))
    out = []
    for i in range(n_facts + pool):
        objs = {y: [CLUBS[(i + (k >= years // 2)) % len(CLUBS)]] for k, y in enumerate(frame)}
        others = [c for c in CLUBS if all(c not in v for v in objs.values())]
        out.append(ChronoRecord(id=f"cr:{i:06d}", domain="general", subject=f"Player {i}", subject_id=f"Q{i}",
                                relation="P54", relation_label="member of sports team", objects=objs,
                                distractors={y: others[:3] for y in frame}, distractor=others[:3],
                                change="dynamic" if years > 1 else "static",
                                split="fewshot" if i < pool else "test"))
    return out


class InstantBackend:
    """Answers every request at once: what remains of the check's time is the harness itself."""

    name = "instant"
    model = "instant"
    capabilities = frozenset({"generate"})

    def generate(self, requests):
        return [GenerationResult(texts=(" Ajax",) * r.n, finish_reasons=("stop",) * r.n) for r in requests]

    def loglikelihood(self, requests):
        return []


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=1000)
    ap.add_argument("--years", type=int, default=2)
    ap.add_argument("--templates", default="generation")
    ap.add_argument("--max-tokens", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()

    items = build_items(synthetic_records(args.facts, args.years), benchmark="chrono:bench", seed=0,
                        templates=tuple(args.templates.split(",")))
    config = CheckConfig(max_tokens=args.max_tokens, chunk_size=1024)
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = build_tiny_model(f"{tmp}/tiny", seed=0)
        backend = HFBackend(str(model_dir), device=args.device, batch_size=args.batch_size)
        requests = list(dict.fromkeys(a.request for a in build_check_asks(items, config)))
        backend.generate(requests[:64])                                  # warm-up
        # check first, raw second (then the raw run cannot profit from a warmer process)
        t0 = time.perf_counter()
        result = run_knowledge_check(items, backend, config)
        check = time.perf_counter() - t0
        t0 = time.perf_counter()
        for start in range(0, len(requests), config.chunk_size):
            backend.generate(requests[start:start + config.chunk_size])
        raw = time.perf_counter() - t0
    t0 = time.perf_counter()
    run_knowledge_check(items, InstantBackend(), config)
    harness = time.perf_counter() - t0
    scale = 1000 / args.facts
    print(f"facts {args.facts}, years {args.years}, templates {args.templates}, items {len(items)}, "
          f"max_tokens {args.max_tokens}, device {args.device}, cache off")
    total = result.extra["requests_before_dedup"]
    print(f"requests: {total} ({total / len(items):.0f} per item: 5 shot sets x greedy + sampled), "
          f"{result.requests} distinct sent; per 1,000 facts: {total * scale:,.0f}")
    print(f"raw backend.generate on the same requests: {raw:.2f} s ({len(requests) / raw:.1f} req/s)")
    print(f"knowledge check (build + generate + parse + categorise): {check:.2f} s "
          f"({result.requests / check:.1f} req/s)")
    print(f"per 1,000 facts: check {check * scale:,.0f} s, raw {raw * scale:,.0f} s")
    print(f"harness alone (instant backend): {harness:.3f} s = {1000 * harness / result.requests:.3f} ms per request")
    print(f"ratio check / raw: {check / raw:.3f}")


if __name__ == "__main__":
    main()

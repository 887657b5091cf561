"""Run a list of items through one backend and score every sample.

All requests go through ``backend.generate(list)`` in chunks (batch-first, as vLLM wants), one
request per item carrying ``n`` samples. Chunks exist so that progress is visible and so the
cache wrapper has stored every finished chunk before a crash: rerunning the same evaluation
then asks the model only what was not answered yet.

A failure of one request (``GenerationResult.error``) is recorded on its samples, counted,
and scored 0 — a failing model must not look better than an answering one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from knowforge.errors import BackendError
from knowforge.eval.prompts import render_request, request_text
from knowforge.eval.scorers import final_answer, score_item
from knowforge.eval.types import Backend, BenchmarkItem, EvalOptions, GenerationRequest

log = logging.getLogger(__name__)

DEFAULT_CHUNK_SIZE = 256

RunnerProgress = Callable[[int], None]
"""Called with the number of requests just answered."""


@dataclass(frozen=True)
class SampleResult:
    """One sample of one item: what the model said and what it scored."""

    item_id: str
    sample_index: int
    raw: str | None
    parsed: str | None
    score: float
    error: str | None = None
    cached: bool = False
    finish_reason: str | None = None
    prompt: str = ""
    explanation: str | None = None
    cache_key: str | None = None


def evaluate_items(items: Sequence[BenchmarkItem], backend: Backend, options: EvalOptions, *,
                   setting: str = "zero-shot", progress: RunnerProgress | None = None,
                   chunk_size: int = DEFAULT_CHUNK_SIZE) -> list[SampleResult]:
    """Ask ``backend`` every item (``options.n`` samples each) and score the answers.

    Results come back in item order, samples in index order.
    """
    if options.limit is not None:
        items = list(items)[:options.limit]
    requests = [render_request(item, setting, options) for item in items]
    results: list[SampleResult] = []
    for start in range(0, len(requests), max(1, chunk_size)):
        chunk = requests[start:start + chunk_size]
        answers = backend.generate(chunk)
        if len(answers) != len(chunk):
            raise BackendError(f"backend {backend.name} returned {len(answers)} results for "
                               f"{len(chunk)} requests")
        for item, request, answer in zip(items[start:start + chunk_size], chunk, answers):
            results.extend(_score_samples(item, request, answer, backend, setting))
        if progress:
            progress(len(chunk))
    errors = sum(1 for r in results if r.error)
    if errors:
        log.warning("%d of %d samples failed; they are recorded with their error and scored 0",
                    errors, len(results))
    return results


def _score_samples(item, request: GenerationRequest, answer, backend, setting) -> list[SampleResult]:
    prompt = request_text(request)
    out = []
    for index in range(request.n):
        cache_key = _cache_key(backend, request, request.sample_offset + index)
        cached = bool(answer.cached[index]) if index < len(answer.cached) else False
        if answer.error is not None or index >= len(answer.texts):
            error = answer.error or f"backend returned {len(answer.texts)} of {request.n} samples"
            out.append(SampleResult(item.id, index, None, None, 0.0, error=error, cached=cached,
                                    prompt=prompt, cache_key=cache_key))
            continue
        raw = answer.texts[index]
        text = final_answer(raw) if setting == "chain-of-thought" else raw
        score = score_item(item, text)
        finish = answer.finish_reasons[index] if index < len(answer.finish_reasons) else None
        out.append(SampleResult(item.id, index, raw, score.answer, float(score.value), cached=cached,
                                finish_reason=finish, prompt=prompt, explanation=score.explanation,
                                cache_key=cache_key))
    return out


def _cache_key(backend, request: GenerationRequest, sample_index: int) -> str | None:
    """The response-cache key of one sample, when the backend answers through the cache."""
    if getattr(backend, "cache", None) is None:
        return None
    from knowforge.eval.cache import generation_key

    return generation_key(backend.name, backend.model, getattr(backend, "revision", None), request, sample_index)


def cache_stats(backend) -> dict | None:
    """Hits, misses, hit rate and requests sent to the model, for a cache-wrapped backend."""
    stats = getattr(backend, "stats", None)
    if stats is None:
        stats = getattr(getattr(backend, "cache", None), "stats", None)
    if stats is None:
        return None
    hits, misses = int(stats.hits), int(stats.misses)
    return {"hits": hits, "misses": misses, "hit_rate": hits / (hits + misses) if hits + misses else 0.0,
            "backend_calls": getattr(backend, "backend_calls", None)}


def summarize(results: Sequence[SampleResult]) -> dict:
    """Headline numbers of a list of samples: n, accuracy, errors, cached."""
    n = len(results)
    return {"samples": n, "items": len({r.item_id for r in results}),
            "accuracy": (sum(r.score for r in results) / n) if n else None,
            "errors": sum(1 for r in results if r.error),
            "cached": sum(1 for r in results if r.cached)}

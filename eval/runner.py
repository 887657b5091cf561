"""Run a list of items through one backend and score every sample.

All requests go through ``backend.generate(list)`` in chunks (batch-first, as vLLM wants), one
request per item carrying ``n`` samples. Chunks exist so that progress is visible and so the
cache wrapper has stored every finished chunk before a crash: rerunning the same evaluation
then asks the model only what was not answered yet.

A failure of one request (``GenerationResult.error``) is recorded on its samples, counted,
and scored 0 — a failing model must not look better than an answering one.

Every sample is scored under ``options.scoring`` ("knowforge" or "official", see
``knowforge.eval.scorers.get_scorer``).

With ``options.mc_scoring == "likelihood"`` multiple-choice, boolean and true/false items are
scored by the log-likelihood of each option instead (``knowforge.eval.mc_likelihood``): every
option of a chunk of items goes out in one ``backend.loglikelihood(list)`` call, and each item
gives one ``SampleResult`` (raw = picked option, parsed = its label) whose ``metadata`` holds
the per-option log-probabilities and ``acc_norm``. Other items are generated as usual.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from knowforge.errors import BackendError, ConfigError
from knowforge.eval.mc_likelihood import (LIKELIHOOD_SETTINGS, MC_SCORING_MODES, ChoiceQuestion,
                                          build_choice_question, judge_choice_question)
from knowforge.eval.prompts import render_request, request_text
from knowforge.eval.scorers import final_answer, score_item
from knowforge.models.types import CAP_LOGLIKELIHOOD, Backend, BenchmarkItem, GenerationRequest, LoglikelihoodRequest
from knowforge.eval.types import EvalOptions

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
    metadata: dict[str, Any] | None = None   # likelihood scoring: per-option logprobs, acc_norm


def evaluate_items(items: Sequence[BenchmarkItem], backend: Backend, options: EvalOptions, *,
                   setting: str = "zero-shot", progress: RunnerProgress | None = None,
                   chunk_size: int = DEFAULT_CHUNK_SIZE) -> list[SampleResult]:
    """Ask ``backend`` every item (``options.n`` samples each) and score the answers.

    Results come back in item order, samples in index order.
    """
    items = list(items) if options.limit is None else list(items)[:options.limit]
    questions = _likelihood_questions(items, backend, options, setting)
    by_item: dict[int, list[SampleResult]] = {}
    _ask_likelihood(questions, backend, by_item, progress, chunk_size)
    generated = [i for i in range(len(items)) if i not in questions]
    requests = {i: render_request(items[i], setting, options) for i in generated}
    for start in range(0, len(generated), max(1, chunk_size)):
        chunk = generated[start:start + chunk_size]
        answers = backend.generate([requests[i] for i in chunk])
        if len(answers) != len(chunk):
            raise BackendError(f"backend {backend.name} returned {len(answers)} results for "
                               f"{len(chunk)} requests")
        for i, answer in zip(chunk, answers):
            by_item[i] = _score_samples(items[i], requests[i], answer, backend, setting, options.scoring)
        if progress:
            progress(len(chunk))
    results = [r for i in range(len(items)) for r in by_item[i]]
    errors = sum(1 for r in results if r.error)
    if errors:
        log.warning("%d of %d samples failed; they are recorded with their error and scored 0",
                    errors, len(results))
    return results


def _likelihood_questions(items: list[BenchmarkItem], backend, options: EvalOptions,
                          setting: str) -> dict[int, ChoiceQuestion]:
    """Items scored by likelihood under ``options``, by position; checks the backend can."""
    if options.mc_scoring not in MC_SCORING_MODES:
        raise ConfigError(f"unknown mc_scoring {options.mc_scoring!r}; choose one of {', '.join(MC_SCORING_MODES)}")
    if options.mc_scoring == "generate":
        return {}
    if options.extra.get("chat"):
        raise ConfigError("likelihood scoring scores options after a plain prompt; drop --chat "
                          "(chat messages have no text context to continue)")
    from knowforge.models.backends import require_capability

    require_capability(backend, CAP_LOGLIKELIHOOD)
    if setting not in LIKELIHOOD_SETTINGS:
        # a reasoning prompt does not end where an option can follow: generate everything
        log.warning("setting %r: multiple-choice items are generated, not scored by likelihood", setting)
        return {}
    questions = {}
    for i, item in enumerate(items):
        question = build_choice_question(item, setting, options.mc_continuation)
        if question is not None:
            questions[i] = question
    return questions


def _ask_likelihood(questions: dict[int, ChoiceQuestion], backend, by_item: dict[int, list[SampleResult]],
                    progress: RunnerProgress | None, chunk_size: int) -> None:
    """Score every option of a chunk of items in one ``backend.loglikelihood`` call."""
    order = sorted(questions)
    for start in range(0, len(order), max(1, chunk_size)):
        chunk = order[start:start + chunk_size]
        requests = [r for i in chunk for r in questions[i].requests]
        answers = backend.loglikelihood(requests)
        if len(answers) != len(requests):
            raise BackendError(f"backend {backend.name} returned {len(answers)} log-likelihoods for "
                               f"{len(requests)} requests")
        at = 0
        for i in chunk:
            question = questions[i]
            mine = answers[at:at + len(question.scored)]
            asked = requests[at:at + len(question.scored)]
            at += len(question.scored)
            outcome = judge_choice_question(question, mine)
            by_item[i] = [SampleResult(question.item.id, 0, outcome.raw, outcome.parsed, outcome.score,
                                       cached=all(a.cached for a in mine), finish_reason="loglikelihood",
                                       prompt=question.context, explanation=outcome.explanation,
                                       cache_key=_ll_cache_key(backend, asked[outcome.index]),
                                       metadata=outcome.metadata)]
        if progress:
            progress(len(chunk))


def _score_samples(item, request: GenerationRequest, answer, backend, setting,
                   scoring: str) -> list[SampleResult]:
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
        score = score_item(item, text, scoring)
        finish = answer.finish_reasons[index] if index < len(answer.finish_reasons) else None
        out.append(SampleResult(item.id, index, raw, score.answer, float(score.value), cached=cached,
                                finish_reason=finish, prompt=prompt, explanation=score.explanation,
                                cache_key=cache_key))
    return out


def _cache_key(backend, request: GenerationRequest, sample_index: int) -> str | None:
    """The response-cache key of one sample, when the backend answers through the cache."""
    if getattr(backend, "cache", None) is None:
        return None
    from knowforge.models.cache import generation_key

    return generation_key(backend.name, backend.model, getattr(backend, "revision", None), request, sample_index)


def _ll_cache_key(backend, request: LoglikelihoodRequest) -> str | None:
    """The response-cache key of the picked option's log-likelihood request."""
    if getattr(backend, "cache", None) is None:
        return None
    from knowforge.models.cache import loglikelihood_key

    return loglikelihood_key(backend.name, backend.model, getattr(backend, "revision", None), request)


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

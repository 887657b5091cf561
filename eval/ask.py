"""The one ask-and-score step every solver composes (Inspect AI's ``generate()``).

A solver decides what to ask (an ``Ask``: an item, its request, how to read the answer) and
this step does the rest, the same way for every method:

* requests go to ``backend.generate(list)`` in chunks (batch-first, as vLLM wants); chunks exist
  so progress is visible and so the response cache has stored every finished chunk before a
  crash: rerunning the same evaluation then asks the model only what was not answered;
* identical requests in a chunk list (a small few-shot pool repeats a prompt) are sent once;
* a failed request (``GenerationResult.error``) is recorded on its samples, counted and scored
  0: a failing model must not look better than an answering one;
* every sample is scored under the run's scoring mode (``knowforge`` or ``official``) by the
  item's scorer, or the scorer the ``Ask`` names, and records the rule it applied
  (``<scorer>:<mode>``), its finish reason and its response-cache key.

``ask_choices`` is the likelihood side (multiple-choice, boolean and true/false items scored
by the log-likelihood of each option, as lm-evaluation-harness does): every option of a chunk
of items goes out in one ``backend.loglikelihood(list)`` call.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from knowforge.errors import BackendError
from knowforge.eval.mc_likelihood import ChoiceQuestion, judge_choice_question
from knowforge.eval.scoring import get_scorer, scoring_rule
from knowforge.eval.types import SampleResult
from knowforge.eval.unit import Scorer
from knowforge.models.backends import require_capability
from knowforge.models.cache import generation_key, loglikelihood_key
from knowforge.models.gc_pause import paused_gc
from knowforge.models.types import (CAP_LOGLIKELIHOOD, Backend, BenchmarkItem, GenerationRequest,
                                    GenerationResult, LoglikelihoodRequest, LoglikelihoodResult)

log = logging.getLogger(__name__)

DEFAULT_CHUNK_SIZE = 256

Progress = Callable[[int], None]
"""Called with the number of requests just answered."""


@dataclass(frozen=True)
class Ask:
    """One request about one item, and how its samples are read and scored.

    ``first_index`` is the ``sample_index`` of the request's first sample (NewTerm numbers its
    three phrasings 0-2). ``read`` picks what of the raw text is scored (chain-of-thought: the
    last "Answer:" line). ``scorer`` replaces the item's own scorer; ``score=False`` records the
    answer unscored (a step of a multi-turn procedure). ``tags`` are copied into every sample's
    metadata; ``variant`` marks an answer to a prompt derived from the question.
    """

    item: BenchmarkItem
    request: GenerationRequest
    first_index: int = 0
    read: Callable[[str], str] | None = None
    scorer: str | None = None
    score: bool = True
    tags: dict[str, Any] = field(default_factory=dict)
    variant: str | None = None


def request_text(request: GenerationRequest) -> str:
    """The request as one readable string (samples.jsonl, the viewer)."""
    if request.prompt is not None:
        return request.prompt
    return "\n".join(f"[{role}] {content}" for role, content in request.messages or ())


def expect(progress: Progress | None, n: int) -> None:
    """Announce ``n`` units of work to a progress callback that can take a total (the CLI's
    bars have ``expect``), before asking them: a bar then reads "87/120", not "87/?"."""
    announce = getattr(progress, "expect", None)
    if announce is not None and n:
        announce(n)


def ask(requests: Sequence[GenerationRequest], backend: Backend, *, progress: Progress | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE) -> list[GenerationResult]:
    """Every request answered, in order: chunked, identical requests sent once, the backend's
    answer count checked."""
    # each request hashed once (its dataclass hash is a Python call over nine fields): its
    # position among the distinct requests, whose answers come back in that order
    position: dict[GenerationRequest, int] = {}
    order = [position.setdefault(r, len(position)) for r in requests]
    unique = list(position)
    answered: list[GenerationResult] = []
    expect(progress, len(unique))
    size = max(1, chunk_size)
    for start in range(0, len(unique), size):
        chunk = unique[start:start + size]
        answers = backend.generate(chunk)
        if len(answers) != len(chunk):
            raise BackendError(f"backend {backend.name} returned {len(answers)} results for "
                               f"{len(chunk)} requests")
        answered.extend(answers)
        if progress:
            progress(len(chunk))
    return [answered[k] for k in order]


def ask_and_score(asks: Sequence[Ask], backend: Backend, *, scoring: str, progress: Progress | None = None,
                  chunk_size: int = DEFAULT_CHUNK_SIZE) -> list[SampleResult]:
    """Ask every ``Ask`` and score its samples under ``scoring``; samples in ask order, each
    ask's samples in index order."""
    asks = list(asks)
    answers = ask([a.request for a in asks], backend, progress=progress, chunk_size=chunk_size)
    # each scorer's rule and function resolved once per call, not three registry look-ups per
    # sample (a 100,000-sample profile: 300,000 look-ups, 3.4 s); the same ones score_item uses
    resolved: dict[str, tuple[str, Scorer]] = {}
    keyed = getattr(backend, "cache", None) is not None       # sample_cache_key's test, once
    with paused_gc():           # scoring every answer: the engine's own bulk work, no model code
        results = [sample for a, answer in zip(asks, answers)
                   for sample in _samples(a, answer, backend, scoring, resolved, keyed)]
    errors = sum(1 for r in results if r.error)
    if errors:
        log.warning("%d of %d samples failed; they are recorded with their error and scored 0",
                    errors, len(results))
    return results


def _resolve(scorer: str, scoring: str, resolved: dict[str, tuple[str, Scorer]]) -> tuple[str, Scorer]:
    """``scorer``'s recorded rule (``<scorer>:<mode>``) and the function ``score_item`` would
    call, under ``scoring``; memoised in ``resolved`` for one scoring pass."""
    found = resolved.get(scorer)
    if found is None:
        found = resolved[scorer] = (f"{scorer}:{scoring_rule(scorer, scoring)}", get_scorer(scorer, scoring))
    return found


def _samples(a: Ask, answer: GenerationResult, backend: Backend, scoring: str,
             resolved: dict[str, tuple[str, Scorer]], keyed: bool = True) -> list[SampleResult]:
    request, item = a.request, a.item
    prompt = request_text(request)
    scorer = a.scorer or item.scorer
    rule, score_fn = _resolve(scorer, scoring, resolved) if a.score else (None, None)
    out = []
    for k in range(request.n):
        index = a.first_index + k
        cache_key = sample_cache_key(backend, request, request.sample_offset + k) if keyed else None
        cached = bool(answer.cached[k]) if k < len(answer.cached) else False
        common = dict(item_id=item.id, sample_index=index, cached=cached, prompt=prompt, cache_key=cache_key,
                      metadata=dict(a.tags) if a.tags else None, rule=rule, variant=a.variant)
        if answer.error is not None or k >= len(answer.texts):
            error = answer.error or f"backend returned {len(answer.texts)} of {request.n} samples"
            out.append(SampleResult(raw=None, parsed=None, score=0.0, error=error, **common))
            continue
        raw = answer.texts[k]
        finish = answer.finish_reasons[k] if k < len(answer.finish_reasons) else None
        if not a.score:
            out.append(SampleResult(raw=raw, parsed=raw, score=0.0, finish_reason=finish, **common))
            continue
        text = a.read(raw) if a.read is not None else raw
        score = score_fn(item, text or "")       # = score_item(item, text, scoring, scorer=scorer)
        out.append(SampleResult(raw=raw, parsed=score.answer, score=float(score.value), finish_reason=finish,
                                explanation=score.explanation, **common))
    return out


def ask_choices(questions: Sequence[ChoiceQuestion], backend: Backend, *, progress: Progress | None = None,
                chunk_size: int = DEFAULT_CHUNK_SIZE) -> list[SampleResult]:
    """Score every option of each question by log-likelihood and pick one (one sample each)."""
    questions = list(questions)
    if questions:
        require_capability(backend, CAP_LOGLIKELIHOOD)
    out: list[SampleResult] = []
    expect(progress, len(questions))
    size = max(1, chunk_size)
    for start in range(0, len(questions), size):
        chunk = questions[start:start + size]
        requests = [r for q in chunk for r in q.requests]
        answers = backend.loglikelihood(requests)
        if len(answers) != len(requests):
            raise BackendError(f"backend {backend.name} returned {len(answers)} log-likelihoods for "
                               f"{len(requests)} requests")
        at = 0
        for question in chunk:
            mine: Sequence[LoglikelihoodResult] = answers[at:at + len(question.scored)]
            asked = requests[at:at + len(question.scored)]
            at += len(question.scored)
            outcome = judge_choice_question(question, mine)
            out.append(SampleResult(question.item.id, 0, outcome.raw, outcome.parsed, outcome.score,
                                    cached=all(a.cached for a in mine), finish_reason="loglikelihood",
                                    prompt=question.context, explanation=outcome.explanation,
                                    cache_key=_ll_cache_key(backend, asked[outcome.index]),
                                    metadata=outcome.metadata, rule="likelihood:knowforge"))
        if progress:
            progress(len(chunk))
    return out


def sample_cache_key(backend: Backend, request: GenerationRequest, sample_index: int) -> str | None:
    """The response-cache key of one sample, when the backend answers through the cache."""
    if getattr(backend, "cache", None) is None:
        return None
    return generation_key(backend.name, backend.model, getattr(backend, "revision", None), request, sample_index)


def _ll_cache_key(backend: Backend, request: LoglikelihoodRequest) -> str | None:
    if getattr(backend, "cache", None) is None:
        return None
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


__all__ = ["Ask", "DEFAULT_CHUNK_SIZE", "ask", "ask_and_score", "ask_choices", "cache_stats", "request_text",
           "sample_cache_key", "summarize"]

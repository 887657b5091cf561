"""OpenAI-compatible HTTP backend (api.openai.com, ``vllm serve``, llama.cpp, TGI, ...).

Prompts go to ``/v1/completions`` and chat messages to ``/v1/chat/completions``
(``openai_api="chat"`` sends everything to chat). Log-likelihood uses the completions
endpoint with ``echo=True, logprobs=1, max_tokens=0``, which ``vllm serve`` supports and
api.openai.com does not; a server that refuses gives a ``BackendError`` naming the fix.

Retries are ours, not the SDK's (``max_retries=0`` on the client): 429, 5xx, connection
errors and timeouts are retried with exponential back-off (``retry_backoff * 2**attempt``,
capped, honouring ``Retry-After``), everything else fails at once. Requests run on a thread
pool of ``concurrency`` workers; results come back in request order.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

from knowforge.errors import BackendError

from ..config import as_backend_config
from ..types import (CAP_LOGLIKELIHOOD, GenerationRequest, GenerationResult, LoglikelihoodRequest,
                     LoglikelihoodResult)
from . import CAPABILITIES, MISSING_CAPABILITY_HINTS, derive_seed, require_capability

log = logging.getLogger(__name__)

T = TypeVar("T")
MAX_BACKOFF_S = 30.0
PER_REQUEST_STATUSES = frozenset({400, 413, 422})   # the request, not the server, is at fault
_FINISH = {"stop": "stop", "length": "length", "eos": "stop", "stop_sequence": "stop"}


class OpenAIBackend:
    """``OpenAIBackend(model, base_url=None, api_key=None, concurrency=8, timeout=120, ...)``."""

    name = "openai"

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 concurrency: int = 8, timeout: float = 120.0, max_retries: int = 4,
                 retry_backoff: float = 1.0, api: str = "auto"):
        try:
            import openai
        except ImportError as exc:
            raise BackendError("the openai backend needs the openai package: pip install openai") from exc
        if api not in ("auto", "chat"):
            raise BackendError(f"openai_api must be 'auto' or 'chat', not {api!r}")
        self.openai = openai
        self.model = model
        self.revision: str | None = None
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.api = api
        self.capabilities = CAPABILITIES["openai" if api == "auto" else "openai-chat"]
        self.concurrency = max(1, concurrency)
        self.batch_size = 4 * self.concurrency   # requests per cache write
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        self.retry_backoff = retry_backoff
        self.client = openai.OpenAI(base_url=self.base_url,
                                    api_key=api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY",
                                    max_retries=0, timeout=timeout)
        self._jitter = random.Random(f"{model}:retry-jitter")
        self._lock = threading.Lock()
        self.retries = 0          # retried attempts, for logs and tests
        self.http_requests = 0    # attempts sent

    @classmethod
    def from_options(cls, options) -> OpenAIBackend:
        options = as_backend_config(options)
        return cls(options.model, base_url=options.base_url, concurrency=options.concurrency,
                   timeout=options.timeout, max_retries=options.max_retries,
                   retry_backoff=options.retry_backoff, api=options.openai_api)

    # -- plumbing -----------------------------------------------------------------------------

    def _where(self) -> str:
        return str(self.client.base_url)

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        """Run ``fn`` with our retry policy; raise ``BackendError`` when it gives up."""
        openai = self.openai
        for attempt in range(self.max_retries + 1):
            with self._lock:
                self.http_requests += 1
            try:
                return fn()
            except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError) as exc:
                # APITimeoutError is an APIConnectionError.
                if attempt == self.max_retries:
                    kind = "timed out" if isinstance(exc, openai.APITimeoutError) else f"failed ({_describe(exc)})"
                    raise BackendError(f"{what} to {self._where()} {kind} after {attempt + 1} attempts "
                                       f"(timeout {self.timeout}s each); check the server, or raise "
                                       f"--timeout / max_retries") from exc
                delay = self._delay(attempt, exc)
                with self._lock:
                    self.retries += 1
                log.warning("%s to %s: %s; retry %d/%d in %.2fs", what, self._where(), _describe(exc),
                            attempt + 1, self.max_retries, delay)
                time.sleep(delay)
            except openai.APIStatusError as exc:
                raise BackendError(f"{what} to {self._where()} was refused: HTTP {exc.status_code}: "
                                   f"{_describe(exc)}") from exc
            except ValueError as exc:   # the body said JSON but was not
                raise BackendError(f"{what} to {self._where()}: malformed JSON reply ({exc})") from exc
        raise AssertionError("unreachable")

    def _delay(self, attempt: int, exc: Exception) -> float:
        delay = self.retry_backoff * 2 ** attempt
        response = getattr(exc, "response", None)
        retry_after = response.headers.get("retry-after") if response is not None else None
        if retry_after is not None:
            try:
                delay = float(retry_after)
            except ValueError:
                pass
        with self._lock:
            jitter = self._jitter.uniform(0, 0.1 * delay)
        return min(MAX_BACKOFF_S, delay + jitter)

    def _map(self, fn: Callable[[Any], T], items: list[Any]) -> list[T]:
        if len(items) <= 1 or self.concurrency == 1:
            return [fn(item) for item in items]
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="knowforge-openai")
        try:
            return list(pool.map(fn, items))
        finally:
            # On a failure, do not send what is still queued; wait for what is in flight.
            pool.shutdown(wait=True, cancel_futures=True)

    # -- generation ---------------------------------------------------------------------------

    def generate(self, requests: list[GenerationRequest]) -> list[GenerationResult]:
        return self._map(self._generate_one, requests)

    def _generate_one(self, request: GenerationRequest) -> GenerationResult:
        try:
            return self._generate_checked(request)
        except BackendError as exc:
            # A request the server rejects on its own (bad request, too long, content policy)
            # is recorded on its result and counted by the runner; the run goes on. Anything
            # systemic (auth, wrong route, server down, malformed replies) stops the run.
            status = getattr(exc.__cause__, "status_code", None)
            if status in PER_REQUEST_STATUSES:
                log.warning("%s", exc)
                return GenerationResult(texts=(), finish_reasons=(), error=str(exc))
            raise

    def _generate_checked(self, request: GenerationRequest) -> GenerationResult:
        common: dict[str, Any] = {"model": self.model, "n": request.n, "temperature": request.temperature,
                                  "top_p": request.top_p, "max_tokens": request.max_tokens}
        if request.stop:
            common["stop"] = list(request.stop)
        if request.seed is not None:
            # Samples after the first asked are topped up under a seed derived from their index.
            common["seed"] = request.seed if request.sample_offset == 0 else derive_seed(request.seed,
                                                                                      request.sample_offset)
        if request.messages is not None or self.api == "chat":
            messages = ([{"role": r, "content": c} for r, c in request.messages] if request.messages is not None
                        else [{"role": "user", "content": request.prompt}])
            reply = self._call("chat completion", lambda: self.client.chat.completions.create(
                messages=messages, **common))
            choices = self._choices(reply, "chat completion")
            texts = tuple(_text(c.message.content) for c in choices)
        else:
            reply = self._call("completion", lambda: self.client.completions.create(prompt=request.prompt, **common))
            choices = self._choices(reply, "completion")
            texts = tuple(_text(c.text) for c in choices)
        if len(texts) != request.n:
            raise BackendError(f"{self._where()} returned {len(texts)} choices for n={request.n}")
        reasons = tuple(_FINISH.get(str(c.finish_reason), str(c.finish_reason)) for c in choices)
        return GenerationResult(texts=texts, finish_reasons=reasons)

    def _choices(self, reply: Any, what: str) -> list[Any]:
        try:
            choices = list(reply.choices)
            return sorted(choices, key=lambda c: c.index or 0)
        except (AttributeError, TypeError) as exc:
            shown = reply if isinstance(reply, str) else type(reply).__name__
            raise BackendError(f"{what} from {self._where()}: malformed reply without choices: "
                               f"{str(shown)[:200]!r}") from exc

    # -- log-likelihood -----------------------------------------------------------------------

    def loglikelihood(self, requests: list[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        require_capability(self, CAP_LOGLIKELIHOOD)
        return self._map(self._loglikelihood_one, requests)

    def _loglikelihood_one(self, request: LoglikelihoodRequest) -> LoglikelihoodResult:
        hint = MISSING_CAPABILITY_HINTS[("openai", CAP_LOGLIKELIHOOD)]
        try:
            reply = self._call("log-likelihood completion", lambda: self.client.completions.create(
                model=self.model, prompt=request.context + request.continuation, echo=True, logprobs=1,
                max_tokens=0, temperature=0.0))
        except BackendError as exc:
            if isinstance(exc.__cause__, self.openai.APIStatusError):
                raise BackendError(f"{exc}. {hint}") from exc
            raise
        choices = self._choices(reply, "log-likelihood completion")
        logprobs = getattr(choices[0], "logprobs", None) if choices else None
        offsets = getattr(logprobs, "text_offset", None)
        values = getattr(logprobs, "token_logprobs", None)
        if not offsets or not values or len(offsets) != len(values):
            raise BackendError(f"{self._where()} gave no echoed prompt logprobs: {hint}")
        start = len(request.context)
        picked = [i for i, off in enumerate(offsets) if off >= start]
        if request.continuation and not picked:
            raise BackendError(f"{self._where()}: echoed tokens do not reach the continuation")
        if any(values[i] is None for i in picked):
            raise BackendError("the first token of a prompt has no log-probability: give a non-empty context")
        token_lp = tuple(float(values[i]) for i in picked)
        top = getattr(logprobs, "top_logprobs", None)
        is_greedy = None
        if top and len(top) == len(values):
            is_greedy = all(top[i] and float(values[i]) >= max(top[i].values()) - 1e-6 for i in picked)
        return LoglikelihoodResult(total=sum(token_lp), token_logprobs=token_lp, is_greedy=is_greedy)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"{type(exc).__name__}{f' {status}' if status else ''}: {text[:200]}"

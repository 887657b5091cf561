"""OpenAI-compatible HTTP backend (api.openai.com, ``vllm serve``, llama.cpp, TGI, ...).

Prompts go to ``/v1/completions`` and chat messages to ``/v1/chat/completions``
(``openai_api="chat"`` sends everything to chat). Log-likelihood uses the completions
endpoint with ``echo=True, logprobs=1, max_tokens=0``, which ``vllm serve`` supports and
api.openai.com does not; a server that refuses gives a ``BackendError`` naming the fix.

Retries are the SDK's (``max_retries`` on the client): it retries connection errors,
timeouts, 408, 409, 429 and 5xx with exponential back-off (0.5 s doubling to 8 s, minus up to
25 % jitter) and waits what a ``Retry-After`` / ``retry-after-ms`` header asks, up to two
minutes (a longer wait is not retried). When it gives up, the ``BackendError`` says what
failed, where and after how many attempts; other HTTP errors fail at once. Before the first
request a plain TCP connection checks that something listens at the server's address, so a
server that is not running fails at once rather than after every worker's retries.

A reply whose text is ``null`` (or absent) is not an answer: the request is asked again, up
to ``max_retries`` times, and then recorded as failed (``GenerationResult.error``), which the
response cache never stores. Without ``base_url``, ``OPENAI_BASE_URL`` or ``OPENAI_API_KEY``
the backend refuses to start instead of sending the benchmark to api.openai.com. URLs in
messages have their credentials redacted (``knowforge.models.urls``).

Requests run on a thread pool of ``concurrency`` workers. ``generate_each`` /
``loglikelihood_each`` hand every result to a callback from the worker that received it, so
the response cache stores each answer as it completes and a resumed run does not ask again
what a killed one was answered; ``generate`` / ``loglikelihood`` return the results in request
order.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit, urlunsplit

from knowforge.errors import BackendError, ConfigError

from ..config import as_backend_config
from ..urls import redact_url
from ..types import (CAP_LOGLIKELIHOOD, GenerationRequest, GenerationResult, LoglikelihoodRequest,
                     LoglikelihoodResult)
from . import CAPABILITIES, MISSING_CAPABILITY_HINTS, derive_seed, require_capability

log = logging.getLogger(__name__)

T = TypeVar("T")
PER_REQUEST_STATUSES = frozenset({400, 413, 422})   # the request, not the server, is at fault
_FINISH = {"stop": "stop", "length": "length", "eos": "stop", "stop_sequence": "stop"}
RETRY_COUNT_HEADER = "x-stainless-retry-count"      # the SDK numbers each attempt's retry
PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
NO_TEXT_BACKOFF_S = 0.5                             # first wait before asking again for a reply without text


class OpenAIBackend:
    """``OpenAIBackend(model, base_url=None, api_key=None, concurrency=8, timeout=120, max_retries=4, ...)``."""

    name = "openai"

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 concurrency: int = 8, timeout: float = 120.0, max_retries: int = 4, api: str = "auto"):
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
        api_key = api_key or os.environ.get("OPENAI_API_KEY")
        if self.base_url is None and not api_key:
            # Without either the SDK would quietly send the benchmark to api.openai.com.
            raise ConfigError("the openai backend needs a server: --base-url (e.g. "
                              "http://127.0.0.1:8000/v1 for `vllm serve`) or OPENAI_BASE_URL; "
                              "set OPENAI_API_KEY to use api.openai.com")
        self.api = api
        self.capabilities = CAPABILITIES["openai" if api == "auto" else "openai-chat"]
        self.concurrency = max(1, concurrency)
        self.batch_size = 4 * self.concurrency   # requests per call when a caller chunks
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        # Credentials in the URL (http://user:pass@host/v1, a proxy's basic auth) go to the HTTP
        # client as its auth, which is what the URL's userinfo meant; the client's URL has none,
        # so neither the HTTP library's request log nor an error message can show them.
        url, basic_auth = split_url_credentials(self.base_url)
        extra = {"http_client": openai.DefaultHttpxClient(auth=basic_auth)} if basic_auth else {}
        self.client = openai.OpenAI(base_url=url, api_key=api_key or "EMPTY",
                                    max_retries=self.max_retries, timeout=timeout, **extra)
        self._lock = threading.Lock()
        self._reachable = False   # set once a TCP connection to the server succeeded
        self.retries = 0          # retries the SDK made for requests that succeeded, for logs and tests

    @classmethod
    def from_options(cls, options) -> OpenAIBackend:
        options = as_backend_config(options)
        return cls(options.model, base_url=options.base_url, concurrency=options.concurrency,
                   timeout=options.timeout, max_retries=options.max_retries, api=options.openai_api)

    # -- plumbing -----------------------------------------------------------------------------

    def _where(self) -> str:
        return redact_url(str(self.client.base_url))

    def _call(self, what: str, resource: Any, **kwargs) -> Any:
        """``resource.create(**kwargs)`` through the SDK's retries; its errors become
        ``BackendError`` with the number of attempts made."""
        openai = self.openai
        try:
            raw = resource.with_raw_response.create(**kwargs)
            reply = raw.parse()
        except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError) as exc:
            # APITimeoutError is an APIConnectionError; the SDK has retried all of these.
            kind = "timed out" if isinstance(exc, openai.APITimeoutError) else f"failed ({_describe(exc)})"
            raise BackendError(f"{what} to {self._where()} {kind} after {_attempts(exc)} attempts "
                               f"(timeout {self.timeout:g}s each); check that the server runs and "
                               "--base-url is right; give a slow server more time with "
                               "`knowforge eval --timeout`") from exc
        except openai.APIStatusError as exc:
            raise BackendError(f"{what} to {self._where()} was refused: HTTP {exc.status_code}: "
                               f"{_describe(exc)}") from exc
        except ValueError as exc:   # the body said JSON but was not
            raise BackendError(f"{what} to {self._where()}: malformed JSON reply ({exc})") from exc
        if raw.retries_taken:
            with self._lock:
                self.retries += raw.retries_taken
            log.info("%s to %s answered after %d retries", what, self._where(), raw.retries_taken)
        return reply

    def _check_reachable(self) -> None:
        """Fail at once, not after every retry of every worker, when nothing listens at the
        server's address (connection refused, unknown host). Skipped behind a proxy, which
        the SDK would use and a direct connection would not."""
        if self._reachable or any(os.environ.get(v) for v in PROXY_VARIABLES):
            return
        url = self.client.base_url
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            with socket.create_connection((url.host, port), timeout=min(self.timeout, 10.0)):
                pass
        except (ConnectionRefusedError, socket.gaierror) as exc:
            reason = "connection refused" if isinstance(exc, ConnectionRefusedError) else f"unknown host: {exc}"
            raise BackendError(f"no OpenAI-compatible server answers at {self._where()} ({reason}); "
                               "start the server, or check --base-url") from exc
        except OSError:
            return   # slow or filtered: left to the SDK's timeout and retries
        self._reachable = True

    def _map(self, fn: Callable[[Any], T], items: list[Any],
             on_result: Callable[[int, T], None] | None = None) -> list[T]:
        """``fn`` over ``items`` on the pool; the list comes back in item order.

        Each result goes to ``on_result(index, result)`` from the worker that got it, right after
        the reply is parsed (one call at a time, in completion order): the shortest path from an
        answer to the response cache. On a failure nothing still queued is sent; what is in
        flight is awaited (and handed over) before the error is raised.
        """
        if items:
            self._check_reachable()
        results: list[Any] = [None] * len(items)
        handing_over = threading.Lock()

        def run(i: int, item: Any) -> None:
            results[i] = fn(item)
            if on_result is not None:
                with handing_over:
                    on_result(i, results[i])

        if len(items) <= 1 or self.concurrency == 1:
            for i, item in enumerate(items):
                run(i, item)
            return results
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="knowforge-openai")
        try:
            futures = [pool.submit(run, i, item) for i, item in enumerate(items)]
            failure: BaseException | None = None
            for future in as_completed(futures):
                if future.cancelled() or future.exception() is None:
                    continue
                if failure is None:
                    failure = future.exception()
                    for other in futures:
                        other.cancel()
            if failure is not None:
                raise failure
            return results
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    # -- generation ---------------------------------------------------------------------------

    def generate(self, requests: list[GenerationRequest]) -> list[GenerationResult]:
        return self._map(self._generate_one, requests)

    def generate_each(self, requests: list[GenerationRequest],
                      on_result: Callable[[int, GenerationResult], None]) -> list[GenerationResult]:
        """``generate``, handing each result to ``on_result(index, result)`` as it arrives."""
        return self._map(self._generate_one, requests, on_result)

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
        """Ask, and ask again (up to ``max_retries`` more times) while a reply carries no text:
        a ``"content": null`` choice is the server failing, not the model answering "" (it is
        what a refusal, a tool call or an overloaded proxy sends). The request then fails on
        its own, is recorded as such, and is never cached."""
        for attempt in range(self.max_retries + 1):
            result, missing = self._generate_once(request)
            if not missing:
                return result
            if attempt < self.max_retries:
                log.info("%s gave no text (%s); asking again", self._where(), missing)
                time.sleep(min(NO_TEXT_BACKOFF_S * 2 ** attempt, 4.0))
        message = (f"{self._where()} answered without text ({missing}) in {self.max_retries + 1} "
                   "attempts; the request is recorded as failed and not cached")
        log.warning("%s", message)
        return GenerationResult(texts=(), finish_reasons=(), error=message)

    def _generate_once(self, request: GenerationRequest) -> tuple[GenerationResult, str | None]:
        """One request; the result, and what was wrong when a choice had no text."""
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
            reply = self._call("chat completion", self.client.chat.completions, messages=messages, **common)
            choices = self._choices(reply, "chat completion")
            raw_texts = [getattr(getattr(c, "message", None), "content", None) for c in choices]
        else:
            reply = self._call("completion", self.client.completions, prompt=request.prompt, **common)
            choices = self._choices(reply, "completion")
            raw_texts = [getattr(c, "text", None) for c in choices]
        if len(raw_texts) != request.n:
            raise BackendError(f"{self._where()} returned {len(raw_texts)} choices for n={request.n}")
        reasons = tuple(_FINISH.get(str(c.finish_reason), str(c.finish_reason)) for c in choices)
        missing = _missing_text(choices, raw_texts)
        return GenerationResult(texts=tuple(t if isinstance(t, str) else "" for t in raw_texts),
                                finish_reasons=reasons), missing

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

    def loglikelihood_each(self, requests: list[LoglikelihoodRequest],
                           on_result: Callable[[int, LoglikelihoodResult], None]) -> list[LoglikelihoodResult]:
        """``loglikelihood``, handing each result to ``on_result(index, result)`` as it arrives."""
        require_capability(self, CAP_LOGLIKELIHOOD)
        return self._map(self._loglikelihood_one, requests, on_result)

    def _loglikelihood_one(self, request: LoglikelihoodRequest) -> LoglikelihoodResult:
        hint = MISSING_CAPABILITY_HINTS[("openai", CAP_LOGLIKELIHOOD)]
        try:
            reply = self._call("log-likelihood completion", self.client.completions, model=self.model,
                               prompt=request.context + request.continuation, echo=True, logprobs=1,
                               max_tokens=0, temperature=0.0)
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


def split_url_credentials(url: str | None) -> tuple[str | None, tuple[str, str] | None]:
    """``url`` without userinfo, and its (user, password) when it had some."""
    if not url:
        return url, None
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    return urlunsplit(parts._replace(netloc=hostport)), (unquote(user), unquote(password))


def _missing_text(choices: list[Any], texts: list[Any]) -> str | None:
    """What is wrong when a choice's text is not a string (``null`` or absent), else None."""
    for choice, text in zip(choices, texts):
        if isinstance(text, str):
            continue
        refusal = getattr(getattr(choice, "message", None), "refusal", None)
        said = f"; refusal: {str(refusal)[:120]!r}" if refusal else ""
        return (f"choice {getattr(choice, 'index', 0) or 0} has content null, finish_reason "
                f"{getattr(choice, 'finish_reason', None)!r}{said}")
    return None


def _attempts(exc: Exception) -> int:
    """Attempts the SDK made before ``exc``: the retry number it sent with the last request + 1."""
    request = getattr(exc, "request", None)
    if request is None:
        response = getattr(exc, "response", None)
        request = getattr(response, "request", None)
    try:
        return int(request.headers.get(RETRY_COUNT_HEADER, 0)) + 1
    except (AttributeError, TypeError, ValueError):
        return 1


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"{type(exc).__name__}{f' {status}' if status else ''}: {text[:200]}"

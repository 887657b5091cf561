"""Model backends behind one batch-first interface, and the caching wrapper around them.

``make_backend(options)`` builds the backend named by ``options.backend`` ("hf", "openai",
"vllm"); heavy libraries (torch, transformers, vllm, openai) are imported only there, so the
CLI starts fast. Unless ``options.cache`` is False the backend comes wrapped by
``cached(...)``, which answers from the on-disk ``ResponseCache`` and asks the model only
for what is missing.

Capabilities (``CAPABILITIES``):

=========  ========  ====  ==============  ====================================================
backend    generate  chat  loglikelihood   seed
=========  ========  ====  ==============  ====================================================
hf         yes       yes   yes             yes (torch.Generator per sample)
vllm       yes       yes   yes             yes (SamplingParams.seed per sample)
openai     yes       yes   completions     passed on; honoured only if the server does
                           endpoint with
                           echo+logprobs
=========  ========  ====  ==============  ====================================================

With ``openai_api="chat"`` the openai backend drops ``loglikelihood``: chat completions
cannot score a given continuation.

A backend may also offer ``generate_each(requests, on_result)`` and
``loglikelihood_each(requests, on_result)``: the same work, with ``on_result(index, result)``
called as each request completes (possibly from a worker thread, one call at a time). ``CachedBackend`` then stores every answer the moment it
arrives instead of after a chunk (what makes a killed run resume without repeats).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from knowforge.errors import BackendError, ConfigError

from ..cache import ResponseCache, canonical_json, generation_key, loglikelihood_key, model_key
from ..config import as_backend_config
from ..types import (CAP_CHAT, CAP_GENERATE, CAP_LOGLIKELIHOOD, CAP_SEED, Backend, GenerationRequest,
                     GenerationResult, LoglikelihoodRequest, LoglikelihoodResult)

log = logging.getLogger(__name__)

BACKEND_NAMES = ("hf", "openai", "vllm")

CAPABILITIES: dict[str, frozenset[str]] = {
    "hf": frozenset({CAP_GENERATE, CAP_CHAT, CAP_LOGLIKELIHOOD, CAP_SEED}),
    "vllm": frozenset({CAP_GENERATE, CAP_CHAT, CAP_LOGLIKELIHOOD, CAP_SEED}),
    "openai": frozenset({CAP_GENERATE, CAP_CHAT, CAP_LOGLIKELIHOOD, CAP_SEED}),
    "openai-chat": frozenset({CAP_GENERATE, CAP_CHAT, CAP_SEED}),
}

# What to tell the user when a backend lacks a capability: (backend, capability) -> hint.
MISSING_CAPABILITY_HINTS: dict[tuple[str, str], str] = {
    ("openai", CAP_LOGLIKELIHOOD): (
        "openai chat completions give no log-likelihood of a given continuation; use --backend hf "
        "or vllm, or a completions endpoint that echoes logprobs (e.g. `vllm serve`)"),
}


def require_capability(backend: Backend, capability: str) -> None:
    """Raise ``BackendError`` with a clear hint when ``backend`` lacks ``capability``."""
    if capability in backend.capabilities:
        return
    hint = MISSING_CAPABILITY_HINTS.get((backend.name, capability))
    message = f"backend {backend.name!r} (model {backend.model!r}) cannot do {capability!r}"
    raise BackendError(f"{message}: {hint}" if hint else message)


def derive_seed(seed: int, sample_index: int) -> int:
    """The seed of sample ``sample_index`` of a request seeded with ``seed`` (63-bit)."""
    digest = hashlib.sha256(f"{seed}:{sample_index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


def local_model_dir(model: str) -> Path | None:
    """The folder ``model`` names when it is meant as a local path, else None (a Hub id).

    A Hub id is ``name`` or ``org/name``. A model is meant as a local path when the folder
    exists, or when it cannot be a Hub id: absolute, ``./``, ``../`` or ``~``, a trailing
    slash, two slashes or more, or a first part that is a local folder (``models/tiny`` next to
    a ``models/`` folder). Such a path that is no model folder is a ConfigError, raised here
    rather than after transformers has asked the Hub for it.
    """
    path = Path(model).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ConfigError(f"--model {model}: the folder has no config.json, so it is no transformers "
                              "model (knowforge tiny-model DIR builds a small one)")
        return path
    parts = model.replace("\\", "/").split("/")
    local_looking = (model.startswith(("/", "./", "../", "~", ".\\")) or model.endswith("/")
                     or len(parts) > 2 or len(parts) == 2 and Path(parts[0]).expanduser().is_dir())
    if local_looking:
        what = "is a file, not a model folder" if path.exists() else "does not exist"
        raise ConfigError(f"--model {model}: the folder {what} (give a local model folder, or a Hugging "
                          "Face Hub id such as org/name)")
    return None


def make_backend(config, cache: ResponseCache | None = None) -> Backend:
    """The backend ``config`` asks for, wrapped by the response cache unless ``config.cache``
    is False. ``config`` is a ``BackendConfig``, or a record that gives one through
    ``backend_config()`` (the eval engine's options). ``cache`` overrides the cache location
    (default: ``config.cache_dir``, then ``KNOWFORGE_CACHE_DIR``, then the user cache dir)."""
    options = as_backend_config(config)
    name = options.backend
    if name not in BACKEND_NAMES:
        raise ConfigError(f"unknown backend {name!r}; choose one of {', '.join(BACKEND_NAMES)}")
    if not options.model:
        raise ConfigError(f"backend {name!r} needs a model (--model)")
    if name in ("hf", "vllm"):
        local_model_dir(options.model)   # a mistyped path fails here, before torch is imported
    backend: Backend
    if name == "hf":
        from .hf import HFBackend

        backend = HFBackend.from_options(options)
    elif name == "openai":
        from .openai_compat import OpenAIBackend

        backend = OpenAIBackend.from_options(options)
    else:
        from .vllm_backend import VLLMBackend

        backend = VLLMBackend.from_options(options)
    if not options.cache:
        return backend
    return cached(backend, cache if cache is not None else ResponseCache(options.cache_dir))


def cached(backend: Backend, cache: ResponseCache | None, *, chunk_size: int | None = None) -> Backend:
    """``backend`` answering from ``cache`` first; ``cache=None`` returns ``backend`` itself."""
    if cache is None:
        return backend
    return CachedBackend(backend, cache, chunk_size=chunk_size)


class CachedBackend:
    """A backend in front of a ``ResponseCache``.

    Only what the cache lacks is sent to the inner backend, and every answer is written the
    moment it is there, so a run killed midway (even with SIGKILL) loses only the requests that
    were still in flight and a rerun never asks an answered request again:

    * a backend with ``generate_each(requests, on_result)`` / ``loglikelihood_each`` (openai)
      hands each result over as it completes; it is stored right away, one row per sample;
    * any other backend (hf, vllm: a batch finishes as a whole) is asked in chunks of
      ``chunk_size`` requests and each chunk is stored as soon as it returns.

    ``backend_calls`` counts requests sent on.
    """

    def __init__(self, backend: Backend, cache: ResponseCache, *, chunk_size: int | None = None):
        self.inner = backend
        self.cache = cache
        self.name = backend.name
        self.model = backend.model
        self.revision: str | None = getattr(backend, "revision", None)
        self.capabilities = backend.capabilities
        self.chunk_size = max(1, chunk_size or getattr(backend, "batch_size", None) or 32)
        self.backend_calls = 0

    @property
    def model_key(self) -> str:
        return model_key(self.model, self.revision)

    def _ask(self, method: str, requests: list, take: Callable[[int, Any], list]) -> None:
        """Send ``requests`` to the inner backend. ``take(index, result)`` records a result and
        returns its cache rows, which are written as soon as the backend lets us have them:
        per result for a backend with ``<method>_each``, per chunk otherwise."""
        if not requests:
            return
        each = getattr(self.inner, f"{method}_each", None)
        if each is not None:
            def on_result(k: int, result) -> None:
                self.backend_calls += 1
                self.cache.put_many(take(k, result))

            each(requests, on_result)
            return
        for start in range(0, len(requests), self.chunk_size):
            chunk = requests[start:start + self.chunk_size]
            answers = getattr(self.inner, method)(chunk)
            if len(answers) != len(chunk):
                raise BackendError(f"backend {self.name} returned {len(answers)} results for {len(chunk)} requests")
            self.backend_calls += len(chunk)
            self.cache.put_many([row for k, answer in enumerate(answers) for row in take(start + k, answer)])

    def generate(self, requests: list[GenerationRequest]) -> list[GenerationResult]:
        require_capability(self, CAP_GENERATE)
        keys = [[generation_key(self.name, self.model, self.revision, r, r.sample_offset + i)
                 for i in range(r.n)] for r in requests]
        found = self.cache.get_many([k for ks in keys for k in ks], model=self.model_key)
        texts = [[found[k]["text"] if k in found else None for k in ks] for ks in keys]
        reasons = [[found[k]["finish_reason"] if k in found else None for k in ks] for ks in keys]
        hit = [[k in found for k in ks] for ks in keys]
        errors: list[str | None] = [None] * len(requests)

        # One sub-request per request: the contiguous range of sample indices that is missing.
        todo: list[tuple[int, int, GenerationRequest]] = []
        for i, request in enumerate(requests):
            missing = [j for j, h in enumerate(hit[i]) if not h]
            if missing:
                lo, hi = missing[0], missing[-1]
                todo.append((i, lo, replace(request, n=hi - lo + 1, sample_offset=request.sample_offset + lo)))

        def take(k: int, answer: GenerationResult) -> list:
            i, lo, _ = todo[k]
            if answer.error is None and not all(isinstance(t, str) for t in answer.texts):
                # never cache a non-answer: a rerun must ask again (the backend should have said so)
                answer = replace(answer, error=f"backend {self.name} returned no text for this request")
            if answer.error is not None:
                errors[i] = answer.error
                return []
            rows = []
            for j, (text, reason) in enumerate(zip(answer.texts, answer.finish_reasons, strict=True)):
                slot = lo + j
                if hit[i][slot]:
                    continue
                texts[i][slot], reasons[i][slot] = text, reason
                rows.append((keys[i][slot], "generation", self.name, self.model_key,
                             requests[i].sample_offset + slot,
                             _request_json(requests[i]), {"text": text, "finish_reason": reason}))
            return rows

        self._ask("generate", [sub for _, _, sub in todo], take)

        results = []
        for i in range(len(requests)):
            if errors[i] is not None:
                results.append(GenerationResult(texts=(), finish_reasons=(), cached=(), error=errors[i]))
            else:
                results.append(GenerationResult(texts=tuple(texts[i]), finish_reasons=tuple(reasons[i]),
                                                cached=tuple(hit[i])))
        return results

    def loglikelihood(self, requests: list[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        require_capability(self, CAP_LOGLIKELIHOOD)
        keys = [loglikelihood_key(self.name, self.model, self.revision, r) for r in requests]
        found = self.cache.get_many(keys, model=self.model_key)
        results: list[LoglikelihoodResult | None] = [
            LoglikelihoodResult(total=found[k]["total"], token_logprobs=tuple(found[k]["token_logprobs"]),
                                is_greedy=found[k]["is_greedy"], cached=True) if k in found else None
            for k in keys]
        todo = [i for i, r in enumerate(results) if r is None]

        def take(k: int, answer: LoglikelihoodResult) -> list:
            i = todo[k]
            results[i] = replace(answer, cached=False)
            return [(keys[i], "loglikelihood", self.name, self.model_key, 0, _ll_request_json(requests[i]),
                     {"total": answer.total, "token_logprobs": list(answer.token_logprobs),
                      "is_greedy": answer.is_greedy})]

        self._ask("loglikelihood", [requests[i] for i in todo], take)
        return [r for r in results if r is not None]


def _request_json(request: GenerationRequest) -> str:
    return canonical_json(request.cache_payload())


def _ll_request_json(request: LoglikelihoodRequest) -> str:
    return canonical_json({"context": request.context, "continuation": request.continuation})

"""Response cache: resume after a crash, concurrent writers, key sensitivity, model check."""

from __future__ import annotations

import hashlib
import multiprocessing
from dataclasses import replace

import pytest

from knowforge.models.backends import CachedBackend, cached
from knowforge.models.cache import (CACHE_FILE_NAME, ResponseCache, default_cache_dir, generation_key,
                                  loglikelihood_key, model_key)
from knowforge.models.types import Backend, GenerationRequest, GenerationResult, LoglikelihoodRequest, LoglikelihoodResult


class Crash(RuntimeError):
    pass


class CountingBackend:
    """A deterministic model for testing the cache logic: answers are hashes of the request and
    the sample index; it records every (request, sample index) it is asked and can crash after
    ``fail_after`` requests, like a run killed midway."""

    name = "test"
    capabilities = frozenset({"generate", "loglikelihood", "chat", "seed"})

    def __init__(self, model: str = "model-a", *, fail_after: int | None = None, revision: str | None = None,
                 batch_size: int = 4, **ignored_settings):
        self.model = model
        self.revision = revision
        self.batch_size = batch_size
        self.fail_after = fail_after
        self.requests_seen = 0
        self.asked: list[tuple[str, int]] = []
        self.ll_asked: list[tuple[str, str]] = []
        self.settings = ignored_settings   # timeout, concurrency, ...: must not reach the key

    def _tick(self):
        if self.fail_after is not None and self.requests_seen >= self.fail_after:
            raise Crash("killed midway")
        self.requests_seen += 1

    @staticmethod
    def answer(request: GenerationRequest, index: int) -> str:
        text = request.prompt or "|".join(c for _, c in request.messages)
        return hashlib.sha256(f"{text}:{request.seed}:{request.temperature}:{index}".encode()).hexdigest()[:10]

    def generate(self, requests):
        out = []
        for request in requests:
            self._tick()
            indices = range(request.sample_offset, request.sample_offset + request.n)
            self.asked += [(request.prompt or "", i) for i in indices]
            out.append(GenerationResult(texts=tuple(self.answer(request, i) for i in indices),
                                        finish_reasons=("stop",) * request.n))
        return out

    def loglikelihood(self, requests):
        out = []
        for request in requests:
            self._tick()
            self.ll_asked.append((request.context, request.continuation))
            values = tuple(-0.5 * (k + 1) for k in range(len(request.continuation.split())))
            out.append(LoglikelihoodResult(total=sum(values), token_logprobs=values, is_greedy=len(values) < 2))
        return out


def requests_for(k: int) -> list[GenerationRequest]:
    return [GenerationRequest(prompt=f"question {i}", n=2, temperature=1.0, seed=i) for i in range(k)]


def test_counting_backend_is_a_backend():
    assert isinstance(CountingBackend(), Backend)
    assert isinstance(cached(CountingBackend(), None), CountingBackend)


def test_killed_run_resumes_without_asking_again(tmp_path):
    requests = requests_for(20)
    reference = CountingBackend().generate(requests)

    crashing = CountingBackend(fail_after=10, batch_size=4)
    with pytest.raises(Crash):
        cached(crashing, ResponseCache(tmp_path)).generate(requests)
    answered_before = set(crashing.asked[:8 * 2])   # two full chunks of 4 requests were written

    resumed_backend = CountingBackend()
    resumed = cached(resumed_backend, ResponseCache(tmp_path))
    results = resumed.generate(requests)
    assert [r.texts for r in results] == [r.texts for r in reference]
    assert [r.finish_reasons for r in results] == [r.finish_reasons for r in reference]
    assert not answered_before & set(resumed_backend.asked), "nothing answered is asked again"
    assert len(resumed_backend.asked) == len(set(resumed_backend.asked)) == (20 - 8) * 2
    assert all(r.cached == (True, True) for r in results[:8])
    assert all(r.cached == (False, False) for r in results[8:])
    assert resumed.cache.stats.hits == 16 and resumed.cache.stats.misses == 24

    third_backend = CountingBackend()
    third = cached(third_backend, ResponseCache(tmp_path))
    assert [r.texts for r in third.generate(requests)] == [r.texts for r in reference]
    assert third_backend.asked == [] and third.backend_calls == 0
    assert third.cache.stats.hit_rate == 1.0


def test_more_samples_reuse_the_cached_ones(tmp_path):
    cache = ResponseCache(tmp_path)
    backend = CountingBackend()
    wrapped = cached(backend, cache)
    three = wrapped.generate([GenerationRequest(prompt="p", n=3, temperature=1.0, seed=4)])[0]
    five = wrapped.generate([GenerationRequest(prompt="p", n=5, temperature=1.0, seed=4)])[0]
    assert backend.asked == [("p", 0), ("p", 1), ("p", 2), ("p", 3), ("p", 4)]
    assert five.texts[:3] == three.texts
    assert five.cached == (True, True, True, False, False)
    assert len(cache) == 5


def test_loglikelihood_is_cached(tmp_path):
    requests = [LoglikelihoodRequest("ctx", " a b"), LoglikelihoodRequest("ctx", " c")]
    first_backend = CountingBackend()
    first = cached(first_backend, ResponseCache(tmp_path)).loglikelihood(requests)
    second_backend = CountingBackend()
    second = cached(second_backend, ResponseCache(tmp_path)).loglikelihood(requests)
    assert second_backend.ll_asked == [] and len(first_backend.ll_asked) == 2
    assert [(r.total, r.token_logprobs, r.is_greedy) for r in second] == \
        [(r.total, r.token_logprobs, r.is_greedy) for r in first]
    assert [r.cached for r in first] == [False, False] and [r.cached for r in second] == [True, True]


def test_failed_requests_are_not_cached(tmp_path):
    class Flaky(CountingBackend):
        def generate(self, requests):
            self.asked += [(r.prompt, 0) for r in requests]
            return [GenerationResult(texts=(), finish_reasons=(), error="content filter") for _ in requests]

    flaky = Flaky()
    result = cached(flaky, ResponseCache(tmp_path)).generate([GenerationRequest(prompt="x")])[0]
    assert result.error == "content filter" and result.texts == ()
    assert len(ResponseCache(tmp_path)) == 0
    healthy = CountingBackend()
    assert cached(healthy, ResponseCache(tmp_path)).generate([GenerationRequest(prompt="x")])[0].error is None
    assert healthy.asked == [("x", 0)]


def test_key_depends_on_what_changes_the_output():
    request = GenerationRequest(prompt="Where is Paris?", temperature=0.7, seed=1, max_tokens=10)
    base = generation_key("hf", "model-a", None, request, 0)
    assert base == generation_key("hf", "model-a", None, request, 0)
    different = [
        generation_key("hf", "model-b", None, request, 0),
        generation_key("hf", "model-a", "rev2", request, 0),
        generation_key("vllm", "model-a", None, request, 0),
        generation_key("hf", "model-a", None, request, 1),
        generation_key("hf", "model-a", None, replace(request, prompt="Where is Paris? "), 0),
        generation_key("hf", "model-a", None, replace(request, temperature=0.8), 0),
        generation_key("hf", "model-a", None, replace(request, top_p=0.9), 0),
        generation_key("hf", "model-a", None, replace(request, seed=2), 0),
        generation_key("hf", "model-a", None, replace(request, max_tokens=11), 0),
        generation_key("hf", "model-a", None, replace(request, stop=("\n",)), 0),
        generation_key("hf", "model-a", None, GenerationRequest(messages=(("user", "Where is Paris?"),),
                                                                temperature=0.7, seed=1, max_tokens=10), 0),
    ]
    assert base not in different and len(set(different)) == len(different)
    # n and sample_offset pick which samples are asked; the sample index is in the key already.
    assert generation_key("hf", "model-a", None, replace(request, n=5, sample_offset=3), 0) == base
    ll = LoglikelihoodRequest("a", " b")
    assert loglikelihood_key("hf", "m", None, ll) != loglikelihood_key("hf", "m2", None, ll)
    assert loglikelihood_key("hf", "m", None, ll) != loglikelihood_key("hf", "m", None, LoglikelihoodRequest("a ", "b"))


def test_runtime_settings_do_not_change_the_key(tmp_path):
    requests = requests_for(3)
    cached(CountingBackend(timeout=5, concurrency=1, gpu_rank=0), ResponseCache(tmp_path)).generate(requests)
    other = CountingBackend(timeout=600, concurrency=64, gpu_rank=7)
    cached(other, ResponseCache(tmp_path)).generate(requests)
    assert other.asked == []


def test_different_model_never_gets_another_models_answer(tmp_path):
    requests = requests_for(2)
    cached(CountingBackend("model-a"), ResponseCache(tmp_path)).generate(requests)
    b = CountingBackend("model-b")
    cached(b, ResponseCache(tmp_path)).generate(requests)
    assert len(b.asked) == 4
    revised = CountingBackend("model-a", revision="sha256:abc")
    cached(revised, ResponseCache(tmp_path)).generate(requests)
    assert len(revised.asked) == 4


def test_model_id_is_checked_on_read(tmp_path, caplog):
    cache = ResponseCache(tmp_path)
    request = GenerationRequest(prompt="x")
    key = generation_key("test", "model-a", None, request, 0)
    # A row under model-a's key but written for model-b (a bug or a hand-edited file).
    cache.put_many([(key, "generation", "test", model_key("model-b", None), 0, "{}",
                     {"text": "wrong model", "finish_reason": "stop"})])
    backend = CountingBackend("model-a")
    result = cached(backend, cache).generate([request])[0]
    assert result.texts != ("wrong model",) and backend.asked == [("x", 0)]
    assert any("belongs to model" in r.message for r in caplog.records)


def test_cache_location(tmp_path, monkeypatch):
    monkeypatch.setenv("KNOWFORGE_CACHE_DIR", str(tmp_path / "env-cache"))
    assert default_cache_dir() == tmp_path / "env-cache"
    assert ResponseCache().path == tmp_path / "env-cache" / CACHE_FILE_NAME
    assert ResponseCache(tmp_path / "explicit").path == tmp_path / "explicit" / CACHE_FILE_NAME
    assert ResponseCache(tmp_path / "file.sqlite").path == tmp_path / "file.sqlite"
    monkeypatch.delenv("KNOWFORGE_CACHE_DIR")
    import platformdirs

    assert default_cache_dir() == __import__("pathlib").Path(platformdirs.user_cache_dir("knowforge"))


def test_cache_file_is_in_wal_mode(tmp_path):
    cache = ResponseCache(tmp_path)
    cached(CountingBackend(), cache).generate(requests_for(1))
    import sqlite3

    with sqlite3.connect(cache.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {e.sample_index for e in cache.entries()} == {0, 1}
    assert {e.model for e in cache.entries()} == {"model-a"}


def _writer(path: str, worker: int, rows: int) -> int:
    """Write ``rows`` answers one transaction at a time, reading back as it goes."""
    cache = ResponseCache(path)
    backend = CountingBackend(f"model-{worker % 2}", batch_size=1)
    wrapped = CachedBackend(backend, cache, chunk_size=1)
    shared = [GenerationRequest(prompt=f"shared {i}") for i in range(rows // 2)]
    own = [GenerationRequest(prompt=f"worker {worker} item {i}") for i in range(rows // 2)]
    results = wrapped.generate(shared + own)
    assert all(r.texts == (CountingBackend.answer(q, 0),) for q, r in zip(shared + own, results))
    cache.close()
    return len(results)


def test_concurrent_writers_share_one_file(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    workers, rows = 4, 400
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(workers) as pool:
        done = pool.starmap(_writer, [(path, w, rows) for w in range(workers)])
    assert done == [rows] * workers
    cache = ResponseCache(path)
    # shared prompts: one row per model (2 models); own prompts: one row per worker.
    assert len(cache) == 2 * (rows // 2) + workers * (rows // 2)
    for worker in range(workers):
        backend = CountingBackend(f"model-{worker % 2}")
        cached(backend, cache).generate([GenerationRequest(prompt=f"worker {worker} item {i}")
                                         for i in range(rows // 2)])
        assert backend.asked == []


def test_make_backend_rejects_unknown_names_and_missing_models(tmp_path):
    from knowforge.errors import BackendError, ConfigError
    from knowforge.models.backends import make_backend, require_capability
    from knowforge.eval.types import EvalOptions

    from knowforge.models.config import BackendConfig

    with pytest.raises(ConfigError, match="unknown backend 'nope'"):
        make_backend(BackendConfig(backend="nope", model="x"))
    with pytest.raises(ConfigError, match="backend"):
        EvalOptions.make(backend="nope", model="x")          # the CLI's options refuse it first
    with pytest.raises(ConfigError, match="needs a model"):
        make_backend(EvalOptions(backend="hf", model=""))

    class GenerateOnly(CountingBackend):
        capabilities = frozenset({"generate"})

    with pytest.raises(BackendError, match="cannot do 'loglikelihood'"):
        require_capability(GenerateOnly(), "loglikelihood")
    inner = GenerateOnly()
    with pytest.raises(BackendError, match="cannot do 'loglikelihood'"):
        cached(inner, ResponseCache(tmp_path)).loglikelihood([LoglikelihoodRequest("a", " b")])
    assert inner.ll_asked == []

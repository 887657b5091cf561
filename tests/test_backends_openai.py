"""The openai backend: the real ``openai`` client against an OpenAI-compatible server on 127.0.0.1.

The server below implements /v1/completions (with echo + logprobs) and /v1/chat/completions;
its answers are computed from the request (so a test can check what was sent) and a few
switches make it misbehave: 429s, 500s, slow replies, malformed JSON, no echo support.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from knowforge.errors import BackendError
from knowforge.models.backends import CachedBackend, derive_seed, make_backend
from knowforge.models.cache import ResponseCache
from knowforge.models.backends.openai_compat import OpenAIBackend
from knowforge.models.types import GenerationRequest, LoglikelihoodRequest
from knowforge.eval.types import EvalOptions

TOKEN = re.compile(r"\s*\S+")


def token_logprob(index: int, token: str) -> float:
    return -0.25 * (index + 1) - 0.01 * len(token)


class FakeServer:
    def __init__(self):
        self.lock = threading.Lock()
        self.bodies: list[dict] = []
        self.paths: list[str] = []
        self.fail_429 = 0
        self.fail_500 = 0
        self.sleep = 0.0
        self.malformed = False
        self.echo_supported = True
        self.inflight = 0
        self.max_inflight = 0
        # what a 429 says about waiting; retry-after-ms keeps the SDK's waits short in tests
        self.retry_headers = {"Retry-After": "0", "retry-after-ms": "5"}
        self.retry_counts: list[int] = []   # the SDK's x-stainless-retry-count of each attempt
        self.answered: list = []            # prompts answered with 200


def completion_choices(body: dict, server: FakeServer) -> dict:
    n = body.get("n", 1)
    seed = body.get("seed")
    if body.get("echo"):
        if not server.echo_supported:
            return {"status": 400, "body": {"error": {"message": "echo is not supported", "type": "invalid"}}}
        prompt = body["prompt"]
        tokens, offsets = [], []
        for match in TOKEN.finditer(prompt):
            tokens.append(match.group())
            offsets.append(match.start())
        values = [None] + [token_logprob(i, t) for i, t in enumerate(tokens)][1:]
        # Greedy where the index is even: the top alternative is the token itself.
        top = [None] + [{t: v} if i % 2 == 0 else {t: v, "other": (v or 0) + 1.0}
                        for i, (t, v) in enumerate(zip(tokens, values))][1:]
        choice = {"index": 0, "text": prompt, "finish_reason": "length",
                  "logprobs": {"tokens": tokens, "token_logprobs": values, "text_offset": offsets,
                               "top_logprobs": top}}
        return {"status": 200, "body": {"id": "c", "object": "text_completion", "created": 0,
                                        "model": body["model"], "choices": [choice]}}
    choices = [{"index": i, "text": f"{body['prompt'][-8:]}|seed={seed}|{i}",
                "finish_reason": "stop" if i % 2 == 0 else "length", "logprobs": None}
               for i in reversed(range(n))]   # out of order on purpose
    return {"status": 200, "body": {"id": "c", "object": "text_completion", "created": 0,
                                    "model": body["model"], "choices": choices}}


def chat_choices(body: dict) -> dict:
    n = body.get("n", 1)
    last = body["messages"][-1]["content"]
    choices = [{"index": i, "message": {"role": "assistant", "content": f"chat:{last}|seed={body.get('seed')}|{i}"},
                "finish_reason": "stop"} for i in range(n)]
    return {"status": 200, "body": {"id": "x", "object": "chat.completion", "created": 0,
                                    "model": body["model"], "choices": choices}}


def make_handler(server: FakeServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep pytest output clean
            pass

        def reply(self, status: int, payload: bytes, headers: dict | None = None):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            try:
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with server.lock:
                server.bodies.append(body)
                server.paths.append(self.path)
                server.retry_counts.append(int(self.headers.get("x-stainless-retry-count", 0)))
                server.inflight += 1
                server.max_inflight = max(server.max_inflight, server.inflight)
                throttle = server.fail_429 > 0
                server.fail_429 -= throttle
                broken = server.fail_500 > 0 and not throttle
                server.fail_500 -= broken
            try:
                if server.sleep:
                    time.sleep(server.sleep)
                if throttle:
                    return self.reply(429, b'{"error": {"message": "slow down", "type": "rate_limit"}}',
                                      server.retry_headers)
                if broken:
                    return self.reply(500, b'{"error": {"message": "boom", "type": "server"}}')
                if "unauthorized" in str(body.get("prompt", "")):
                    return self.reply(401, b'{"error": {"message": "bad key", "type": "auth"}}')
                if "forbidden" in str(body.get("prompt", "")):
                    return self.reply(400, b'{"error": {"message": "prompt violates policy", "type": "invalid"}}')
                if server.malformed:
                    return self.reply(200, b'{"id": "c", "choices": [ {"index": 0, "text": "trunc')
                if self.path == "/v1/chat/completions":
                    answer = chat_choices(body)
                elif self.path == "/v1/completions":
                    answer = completion_choices(body, server)
                else:
                    answer = {"status": 404, "body": {"error": {"message": "no such route"}}}
                if answer["status"] == 200:
                    with server.lock:   # before the reply: the client cannot see it unrecorded
                        server.answered.append(body.get("prompt"))
                return self.reply(answer["status"], json.dumps(answer["body"]).encode())
            finally:
                with server.lock:
                    server.inflight -= 1

    return Handler


@pytest.fixture
def fake():
    state = FakeServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    yield state
    httpd.shutdown()
    httpd.server_close()


def backend(fake, **kwargs) -> OpenAIBackend:
    options = dict(base_url=fake.base_url, api_key="EMPTY", timeout=5.0, max_retries=3)
    options.update(kwargs)
    return OpenAIBackend("tiny", **options)


def test_prompt_goes_to_completions_with_all_parameters(fake):
    request = GenerationRequest(prompt="Where is Paris?", n=1, temperature=0.7, top_p=0.9, seed=5,
                                max_tokens=12, stop=("\n", "Q:"))
    result = backend(fake).generate([request])[0]
    assert fake.paths == ["/v1/completions"]
    sent = fake.bodies[0]
    assert sent["model"] == "tiny" and sent["prompt"] == "Where is Paris?"
    assert (sent["n"], sent["temperature"], sent["top_p"], sent["seed"], sent["max_tokens"]) == (1, 0.7, 0.9, 5, 12)
    assert sent["stop"] == ["\n", "Q:"]
    assert result.texts == ("s Paris?|seed=5|0",) and result.finish_reasons == ("stop",)


def test_messages_go_to_chat_completions(fake):
    request = GenerationRequest(messages=(("system", "Be brief."), ("user", "Capital of France?")), seed=3)
    result = backend(fake).generate([request])[0]
    assert fake.paths == ["/v1/chat/completions"]
    assert fake.bodies[0]["messages"] == [{"role": "system", "content": "Be brief."},
                                          {"role": "user", "content": "Capital of France?"}]
    assert "stop" not in fake.bodies[0]
    assert result.texts == ("chat:Capital of France?|seed=3|0",)


def test_chat_only_mode_sends_prompts_as_a_user_message(fake):
    result = backend(fake, api="chat").generate([GenerationRequest(prompt="Hi")])[0]
    assert fake.paths == ["/v1/chat/completions"]
    assert result.texts == ("chat:Hi|seed=None|0",)


def test_n_samples_come_back_in_index_order(fake):
    result = backend(fake).generate([GenerationRequest(prompt="abc", n=3, temperature=1.0, seed=9)])[0]
    assert fake.bodies[0]["n"] == 3
    assert result.texts == ("abc|seed=9|0", "abc|seed=9|1", "abc|seed=9|2")
    assert result.finish_reasons == ("stop", "length", "stop")


def test_topped_up_samples_use_a_derived_seed(fake):
    backend(fake).generate([GenerationRequest(prompt="abc", n=2, temperature=1.0, seed=9, sample_offset=3)])
    assert fake.bodies[0]["seed"] == derive_seed(9, 3)


def test_429_then_success_is_retried(fake):
    fake.fail_429 = 2
    client = backend(fake)
    result = client.generate([GenerationRequest(prompt="retry me")])[0]
    assert result.texts == ("retry me|seed=None|0",)
    # the SDK retried: the server saw attempts numbered 0, 1, 2 of one request
    assert fake.retry_counts == [0, 1, 2] and len(fake.bodies) == 3 and client.retries == 2


def test_a_retry_after_beyond_two_minutes_is_not_waited_for(fake):
    """The SDK reads Retry-After: a server asking for 10 minutes gets no retry, and the error
    says so after one attempt."""
    fake.fail_429 = 1
    fake.retry_headers = {"Retry-After": "600"}
    with pytest.raises(BackendError, match="after 1 attempts"):
        backend(fake).generate([GenerationRequest(prompt="later")])
    assert len(fake.bodies) == 1


def test_5xx_is_retried(fake):
    fake.fail_500 = 1
    client = backend(fake)
    assert client.generate([GenerationRequest(messages=(("user", "x"),))])[0].texts == ("chat:x|seed=None|0",)
    assert fake.retry_counts == [0, 1] and client.retries == 1


def test_retries_give_up_with_a_clear_error(fake):
    fake.fail_429 = 100
    client = backend(fake, max_retries=2)
    with pytest.raises(BackendError, match="after 3 attempts"):
        client.generate([GenerationRequest(prompt="never")])
    assert len(fake.bodies) == 3 and fake.retry_counts == [0, 1, 2]


def test_timeout_is_a_clear_backend_error_after_retries(fake):
    fake.sleep = 1.0
    client = backend(fake, timeout=0.2, max_retries=1)
    with pytest.raises(BackendError, match="timed out after 2 attempts") as info:
        client.generate([GenerationRequest(prompt="slow")])
    assert fake.base_url in str(info.value) or "127.0.0.1" in str(info.value)
    assert fake.retry_counts == [0, 1]


def eval_flags() -> set[str]:
    from knowforge.cli.eval_cmd import eval_cmd

    return {opt for param in eval_cmd.params for opt in getattr(param, "opts", ())}


def test_connection_refused_fails_at_once_and_suggests_only_real_flags(fake):
    """Nothing listens: the error comes from one refused TCP connection (its cause), not
    after the SDK's retries of every worker, and it names only options `knowforge eval` has."""
    client = OpenAIBackend("tiny", base_url="http://127.0.0.1:9/v1", timeout=1.0, max_retries=5,
                           concurrency=4)
    with pytest.raises(BackendError, match="no OpenAI-compatible server answers at "
                                           "http://127.0.0.1:9/v1/ .connection refused.") as info:
        client.generate([GenerationRequest(prompt=f"nobody home {i}") for i in range(8)])
    assert isinstance(info.value.__cause__, ConnectionRefusedError)
    flags = set(re.findall(r"--[a-z][a-z-]*", str(info.value)))
    assert flags and flags <= eval_flags()


def test_the_retry_message_names_only_real_flags(fake):
    fake.sleep = 1.0
    with pytest.raises(BackendError, match="timed out after 1 attempts") as info:
        backend(fake, timeout=0.2, max_retries=0).generate([GenerationRequest(prompt="slow")])
    flags = set(re.findall(r"--[a-z][a-z-]*", str(info.value)))
    assert "--timeout" in flags and "--max-retries" not in flags and flags <= eval_flags()


def test_malformed_json_is_a_clear_backend_error(fake):
    fake.malformed = True
    client = backend(fake)
    with pytest.raises(BackendError, match="malformed JSON reply"):
        client.generate([GenerationRequest(prompt="x")])
    assert len(fake.bodies) == 1, "a malformed reply is not retried"


def test_client_errors_are_not_retried(fake):
    client = OpenAIBackend("tiny", base_url=fake.base_url.replace("/v1", "/nope"), timeout=2.0,
                           max_retries=3)
    with pytest.raises(BackendError, match="HTTP 404"):
        client.generate([GenerationRequest(prompt="x")])
    assert len(fake.bodies) == 1


def test_concurrency_limit_is_respected_and_order_kept(fake):
    fake.sleep = 0.1
    requests = [GenerationRequest(prompt=f"prompt {i:02d}") for i in range(8)]
    results = backend(fake, concurrency=2).generate(requests)
    assert fake.max_inflight == 2
    assert [r.texts[0] for r in results] == [f"rompt {i:02d}|seed=None|0" for i in range(8)]


def test_loglikelihood_via_echoed_completion_logprobs(fake):
    requests = [LoglikelihoodRequest("The capital of France is", " Paris"),
                LoglikelihoodRequest("Answer:", " B is right")]
    results = backend(fake).loglikelihood(requests)
    for body in fake.bodies:
        assert (body["echo"], body["logprobs"], body["max_tokens"]) == (True, 1, 0)
    # " Paris" is token 5 of the echoed prompt; " B is right" tokens 1..3 of theirs.
    assert results[0].token_logprobs == (pytest.approx(token_logprob(5, " Paris")),)
    assert results[1].token_logprobs == pytest.approx(tuple(token_logprob(i, t) for i, t in
                                                            [(1, " B"), (2, " is"), (3, " right")]))
    assert results[1].total == pytest.approx(sum(results[1].token_logprobs))
    assert results[0].is_greedy is False and results[1].is_greedy is False
    single = backend(fake).loglikelihood([LoglikelihoodRequest("Well, the", " end")])[0]
    assert single.is_greedy is True


def test_loglikelihood_refused_by_the_server_names_the_fix(fake):
    fake.echo_supported = False
    with pytest.raises(BackendError, match="use --backend hf or vllm"):
        backend(fake).loglikelihood([LoglikelihoodRequest("a", " b")])


def test_loglikelihood_is_not_a_capability_of_chat_only_mode(fake):
    client = backend(fake, api="chat")
    assert "loglikelihood" not in client.capabilities
    with pytest.raises(BackendError, match="chat completions give no log-likelihood"):
        client.loglikelihood([LoglikelihoodRequest("a", " b")])
    assert fake.bodies == []


def test_make_backend_caches_openai_answers(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    options = EvalOptions(backend="openai", model="tiny", base_url=fake.base_url, cache_dir=tmp_path,
                          max_retries=0)
    requests = [GenerationRequest(prompt=f"q{i}", n=2, temperature=1.0, seed=1) for i in range(3)]
    first = make_backend(options)
    assert isinstance(first, CachedBackend)
    answers = first.generate(requests)
    assert len(fake.bodies) == 3
    again = make_backend(options)   # a new run, same cache directory
    assert [r.texts for r in again.generate(requests)] == [r.texts for r in answers]
    assert len(fake.bodies) == 3 and again.backend_calls == 0
    assert again.cache.stats.hit_rate == 1.0
    uncached = make_backend(EvalOptions(backend="openai", model="tiny", base_url=fake.base_url, cache=False))
    assert isinstance(uncached, OpenAIBackend)
    assert uncached.client.api_key == "sk-test" and uncached.client.max_retries == 4   # the SDK retries


def test_a_rejected_request_is_recorded_and_the_others_answered(fake):
    requests = [GenerationRequest(prompt="fine 1"), GenerationRequest(prompt="forbidden"),
                GenerationRequest(prompt="fine 2")]
    results = backend(fake, concurrency=2).generate(requests)
    assert results[0].texts == ("fine 1|seed=None|0",) and results[2].texts == ("fine 2|seed=None|0",)
    assert results[1].texts == () and "HTTP 400" in results[1].error and "policy" in results[1].error
    assert len(fake.bodies) == 3, "a 400 is not retried"


def test_each_answer_is_cached_as_it_arrives_even_when_the_run_fails(fake, tmp_path):
    """A systemic error (401) stops the run; every answer the server gave before, including
    those in flight when the error came, is already in the cache, and a rerun asks only the
    rest."""
    fake.sleep = 0.05
    options = EvalOptions(backend="openai", model="tiny", base_url=fake.base_url, cache_dir=tmp_path,
                          concurrency=3, max_retries=0)
    prompts = [f"q{i}" for i in range(4)] + ["unauthorized"] + [f"q{i}" for i in range(4, 12)]
    cached = make_backend(options)
    with pytest.raises(BackendError, match="HTTP 401"):
        cached.generate([GenerationRequest(prompt=p) for p in prompts])
    stored = {json.loads(e.request)["prompt"] for e in ResponseCache(tmp_path).entries()}
    assert fake.answered and set(fake.answered) == stored
    assert len(fake.answered) < 12, "requests still queued at the failure are not sent"
    before = len(fake.bodies)
    again = make_backend(options).generate([GenerationRequest(prompt=p) for p in prompts if p != "unauthorized"])
    asked = [b["prompt"] for b in fake.bodies[before:]]
    assert sorted(asked) == sorted(set(prompts) - stored - {"unauthorized"})
    assert all(r.texts for r in again)

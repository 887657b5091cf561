"""An OpenAI-compatible completions server on 127.0.0.1 that fails at random, and an evaluation
driven against it until every item is answered (issue 36, item 6: eval under load).

The server answers ``Q<n>?`` with ``answer-<n>``. Each attempt at a prompt fails with a chance
drawn from a hash of (seed, prompt, attempt number), so the faults a prompt meets do not depend
on thread scheduling:

* ``429``: Too Many Requests with ``retry-after-ms``;
* ``reset``: the connection is closed with a TCP reset, no reply;
* ``hang``: no reply until past the client's timeout, then a reset;
* ``malformed``: HTTP 200 whose JSON body is cut short.

From the ``ALWAYS_AFTER``-th attempt at a prompt on, it answers, so every run ends.

``eval_under_faults`` evaluates N items through the engine's ``ask_and_score`` with the OpenAI
backend behind the response cache, and reruns the evaluation (as a user would) while a run
stops or leaves failed samples; ``LoadFigures`` says what happened. ``tests/test_eval_load.py``
runs it small; ``benchmarks/eval_faults.py`` at 10k requests.
"""

from __future__ import annotations

import hashlib
import json
import socket
import sqlite3
import struct
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

FAULTS = ("429", "reset", "hang", "malformed")
ALWAYS_AFTER = 8


@dataclass
class ServerLog:
    """What the server did: attempts per prompt, faults by kind, answers sent per prompt."""

    attempts: Counter = field(default_factory=Counter)
    faults: Counter = field(default_factory=Counter)
    answers: Counter = field(default_factory=Counter)
    after_answer: int = 0          # requests for a prompt already answered once (asked again)
    lock: threading.Lock = field(default_factory=threading.Lock)


def flaky_handler(rates: dict[str, float], *, seed: int, hang_s: float, log: ServerLog) -> type:
    """A request handler failing with ``rates`` (kind → chance per attempt)."""
    bounds = []
    total = 0.0
    for kind in FAULTS:
        total += rates.get(kind, 0.0)
        bounds.append((total, kind))

    def fault_for(prompt: str, attempt: int) -> str | None:
        if attempt >= ALWAYS_AFTER:
            return None
        digest = hashlib.sha256(f"{seed}\0{prompt}\0{attempt}".encode()).digest()
        u = int.from_bytes(digest[:8], "big") / 2 ** 64
        return next((kind for bound, kind in bounds if u < bound), None)

    class Flaky(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"       # keep-alive, as real servers do: resets hit reused sockets

        def do_POST(self):  # noqa: N802 (http.server API)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            prompt = body.get("prompt") or ""
            with log.lock:
                attempt = log.attempts[prompt]
                log.attempts[prompt] += 1
                if log.answers[prompt]:
                    log.after_answer += 1
                kind = fault_for(prompt, attempt)
                if kind:
                    log.faults[kind] += 1
            if kind == "429":
                self._send(429, json.dumps({"error": {"message": "slow down", "type": "rate_limit"}}).encode(),
                           {"retry-after-ms": "20"})
            elif kind == "reset":
                self._reset()
            elif kind == "hang":
                time.sleep(hang_s)
                self._reset()
            elif kind == "malformed":
                self._send(200, b'{"id": "x", "object": "text_completion", "choices": [{"text": "ans')
            else:
                number = prompt.strip().removeprefix("Q").removesuffix("?")
                reply = {"id": "x", "object": "text_completion", "created": 0, "model": body["model"],
                         "choices": [{"index": 0, "text": f"answer-{number}", "finish_reason": "stop",
                                      "logprobs": None}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                self._send(200, json.dumps(reply).encode())
                with log.lock:
                    log.answers[prompt] += 1

        def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _reset(self) -> None:
            # SO_LINGER 0: close() sends RST, as a crashed proxy or an overloaded balancer does
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()

        def log_message(self, *args):
            return

        def handle_one_request(self):
            try:
                super().handle_one_request()
            except OSError:          # the socket this handler reset
                self.close_connection = True

    return Flaky


@contextmanager
def flaky_server(rates: dict[str, float], *, seed: int = 0, hang_s: float = 2.0) -> Iterator[tuple[str, ServerLog]]:
    """Serve on a free port of 127.0.0.1; yields the ``/v1`` base URL and the server's log."""
    log = ServerLog()
    server = ThreadingHTTPServer(("127.0.0.1", 0), flaky_handler(rates, seed=seed, hang_s=hang_s, log=log))
    server.daemon_threads = True
    server.request_queue_size = 256
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", log
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class LoadFigures:
    items: int
    runs: int                      # evaluations until none stopped and none left a failed sample
    stopped_runs: int              # runs the backend stopped (a systemic error after its retries)
    failed_samples: int            # samples recorded as failed, over all runs
    requests: int                  # requests the server received
    faults: dict[str, int]
    answers_per_item: Counter      # answers the server sent, by count per item (1: exactly once)
    asked_after_answer: int        # requests for an item the server had already answered
    final_correct: int             # items whose final sample is their own answer
    final_cached: int              # items the last run took from the cache
    cache_rows: int
    cache_distinct_keys: int
    cache_integrity: str
    cache_wrong_rows: int          # rows whose answer is not the answer to their own request
    rerun_requests: int            # requests one more run (after the last) sent to the server
    rerun_cached: int              # samples that run took from the cache
    seconds: float


def eval_under_faults(n: int, cache_dir: Path, *, concurrency: int = 64, rates: dict[str, float] | None = None,
                      seed: int = 0, timeout: float = 2.0, hang_s: float = 2.6, max_retries: int = 2,
                      max_runs: int = 500) -> LoadFigures:
    """Evaluate ``n`` items at ``concurrency`` against the flaky server, rerunning until done."""
    from knowforge.errors import BackendError
    from knowforge.eval.ask import Ask, ask_and_score
    from knowforge.models.backends import cached
    from knowforge.models.backends.openai_compat import OpenAIBackend
    from knowforge.models.cache import ResponseCache
    from knowforge.models.types import BenchmarkItem, GenerationRequest

    rates = rates if rates is not None else {"429": 0.06, "reset": 0.03, "hang": 0.004, "malformed": 0.004}
    items = [BenchmarkItem(id=f"load:{i:06d}", benchmark="load:faults", task="load/answer", form="generation",
                           question=f"Q{i:06d}?", answers=[f"answer-{i:06d}"], scorer="fuzzy") for i in range(n)]
    asks = [Ask(item=item, request=GenerationRequest(prompt=item.question, max_tokens=8)) for item in items]
    runs = stopped = failed = 0
    with flaky_server(rates, seed=seed, hang_s=hang_s) as (url, log):
        cache = ResponseCache(cache_dir)
        backend = cached(OpenAIBackend("flaky", base_url=url, api_key="x", concurrency=concurrency,
                                       timeout=timeout, max_retries=max_retries), cache)
        started = time.monotonic()      # after the SDK's import, which the backend makes
        results = None
        while runs < max_runs:
            runs += 1
            try:
                results = ask_and_score(asks, backend, scoring="knowforge")
            except BackendError:
                stopped += 1
                results = None
                continue
            errors = sum(1 for r in results if r.error)
            failed += errors
            if not errors:
                break
        seconds = time.monotonic() - started
        requests = sum(log.attempts.values())
        again = ask_and_score(asks, backend, scoring="knowforge")
        rerun_requests = sum(log.attempts.values()) - requests
        answers_per_item = Counter(log.answers[a.item.question] for a in asks)
        after = log.after_answer
        faults = {kind: log.faults[kind] for kind in FAULTS}
    by_id = {r.item_id: r for r in results or []}
    correct = sum(1 for item in items if item.id in by_id and by_id[item.id].raw == item.answers[0]
                  and by_id[item.id].score == 1.0)
    final_cached = sum(1 for r in results or [] if r.cached)
    with sqlite3.connect(cache.path) as conn:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        rows = conn.execute("SELECT request, response FROM responses").fetchall()
        distinct = conn.execute("SELECT count(DISTINCT key) FROM responses").fetchone()[0]
    wrong = sum(1 for request, response in rows
                if json.loads(response)["text"] != "answer-" + json.loads(request)["prompt"][1:-1])
    return LoadFigures(items=n, runs=runs, stopped_runs=stopped, failed_samples=failed, requests=requests,
                       faults=faults, answers_per_item=answers_per_item, asked_after_answer=after,
                       final_correct=correct, final_cached=final_cached, cache_rows=len(rows),
                       cache_distinct_keys=distinct, cache_integrity=integrity, cache_wrong_rows=wrong,
                       rerun_requests=rerun_requests, rerun_cached=sum(1 for r in again if r.cached and not r.error),
                       seconds=seconds)

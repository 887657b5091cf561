"""Requests asked again after a SIGKILL at a random time, per-answer cache writes vs per-chunk.

A local OpenAI-compatible server answers ``/v1/completions`` after ``--delay-ms`` and records
every prompt whose answer it wrote. Each trial runs the eval library path (``evaluate_items``
through ``make_backend``'s cached openai backend) in a subprocess, kills it with SIGKILL at a
random time, resumes it to the end with the same cache, and counts the prompts the server
answered in both runs. Unlike tests/test_resume_kill.py (which kills at a request and waits
until every answer is stored), the kill lands anywhere, including between an answer's arrival
and its cache write.

Two clients, same server, same kill times:
- ``each``: the shipped path (``generate_each``: every answer stored when it arrives);
- ``chunk``: the same backend without ``generate_each``, so ``CachedBackend`` stores per chunk
  of ``4 * concurrency`` requests (the behaviour before issue #15).

    .venv/bin/python benchmarks/resume_kill.py [--trials 10] [--items 400] [--delay-ms 10] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CLIENT = r"""
import sys
from knowforge.eval.ask import ask_and_score
from knowforge.eval.solvers import prompt_asks
from knowforge.eval.types import EvalOptions
from knowforge.models.backends import CachedBackend, make_backend
from knowforge.models.backends.openai_compat import OpenAIBackend
from knowforge.models.cache import ResponseCache
from knowforge.models.items_io import read_items

items_path, url, cache_dir, mode = sys.argv[1:5]
options = EvalOptions(backend="openai", model="scripted", base_url=url, cache_dir=cache_dir, concurrency=8,
                      max_tokens=8)
if mode == "each":
    backend = make_backend(options)
else:
    class PerChunk:   # the openai backend without generate_each: CachedBackend stores per chunk
        def __init__(self, inner):
            self.inner, self.name, self.model = inner, inner.name, inner.model
            self.capabilities, self.batch_size = inner.capabilities, inner.batch_size
        def generate(self, requests):
            return self.inner.generate(requests)
    backend = CachedBackend(PerChunk(OpenAIBackend.from_options(options)), ResponseCache(cache_dir))
ask_and_score(prompt_asks(read_items(items_path), "zero-shot", options), backend, scoring=options.scoring)
print("done")
"""


class Server:
    def __init__(self, delay: float):
        self.delay = delay
        self.lock = threading.Lock()
        self.answered: list[str] = []
        self.first_request: float | None = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.first_request = server.first_request or time.perf_counter()
                time.sleep(server.delay)
                payload = json.dumps({"id": "c", "object": "text_completion", "created": 0, "model": body["model"],
                                      "choices": [{"index": 0, "text": " ok", "finish_reason": "stop",
                                                   "logprobs": None}]}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    self.wfile.flush()
                except OSError:
                    return
                with server.lock:
                    server.answered.append(body["prompt"])

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def take(self) -> list[str]:
        with self.lock:
            out, self.answered = self.answered, []
        return out


def run_client(items: Path, server: Server, cache: Path, mode: str, kill_after: float | None) -> int:
    proc = subprocess.Popen([sys.executable, "-c", CLIENT, str(items), server.url, str(cache), mode],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "OPENAI_API_KEY": "EMPTY"})
    if kill_after is not None:
        try:
            proc.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
    _, err = proc.communicate()
    if kill_after is None and proc.returncode != 0:
        raise SystemExit(f"the resumed run failed: {err[-2000:]}")
    return proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--delay-ms", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from knowforge.models.items_io import write_items
    from knowforge.models.types import BenchmarkItem

    rng = random.Random(f"{args.seed}:resume-kill")
    server = Server(args.delay_ms / 1000)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        items = tmp / "items.jsonl"
        write_items(items, [BenchmarkItem(id=f"i{i}", benchmark="kill", task="kill/gen", form="generation",
                                          question=f"Question number {i:05d}?", answers=["x"])
                            for i in range(args.items)])
        # when a run starts asking and how long it asks, to draw kill times from
        t0 = time.perf_counter()
        run_client(items, server, tmp / "calibrate", "each", None)
        full = time.perf_counter() - t0
        startup = server.first_request - t0
        server.take()
        totals = {"each": [0, 0, 0], "chunk": [0, 0, 0]}   # answered before kill, repeated, killed runs
        for trial in range(args.trials):
            kill_after = startup + rng.uniform(0.05, 0.95) * (full - startup)
            for mode in ("each", "chunk"):
                cache = tmp / f"{mode}{trial}"
                code = run_client(items, server, cache, mode, kill_after)
                first = set(server.take())
                run_client(items, server, cache, mode, None)
                second = server.take()
                repeated = sum(1 for p in second if p in first)
                totals[mode][0] += len(first)
                totals[mode][1] += repeated
                totals[mode][2] += code == -signal.SIGKILL
                print(f"trial {trial} {mode:5s}: killed after {kill_after:.2f}s (exit {code}), "
                      f"{len(first)} answered before, {repeated} asked again", flush=True)
        print(f"\nfull run {full:.2f}s ({startup:.2f}s before the first request) for {args.items} requests "
              f"(delay {args.delay_ms} ms, concurrency 8)")
        for mode, (answered, repeated, killed) in totals.items():
            print(f"{mode:5s}: {killed}/{args.trials} runs killed, {answered} answers before the kills, "
                  f"{repeated} asked again ({100 * repeated / answered if answered else 0:.2f}%)")


if __name__ == "__main__":
    main()

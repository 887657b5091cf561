"""Resume without repeats: `knowforge eval` against a local OpenAI-compatible server is killed
with SIGKILL at a random request, resumed, and the server counts the prompts it answered
twice.

The server decides when to kill. When request number K arrives it stops answering, waits until
every prompt it has answered is in the response cache (the client must store each answer as it
completes; code that stores per chunk never gets there and is killed after a timeout), then
sends SIGKILL to the client. Each answered prompt is therefore either stored or was never
answered, and a resumed run must ask none of them again.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from knowforge.models.items_io import write_items
from knowforge.models.types import BenchmarkItem

N_ITEMS = 240
STORE_WAIT_S = 15.0


class KillingServer:
    def __init__(self, cache_file: Path):
        self.cache_file = cache_file
        self.lock = threading.Lock()
        self.arrived = 0
        self.kill_at: int | None = None
        self.client_pid: int | None = None
        self.killing = threading.Event()
        self.released = threading.Event()
        self.answered: list[str] = []          # prompts whose answer was written, this run
        self.stored_in_time: bool | None = None
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        httpd.daemon_threads = True
        self.httpd = httpd
        self.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        threading.Thread(target=httpd.serve_forever, daemon=True).start()

    def start_run(self, kill_at: int | None) -> None:
        self.arrived, self.kill_at, self.answered = 0, kill_at, []
        self.killing.clear()
        self.released.clear()
        self.stored_in_time = None

    def stored_prompts(self) -> set[str]:
        if not self.cache_file.exists():
            return set()
        conn = sqlite3.connect(f"file:{self.cache_file}?mode=ro", uri=True, timeout=30)
        try:
            return {json.loads(r)["prompt"] for (r,) in conn.execute("SELECT request FROM responses")}
        finally:
            conn.close()

    def _kill(self) -> None:
        with self.lock:
            self.killing.set()
            answered = set(self.answered)
        deadline = time.monotonic() + STORE_WAIT_S
        while not answered <= self.stored_prompts() and time.monotonic() < deadline:
            time.sleep(0.02)
        self.stored_in_time = answered <= self.stored_prompts()
        os.kill(self.client_pid, signal.SIGKILL)
        self.released.set()

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.arrived += 1
                    trigger = server.kill_at is not None and server.arrived == server.kill_at
                if trigger:
                    server._kill()
                time.sleep(0.01)           # a little work, so several requests are in flight
                payload = json.dumps({"id": "c", "object": "text_completion", "created": 0, "model": body["model"],
                                      "choices": [{"index": 0, "text": f" answer to {body['prompt'][-12:]}",
                                                   "finish_reason": "stop", "logprobs": None}]}).encode()
                with server.lock:
                    if not server.killing.is_set():
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(payload)))
                        self.end_headers()
                        self.wfile.write(payload)
                        self.wfile.flush()
                        server.answered.append(body["prompt"])
                        return
                server.released.wait(STORE_WAIT_S + 5)   # never answered: the client is gone

        return Handler

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _eval(server: KillingServer, items: Path, tmp_path: Path) -> subprocess.Popen:
    args = [sys.executable, "-c", "from knowforge.cli.main import cli; cli()", "eval", "--benchmark", str(items),
            "--backend", "openai", "--model", "scripted", "--base-url", server.url, "--concurrency", "8",
            "--max-tokens", "8", "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "runs"), "--silent"]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "OPENAI_API_KEY": "EMPTY"})


def test_sigkill_at_random_points_then_resume_repeats_nothing(graph_env, store, tmp_path, capsys):
    items = [BenchmarkItem(id=f"k{i:04d}", benchmark="kill", task="kill/gen", form="generation",
                           question=f"What is item number {i:04d}?", answers=[f"item {i:04d}"]) for i in range(N_ITEMS)]
    items_path = tmp_path / "items.jsonl"
    write_items(items_path, items)
    server = KillingServer(tmp_path / "cache" / "responses.sqlite")
    rng = random.Random()
    seed = rng.randrange(2**32)
    rng = random.Random(seed)
    answered_per_run: list[list[str]] = []
    kills = []
    try:
        for attempt in range(3):
            last = attempt == 2
            remaining = N_ITEMS - len({p for run in answered_per_run for p in run})
            kill_at = None if last else rng.randint(2, max(3, remaining // 2))
            server.start_run(kill_at)
            proc = _eval(server, items_path, tmp_path)
            server.client_pid = proc.pid
            out, err = proc.communicate(timeout=300)
            answered_per_run.append(list(server.answered))
            if last:
                assert proc.returncode == 0, err
            else:
                assert proc.returncode == -signal.SIGKILL, (proc.returncode, err)
                assert server.stored_in_time, "answered requests were not in the cache when the run was killed"
                kills.append((kill_at, len(server.answered)))
    finally:
        server.close()
    seen: set[str] = set()
    repeated = 0
    for run in answered_per_run:
        repeated += sum(1 for p in run if p in seen)
        seen.update(run)
    with capsys.disabled():
        print(f"\n[kill test] seed {seed}: killed at requests {[k for k, _ in kills]} after "
              f"{[n for _, n in kills]} answers; answered per run {[len(r) for r in answered_per_run]}; "
              f"repeated prompts {repeated}")
    assert repeated == 0
    assert len(seen) == N_ITEMS
    run_id = out.strip().splitlines()[-1]
    answers = store.user_query("MATCH (:Run {id: $r})-[:GAVE]->(a:Answer) RETURN count(a) AS n, "
                               "sum(CASE WHEN a.error IS NULL THEN 0 ELSE 1 END) AS errors", {"r": run_id})
    assert answers == [{"n": N_ITEMS, "errors": 0}]

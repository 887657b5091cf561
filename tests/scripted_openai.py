"""A scripted OpenAI-compatible completions server on 127.0.0.1, for tests that need a model
to say something chosen: a subclass of ``ScriptedCompletions`` answers each prompt in
``reply``; this module does the HTTP, records every prompt in the subclass's ``calls``, and
``serving`` runs it for the length of a ``with`` block."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ScriptedCompletions(BaseHTTPRequestHandler):
    calls: list[str] = []        # every subclass declares its own list

    def reply(self, prompt: str) -> str | None:
        """The completion text for ``prompt`` (a subclass decides; None sends ``"text": null``)."""
        return ""

    def do_POST(self):  # noqa: N802 (http.server API)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body.get("prompt") or ""
        type(self).calls.append(prompt)
        self.send_completion(body["model"], self.reply(prompt))

    def send_completion(self, model: str, text: str | None) -> None:
        reply = {"id": "x", "object": "text_completion", "created": 0, "model": model,
                 "choices": [{"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}],
                 "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        return


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on a free port of 127.0.0.1; yields the ``/v1`` base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()

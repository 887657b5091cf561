"""Serving the viewer: on 127.0.0.1 only, on the asked port or a free one when it is taken.

The socket is bound here and handed to uvicorn, so the port printed is the port served (no
race between choosing a free port and binding it).
"""

from __future__ import annotations

import errno
import logging
import socket
import threading
import time
import webbrowser
from collections.abc import Callable

from knowforge.errors import ConfigError

HOST = "127.0.0.1"
DEFAULT_PORT = 8765

log = logging.getLogger(__name__)


def bind(port: int | None) -> socket.socket:
    """A listening TCP socket on 127.0.0.1: ``port`` when free, else (or when None) a free one."""
    if port is not None and not 0 <= port <= 65535:
        raise ConfigError(f"--port {port} is not a TCP port (0 to 65535)")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port or 0))
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            sock.close()
            raise ConfigError(f"cannot listen on {HOST}:{port}: {exc.strerror}") from exc
        log.info("port %s is taken; using a free one", port)
        sock.bind((HOST, 0))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def serve(app, port: int | None = DEFAULT_PORT, *, open_browser: bool = False,
          ready: Callable[[str], None] | None = None) -> None:
    """Serve ``app`` until interrupted; ``ready(url)`` is called once it answers."""
    import uvicorn

    sock = bind(port)
    url = f"http://{HOST}:{sock.getsockname()[1]}/"
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)

    def announce() -> None:
        while not server.started and not server.should_exit:
            time.sleep(0.05)
        if server.started:
            if ready:
                ready(url)
            if open_browser:
                webbrowser.open(url)

    threading.Thread(target=announce, name="knowforge-view-ready", daemon=True).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


__all__ = ["DEFAULT_PORT", "HOST", "bind", "serve"]

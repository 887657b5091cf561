"""Headless chromium for tests that draw a page: Debian's chromium (``$KNOWFORGE_CHROMIUM``
names another) driven by Playwright (its Python package carries the driver; no browser is
downloaded)."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("KNOWFORGE_CHROMIUM", "/usr/bin/chromium"))   # Debian's; another path may be given
# headless, and nothing that reaches outside 127.0.0.1 (updates, sync, QUIC probes)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def served_url(process: subprocess.Popen, timeout: float = 120) -> str:
    """The ``http://127.0.0.1:PORT`` that a ``knowforge view`` process prints on stderr once it
    serves (it picks its port itself with ``--port 0``)."""
    line, deadline = "", time.monotonic() + timeout
    while "http://" not in line:
        assert time.monotonic() < deadline and process.poll() is None, line
        line = process.stderr.readline()
    return re.search(r"http://127\.0\.0\.1:\d+", line).group(0)


@contextlib.contextmanager
def launch_chromium():
    """A headless chromium; skips the test, saying why, where it or playwright is missing (CI,
    .ci/run, installs both)."""
    if not CHROMIUM.exists():
        pytest.skip(f"no browser: {CHROMIUM} is missing (apt-get install -y chromium; .ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright is not installed (pip install -e '.[dev]')")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class Tab:
    """A browser page that records console errors, page errors and failed responses, and saves a
    screenshot of each page it is asked to (under the test's tmp folder, and under
    $KNOWFORGE_VIEW_SCREENSHOTS when set: how docs/view/ is made)."""

    def __init__(self, browser, folder: Path):
        self.page = browser.new_page(viewport={"width": 1360, "height": 900})
        self.problems: list[str] = []
        self.folder = folder
        self.page.on("console", lambda m: self.problems.append(f"console {m.type}: {m.text}")
                     if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("response", lambda r: self.problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)

    def shot(self, name: str) -> Path:
        path = self.folder / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        extra = os.environ.get("KNOWFORGE_VIEW_SCREENSHOTS")
        if extra:
            Path(extra).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(extra) / f"{name}.png"), full_page=False)
        return path

    def graph_nodes(self) -> int:
        # a function, not an expression: Playwright evals an expression in the page, which the
        # viewer's Content-Security-Policy (script-src 'self') refuses
        self.page.wait_for_function("() => window.kfGraph && window.kfGraph.nodes().length > 0", timeout=30_000)
        return self.page.evaluate("window.kfGraph.nodes().length")

"""The viewer's origin checks (issue 36, findings 1 and 6): probes a hostile page could send.

Requests go over real HTTP to uvicorn on 127.0.0.1 (http.client sets any Host it is given, as
a DNS-rebinding page's browser would); the graph is the test server's, emptied.
"""

from __future__ import annotations

import contextlib
import http.client
import re
import threading
import time
from pathlib import Path

import pytest

from knowforge.view.app import build_app
from knowforge.view.guard import (CONTENT_SECURITY_POLICY, CYTOSCAPE_STYLE, host_problem, relative_location,
                                  style_hash)
from knowforge.view.server import bind

VIEW = Path(__file__).resolve().parents[1] / "knowforge" / "view"


@contextlib.contextmanager
def serving(store, app=None):
    """The viewer (or ``app``) on a free port of 127.0.0.1 in a thread; yields the port."""
    import uvicorn

    sock = bind(0)
    app = app if app is not None else build_app(store, views=None)
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the viewer did not start"
        time.sleep(0.02)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def ask(port: int, path: str, host: str | None = None) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", path, headers={"Host": host if host is not None else f"127.0.0.1:{port}"})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def viewer_port(session_store):
    with serving(session_store) as port:
        yield port


@pytest.fixture
def empty_viewer(store, viewer_port):
    return viewer_port


# --- Host ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}"])
def test_loopback_names_with_the_bound_port_are_answered(empty_viewer, host):
    status, headers, _ = ask(empty_viewer, "/static/view.css", host.format(port=empty_viewer))
    assert status == 200 and headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("host", [
    "evil.example.com", "evil.example.com:{port}",       # DNS rebinding: the attacker's name
    "127.0.0.1.evil.example.com:{port}", "localhost.evil.example.com:{port}",
    "127.0.0.1:{other}", "localhost", "[::1]:{other}",   # another port (or none: 80)
    "127.0.0.2:{port}", "0.0.0.0:{port}", "::1", "127.0.0.1:{port}x", "",
])
def test_any_other_host_gets_400_and_no_page(empty_viewer, host):
    port = empty_viewer
    for path in ("/", "/static/view.css", "/runs/x/samples"):
        status, headers, body = ask(port, path, host.format(port=port, other=port + 1))
        assert status == 400, (host, path, status)
        assert "400 Bad request" in body and "knowforge view" not in body
        assert headers["x-content-type-options"] == "nosniff"


def test_host_problem_names_what_is_wrong():
    assert host_problem("127.0.0.1:8765", 8765) is None
    assert host_problem("localhost", 80) is None
    assert "no Host" in host_problem(None, 8765)
    assert "not this viewer's address" in host_problem("evil.example.com:8765", 8765)
    assert "port 8766" in host_problem("localhost:8766", 8765)
    assert "no valid port" in host_problem("localhost:80a", 8765)


# --- redirects and headers ----------------------------------------------------------------------------
def test_the_slash_redirect_is_relative(empty_viewer):
    status, headers, _ = ask(empty_viewer, "/views/?a=1")
    assert status in (307, 308) and headers["location"] == "/views?a=1"
    assert relative_location("http://evil.example.com/runs/x?page=2#t") == "/runs/x?page=2#t"
    assert relative_location("/views") == "/views"


def test_every_response_carries_the_security_headers(empty_viewer):
    for path in ("/", "/views", "/static/tables.js", "/no/such/page", "/runs/none", "/?page=x"):
        status, headers, _ = ask(empty_viewer, path)
        assert status in (200, 400, 404), path
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
    policy = dict(part.split(" ", 1) for part in CONTENT_SECURITY_POLICY.split("; "))
    assert policy["script-src"] == "'self'" and policy["frame-ancestors"] == "'none'"
    assert policy["default-src"] == "'none'"


def test_a_server_error_page_carries_the_security_headers_too(session_store):
    """A page that fails with an unexpected exception is answered by Starlette's outermost
    layer (ServerErrorMiddleware), outside any middleware in the app's list: the guard must
    wrap that layer too, or the 500 page goes out with no CSP and can be framed."""
    from starlette.routing import Route

    def boom(request):
        raise RuntimeError("a page's own bug")

    app = build_app(session_store, views=None)
    app.router.routes.insert(0, Route("/boom", boom))
    with serving(session_store, app) as port:
        status, headers, body = ask(port, "/boom")
        assert status == 500 and "RuntimeError" in body and "Something went wrong" in body, body[:500]
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
        status, headers, _ = ask(port, "/static/no-such-file.js")
        assert status == 404 and headers["x-frame-options"] == "DENY"
        assert ask(port, "/boom", "evil.example.com")[0] == 400


def test_pages_hold_no_inline_script_or_style():
    """The policy allows the viewer's own files only: no template may carry an inline script
    (JSON data blocks are not run), a style attribute or an event handler."""
    for template in sorted((VIEW / "templates").glob("*.html")):
        text = template.read_text()
        for script in re.findall(r"<script([^>]*)>(.*?)</script>", text, flags=re.S):
            attributes, body = script
            assert "src=" in attributes or 'type="application/json"' in attributes, template.name
            assert "src=" not in attributes or not body.strip(), template.name
        assert not re.search(r"\sstyle=|<style|\son[a-z]+=|javascript:", text), template.name
        assert not re.search(r"(src|href)=\"(https?:)?//", text), f"{template.name} loads from another site"


def test_the_one_style_cytoscape_injects_is_allowed_by_its_hash():
    vendored = (VIEW / "static" / "vendor" / "cytoscape.min.js").read_text()
    # the vendored copy builds the text as "."+s+" { position: relative; }" with s the class name
    assert 's="__________cytoscape_container"' in vendored
    assert '"."+s+" { position: relative; }"' in vendored
    assert CYTOSCAPE_STYLE == ".__________cytoscape_container { position: relative; }"
    assert style_hash(CYTOSCAPE_STYLE) in CONTENT_SECURITY_POLICY


# --- page numbers ---------------------------------------------------------------------------------
@pytest.mark.parametrize("page", ["99999999999999999999", "9" * 400, "1000000001"])
def test_a_huge_page_number_is_404_not_500(empty_viewer, page):
    for path in ("/", "/runs/r/samples", "/entity?id=x", "/compare?run=a&run=b"):
        status, _, body = ask(empty_viewer, f"{path}{'&' if '?' in path else '?'}page={page}")
        assert status == 404, (path, status)
        assert "past the end" in body


def test_a_page_past_the_end_is_404_and_the_first_page_is_not(empty_viewer):
    assert ask(empty_viewer, "/")[0] == 200
    status, _, body = ask(empty_viewer, "/?page=2")
    assert status == 404 and "page 2 is past the end" in body
    assert ask(empty_viewer, "/?page=0")[0] == 400
    assert ask(empty_viewer, "/?page=" + "9" * 5000)[0] == 400    # past Python's int digits limit

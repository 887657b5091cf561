"""What keeps other web sites out of the viewer: the Host check and the security headers.

The viewer listens on 127.0.0.1 only, but a page of any site can still reach it through the
visitor's browser: a name the attacker controls can be made to resolve to 127.0.0.1 (DNS
rebinding), and the browser then treats the viewer's pages as that site's own and lets its
scripts read them. Such a request carries the attacker's name in ``Host``, so only the names of
the loopback address itself, with the port the viewer is bound to, are answered; the rest get
400. The headers keep the pages out of other sites' frames and make the browser run only the
viewer's own files (no inline script, no remote code), and redirects carry no host at all.
"""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import urlsplit, urlunsplit

from starlette.datastructures import MutableHeaders
from starlette.responses import PlainTextResponse

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})

# cytoscape.js puts this one <style> element in the page when it draws (static/vendor): the
# policy allows exactly that text by its hash, and tests/test_view_security.py checks the
# vendored copy still carries it.
CYTOSCAPE_STYLE = ".__________cytoscape_container { position: relative; }"


def style_hash(text: str) -> str:
    """The CSP source expression that allows an inline ``<style>`` holding exactly ``text``."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'none'",
    "script-src 'self'",
    f"style-src 'self' {style_hash(CYTOSCAPE_STYLE)}",
    "img-src 'self' data:",              # plots, and the empty data: favicon of base.html
    "connect-src 'self'",                # numbers.js fetches a large run's numbers
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
))

SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def host_problem(host: str | None, port: int | None) -> str | None:
    """Why a request with this ``Host`` header is refused by a viewer bound to ``port``, or None.

    Accepted: ``127.0.0.1``, ``localhost`` or ``[::1]`` (any case), with the bound port or, when
    the port is 80, none. ``port`` None (a server that does not say) checks the name alone.
    """
    if not host:
        return "the request has no Host header"
    name, sep, given = host.rpartition(":") if not host.endswith("]") else (host, "", "")
    if not sep:
        name, given = host, ""
    if given and not given.isdigit():
        return f"Host {host!r} has no valid port"
    name = name.lower()
    if name not in LOOPBACK_NAMES:
        return (f"Host {host!r} is not this viewer's address: it answers only 127.0.0.1, localhost "
                "or [::1] (a page of another site cannot read it)")
    asked = int(given) if given else 80
    if port is not None and asked != port:
        return f"Host {host!r} names port {asked}, but the viewer is on port {port}"
    return None


def relative_location(location: str) -> str:
    """A redirect target without scheme and host (the path, query and fragment it names)."""
    parts = urlsplit(location)
    if not parts.scheme and not parts.netloc:
        return location
    return urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))


class OriginGuard:
    """ASGI middleware: refuse foreign ``Host`` values (400), add the security headers to every
    response, and make redirects relative."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"), None)
        server = scope.get("server")
        problem = host_problem(host, server[1] if server and server[1] is not None else None)
        if problem:
            await PlainTextResponse(f"400 Bad request: {problem}\n", status_code=400,
                                    headers=SECURITY_HEADERS)(scope, receive, send)
            return

        async def guarded(message):
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in SECURITY_HEADERS.items():
                    headers[key] = value
                if "location" in headers:
                    headers["location"] = relative_location(headers["location"])
            await send(message)

        await self.app(scope, receive, guarded)


__all__ = ["CONTENT_SECURITY_POLICY", "CYTOSCAPE_STYLE", "LOOPBACK_NAMES", "OriginGuard", "SECURITY_HEADERS",
           "host_problem", "relative_location", "style_hash"]

"""URLs as they may be shown or stored: without the credentials a user put in them.

A server URL such as ``http://user:secret@host/v1`` or ``bolt://neo4j:secret@host:7687``
carries a password in its userinfo. Everything knowforge writes down (the graph's ``Run``
nodes, reports, logs, error messages) goes through ``redact_url`` first, so the secret stays
in the one place it was given.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

REDACTED = "***"


def redact_url(url: str | None) -> str | None:
    """``url`` with the userinfo's password (or a lone token) replaced by ``***``.

    ``http://user:pass@host/v1`` → ``http://user:***@host/v1``; ``http://token@host`` →
    ``http://***@host`` (a bare userinfo is as often a token as a user name). A URL without
    userinfo, and ``None``, come back unchanged; so does text that is no URL at all.
    """
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return _redact_unparsed(url)
    if "@" not in parts.netloc:
        return url
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, colon, _ = userinfo.partition(":")
    shown = f"{user}:{REDACTED}" if colon else REDACTED
    return urlunsplit(parts._replace(netloc=f"{shown}@{hostport}"))


def _redact_unparsed(text: str) -> str:
    """A URL ``urlsplit`` refuses (an invalid IPv6 host, say): everything between ``://``
    and the last ``@`` of the authority goes."""
    scheme, sep, rest = text.partition("://")
    if not sep:
        return text
    authority, slash, path = rest.partition("/")
    if "@" not in authority:
        return text
    return f"{scheme}://{REDACTED}@{authority.rpartition('@')[2]}{slash}{path}"


def url_has_credentials(url: str | None) -> bool:
    """Whether ``url`` carries userinfo (``user[:password]@``) in its authority."""
    return bool(url) and redact_url(url) != url

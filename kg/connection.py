"""Connect to the graph: the server named by NEO4J_* variables, or the managed one.

Zero configuration means: no ``NEO4J_URI`` set, so knowforge starts (or reuses) its own
Neo4j and reads the password it generated. With ``NEO4J_URI`` set, that server is used and
nothing is started.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from knowforge.errors import ConfigError, GraphUnavailable
from knowforge.kg.driver import neo4j
from knowforge.kg.neo4j_server import ManagedNeo4j
from knowforge.kg.store import DEFAULT_BATCH_SIZE, Store

DEFAULT_RETRY_SECONDS = 10.0


@dataclass(frozen=True)
class GraphSettings:
    uri: str
    user: str
    password: str
    database: str = "neo4j"

    def __repr__(self) -> str:  # never show the password in logs or tracebacks
        return f"GraphSettings(uri={self.uri!r}, user={self.user!r}, database={self.database!r})"


def split_userinfo(uri: str) -> tuple[str, str | None, str | None]:
    """``uri`` without its userinfo, and the user and password that were in it (or None).

    ``bolt://neo4j:secret@host:7687`` → (``bolt://host:7687``, ``neo4j``, ``secret``). The
    driver refuses userinfo (and would echo the whole URI, password included, in its error),
    so the credentials are taken out before it sees the URI."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return uri, None, None
    if "@" not in parts.netloc:
        return uri, None, None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, colon, password = userinfo.partition(":")
    return (urlunsplit(parts._replace(netloc=hostport)), unquote(user) or None,
            unquote(password) if colon else None)


def settings_from_env() -> GraphSettings | None:
    """The server named by ``NEO4J_URI`` (+ ``NEO4J_USER``, ``NEO4J_PASSWORD``,
    ``NEO4J_DATABASE``), or None. Credentials in the URI's userinfo
    (``bolt://user:password@host``) are used as the user and password."""
    raw = os.environ.get("NEO4J_URI")
    if not raw:
        return None
    uri, user, password = split_userinfo(raw)
    return GraphSettings(uri=uri, user=user or os.environ.get("NEO4J_USER", "neo4j"),
                         password=password if password is not None else os.environ.get("NEO4J_PASSWORD", ""),
                         database=os.environ.get("NEO4J_DATABASE", "neo4j"))


def retry_seconds() -> float:
    """How long the driver retries a failing transaction (connection refused, a deadlock, a
    leader switch) before the error reaches the command: ``KNOWFORGE_NEO4J_RETRY_SECONDS``, or
    ``DEFAULT_RETRY_SECONDS``. The driver's own 30 s, paid once per statement, made a command
    whose server had died wait minutes before it said so."""
    raw = os.environ.get("KNOWFORGE_NEO4J_RETRY_SECONDS", "").strip()
    if not raw:
        return DEFAULT_RETRY_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value < 0:
        raise ConfigError(f"KNOWFORGE_NEO4J_RETRY_SECONDS must be a number of seconds >= 0, not {raw!r}")
    return value


def driver_options() -> dict:
    """Keyword arguments of every driver knowforge opens."""
    return {"max_transaction_retry_time": retry_seconds()}


def managed_settings(home: Path | str | None = None, *, autostart: bool = True) -> GraphSettings:
    server = ManagedNeo4j(home)
    status = server.status()
    if status.running and status.uri:
        uri = status.uri
    elif autostart:
        if not server.is_installed():
            server.install()
        uri = server.start().uri
    else:
        raise GraphUnavailable("the managed Neo4j is not running; start it with `knowforge neo4j start` "
                               "or set NEO4J_URI")
    return GraphSettings(uri=uri, user="neo4j", password=server.password(),
                         database=os.environ.get("NEO4J_DATABASE", "neo4j"))


def hide_query_notifications(hidden: bool = True) -> None:
    """Log the server's query notifications (e.g. "property key does not exist" before a first
    batch is written) only at ERROR: they are for developers, not for a command's output.
    (The CLI does the same without importing this module, and shows them with -vv.)"""
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR if hidden else logging.WARNING)


def open_store(settings: GraphSettings | None = None, *, home: Path | str | None = None,
               autostart: bool = True, batch_size: int = DEFAULT_BATCH_SIZE) -> Store:
    """A connected, verified store. Raises GraphUnavailable with the fix on failure."""
    settings = settings or settings_from_env() or managed_settings(home, autostart=autostart)
    uri, user, password = split_userinfo(settings.uri)
    if user is not None or password is not None:
        # A URI given in code rather than NEO4J_URI: the same rule, credentials out of the URI.
        settings = GraphSettings(uri=uri, user=user or settings.user,
                                 password=password if password is not None else settings.password,
                                 database=settings.database)
    try:
        driver = neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password),
                                            **driver_options())
    except (ValueError, neo4j.exceptions.ConfigurationError) as exc:
        reason = str(exc).replace(settings.password, "***") if settings.password else str(exc)
        # "from None": the chained driver error could quote what it was given
        raise GraphUnavailable(f"bad NEO4J_URI {settings.uri!r}: {reason}. Expected e.g. "
                               "bolt://127.0.0.1:7687 or neo4j+s://HOST") from None
    store = Store(driver, settings.database, batch_size=batch_size, uri=settings.uri)
    try:
        store.ping()
    except Exception:
        driver.close()
        raise
    return store

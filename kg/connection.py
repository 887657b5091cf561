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

import neo4j

from knowforge.errors import GraphUnavailable
from knowforge.kg.neo4j_server import ManagedNeo4j
from knowforge.kg.store import DEFAULT_BATCH_SIZE, Store


@dataclass(frozen=True)
class GraphSettings:
    uri: str
    user: str
    password: str
    database: str = "neo4j"

    def __repr__(self) -> str:  # never show the password in logs or tracebacks
        return f"GraphSettings(uri={self.uri!r}, user={self.user!r}, database={self.database!r})"


def settings_from_env() -> GraphSettings | None:
    uri = os.environ.get("NEO4J_URI")
    if not uri:
        return None
    return GraphSettings(uri=uri, user=os.environ.get("NEO4J_USER", "neo4j"),
                         password=os.environ.get("NEO4J_PASSWORD", ""),
                         database=os.environ.get("NEO4J_DATABASE", "neo4j"))


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
    try:
        driver = neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password))
    except ValueError as exc:
        raise GraphUnavailable(f"bad NEO4J_URI {settings.uri!r}: {exc}") from exc
    store = Store(driver, settings.database, batch_size=batch_size, uri=settings.uri)
    try:
        store.ping()
    except Exception:
        driver.close()
        raise
    return store

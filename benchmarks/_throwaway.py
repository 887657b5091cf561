"""A throw-away managed Neo4j for the benchmark scripts (``--start-neo4j``, ``--graph private``).

Not a benchmark itself (the leading underscore keeps it out of ``tests/test_benchmark_scripts.py``'s
list of scripts): the scripts import it as ``from _throwaway import ...``, which works when they
run as ``python benchmarks/x.py`` (the script's folder is on ``sys.path``).

The server lives in a temporary home and listens on a free port, never 7687: another server
starting on this machine may take 7687 between the check that it is free and this one binding
it. Its heap and page cache come from ``KNOWFORGE_NEO4J_HEAP``/``KNOWFORGE_NEO4J_PAGECACHE``
when set, else from the caller's defaults (small: the machine is shared).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Throwaway:
    settings: object        # knowforge.kg.connection.GraphSettings (imported lazily, as the scripts do)
    pid: int | None         # the server's process, for the scripts that count its CPU


@contextlib.contextmanager
def throwaway_neo4j(heap: str = "512m", pagecache: str = "128m", stop_timeout: float = 30) -> Iterator[Throwaway]:
    """A managed Neo4j in a temporary home with the schema applied; stopped and removed on exit."""
    from knowforge.kg.connection import GraphSettings, open_store
    from knowforge.kg.neo4j_server import ManagedNeo4j, free_port

    os.environ.setdefault("KNOWFORGE_NEO4J_HEAP", heap)
    os.environ.setdefault("KNOWFORGE_NEO4J_PAGECACHE", pagecache)
    with tempfile.TemporaryDirectory(prefix="kf-bench-neo4j-") as home:
        server = ManagedNeo4j(home=Path(home))
        if not server.is_installed():
            server.install()
        result = server.start(port=free_port(), timeout=240)
        try:
            settings = GraphSettings(uri=result.uri, user="neo4j", password=server.password())
            with open_store(settings) as store:
                store.apply_schema()
            yield Throwaway(settings, server.status().pid)
        finally:
            server.stop(timeout=stop_timeout)


@contextlib.contextmanager
def throwaway_store(heap: str = "512m", pagecache: str = "128m", stop_timeout: float = 30):
    """``throwaway_neo4j``'s server with an open store on it; yields (store, server pid)."""
    from knowforge.kg.connection import open_store

    with throwaway_neo4j(heap, pagecache, stop_timeout) as server, open_store(server.settings) as store:
        yield store, server.pid

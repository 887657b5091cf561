"""Bulk-load a folder written by the Spark loader with ``neo4j-admin database import full``.

The managed server is stopped, the import tool (``org.neo4j.cli.AdminTool`` in the jars we
install) builds the database from the CSV files, the server starts again on the same port,
``cypher/schema.cypher`` is applied, the command waits until the server has populated every
index, and the counts are checked against the manifest. ``ImportResult.seconds`` holds the
time of each step. The result is the graph the UNWIND writer gives for the same records
(nothing is written after the import: no column needs a value the tool cannot store, see
``layout``); later loads go through the UNWIND writer as usual.

The import replaces the whole database, so a database that holds anything is refused unless
``overwrite``. A server that knowforge does not manage (``NEO4J_URI``) is never stopped:
``external_instructions`` says how to use the same files there.
"""

from __future__ import annotations

import logging
import os
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from knowforge.errors import ConfigError, KnowforgeError
from knowforge.kg.bulk import layout
from knowforge.kg.connection import GraphSettings, open_store
from knowforge.kg.neo4j_server import ManagedNeo4j, import_heap, port_is_free

log = logging.getLogger(__name__)

Step = Callable[[str], None]
"""Called with a short description as each step starts (and as the indexes populate)."""

INDEX_TIMEOUT_S = 6 * 3600.0
"""How long the command waits for the imported nodes' indexes: long, because they fill at
some 10k nodes/s per index on a small machine and a full Wikidata graph has a billion facts."""


@dataclass
class ImportResult:
    folder: Path
    uri: str
    replaced_nodes: int
    counts: dict[str, int]
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def total_seconds(self) -> float:
        return sum(self.seconds.values())


def import_arguments(folder: Path, data: dict, database: str = "neo4j") -> list[str]:
    """``database import full`` arguments for the manifest's files."""
    root = Path(folder).resolve()
    args = ["database", "import", "full", database, "--overwrite-destination=true",
            f"--array-delimiter={data['array_delimiter']}",
            f"--multiline-fields={'true' if data['multiline_fields'] else 'false'}",
            f"--report-file={root / 'import.report'}"]
    args += [group.argument(root) for group in layout.manifest_groups(data)]
    return args


def external_instructions(folder: Path, uri: str) -> str:
    """How to load the folder into a server knowforge does not manage."""
    data = layout.read_manifest(folder)
    args = import_arguments(folder, data, database="<database>")
    command = "neo4j-admin " + " ".join(shlex.quote(a) for a in args)
    return (
        f"NEO4J_URI is set ({uri}): knowforge does not stop or replace a server it does not manage.\n"
        "To load these files there, on the database host (with the files copied there, same paths):\n"
        "  1. stop the database (or pick a new database name), then run\n"
        f"     {command}\n"
        "  2. start it (CREATE DATABASE <database> if it is new), then\n"
        "     knowforge init\n"
        "On Aura or any server you cannot stop, load the dump through the UNWIND writer instead\n"
        "(knowforge load wikidata DUMP), or read the CSV files with LOAD CSV as docs/scale.md shows.")


def database_size(server: ManagedNeo4j) -> tuple[int, int]:
    """(nodes, relationships) in the managed database; starts the server when it is down."""
    with _store(server) as store:
        row = store.read("bulk/count_graph")[0]
        return row["nodes"], row["relationships"]


def import_bulk(folder: str | Path, *, home: str | Path | None = None, overwrite: bool = False,
                warn: Callable[[str], None] | None = None, step: Step | None = None,
                heap: str | None = None, index_timeout_s: float = INDEX_TIMEOUT_S) -> ImportResult:
    """Replace the managed server's database with the bulk folder's graph (see module doc)."""
    folder = Path(folder)
    data = layout.read_manifest(folder)
    heap = import_heap(heap)  # a bad size is refused before the server is stopped
    if os.environ.get("NEO4J_URI"):
        raise ConfigError(external_instructions(folder, os.environ["NEO4J_URI"]))
    server = ManagedNeo4j(home)
    step = step or (lambda _text: None)
    seconds: dict[str, float] = {}
    t0 = time.monotonic()
    step("checking the database")
    if not server.is_installed():
        server.install()
    nodes, rels = database_size(server)
    if nodes or rels:
        if not overwrite:
            raise ConfigError(
                f"the database at {server.home} holds {nodes:,} nodes and {rels:,} relationships; "
                "an import replaces all of it. Pass --overwrite to replace it, or add to it with "
                "`knowforge load` instead")
        if warn:
            warn(f"--overwrite: the {nodes:,} nodes and {rels:,} relationships in the database at "
                 f"{server.home} are being replaced by {folder}")
    port = server.status().bolt_port or server.bolt_port()
    seconds["check"] = time.monotonic() - t0

    t0 = time.monotonic()
    step("stopping Neo4j")
    server.stop()
    seconds["stop"] = time.monotonic() - t0
    t0 = time.monotonic()
    step("neo4j-admin database import")
    log_path = folder / "import.log"
    try:
        server.admin(import_arguments(folder, data), log_path=log_path, heap=heap)
    finally:
        seconds["import"] = time.monotonic() - t0
        t0 = time.monotonic()
        step("starting Neo4j")
        restart_port = port
        if port is not None and not port_is_free(port):
            # Another process took the port while the server was down. The imported database is
            # intact, so starting elsewhere beats failing after the import (the URI changes).
            (warn or log.warning)(
                f"port {port} was taken while Neo4j was stopped for the import; it restarts on a "
                "free port instead, so its URI changes (`knowforge neo4j status` shows it)")
            restart_port = None
        server.start(port=restart_port)
        seconds["restart"] = time.monotonic() - t0

    t0 = time.monotonic()
    with _store(server) as store:
        # The server fills the indexes of the imported nodes in the background; the command
        # waits so that it returns a graph whose lookups and constraints are in place.
        step("creating the schema")
        store.apply_schema(wait=False)
        seconds["schema"] = time.monotonic() - t0
        t0 = time.monotonic()
        step("populating indexes")
        store.await_indexes(index_timeout_s, progress=lambda states, waited: step(
            "populating indexes: " + _index_progress(states, waited)))
        seconds["indexes"] = time.monotonic() - t0
        counts = store.read("bulk/count_imported")[0]
        uri = store.uri
    expected = data["counts"]
    wanted = {"entities": expected["entities"] + expected["stubs"], "facts": expected["facts"],
              "relations": expected["relations"], "has_fact": expected["has_fact"],
              "object": expected["object"]}
    if counts != wanted:
        raise KnowforgeError(f"the imported graph does not match {folder / layout.MANIFEST}: "
                             f"expected {wanted}, found {counts}; see {log_path}")
    return ImportResult(folder=folder, uri=uri, replaced_nodes=nodes, counts=counts, seconds=seconds)


def _index_progress(states: list[dict], waited: float) -> str:
    pending = [r for r in states if r["state"] != "ONLINE"]
    if not pending:
        return f"all {len(states)} online after {waited:.0f}s"
    slowest = min(pending, key=lambda r: r["percent"])
    return (f"{len(states) - len(pending)}/{len(states)} online, {slowest['name']} "
            f"{slowest['percent']:.0f}% ({waited:.0f}s)")


class _store:
    """A store on the managed server (started when down)."""

    def __init__(self, server: ManagedNeo4j):
        self.server = server

    def __enter__(self):
        result = self.server.start()
        settings = GraphSettings(uri=result.uri, user="neo4j", password=self.server.password(),
                                 database="neo4j")
        self.store = open_store(settings)
        return self.store

    def __exit__(self, *exc):
        self.store.close()

"""The store: the one place that owns the Neo4j driver.

``read(name, **params)`` runs a named statement with READ routing; ``write(name, rows)`` sends
batches that the statement reads as ``UNWIND $batch.rows``. Both always pass the database. ``execute_query`` retries transient
errors itself; batches are idempotent (MERGE on stable ids) so a retried batch is harmless.
"""

from __future__ import annotations

import logging
import os
import queue
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice

from knowforge.kg.driver import neo4j  # first: the driver without pandas (kg/driver.py)
from neo4j import Query, RoutingControl  # noqa: E402

from knowforge.errors import ConfigError, GraphUnavailable, KnowforgeError, QueryError, QueryRefused
from knowforge.kg.cypher import load_cypher, split_statements, statement_code
from knowforge.kg.query_guard import commits_in_batches, refusal

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = int(os.environ.get("KNOWFORGE_BATCH_SIZE", "10000"))
# ids per read of Store.read_collected: one record of 10,000 rows is a few MB on the server
READ_CHUNK = 10_000

Progress = Callable[[int], None]
"""A progress callback: called with the number of items just finished."""

IndexProgress = Callable[[list[dict], float], None]
"""Called while indexes populate with ``Store.index_states()`` and the seconds waited."""


EXPLAIN_PREFIX = "EXPLAIN "
PARAMETER_MISSING_STATUS = "01N60"   # GQL status of the planner's "parameter missing" notification


@dataclass(frozen=True)
class UserQueryResult:
    """The rows of an ad-hoc query and the server's warnings about it (one line each)."""

    rows: list[dict]
    warnings: list[str] = field(default_factory=list)


_POSITION = re.compile(r"\(line (\d+), column (\d+) \(offset: (\d+)\)\)")


def server_message(exc: neo4j.exceptions.Neo4jError, *, shift: int = 0) -> str:
    """The first line of the server's message about a statement. ``shift`` characters had been
    put in front of the user's first line (``EXPLAIN ``): positions are given back in the
    user's own text."""
    text = (exc.message or str(exc) or "").strip()
    first = text.splitlines()[0] if text else (exc.code or type(exc).__name__)

    def place(match: re.Match) -> str:
        line, column, offset = (int(g) for g in match.groups())
        if line == 1:
            column = max(1, column - shift)
        return f"(line {line}, column {column} (offset: {max(0, offset - shift)}))"

    return _POSITION.sub(place, first) if shift else first


def planner_warnings(summary, *, shift: int = 0) -> list[str]:
    """The warnings of an EXPLAIN summary as one line each (an unknown label or property, a
    deprecation), placed in the user's text. A missing parameter is not one: running the
    query says which."""
    lines = []
    for status in getattr(summary, "gql_status_objects", None) or ():
        if not status.is_notification or status.gql_status == PARAMETER_MISSING_STATUS:
            continue
        if str(getattr(status.severity, "value", status.severity)) != "WARNING":
            continue
        text = status.status_description.removeprefix("warn: ")
        position = status.position
        if position is not None:
            column = position.column - shift if position.line == 1 else position.column
            text += f" (line {position.line}, column {max(1, column)})"
        lines.append(text)
    return lines


@dataclass
class WriteSummary:
    """Counters summed over all batches of one write."""

    rows: int = 0
    batches: int = 0
    counters: dict[str, int] = field(default_factory=dict)

    def add(self, counters) -> None:
        for key in ("nodes_created", "nodes_deleted", "relationships_created",
                    "relationships_deleted", "properties_set", "labels_added", "labels_removed"):
            self.counters[key] = self.counters.get(key, 0) + getattr(counters, key, 0)

    def add_batch(self, counters, rows: int) -> None:
        self.add(counters)
        self.rows += rows
        self.batches += 1

    def __getitem__(self, key: str) -> int:
        return self.counters.get(key, 0)


def chunked(rows: Iterable, size: int) -> Iterator[list]:
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk


# What a write's rows can be refused with, rather than the connection or the statement failing:
# the server's type, argument and arithmetic errors and constraint failures, and the driver's
# errors packing a value (an int beyond 64 bits, a lone surrogate, an object it cannot send).
_ROW_ERROR_CODES = ("Neo.ClientError.Statement.TypeError", "Neo.ClientError.Statement.ArgumentError",
                    "Neo.ClientError.Statement.ArithmeticError", "Neo.ClientError.Statement.SemanticError",
                    "Neo.ClientError.Schema.ConstraintValidationFailed")


def refused_rows(exc: BaseException) -> bool:
    """Whether a failed write failed on what its rows hold (some row's value or key), so that
    writing the rows apart would find the one at fault. A lost connection, a refused login, a
    read-only database or an unknown statement is no row's fault."""
    if isinstance(exc, neo4j.exceptions.Neo4jError):
        return isinstance(exc, neo4j.exceptions.ClientError) and (exc.code or "").startswith(_ROW_ERROR_CODES)
    if isinstance(exc, neo4j.exceptions.DriverError):
        return False
    if isinstance(exc, KnowforgeError):
        from knowforge.errors import UnsafeIdentifier

        return isinstance(exc, UnsafeIdentifier)  # a label off the allow-list, found building a row
    return isinstance(exc, (TypeError, ValueError, OverflowError))


_DONE = object()


def prefetched(rows: Iterable, size: int) -> Iterator:
    """The items of ``rows``, produced ``size`` at a time by a background thread.

    A writer sends a batch and then waits for the server, with the GIL released; the thread
    builds the next batch's rows meanwhile. An exception in ``rows`` is raised here; if the
    consumer stops early the thread stops at its next batch.
    """
    ready: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def offer(item: object) -> bool:
        """Queue ``item`` unless the consumer stops first (then False)."""
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for chunk in chunked(rows, size):
                if not offer(chunk):
                    return
            item: object = _DONE
        except BaseException as exc:  # handed to the consumer, raised there
            item = exc
        offer(item)

    thread = threading.Thread(target=produce, name="prefetch-rows", daemon=True)
    thread.start()
    try:
        while True:
            chunk = ready.get()
            if chunk is _DONE:
                return
            if isinstance(chunk, BaseException):
                raise chunk
            yield from chunk
    finally:
        stop.set()
        thread.join()


def in_parallel(fn: Callable, items: Iterable, workers: int) -> Iterator[tuple]:
    """``(item, fn(item))`` in the order of ``items``, with up to ``workers`` calls running at
    once in threads (``items`` is read only as calls finish: a generator is not run ahead)."""
    if workers <= 1:
        for item in items:
            yield item, fn(item)
        return
    pending: deque = deque()
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="knowforge-write") as pool:
        try:
            for item in items:
                pending.append((item, pool.submit(fn, item)))
                if len(pending) >= workers:
                    first, future = pending.popleft()
                    yield first, future.result()
            while pending:
                first, future = pending.popleft()
                yield first, future.result()
        finally:
            for _, future in pending:  # an error or an early stop: nothing more is started
                future.cancel()


def _value_rows(result) -> list[dict]:
    keys = result.keys()
    return [dict(zip(keys, record)) for record in result]


def _collected_rows(result) -> list[list]:
    return result.single(strict=True)["rows"]


_ROWS = re.compile(r"\$rows\b")


@lru_cache(maxsize=None)
def _reads_rows(text: str) -> bool:
    """Does a statement's code (not its comments or strings) read ``$rows``?"""
    return bool(_ROWS.search(statement_code(text)))


def _batch(rows: list[dict], ids: list | None, params: dict) -> dict:
    """A batch statement's parameters: its rows (and ids) in one ``$batch`` map (``Store.write``)."""
    return {"batch": {"rows": rows} if ids is None else {"rows": rows, "ids": ids}, **params}


class Store:
    """Named, parameterised Cypher against one database."""

    def __init__(self, driver: neo4j.Driver, database: str = "neo4j", *,
                 batch_size: int = DEFAULT_BATCH_SIZE, uri: str | None = None):
        self.driver = driver
        self.database = database
        self.batch_size = batch_size
        self.uri = uri

    # -- lifecycle --------------------------------------------------------------------------
    def close(self) -> None:
        self.driver.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- named statements -------------------------------------------------------------------
    def _query(self, name: str) -> Query:
        return Query(load_cypher(name), metadata={"app": "knowforge", "statement": name})

    def read(self, name: str, **params) -> list[dict]:
        """Run the named read statement and return its records as dicts."""
        return self.driver.execute_query(
            self._query(name), params, routing_=RoutingControl.READ, database_=self.database,
            result_transformer_=neo4j.Result.data)

    def read_values(self, name: str, **params) -> list[dict]:
        """``read`` for a statement that returns only values (strings, numbers, lists and maps
        of them; no nodes, relationships or paths): each record as a dict of what the driver
        decoded, without ``Record.data()``'s export pass over every value (the source-graph
        hash's pages are one record of up to 20,000 rows each)."""
        return self.driver.execute_query(
            self._query(name), params, routing_=RoutingControl.READ, database_=self.database,
            result_transformer_=_value_rows)

    def read_collected(self, name: str, ids: Sequence, *, chunk: int = READ_CHUNK, **params) -> list[list]:
        """The rows of a read statement that takes ``$ids`` and returns one record whose ``rows``
        is a list of value lists (``collect([...])``; values only: strings, numbers, lists and
        maps of them), for ``ids`` sent in chunks of ``chunk``. One record per chunk rather than
        one per row: the driver's handling of each record (its message, its Record, the export
        of its values) was most of this process's cost of the eval's question reads; collected,
        they cost 1.6-3.2x (question_benchmarks) and 15-18x (question_items) less of it, and
        the server 1.2-2x less (benchmarks/question_reads.py, 4,000 and 20,000 questions)."""
        query = self._query(name)
        out: list[list] = []
        for part in chunked(ids, chunk):
            out.extend(self.driver.execute_query(query, {"ids": part, **params}, routing_=RoutingControl.READ,
                                                 database_=self.database, result_transformer_=_collected_rows))
        return out

    def stream(self, name: str, **params) -> Iterator[dict]:
        """Stream the records of a named read statement without holding them all in memory."""
        with self.driver.session(database=self.database,
                                 default_access_mode=neo4j.READ_ACCESS) as session:
            result = session.run(self._query(name), params)
            for record in result:
                yield record.data()

    def run(self, name: str, **params) -> WriteSummary:
        """Run one named write statement once (no batching)."""
        summary = WriteSummary(rows=0, batches=1)
        result = self._execute_write(self._query(name), params)
        summary.add(result.summary.counters)
        return summary

    def run_read_write(self, name: str, **params) -> list[dict]:
        """Run a named write statement that also returns records."""
        return self.write_returning(name, **params)[0]

    def write_returning(self, name: str, **params) -> tuple[list[dict], WriteSummary]:
        """Run a named write statement once; its records as dicts and its counters."""
        result = self._execute_write(self._query(name), params)
        summary = WriteSummary(rows=0, batches=1)
        summary.add(result.summary.counters)
        return [record.data() for record in result.records], summary

    def write(self, name: str, rows: Iterable[dict], *, batch_size: int | None = None,
              progress: Progress | None = None, **params) -> WriteSummary:
        """Send ``rows`` to a named ``UNWIND $batch.rows`` statement in batches.

        The rows travel in one map, ``$batch: {rows}``, never as a list parameter of their own:
        Neo4j keys its plan cache on each list parameter's size bucket (1-9, 10-99, ... rows),
        so a statement sent batches of every size was planned again for each bucket; a map's
        key does not change with what it holds (issue 33: the test sessions' plans made again).
        So a statement cannot take another parameter named ``batch`` (a ``ValueError``), and
        one that reads ``$rows`` is refused (``ConfigError``) before anything is sent."""
        query = self._batch_query(name, params)
        summary = WriteSummary()
        for chunk in chunked(rows, batch_size or self.batch_size):
            result = self._execute_write(query, _batch(chunk, None, params))
            summary.add_batch(result.summary.counters, len(chunk))
            if progress:
                progress(len(chunk))
        return summary

    def _batch_query(self, name: str, params: dict) -> Query:
        """A batch statement of ``write``/``write_new``, refused before anything is sent when it
        cannot take its rows in ``$batch``."""
        if "batch" in params:   # it would replace the rows (KnowGen's and LINK's batch ids are $batch_id)
            raise ValueError(f"{name}: a batch statement cannot also take a parameter named batch")
        query = self._query(name)
        if _reads_rows(query.text):   # written for the old convention (a method outside knowforge)
            raise ConfigError(f"Cypher statement {name!r} reads $rows; Store.write sends a batch as one "
                                 "map: read it as $batch.rows (and $batch.ids), see Store.write")
        return query

    def _execute_write(self, query: str, params: dict):
        return self.driver.execute_query(query, params, routing_=RoutingControl.WRITE, database_=self.database)

    def write_new(self, name: str, fallback: str, rows: Iterable[dict], *, key: str = "id",
                  batch_size: int | None = None, progress: Progress | None = None,
                  workers: int = 1, first_key_only: bool = False, **params) -> WriteSummary:
        """Send ``rows`` to a create-only statement ``name`` that is given the batch's keys as
        ``$batch.ids`` (beside ``$batch.rows``: one map, as ``write`` sends) and writes nothing
        when any of them exists; such a batch (a re-run after a crash) goes to the idempotent
        ``fallback`` statement instead, so nothing is doubled.
        ``summary.counters['fallbacks']`` counts those batches.

        ``first_key_only``: ``$batch.ids`` is the batch's first key alone, for rows that only this
        call writes, in batches cut the same way every time (a new run's answers): each batch
        is one transaction, so either all of its rows are there (a batch the driver sent
        again after its commit's reply was lost) or none is, and one look-up tells which
        instead of one per row (issue 33: a tenth of the server's answer write).

        ``workers`` > 1 runs that many statements at once, each in its own transaction: the
        server runs one transaction on one core, so a second one uses another core (KnowGen's
        question write: 1.55x at two). The batches' keys must be distinct across batches (they
        are created, not merged); a deadlock between two of them on a shared node is retried
        by the driver. Progress and the summary are taken in batch order.
        """
        query, merge = self._batch_query(name, params), self._batch_query(fallback, params)

        def send(chunk: list[dict]):
            ids = [chunk[0][key]] if first_key_only else [r[key] for r in chunk]
            result = self._execute_write(query, _batch(chunk, ids, params))
            if result.summary.counters.nodes_created == 0:
                return True, self._execute_write(merge, _batch(chunk, None, params))
            return False, result

        summary = WriteSummary()
        fallbacks = 0
        chunks = chunked(rows, batch_size or self.batch_size)
        for chunk, (fell_back, result) in in_parallel(send, chunks, workers):
            fallbacks += fell_back
            summary.add_batch(result.summary.counters, len(chunk))
            if progress:
                progress(len(chunk))
        summary.counters["fallbacks"] = fallbacks
        return summary

    # -- schema and raw user queries ---------------------------------------------------------
    def apply_schema(self, *, wait: bool = True, timeout_s: float = 300.0,
                     progress: IndexProgress | None = None) -> int:
        """Apply ``cypher/schema.cypher`` (idempotent: every statement uses IF NOT EXISTS).

        Index creation returns at once and the server fills the indexes in the background;
        with ``wait`` (the default) this returns when every index is ONLINE (see
        ``await_indexes``). A bulk import passes ``wait=False`` to do other work while the
        indexes of the imported nodes populate, then waits itself.
        """
        statements = split_statements(load_cypher("schema"))
        for text in statements:
            self.driver.execute_query(text, routing_=RoutingControl.WRITE, database_=self.database)
        if wait:
            self.await_indexes(timeout_s, progress=progress)
        return len(statements)

    def index_states(self) -> list[dict]:
        """Every index with its state (ONLINE, POPULATING, FAILED) and population percent."""
        return self.read("store/index_states")

    def await_indexes(self, timeout_s: float = 300.0, *, progress: IndexProgress | None = None,
                      poll_s: float = 1.0) -> float:
        """Wait until every index is ONLINE; returns the seconds waited.

        Polls ``SHOW INDEXES`` rather than calling ``db.awaitIndexes`` so that a caller can
        show progress and a failure names the index and the server's reason. Raises
        KnowforgeError when an index FAILED or when ``timeout_s`` passes first (the indexes
        keep populating on the server either way).
        """
        t0 = time.monotonic()
        # The first polls come quickly: on a small graph the indexes are online within a
        # fraction of a second, and a full poll_s wait was most of the schema step.
        pause = min(0.05, poll_s)
        while True:
            states = self.index_states()
            failed = [r for r in states if r["state"] == "FAILED"]
            if failed:
                raise KnowforgeError("index population failed: " + "; ".join(
                    f"{r['name']}: {r['failure'] or 'no reason given'}" for r in failed))
            pending = [r for r in states if r["state"] != "ONLINE"]
            waited = time.monotonic() - t0
            if progress:
                progress(states, waited)
            if not pending:
                return waited
            if waited >= timeout_s:
                raise KnowforgeError(
                    f"indexes not online after {timeout_s:.0f}s: " + ", ".join(
                        f"{r['name']} {r['state']} {r['percent']:.0f}%" for r in pending)
                    + "; they keep populating on the server (SHOW INDEXES shows their progress)")
            time.sleep(pause)
            pause = min(pause * 2, poll_s)

    def query_type(self, text: str, params: dict | None = None) -> str:
        """Neo4j's own classification of a statement: r, rw, w or s (schema)."""
        return self._explain(text, params or {}).query_type

    def _explain(self, text: str, params: dict):
        """The summary of ``EXPLAIN text``: query type, plan and the planner's notifications.
        A statement the server cannot compile raises QueryError with its message, placed in
        the user's text (not in the text with EXPLAIN in front)."""
        try:
            result = self.driver.execute_query(EXPLAIN_PREFIX + text, params, database_=self.database,
                                               routing_=RoutingControl.READ)
        except neo4j.exceptions.ClientError as exc:
            if (exc.code or "").startswith(("Neo.ClientError.Statement.Syntax",
                                            "Neo.ClientError.Statement.TypeError",
                                            "Neo.ClientError.Statement.Argument")):
                raise QueryError(f"Cypher error: {server_message(exc, shift=len(EXPLAIN_PREFIX))}") from exc
            raise
        return result.summary

    def user_query(self, text: str, params: dict | None = None, *, write: bool = False,
                   unsafe: bool = False) -> list[dict]:
        """Run a user's ad-hoc Cypher and return its rows (see ``run_user_query``)."""
        return self.run_user_query(text, params, write=write, unsafe=unsafe).rows

    def run_user_query(self, text: str, params: dict | None = None, *, write: bool = False,
                       unsafe: bool = False) -> UserQueryResult:
        """Run a user's ad-hoc Cypher: read-only unless ``write``; no LOAD CSV, administration
        or unlisted procedures unless ``unsafe`` (``kg/query_guard.py`` says why).

        The server classifies the statement (EXPLAIN) and the transaction runs in read access
        mode, so a write is refused twice over rather than trusted to a regex. The planner's
        warnings (an unknown label or property, a deprecation) come back with the rows.
        """
        params = params or {}
        summary = self._explain(text, params)
        reason = refusal(summary.query_type, summary.plan, write=write, unsafe=unsafe)
        if reason:
            raise QueryRefused(reason)
        warnings = planner_warnings(summary, shift=len(EXPLAIN_PREFIX))
        access = neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS
        try:
            with self.driver.session(database=self.database, default_access_mode=access) as session:
                if commits_in_batches(summary.plan):
                    # it commits batch by batch, which a managed transaction cannot hold; an
                    # implicit one is not retried, so a transient failure reaches the user
                    rows = session.run(text, params).data()
                else:
                    runner = session.execute_write if write else session.execute_read
                    rows = runner(lambda tx: tx.run(text, params).data())
        except neo4j.exceptions.ClientError as exc:
            if exc.code == "Neo.ClientError.Statement.ParameterMissing":
                names = (exc.message or "").rpartition(":")[2].strip() or "?"
                example = names.split(",")[0].strip()
                raise QueryError(f"the query needs parameter(s) {names}: pass -p {example}=VALUE") from exc
            if exc.code and exc.code.startswith("Neo.ClientError.Statement."):
                raise QueryError(f"Cypher error: {server_message(exc)}") from exc
            raise
        return UserQueryResult(rows=rows, warnings=warnings)

    def ping(self) -> None:
        try:
            self.driver.execute_query("RETURN 1", database_=self.database)
        except neo4j.exceptions.AuthError as exc:
            raise GraphUnavailable(f"Neo4j at {self.uri} refused the credentials: {exc.message}. "
                                   "Check NEO4J_USER / NEO4J_PASSWORD") from exc
        except neo4j.exceptions.ServiceUnavailable as exc:
            raise GraphUnavailable(f"cannot reach Neo4j at {self.uri}: {exc}. Start it with "
                                   "`knowforge neo4j start` or fix NEO4J_URI") from exc
        except ValueError as exc:   # an address the driver cannot even resolve
            raise GraphUnavailable(f"cannot reach Neo4j at {self.uri}: {exc}. Fix NEO4J_URI") from exc
        except neo4j.exceptions.ClientError as exc:
            if "database" in (exc.code or "").lower():
                raise GraphUnavailable(f"database {self.database!r} is not available on {self.uri}: "
                                       f"{exc.message}. Check NEO4J_DATABASE") from exc
            raise

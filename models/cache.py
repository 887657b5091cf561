"""On-disk response cache shared by every run, task and process.

One SQLite file in WAL mode, one row per (request, sample index) and per log-likelihood
request. The key is the sha256 of canonical JSON holding the backend, the model id (and
revision), the exact request and everything that changes the output (decoding parameters,
seed, sample index). It never holds GPU rank, concurrency or timeouts, so a run on 8 GPUs
and a rerun on 1 share their answers. The model id is also stored in the row and checked
on read, so a key can never hand one model's answer to another (lm-evaluation-harness #2715).

Several processes may write at once: every write is one short ``BEGIN IMMEDIATE``
transaction, the connection waits on a busy timeout, and a rare "database is locked" that
still escapes (WAL switch racing a writer) is retried.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowforge.errors import ConfigError

from .types import GenerationRequest, LoglikelihoodRequest

log = logging.getLogger(__name__)

CACHE_FORMAT_VERSION = "1"
CACHE_FILE_NAME = "responses.sqlite"
BUSY_TIMEOUT_MS = 60_000
_LOCK_RETRIES = 20

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,            -- 'generation' | 'loglikelihood'
    backend TEXT NOT NULL,
    model TEXT NOT NULL,           -- model id (+ '@' revision): checked on read
    sample_index INTEGER NOT NULL, -- 0 for log-likelihood rows
    request TEXT NOT NULL,         -- canonical JSON of the keyed payload, for inspection
    response TEXT NOT NULL,        -- JSON of the answer
    version TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def _is_lock_error(exc: sqlite3.Error) -> bool:
    """A busy or locked database: retried, not a damaged file."""
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def default_cache_dir() -> Path:
    """``KNOWFORGE_CACHE_DIR`` if set, else the platform's user cache dir for knowforge."""
    env = os.environ.get("KNOWFORGE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("knowforge"))


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def model_key(model: str, revision: str | None) -> str:
    return f"{model}@{revision}" if revision else model


def generation_key(backend: str, model: str, revision: str | None, request: GenerationRequest,
                   sample_index: int) -> str:
    """Key of one sample of one generation request (``n`` and ``sample_offset`` excluded)."""
    payload = {"v": CACHE_FORMAT_VERSION, "kind": "generation", "backend": backend,
               "model": model_key(model, revision), "sample_index": sample_index,
               "request": request.cache_payload()}
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()


def loglikelihood_key(backend: str, model: str, revision: str | None,
                      request: LoglikelihoodRequest) -> str:
    payload = {"v": CACHE_FORMAT_VERSION, "kind": "loglikelihood", "backend": backend,
               "model": model_key(model, revision),
               "request": {"context": request.context, "continuation": request.continuation}}
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()


@dataclass(frozen=True)
class CacheStats:
    hits: int
    misses: int

    @property
    def total(self) -> int:
        return self.hits + self.misses

    @property
    def hit_rate(self) -> float:
        """Hits over lookups; 0.0 before any lookup."""
        return self.hits / self.total if self.total else 0.0


@dataclass(frozen=True)
class CacheEntry:
    key: str
    kind: str
    backend: str
    model: str
    sample_index: int
    request: str
    response: dict[str, Any]


class ResponseCache:
    """The cache file. ``ResponseCache(dir_or_file)``; a directory gets ``responses.sqlite``.

    Thread-safe within a process (one lock around one connection) and safe across processes
    (SQLite WAL + busy timeout). A connection is opened lazily per process, so a cache object
    survives ``fork``.
    """

    def __init__(self, path_or_dir: str | Path | None = None):
        path = Path(path_or_dir).expanduser() if path_or_dir is not None else default_cache_dir()
        if path.suffix not in (".sqlite", ".sqlite3", ".db"):
            path = path / CACHE_FILE_NAME
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create the cache directory {path.parent}: {exc}") from exc
        self.path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid: int | None = None
        self._hits = 0
        self._misses = 0

    # -- connection ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def _file_errors(self) -> Iterator[None]:
        """SQLite's own errors about the file (not a database, malformed, truncated, unreadable)
        as one ConfigError that names the file and the way out."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if _is_lock_error(exc):
                raise
            raise ConfigError(
                f"the response cache {self.path} cannot be used ({exc}): move it aside "
                f"(mv {self.path} {self.path}.broken) and re-run to start a new cache, or run "
                "with --no-cache") from exc

    def _connection(self) -> sqlite3.Connection:
        with self._file_errors():
            return self._open()

    def _open(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            self._retry_locked(lambda: conn.execute("PRAGMA journal_mode=WAL").fetchone())
            conn.execute("PRAGMA synchronous=NORMAL")
            self._retry_locked(lambda: conn.execute(_SCHEMA))
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    @staticmethod
    def _retry_locked(fn):
        for attempt in range(_LOCK_RETRIES):
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                if not _is_lock_error(exc):
                    raise
                if attempt == _LOCK_RETRIES - 1:
                    raise
                time.sleep(min(0.05 * 2 ** attempt, 1.0))

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- reads and writes ---------------------------------------------------------------------

    def get_many(self, keys: list[str], *, model: str, count: bool = True) -> dict[str, dict[str, Any]]:
        """Answers found for ``keys`` whose stored model is ``model`` (a model key)."""
        if not keys:
            return {}
        found: dict[str, dict[str, Any]] = {}
        with self._lock, self._file_errors():
            conn = self._connection()
            unique = list(dict.fromkeys(keys))
            for start in range(0, len(unique), 500):
                chunk = unique[start:start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._retry_locked(lambda: conn.execute(
                    f"SELECT key, model, response FROM responses WHERE key IN ({marks})", chunk).fetchall())
                for key, stored_model, response in rows:
                    if stored_model != model:
                        log.warning("cache row %s belongs to model %r, not %r: ignored", key[:12],
                                    stored_model, model)
                        continue
                    found[key] = json.loads(response)
            if count:
                hits = sum(1 for k in keys if k in found)
                self._hits += hits
                self._misses += len(keys) - hits
        return found

    def get(self, key: str, *, model: str) -> dict[str, Any] | None:
        return self.get_many([key], model=model).get(key)

    def put_many(self, rows: list[tuple[str, str, str, str, int, str, dict[str, Any]]]) -> None:
        """Store rows of (key, kind, backend, model, sample_index, request_json, response)."""
        if not rows:
            return
        now = time.time()
        values = [(key, kind, backend, model, index, request, canonical_json(response),
                   CACHE_FORMAT_VERSION, now)
                  for key, kind, backend, model, index, request, response in rows]
        with self._lock, self._file_errors():
            conn = self._connection()

            def write():
                conn.execute("BEGIN IMMEDIATE")
                try:
                    conn.executemany("INSERT OR REPLACE INTO responses VALUES (?,?,?,?,?,?,?,?,?)", values)
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")

            self._retry_locked(write)

    def entries(self, *, model: str | None = None) -> list[CacheEntry]:
        """Every stored row (for inspection and tests), oldest first."""
        with self._lock, self._file_errors():
            conn = self._connection()
            sql = "SELECT key, kind, backend, model, sample_index, request, response FROM responses"
            args: tuple = ()
            if model is not None:
                sql += " WHERE model = ?"
                args = (model,)
            rows = conn.execute(sql + " ORDER BY created, key", args).fetchall()
        return [CacheEntry(k, kind, b, m, i, req, json.loads(resp)) for k, kind, b, m, i, req, resp in rows]

    def __len__(self) -> int:
        with self._lock, self._file_errors():
            return self._connection().execute("SELECT count(*) FROM responses").fetchone()[0]

    # -- statistics ---------------------------------------------------------------------------

    @property
    def stats(self) -> CacheStats:
        """Hits and misses of this object's lookups (per sample / per log-likelihood request)."""
        return CacheStats(self._hits, self._misses)

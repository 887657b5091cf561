"""What every loader shares: the load report, problem handling, line reading and the batch sink.

A loader streams its input, turns each record into ``EntityRecord``/``FactRecord`` values and
hands them to a ``BatchSink`` that writes them through ``kg/writer.py`` every ``batch_size``
records, so memory stays flat in the size of the input. Bad records never crash a load: they
are counted by reason and listed with file and line in the ``LoadReport``; with ``strict`` the
first one raises ``InputError`` (after everything read before it has been written).
"""

from __future__ import annotations

import bz2
import logging
import re
import time
import unicodedata
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from knowforge.errors import InputError
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Store
from knowforge.kg.writer import write_entities, write_facts, write_relations

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 5000
# Problems beyond this many are still counted, just not listed one by one.
MAX_LISTED_PROBLEMS = 200
READ_CHUNK = 1 << 20

RecordProgress = Callable[[int], None]
"""Called with the number of input records just read (the CLI turns it into a progress bar)."""


@dataclass(frozen=True)
class Problem:
    """One skipped record or damaged file, with where to find it."""

    reason: str
    message: str
    path: str | None = None
    line: int | None = None
    fatal: bool = False

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else (self.path or "")
        return f"{where}: {self.message}" if where else self.message


@dataclass
class LoadReport:
    """Counters of one load: what was read, written and skipped (by reason), and the problems."""

    source: str
    files: list[str] = field(default_factory=list)
    records_read: int = 0
    entities_written: int = 0
    facts_written: int = 0
    relations_written: int = 0
    skipped: Counter = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    problem_count: int = 0
    errors: int = 0
    seconds: float = 0.0

    def add_problem(self, problem: Problem) -> None:
        self.problem_count += 1
        if problem.fatal:
            self.errors += 1
        if len(self.problems) < MAX_LISTED_PROBLEMS:
            self.problems.append(problem)

    def as_dict(self) -> dict:
        return {"source": self.source, "files": list(self.files), "records_read": self.records_read,
                "entities_written": self.entities_written, "facts_written": self.facts_written,
                "relations_written": self.relations_written, "skipped": dict(self.skipped),
                "errors": self.errors,
                "problems": [{"reason": p.reason, "message": p.message, "path": p.path,
                              "line": p.line, "fatal": p.fatal} for p in self.problems]}


class LoadContext:
    """The state of one load: report, strictness, progress callback and the batch sink."""

    def __init__(self, store: Store, source: str, *, strict: bool = False,
                 progress: RecordProgress | None = None, batch_size: int = DEFAULT_BATCH_SIZE):
        self.report = LoadReport(source=source)
        self.strict = strict
        self._progress = progress
        self._pending_progress = 0
        self.sink = BatchSink(store, self.report, batch_size=batch_size)
        self.store = store
        self._started = time.monotonic()

    def read(self, n: int = 1) -> None:
        """Count ``n`` input records read; progress is reported every 1000 records."""
        self.report.records_read += n
        self._pending_progress += n
        if self._pending_progress >= 1000:
            self.flush_progress()

    def flush_progress(self) -> None:
        if self._progress and self._pending_progress:
            self._progress(self._pending_progress)
        self._pending_progress = 0

    def drop(self, reason: str, n: int = 1) -> None:
        """Count a record left out on purpose (deprecated rank, filtered): not a problem."""
        self.report.skipped[reason] += n

    def skip(self, reason: str, message: str, *, path: str | Path | None = None,
             line: int | None = None) -> None:
        """Count a malformed record and list it. Under ``strict`` it is fatal (what was read is written first)."""
        self.report.skipped[reason] += 1
        problem = Problem(reason, message, str(path) if path is not None else None, line)
        self.report.add_problem(problem)
        log.debug("skipped (%s): %s", reason, problem)
        if self.strict:
            self.sink.flush()
            raise InputError(f"{message} [{reason}] (--strict stops at the first bad record)",
                             path=str(path) if path is not None else None, line=line)

    def fail_file(self, reason: str, message: str, *, path: str | Path, line: int | None = None) -> None:
        """A file that cannot be read further (truncated archive, XML that does not parse).

        Everything read before the damage is kept (flushed now). Under ``strict`` it raises;
        otherwise the load goes on with the next file and the CLI exits non-zero.
        """
        self.sink.flush()
        problem = Problem(reason, message, str(path), line, fatal=True)
        self.report.add_problem(problem)
        self.report.skipped[reason] += 1
        log.error("%s", problem)
        if self.strict:
            raise InputError(message, path=str(path), line=line)

    def finish(self) -> LoadReport:
        self.sink.flush()
        self.flush_progress()
        self.report.seconds = time.monotonic() - self._started
        return self.report


class BatchSink:
    """Buffers records and writes them in batches (entities first, then facts)."""

    def __init__(self, store: Store, report: LoadReport, *, batch_size: int = DEFAULT_BATCH_SIZE):
        self.store = store
        self.report = report
        self.batch_size = batch_size
        # Keyed by id so a record repeated within one batch is sent once (the later one wins).
        self._entities: dict[str, EntityRecord] = {}
        self._facts: dict[str, FactRecord] = {}
        self._relations: dict[str, RelationRecord] = {}
        self._extra: dict[str, dict[str, dict]] = {}

    def entity(self, record: EntityRecord) -> None:
        previous = self._entities.get(record.id)
        if previous is not None and previous.aliases and set(previous.aliases) - set(record.aliases):
            from dataclasses import replace

            record = replace(record, aliases=tuple(dict.fromkeys(previous.aliases + record.aliases)))
        self._entities[record.id] = record
        if len(self._entities) >= self.batch_size:
            self.flush()

    def fact(self, record: FactRecord) -> None:
        key = record.id
        if key in self._facts and self._facts[key].seen_in and record.seen_in:
            record = _merge_seen_in(self._facts[key], record)
        self._facts[key] = record
        if len(self._facts) >= self.batch_size:
            self.flush()

    def relation(self, record: RelationRecord) -> None:
        self._relations[record.id] = record

    def row(self, statement: str, row: dict, key: str) -> None:
        """A row for a loader's own ``UNWIND $rows`` statement (``cypher/loaders/...``)."""
        self._extra.setdefault(statement, {})[key] = row
        if len(self._extra[statement]) >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        if self._entities:
            summary = write_entities(self.store, list(self._entities.values()))
            self.report.entities_written += summary.rows
            self._entities.clear()
        for statement, rows in self._extra.items():
            if rows:
                self.store.write(statement, list(rows.values()))
                rows.clear()
        if self._facts:
            summary = write_facts(self.store, list(self._facts.values()))
            self.report.facts_written += summary.rows
            self._facts.clear()
        if self._relations:
            summary = write_relations(self.store, list(self._relations.values()))
            self.report.relations_written += summary.rows
            self._relations.clear()


def _merge_seen_in(old: FactRecord, new: FactRecord) -> FactRecord:
    from dataclasses import replace

    return replace(new, seen_in=tuple(sorted(set(old.seen_in or ()) | set(new.seen_in or ()))))


# ---- reading ---------------------------------------------------------------------------------

class TruncatedInput(Exception):
    """A compressed file ended before its end-of-stream marker (raised after the good lines)."""

    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


def iter_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, raw_line)`` of a plain, ``.gz`` or ``.bz2`` file, streaming.

    The decompression is done here, chunk by chunk, so that a truncated archive yields every
    complete line before the damage and then raises ``TruncatedInput`` naming the line where
    the damage starts (the standard library would lose the last decompressed chunk).
    Multi-stream archives (concatenated gzip/bz2 members, as the Wikidata dumps are) are read
    to the end.
    """
    path = Path(path)
    name = path.name.lower()
    if name.endswith(".gz"):
        chunks = _decompressed(path, lambda: zlib.decompressobj(wbits=47))
    elif name.endswith(".bz2"):
        chunks = _decompressed(path, bz2.BZ2Decompressor)
    else:
        chunks = _plain(path)
    lineno = 0
    rest = b""
    try:
        for chunk in chunks:
            data = rest + chunk if rest else chunk
            lines = data.split(b"\n")
            rest = lines.pop()
            for line in lines:
                lineno += 1
                yield lineno, line
    except TruncatedInput as exc:
        # `rest` is the start of a line that was cut off by the damage: not a record.
        raise TruncatedInput(str(exc), lineno + 1) from None
    except (OSError, EOFError, zlib.error) as exc:
        raise TruncatedInput(f"cannot decompress: {exc}", lineno + 1) from None
    if rest:
        lineno += 1
        yield lineno, rest


def _plain(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as fh:
        while chunk := fh.read(READ_CHUNK):
            yield chunk


def _decompressed(path: Path, make) -> Iterator[bytes]:
    decomp = make()
    started = False
    with open(path, "rb") as fh:
        while raw := fh.read(READ_CHUNK):
            while raw:
                started = True
                out = decomp.decompress(raw)
                if out:
                    yield out
                if decomp.eof:
                    raw = decomp.unused_data
                    decomp = make()
                    started = False
                else:
                    raw = b""
    if started and not decomp.eof:
        raise TruncatedInput("compressed file ended before the end-of-stream marker "
                             "(the download is truncated)", 0)


def read_text_lines(ctx: LoadContext, path: Path) -> Iterator[tuple[int, str]]:
    """Decoded lines of a (possibly compressed) text file; damage is reported, not raised."""
    try:
        for lineno, raw in iter_lines(path):
            try:
                yield lineno, raw.decode("utf-8").rstrip("\r")
            except UnicodeDecodeError as exc:
                ctx.skip("bad_encoding", f"not UTF-8: {exc}", path=path, line=lineno)
    except TruncatedInput as exc:
        ctx.fail_file("truncated_input", str(exc), path=path, line=exc.line)


# ---- small shared helpers ----------------------------------------------------------------------

_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """Lower-case ASCII slug (accents dropped) used in prefixed ids: ``Abelian group`` → ``abelian_group``."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    out = _SLUG.sub("_", ascii_text.lower()).strip("_")
    return out or "x" + stable_hex(text)


def snake(text: str) -> str:
    """Predicate text in snake_case: ``is eaten by`` → ``is_eaten_by``, ``IsA`` → ``is_a``."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text.strip())
    return slug(text)


def stable_hex(text: str) -> str:
    import hashlib

    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def files_under(paths, patterns: tuple[str, ...]) -> list[Path]:
    """The files named, plus files matching ``patterns`` under named directories (sorted)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted({f for pat in patterns for f in p.rglob(pat) if f.is_file()})
            out.extend(found)
        elif p.exists():
            out.append(p)
        else:
            raise InputError("no such file or directory", path=str(p))
    return out

"""What every loader shares: the load report, problem handling, line reading and the batch sink.

A loader streams its input, turns each record into ``EntityRecord``/``FactRecord`` values and
hands them to a ``BatchSink`` that writes them through ``kg/writer.py`` every ``batch_size``
records, so memory stays flat in the size of the input. Bad records never crash a load: they
are counted by reason and listed with file and line in the ``LoadReport``; with ``strict`` the
first one raises ``InputError`` (after everything read before it has been written).

"Bad" covers whatever a record holds: a loader's own checks (a missing field, a date that does
not exist), an exception while the loader reads the record (``LoadContext.record`` turns it into
a report line), a value Neo4j would refuse (``checks.py``, before the record is buffered) and,
should one slip through, a batch the server refuses (``write_isolating`` finds the record).
"""

from __future__ import annotations

import bz2
import hashlib
import json
import logging
import os
import re
import time
import unicodedata
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from knowforge.errors import InputError, KnowforgeError
from knowforge.kg.driver import neo4j
from knowforge.kg.loaders.checks import (entity_problem, fact_problem, relation_problem, row_problem,
                                         text_problem)
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Store, WriteSummary
from knowforge.kg.writer import write_entities, write_facts, write_isolating, write_relations

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 5000
# Problems beyond this many are still counted, just not listed one by one.
MAX_LISTED_PROBLEMS = 200
READ_CHUNK = 1 << 20
# The longest line a loader reads (a Wikidata JSON dump's largest entity is a few MiB); a file
# without newlines (`/dev/zero`, a binary given by mistake) stops here instead of filling memory.
DEFAULT_MAX_LINE_BYTES = 64 << 20
MAX_LINE_ENV = "KNOWFORGE_MAX_LINE_BYTES"

RecordProgress = Callable[[int], None]
"""Called with the number of input records just read (the CLI turns it into a progress bar)."""


@dataclass(frozen=True)
class Problem:
    """One skipped record or damaged file, with where to find it. ``fatal``: an error (a
    damaged file, two keys that make one id) that makes ``knowforge load`` exit 1; the load
    still goes on."""

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
    repaired: Counter = field(default_factory=Counter)    # records kept after a repair, by reason
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
                "repaired": dict(self.repaired), "errors": self.errors,
                "problems": [{"reason": p.reason, "message": p.message, "path": p.path,
                              "line": p.line, "fatal": p.fatal} for p in self.problems]}


class LoadContext:
    """The state of one load: report, strictness, progress callback and the batch sink.

    Records reach the sink through ``record(path, line)``: the entities, facts, relations and
    rows made from one input record (a line, a row, a document) are checked
    (``kg/loaders/checks.py``) and buffered together, or refused together and reported with
    the record's file and line; an exception while the loader reads the record is reported the
    same way, so no input record stops a load.
    """

    def __init__(self, store: Store, source: str, *, strict: bool = False,
                 progress: RecordProgress | None = None, batch_size: int = DEFAULT_BATCH_SIZE):
        self.report = LoadReport(source=source)
        self.strict = strict
        self._progress = progress
        self._pending_progress = 0
        self.sink = BatchSink(store, self.report, batch_size=batch_size, refused=self._refused)
        self.store = store
        self._started = time.monotonic()
        # slug-made id -> (the key it was made from, where that key was first seen)
        self._keys: dict[str, tuple[str, str | None, int | None]] = {}

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

    def record(self, path: str | Path | None = None, line: int | None = None) -> PendingRecord:
        """``with ctx.record(path, line) as out: out.entity(...); out.fact(...)`` (see the class)."""
        return PendingRecord(self, None if path is None else str(path), line)

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

    def repair(self, reason: str, message: str, *, path: str | Path | None = None,
               line: int | None = None) -> None:
        """Count a record kept after a repair (bytes that are not UTF-8 read as U+FFFD) and list
        it, so no change to the input is silent. Under ``strict`` it is fatal, like ``skip``."""
        self.report.repaired[reason] += 1
        problem = Problem(reason, message, str(path) if path is not None else None, line)
        self.report.add_problem(problem)
        log.debug("repaired (%s): %s", reason, problem)
        if self.strict:
            self.sink.flush()
            raise InputError(f"{message} [{reason}] (--strict stops at the first bad record)",
                             path=str(path) if path is not None else None, line=line)

    def error(self, reason: str, message: str, *, path: str | Path | None = None,
              line: int | None = None) -> None:
        """A record left out that makes the load fail (an id collision): listed, counted as an
        error (the command exits 1), and fatal at once under ``strict``. The load goes on."""
        problem = Problem(reason, message, str(path) if path is not None else None, line, fatal=True)
        self.report.add_problem(problem)
        self.report.skipped[reason] += 1
        log.error("%s", problem)
        if self.strict:
            self.sink.flush()
            raise InputError(message, path=str(path) if path is not None else None, line=line)

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

    def claim_id(self, eid: str, text: str, *, path: str | None, line: int | None) -> bool:
        """Whether ``eid``, made from ``text`` by ``slug``, is this key's alone in this load.

        Two keys that ``id_key`` tells apart never share an id by the rule of ``slug``, unless
        two hash suffixes are equal; that is an error naming both keys (the later record is
        left out). Keys equal under ``id_key`` are one entity, as they always were.
        """
        key = id_key(text)
        held = self._keys.setdefault(eid, (key, path, line))
        if held[0] == key:
            return True
        where = f"{held[1]}:{held[2]}" if held[2] is not None else (held[1] or "an earlier record")
        self.error("id_collision", f"{text!r} and {held[0]!r} (at {where}) both make the id {eid!r}; "
                   "the later record is left out", path=path, line=line)
        return False

    def _refused(self, kind: str, key: str, where: tuple[str | None, int | None] | None,
                 exc: BaseException) -> None:
        path, line = where or (None, None)
        message = getattr(exc, "message", None) or str(exc)
        self.skip("write_refused", f"{kind} {key!r}: the write was refused ({type(exc).__name__}: "
                  f"{_short(message)})", path=path, line=line)

    def finish(self) -> LoadReport:
        self.sink.flush()
        self.flush_progress()
        self.report.seconds = time.monotonic() - self._started
        return self.report


# Exceptions that are not a record's fault: they stop the load as they always did.
_NOT_A_RECORD = (KnowforgeError, neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, MemoryError)


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "…"


class PendingRecord:
    """The records made from one input record, checked and handed to the sink on leaving the
    ``with`` block (see ``LoadContext``). ``refuse`` leaves them all out."""

    __slots__ = ("ctx", "path", "line", "entities", "facts", "relations", "rows", "refused")

    def __init__(self, ctx: LoadContext, path: str | None, line: int | None):
        self.ctx = ctx
        self.path = path
        self.line = line
        self.entities: list[EntityRecord] = []
        self.facts: list[FactRecord] = []
        self.relations: list[RelationRecord] = []
        self.rows: list[tuple[str, dict, str]] = []
        self.refused = False

    def entity(self, record: EntityRecord) -> None:
        self.entities.append(record)

    def fact(self, record: FactRecord) -> None:
        self.facts.append(record)

    def relation(self, record: RelationRecord) -> None:
        self.relations.append(record)

    def row(self, statement: str, row: dict, key: str) -> None:
        """A row for a loader's own ``UNWIND $batch.rows`` statement (``cypher/loaders/...``)."""
        self.rows.append((statement, row, key))

    def claim_id(self, eid: str, text: str) -> bool:
        """``LoadContext.claim_id`` for this record; a collision refuses the record."""
        if self.ctx.claim_id(eid, text, path=self.path, line=self.line):
            return True
        self.refused = True
        return False

    def refuse(self, reason: str, message: str) -> None:
        """Leave out everything made from this input record, and report it."""
        self.refused = True
        self.ctx.skip(reason, message, path=self.path, line=self.line)

    def __enter__(self) -> PendingRecord:
        return self

    def __exit__(self, kind, exc, traceback) -> bool:
        if exc is not None:
            if isinstance(exc, _NOT_A_RECORD) or not isinstance(exc, Exception):
                return False
            # RecursionError, AttributeError on a wrong shape, OverflowError...: the loader could
            # not read this record; it is reported, and the load goes on.
            self.refused = True
            self.ctx.skip("unreadable_record", f"{type(exc).__name__}: {_short(exc)}",
                          path=self.path, line=self.line)
            return True
        if self.refused:
            return False
        problem = self._problem()
        if problem is not None:
            self.refuse("bad_value", problem)
            return False
        where = (self.path, self.line)
        sink = self.ctx.sink
        for record in self.entities:
            sink.entity(record, where)
        for statement, row, key in self.rows:
            sink.row(statement, row, key, where)
        for record in self.facts:
            sink.fact(record, where)
        for record in self.relations:
            sink.relation(record, where)
        return False

    def _problem(self) -> str | None:
        for record in self.entities:
            problem = entity_problem(record)
            if problem:
                return f"entity {_shown(record.id)}: {problem}"
        for record in self.facts:
            problem = fact_problem(record)
            if problem:
                return f"fact {_shown(record.subject_id)} {_shown(record.relation)}: {problem}"
        for statement, row, _ in self.rows:
            problem = row_problem(row)
            if problem:
                return f"{statement} row {_shown(row.get('id'))}: {problem}"
        for record in self.relations:
            problem = relation_problem(record)
            if problem:
                return f"relation {_shown(record.id)}: {problem}"
        return None


def _shown(value) -> str:
    """A value for a message: text as itself (escaped), anything else by its repr, short."""
    return _short(ascii(value) if isinstance(value, str) and text_problem(value) else
                  value if isinstance(value, str) else repr(value), 80)


class BatchSink:
    """Buffers records and writes them in batches (entities first, then facts).

    Each record keeps the file and line it came from until its batch is written. When the
    server or the driver refuses a batch all the same, ``write_isolating`` writes it again in
    parts until only the records that fail are left out; each is passed to ``refused`` with
    its place.
    """

    def __init__(self, store: Store, report: LoadReport, *, batch_size: int = DEFAULT_BATCH_SIZE,
                 refused: Refused | None = None):
        self.store = store
        self.report = report
        self.batch_size = batch_size
        self.refused = refused
        # Keyed by id so a record repeated within one batch is sent once (the later one wins).
        self._entities: dict[str, EntityRecord] = {}
        self._facts: dict[str, FactRecord] = {}
        self._relations: dict[str, RelationRecord] = {}
        self._extra: dict[str, dict[str, dict]] = {}
        self._where: dict[tuple[str, str], tuple[str | None, int | None]] = {}

    def entity(self, record: EntityRecord, where: Where | None = None) -> None:
        previous = self._entities.get(record.id)
        if previous is not None and previous.aliases and set(previous.aliases) - set(record.aliases):
            from dataclasses import replace

            record = replace(record, aliases=tuple(dict.fromkeys(previous.aliases + record.aliases)))
        self._entities[record.id] = record
        if where is not None:
            self._where["entity", record.id] = where
        if len(self._entities) >= self.batch_size:
            self.flush()

    def fact(self, record: FactRecord, where: Where | None = None) -> None:
        key = record.id
        if key in self._facts and self._facts[key].seen_in and record.seen_in:
            record = _merge_seen_in(self._facts[key], record)
        self._facts[key] = record
        if where is not None:
            self._where["fact", key] = where
        if len(self._facts) >= self.batch_size:
            self.flush()

    def relation(self, record: RelationRecord, where: Where | None = None) -> None:
        self._relations[record.id] = record
        if where is not None:
            self._where["relation", record.id] = where

    def row(self, statement: str, row: dict, key: str, where: Where | None = None) -> None:
        """A row for a loader's own ``UNWIND $batch.rows`` statement (``cypher/loaders/...``)."""
        self._extra.setdefault(statement, {})[key] = row
        if where is not None:
            self._where[statement, key] = where
        if len(self._extra[statement]) >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        # Each buffer is emptied before it is written: a refusal reported under --strict
        # flushes again (what was read is written) before it raises.
        if self._entities:
            records = list(self._entities.values())
            self._entities.clear()
            self.report.entities_written += self._write(
                "entity", records, lambda part: write_entities(self.store, part), lambda r: r.id)
        for statement, rows in self._extra.items():
            if rows:
                keyed = list(rows.items())
                rows.clear()
                self._write(statement, keyed,
                            lambda part, name=statement: self.store.write(name, [row for _, row in part]),
                            lambda item: item[0])
        if self._facts:
            records = list(self._facts.values())
            self._facts.clear()
            self.report.facts_written += self._write(
                "fact", records, lambda part: write_facts(self.store, part), lambda r: r.id)
        if self._relations:
            records = list(self._relations.values())
            self._relations.clear()
            self.report.relations_written += self._write(
                "relation", records, lambda part: write_relations(self.store, part), lambda r: r.id)

    def _write(self, kind: str, items: list, write: Callable[[list], WriteSummary],
               key_of: Callable[[object], str]) -> int:
        def refused(item, exc: BaseException) -> None:
            key = key_of(item)
            where = self._where.get((kind, key))
            if self.refused is None:
                raise exc
            self.refused(kind, key, where, exc)

        try:
            return write_isolating(write, items, refused)
        finally:
            for item in items:
                self._where.pop((kind, key_of(item)), None)


Where = tuple  # (path, line) of the input record a buffered record came from
Refused = Callable[[str, str, "Where | None", BaseException], None]
"""Called with (kind, key, where, error) for each record the server or the driver refused."""


def _merge_seen_in(old: FactRecord, new: FactRecord) -> FactRecord:
    from dataclasses import replace

    return replace(new, seen_in=tuple(sorted(set(old.seen_in or ()) | set(new.seen_in or ()))))


# ---- reading ---------------------------------------------------------------------------------

class TruncatedInput(Exception):
    """A compressed file ended before its end-of-stream marker (raised after the good lines)."""

    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


class LineTooLong(TruncatedInput):
    """A line longer than the limit: the file is not read further (after the good lines)."""


def max_line_bytes() -> int:
    """The line-length limit: ``$KNOWFORGE_MAX_LINE_BYTES`` when set, else 64 MiB."""
    raw = os.environ.get(MAX_LINE_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_LINE_BYTES
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise KnowforgeError(f"{MAX_LINE_ENV}={raw!r} is not a positive number of bytes")
    return value


def iter_lines(path: str | Path, *, max_line: int | None = None) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, raw_line)`` of a plain, ``.gz`` or ``.bz2`` file, streaming.

    The decompression is done here, chunk by chunk, so that a truncated archive yields every
    complete line before the damage and then raises ``TruncatedInput`` naming the line where
    the damage starts (the standard library would lose the last decompressed chunk).
    Multi-stream archives (concatenated gzip/bz2 members, as the Wikidata dumps are) are read
    to the end. A line longer than ``max_line`` bytes (default ``max_line_bytes()``) raises
    ``LineTooLong`` naming it, once that many bytes of it are read: memory stays bounded.
    """
    path = Path(path)
    limit = max_line if max_line is not None else max_line_bytes()
    name = path.name.lower()
    if name.endswith(".gz"):
        chunks = _decompressed(path, lambda: zlib.decompressobj(wbits=47))
    elif name.endswith(".bz2"):
        chunks = _decompressed(path, bz2.BZ2Decompressor)
    else:
        chunks = _plain(path)
    lineno = 0
    # the pieces of the line being read, joined once its newline comes: a long line costs its
    # length, not its length times the chunks it spans
    pieces: list[bytes] = []
    held = 0
    try:
        for chunk in chunks:
            lines = chunk.split(b"\n")
            tail = lines.pop()
            if lines:
                if pieces:
                    lines[0] = b"".join(pieces) + lines[0]
                    pieces, held = [], 0
                for line in lines:
                    lineno += 1
                    if len(line) > limit:
                        raise LineTooLong(_too_long(len(line), limit), lineno)
                    yield lineno, line
            if tail:
                pieces.append(tail)
                held += len(tail)
                if held > limit:
                    raise LineTooLong(_too_long(held, limit, more=True), lineno + 1)
    except LineTooLong:
        raise
    except TruncatedInput as exc:
        # the pieces held are the start of a line cut off by the damage: not a record.
        raise TruncatedInput(str(exc), lineno + 1) from None
    except (OSError, EOFError, zlib.error) as exc:
        raise TruncatedInput(f"cannot decompress: {exc}", lineno + 1) from None
    if pieces:
        lineno += 1
        yield lineno, b"".join(pieces)


def _too_long(size: int, limit: int, more: bool = False) -> str:
    return (f"the line is {'over ' if more else ''}{size:,} bytes, longer than the limit of {limit:,} "
            f"({MAX_LINE_ENV} sets it); the file is not read further")


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
        ctx.fail_file(unreadable_reason(exc), str(exc), path=path, line=exc.line)


def unreadable_reason(exc: TruncatedInput) -> str:
    """The report's reason for a file that stopped being read."""
    return "line_too_long" if isinstance(exc, LineTooLong) else "truncated_input"


def utf8_replacing(raw: bytes) -> tuple[str, str | None]:
    """``raw`` as UTF-8, bytes that are not replaced by U+FFFD; with why, when any were."""
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8", errors="replace")
        return text, (f"not UTF-8 ({exc.reason} at byte {exc.start}): "
                      f"{text.count(chr(0xFFFD))} character(s) read as U+FFFD")


def decode_replacing(ctx: LoadContext, raw: bytes, path: Path, line: int) -> str:
    """``raw`` as UTF-8, bytes that are not replaced by U+FFFD and the repair reported."""
    text, why = utf8_replacing(raw)
    if why is not None:
        ctx.repair("bad_encoding_replaced", why, path=path, line=line)
    return text


def parse_json(text: str | bytes):
    """``json.loads``, with a document nested too deeply for Python's stack reported as the
    ``ValueError`` of any other malformed JSON (``json.loads`` raises ``RecursionError``)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply (over Python's recursion limit)") from None


# ---- small shared helpers ----------------------------------------------------------------------

_SLUG = re.compile(r"[^a-z0-9]+")
_SEPARATORS = re.compile(r"[\s_\-]+")
_LOSSLESS = re.compile(r"[a-z0-9]+(?: [a-z0-9]+)*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def id_key(text: str) -> str:
    """What an id made by ``slug`` keeps of ``text``: its characters in Unicode NFC, case-folded,
    with every run of white space, ``_`` and ``-`` read as one separator (and none at the ends).

    Two texts with the same key are one entity (``Rizz``, ``rizz``; ``ultra-processed``,
    ``ultra processed``); any other difference gives another id (``C++``, ``C#``).
    """
    return _SEPARATORS.sub(" ", unicodedata.normalize("NFC", text).casefold()).strip()


def slug(text: str) -> str:
    """The id part of ``text`` (see ``id_key``): ``Abelian group`` → ``abelian_group``.

    A key of ASCII letters and digits between separators is its own slug, as it always was.
    Any other key is slugged to lower-case ASCII (accents dropped, other characters made
    ``_``) and given ``-`` and 8 hex digits of the SHA-1 of the key, so that no character that
    tells two keys apart is lost: ``C++`` → ``c-<hash>``, ``C#`` → ``c-<another hash>``,
    ``Poincaré conjecture`` → ``poincare_conjecture-<hash>``. A plain slug never holds ``-``,
    so the two forms never meet. Text with no ASCII letter or digit at all (``内卷``) is
    ``x`` and 12 hex digits of the SHA-1 of the text, as it always was.
    """
    key = id_key(text)
    if _LOSSLESS.fullmatch(key):
        return key.replace(" ", "_")
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    out = _SLUG.sub("_", ascii_text.lower()).strip("_")
    if not out:
        return "x" + stable_hex(text)
    return f"{out}-{hashlib.sha1(key.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def split_camel(text: str) -> str:
    """``IsA`` → ``Is_A``: a camel-case predicate with its words apart (``snake`` slugs it)."""
    return _CAMEL.sub("_", text.strip())


def snake(text: str) -> str:
    """Predicate text in snake_case: ``is eaten by`` → ``is_eaten_by``, ``IsA`` → ``is_a``
    (``slug`` of ``split_camel``: the same rule, so ``has (unit)`` keeps its parentheses)."""
    return slug(split_camel(text))


def stable_hex(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


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

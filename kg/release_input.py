"""Reading a released benchmark's files by the loaders' rule (``kg/loaders/base.py``).

Every importer of released files (ALCUNA, ELKEN, ChroKnowBench, LINT, NewTerm) reads outside
files, so each checks a record here before it joins its batch, leaves out and reports (with
file and line) the records it refuses, and keeps the good ones:

* a file that is missing, or a folder where a file should be, is an ``InputError`` naming it;
* bytes that are not UTF-8 are read as U+FFFD and each line holding them is reported;
* a line longer than the loaders' limit (``KNOWFORGE_MAX_LINE_BYTES``, 64 MiB) stops the
  file with an ``InputError`` at that line, before it fills memory;
* JSON nested deeper than ``MAX_DEPTH`` is a refused record, never a ``RecursionError``;
* a text field over ``max_field_bytes()`` (1 MiB, ``KNOWFORGE_MAX_FIELD_BYTES``), or a name or
  id over ``MAX_NAME_BYTES`` (Neo4j indexes names and ids, and refuses a key that large), is a
  refused record, found before anything is written.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from knowforge.errors import InputError, KnowforgeError
from knowforge.kg.loaders.base import LineTooLong, TruncatedInput, iter_lines, parse_json, utf8_replacing

MAX_DEPTH = 64
DEFAULT_MAX_FIELD_BYTES = 1 << 20
MAX_FIELD_ENV = "KNOWFORGE_MAX_FIELD_BYTES"
# A range index key is at most about 8 KB in Neo4j 5; names and ids stay well below it.
MAX_NAME_BYTES = 4096
NAME_KEYS = frozenset({"id", "name", "subject", "object", "term", "entity", "subject_name", "object_name",
                       "relation", "relation_label", "label"})


def max_field_bytes() -> int:
    """The limit on one text field: ``$KNOWFORGE_MAX_FIELD_BYTES`` when set, else 1 MiB."""
    raw = os.environ.get(MAX_FIELD_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_FIELD_BYTES
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise KnowforgeError(f"{MAX_FIELD_ENV}={raw!r} is not a positive number of bytes")
    return value


def release_file(path: str | Path, what: str) -> Path:
    """``path`` when it is a readable file; else an ``InputError`` that says what it is."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"is a folder where {what} should be a file", path=str(path))
    if not path.exists():
        raise InputError(f"no such file ({what})", path=str(path))
    return path


def release_lines(path: Path, problems: list[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of a text file (plain, ``.gz`` or ``.bz2``); a line with bytes
    that are not UTF-8 comes decoded with U+FFFD and ``(line, why)`` goes to ``problems``. A
    line over the limit or a truncated archive is an ``InputError`` at its line."""
    try:
        for number, raw in iter_lines(path):
            text, why = utf8_replacing(raw)
            if why is not None:
                problems.append((number, why))
            yield number, text.rstrip("\r")
    except LineTooLong as exc:
        raise InputError(str(exc), path=str(path), line=exc.line) from None
    except TruncatedInput as exc:
        raise InputError(str(exc), path=str(path), line=exc.line) from None


def read_release_text(path: Path, problems: list[tuple[int, str]]) -> str:
    """The whole text of a file by ``release_lines`` (same checks), lines joined by newlines."""
    return "\n".join(text for _, text in release_lines(path, problems))


def parse_release_json(text: str) -> Any:
    """``json.loads``; a document nested too deeply for Python's stack is a ``ValueError``."""
    try:
        return parse_json(text)
    except ValueError as exc:
        if str(exc).startswith("nested too deeply"):
            raise ValueError(f"nested too deeply (over Python's recursion limit; records hold at most "
                             f"{MAX_DEPTH} levels)") from None
        raise


def record_problem(value: Any, *, max_field: int | None = None) -> str | None:
    """Why a decoded record is refused (too deep, a field too large), or None. Iterative, so a
    record of any depth is measured without recursion."""
    limit = max_field if max_field is not None else max_field_bytes()
    stack: list[tuple[Any, str, int, bool]] = [(value, "", 0, False)]
    while stack:
        item, where, depth, named = stack.pop()
        if depth > MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} levels deep (at {where or 'the top'})"
        if isinstance(item, str):
            # a character is at most 4 bytes: encode only the texts that may be over
            size = len(item.encode("utf-8", errors="surrogatepass")) if len(item) * 4 > MAX_NAME_BYTES else 0
            cap, kind = (MAX_NAME_BYTES, "a name or id") if named else (limit, "a text field")
            if size > cap:
                setting = "" if named else f" ({MAX_FIELD_ENV} sets it)"
                return f"{where or 'the record'} is {kind} of {size:,} bytes, over the limit of {cap:,}{setting}"
        elif isinstance(item, Mapping):
            for key, child in item.items():
                stack.append((child, f"{where}.{key}" if where else str(key), depth + 1, str(key) in NAME_KEYS))
        elif isinstance(item, list):
            for i, child in enumerate(item):
                stack.append((child, f"{where}[{i}]", depth + 1, named))
    return None


__all__ = ["DEFAULT_MAX_FIELD_BYTES", "MAX_DEPTH", "MAX_FIELD_ENV", "MAX_NAME_BYTES", "max_field_bytes",
           "parse_release_json", "read_release_text", "record_problem", "release_file", "release_lines"]

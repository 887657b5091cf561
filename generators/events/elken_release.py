"""Read a released ELKEN file (``data/original/train.json``, ``test.json``) into events and items.

A pure function of the file: no graph. ``read_elken_release(path, benchmark=...)`` gives
the complete events, the ``BenchmarkItem`` of every question (the same slices and metadata
as a generated ``events`` benchmark) and a report of everything it met. The graph importer
(``release_import.py``) stores them; evaluation code can call it with a path and get items.

Real files differ from the schema in METHODS.md §3, and every difference is accepted and
counted (``report.variants``), never dropped:

* no fact ``local_qas`` entry carries ``type`` (the official ``processor.py`` writes "NA"
  for it and never reads it): needs-background is then false;
* fact subjects are ``{id, name}`` or ``{id, ent2name}``;
* some fact questions carry an extra top-level ``alias`` (the subject's aliases): kept in
  the item's metadata;
* an answer id "NA" marks unknown answers and also literal ones ("2023", "COO"): a gold is
  unknown only when its *labels* say "unknown" (the id "NA" is kept in ``metadata.answer``);
* the test file is truncated mid-record: every complete event before the damage is read
  (one ``raw_decode`` per event) and the damage's byte offset is reported;
* unknown keys anywhere are kept on the raw record and counted by where they were met.

A question that cannot be read (no question text, no answer name, a tendency candidate
without options) is skipped and listed in ``report.problems`` with the file, line, byte
offset, event and field; so is an event without its ``event`` text.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from knowforge.errors import InputError, describe_validation_error
from knowforge.kg.loaders.base import max_line_bytes
from knowforge.kg.release_input import record_problem, release_file
from knowforge.models.release_report import Variants
from knowforge.models.types import BenchmarkItem

from .layering import edit_fact_id
from .paths import Target
from .questions import TASK_FACT, TASK_LOCALITY, TASK_TENDENCY

UNKNOWN = "unknown"
PARTS = (("fact", "qas"), ("fact", "local_qas"), ("tendency", "qas"), ("tendency", "local_qas"))
FACT_KEYS = frozenset({"question", "subject", "answer", "type", "rel_id"})
TENDENCY_KEYS = frozenset({"question", "candidate", "answer"})
EVENT_KEYS = frozenset({"event_type", "event", "fact", "tendency"})
_OPTION = re.compile(r"\(([A-Z])\)")
_LETTER = re.compile(r"^\(?([A-Z])\)?\.?$")
_NAME = re.compile(r"[^a-z0-9]+")


# --- records ------------------------------------------------------------------------------------
def _text_id(value: Any) -> Any:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class ReleaseSubject(_Record):
    """``{id, name}`` or ``{id, ent2name}``."""

    id: str | None = None
    name: str | None = None
    ent2name: str | None = None

    _id = field_validator("id", mode="before")(_text_id)

    @property
    def label(self) -> str | None:
        return self.name if self.name is not None else self.ent2name


class ReleaseAnswer(_Record):
    id: str | None = None
    name: str = Field(min_length=1)
    alias: list[str] = Field(default_factory=list)

    _id = field_validator("id", mode="before")(_text_id)

    @field_validator("alias", mode="before")
    @classmethod
    def _alias(cls, value: Any) -> Any:
        if value is None:
            return []
        return [value] if isinstance(value, str) else value


class ReleaseFactQA(_Record):
    question: str = Field(min_length=1)
    subject: ReleaseSubject | None = None
    answer: ReleaseAnswer
    type: int | str | None = None
    rel_id: str | None = None

    _rel = field_validator("rel_id", mode="before")(_text_id)


class ReleaseTendencyQA(_Record):
    question: str = Field(min_length=1)
    candidate: str = Field(min_length=1)
    answer: str = Field(min_length=1)


# --- what the reader returns ----------------------------------------------------------------------
@dataclass(frozen=True)
class ReleaseProblem:
    """A record that was skipped or repaired: where it is and why."""

    path: str
    line: int
    offset: int                         # byte offset of the record's event in the file
    record: str                         # "event 12" or "event 12 fact.qas[3]"
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} (byte {self.offset}), {self.record}: {self.reason}"


@dataclass
class ReleaseReport:
    path: str
    size: int                                                     # bytes in the file
    events: int = 0                                               # complete events read
    events_skipped: int = 0
    questions: Counter = field(default_factory=Counter)          # by "fact.qas" etc.
    questions_skipped: Counter = field(default_factory=Counter)  # by "fact.qas" etc.
    event_types: Counter = field(default_factory=Counter)
    variants: Variants = field(default_factory=Variants)         # what differed, and where first
    problems: list[ReleaseProblem] = field(default_factory=list)
    damage_offset: int | None = None      # byte offset of the first record that does not decode
    damage_line: int | None = None

    @property
    def truncated(self) -> bool:
        return self.damage_offset is not None

    def damage_note(self) -> str | None:
        if self.damage_offset is None:
            return None
        return (f"{self.path}: damaged at byte {self.damage_offset} (line {self.damage_line}) of "
                f"{self.size}: the {self.events + self.events_skipped} complete records before it were read "
                f"({self.events} events, {self.events_skipped} skipped), the "
                f"{self.size - self.damage_offset} bytes from there on were not")


@dataclass(frozen=True)
class ReleaseEvent:
    index: int                          # position of the record in the file's list (from 0)
    id: str                             # the event id its items carry
    line: int
    offset: int
    event_type: str
    text: str
    record: Mapping[str, Any]           # the record as released
    items: tuple[BenchmarkItem, ...]


class ElkenRelease(NamedTuple):
    events: list[ReleaseEvent]
    items: list[BenchmarkItem]
    report: ReleaseReport


def default_release_name(path: str | Path) -> str:
    """A benchmark name from the file name: ``test.json`` → ``elken-test``."""
    stem = _NAME.sub("-", Path(path).stem.lower()).strip("-") or "release"
    return stem if stem.startswith("elken") else f"elken-{stem}"


def release_event_id(benchmark: str, index: int) -> str:
    return f"ev:{benchmark.split(':', 1)[-1]}:{index:05d}"


def release_question_id(benchmark: str, index: int, part: str, scope: str, n: int) -> str:
    """``events:<name>:<event>:<fact|tendency>:<in|out>:<n>``: the benchmark is in every id."""
    return f"{benchmark}:{index:05d}:{part}:{'in' if scope == 'qas' else 'out'}:{n:03d}"


# --- reading ------------------------------------------------------------------------------------
class _Cursor:
    """Line and byte offset of character positions, advanced monotonically (one pass)."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.line = 1
        self.byte = 0

    def at(self, pos: int) -> tuple[int, int]:
        chunk = self.text[self.pos:pos]
        self.line += chunk.count("\n")
        self.byte += len(chunk.encode("utf-8", errors="surrogatepass"))
        self.pos = pos
        return self.line, self.byte


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


TOO_DEEP = object()   # a record nested too deeply to decode


def _value_end(text: str, pos: int) -> int | None:
    """The end of the JSON list or object at ``pos`` by its brackets (strings skipped), or None
    when they never close; for a value too deep to decode, without recursion."""
    depth = 0
    in_string = escaped = False
    for i in range(pos, len(text)):
        c = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def decode_records(text: str) -> tuple[list[tuple[int, int, int, Any]], int | None, int | None]:
    """Every complete record of a top-level JSON list, as (index, line, byte offset, value),
    and the byte offset and line of the first record that does not decode (None when the list
    is whole). A plain ``raw_decode`` per record: a truncated file keeps what precedes the cut."""
    cursor = _Cursor(text)
    pos = _skip_ws(text, 1 if text.startswith("\ufeff") else 0)
    if not text.startswith("[", pos):
        line, byte = cursor.at(pos)
        return [], byte, line
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, pos + 1)
    records = []
    while True:
        if pos >= len(text):
            line, byte = cursor.at(pos)
            return records, byte, line       # the list never closed
        if text[pos] == "]":
            return records, None, None
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            line, byte = cursor.at(pos)
            return records, byte, line
        except RecursionError:
            # too deep for Python's stack: the record is refused (as TOO_DEEP) and reading
            # goes on after it, when its brackets close
            end = _value_end(text, pos)
            if end is None:
                line, byte = cursor.at(pos)
                return records, byte, line
            value = TOO_DEEP
        line, byte = cursor.at(pos)
        records.append((len(records), line, byte, value))
        pos = _skip_ws(text, end)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
        elif pos < len(text) and text[pos] == "]":
            return records, None, None
        else:
            line, byte = cursor.at(pos)
            return records, byte, line


def read_elken_release(path: str | Path, *, benchmark: str | None = None) -> ElkenRelease:
    """The complete events of an ELKEN file, their items, and what was met on the way.

    ``benchmark`` (default ``events:<default_release_name(path)>``) goes into every item and
    question id. An InputError only when the file cannot be read at all; damage, variants and
    unreadable records are in the report.
    """
    path = release_file(path, "an ELKEN file")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=str(path)) from exc
    benchmark = benchmark or f"events:{default_release_name(path)}"
    report = ReleaseReport(path=str(path), size=len(raw))
    text = _decoded(raw, report)
    records, report.damage_offset, report.damage_line = decode_records(text)
    if not records and report.damage_offset is not None and report.damage_offset == 0:
        raise InputError("not an ELKEN file: expected a JSON list of events", path=str(path))
    events: list[ReleaseEvent] = []
    seen: dict[str, ReleaseEvent] = {}      # event text -> its first event
    for index, line, offset, record in records:
        counted = Counter(report.questions)
        event = _read_event(record, index, line, offset, benchmark, report)
        if event is None:
            continue
        first = seen.setdefault(event.text, event)
        if first is not event:
            # a duplicated event would be asked twice and counted twice in every metric
            lost = report.questions - counted
            report.questions = counted
            report.questions_skipped.update(lost)
            report.events -= 1
            report.events_skipped += 1
            report.event_types[event.event_type] -= 1
            report.event_types += Counter()          # drops a type whose count fell to 0
            report.problems.append(ReleaseProblem(report.path, line, offset, f"event {index}",
                                                  f"the same event as event {first.index} (line {first.line}): "
                                                  f"a duplicate, skipped with its {sum(lost.values())} questions"))
            continue
        events.append(event)
    return ElkenRelease(events, [i for e in events for i in e.items], report)


def _decoded(raw: bytes, report: ReleaseReport) -> str:
    """``raw`` as text; each line with bytes that are not UTF-8 is read with U+FFFD and reported,
    and a line over the loaders' limit stops the import (``KNOWFORGE_MAX_LINE_BYTES``)."""
    limit = max_line_bytes()
    try:
        text = raw.decode("utf-8")
        bad = False
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        bad = True
    offset = 0
    for number, line in enumerate(raw.split(b"\n"), 1):
        if len(line) > limit:
            raise InputError(f"the line is {len(line):,} bytes, longer than the limit of {limit:,} "
                             f"(KNOWFORGE_MAX_LINE_BYTES sets it)", path=report.path, line=number)
        if bad:
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                report.variants.add("bytes that are not UTF-8 (replaced)", f"{report.path}:{number}")
                report.problems.append(ReleaseProblem(report.path, number, offset, "the file",
                                                      f"not UTF-8 ({exc.reason} at byte {offset + exc.start}): "
                                                      "read as U+FFFD, kept"))
        offset += len(line) + 1
    return text


def _read_event(record: Any, index: int, line: int, offset: int, benchmark: str,
                report: ReleaseReport) -> ReleaseEvent | None:
    def problem(where: str, reason: str) -> None:
        report.problems.append(ReleaseProblem(report.path, line, offset, where, reason))

    where = f"event {index}"
    at_event = f"{report.path}:{line} (byte {offset}), {where}"
    refused = "nested too deeply to decode" if record is TOO_DEEP else record_problem(record)
    if refused:
        report.events_skipped += 1
        lost = _count_questions(record) if isinstance(record, Mapping) else Counter()
        report.questions_skipped.update(lost)
        problem(where, f"{refused}: the event and its {sum(lost.values())} questions skipped")
        return None
    if not isinstance(record, Mapping):
        report.events_skipped += 1
        problem(where, f"not an object ({type(record).__name__}): event skipped")
        return None
    text = record.get("event")
    if not isinstance(text, str) or not text.strip():
        report.events_skipped += 1
        lost = _count_questions(record)
        report.questions_skipped.update(lost)
        problem(where, f"no 'event' text: the event and its {sum(lost.values())} questions skipped")
        return None
    event_type = record.get("event_type")
    if not isinstance(event_type, str) or not event_type:
        report.variants.add("event without event_type (read as 'unknown')", at_event)
        event_type = UNKNOWN
    for key in sorted(set(record) - EVENT_KEYS):
        report.variants.add(f"event with extra key {key!r}", at_event)
    event_id = release_event_id(benchmark, index)
    items: list[BenchmarkItem] = []
    for part, scope in PARTS:
        qas = _part_list(record, part, scope, report, problem, where, at_event)
        for n, qa in enumerate(qas):
            label = f"{part}.{scope}"
            at = f"{where} {label}[{n}]"
            reader = _fact_item if part == "fact" else _tendency_item
            item = reader(qa, benchmark=benchmark, index=index, scope=scope, n=n, event_id=event_id,
                          event_type=event_type, text=text, report=report, problem=lambda r, a=at: problem(a, r),
                          release={"file": Path(report.path).name, "event": index, "field": label, "index": n,
                                   "line": line, "offset": offset})
            if item is None:
                report.questions_skipped[label] += 1
                continue
            report.questions[label] += 1
            items.append(item.model_copy(update={"metadata": {**item.metadata, "order": len(items)}}))
    report.events += 1
    report.event_types[event_type] += 1
    return ReleaseEvent(index, event_id, line, offset, event_type, text, record, tuple(items))


def _count_questions(record: Mapping) -> Counter:
    """The questions of a record by part and scope (for an event that cannot be read)."""
    found: Counter = Counter()
    for part, scope in PARTS:
        qas = record.get(part, {}).get(scope) if isinstance(record.get(part), Mapping) else None
        if isinstance(qas, list) and qas:
            found[f"{part}.{scope}"] += len(qas)
    return found


def _part_list(record: Mapping, part: str, scope: str, report: ReleaseReport, problem, where: str,
               at_event: str) -> list:
    block = record.get(part)
    if block is None:
        if scope == "qas":
            report.variants.add(f"event without '{part}'", at_event)
        return []
    if not isinstance(block, Mapping):
        if scope == "qas":
            problem(f"{where} {part}", f"not an object ({type(block).__name__}): its questions skipped")
        return []
    if scope == "qas":
        for key in sorted(set(block) - {"qas", "local_qas"}):
            report.variants.add(f"{part} with extra key {key!r}", at_event)
    qas = block.get(scope)
    if qas is None:
        report.variants.add(f"{part} without '{scope}'", at_event)
        return []
    if not isinstance(qas, list):
        problem(f"{where} {part}.{scope}", f"not a list ({type(qas).__name__}): its questions skipped")
        return []
    return qas


def _validated(model, qa: Any, problem):
    """``qa`` as a ``model`` record, or None after reporting why it was skipped."""
    try:
        return model.model_validate(qa)
    except ValidationError as exc:
        problem(f"question skipped: {describe_validation_error(exc)}")
        return None


def _where(report: ReleaseReport, release: dict) -> str:
    """Where a question stands: file:line (byte offset), its event and its field and index."""
    return (f"{report.path}:{release['line']} (byte {release['offset']}), "
            f"event {release['event']} {release['field']}[{release['index']}]")


def _fact_item(qa: Any, *, benchmark: str, index: int, scope: str, n: int, event_id: str, event_type: str,
               text: str, report: ReleaseReport, problem, release: dict) -> BenchmarkItem | None:
    label = release["field"]
    record = _validated(ReleaseFactQA, qa, problem)
    if record is None:
        return None
    at = _where(report, release)

    def variant(key: str) -> None:
        report.variants.add(key, at)

    for key in sorted(set(qa) - FACT_KEYS):
        variant(f"{label} with extra key {key!r}")
    subject = record.subject
    if subject is None:
        variant(f"{label} without subject")
    elif subject.name is None and subject.ent2name is not None:
        variant(f"{label} subject as {{id, ent2name}}")
    elif subject.label is None:
        variant(f"{label} subject without a name")
    answer = record.answer
    if "alias" not in qa["answer"]:
        variant(f"{label} answer without alias (read as [])")
    elif not isinstance(qa["answer"]["alias"], list):
        variant(f"{label} answer alias not a list (read as a list)")
    if answer.id is None:
        variant(f"{label} answer without id")
    labels = [*answer.alias, answer.name]
    unknown = any(a.strip().lower() == UNKNOWN for a in labels)
    if answer.id == "NA" and not unknown:
        variant(f"{label} answer id 'NA' with a literal name (a known gold)")
    needs_background = False
    if "type" not in qa:
        variant(f"{label} without type")
    elif record.type in (0, 1, "0", "1"):
        needs_background = int(record.type) == 1
        if isinstance(record.type, str):
            variant(f"{label} type as a string")
    else:
        variant(f"{label} type {record.type!r} (read as: no background needed)")
    if record.rel_id is None:
        variant(f"{label} without rel_id")
    elif not isinstance(qa.get("rel_id"), str):
        variant(f"{label} rel_id as a number (read as text)")
    answers = [UNKNOWN] if unknown else list(dict.fromkeys(a for a in (answer.name, *answer.alias) if a))
    entity_ids = [i for i in ((subject.id if subject else None), answer.id) if i and i != "NA"]
    in_scope = scope == "qas"
    metadata = {"event_id": event_id, "event": text,
                "subject": {"id": subject.id if subject else None, "name": subject.label if subject else None},
                "answer": {"id": answer.id, "name": answer.name, "alias": list(answer.alias)},
                "question_type": qa.get("type"), "rel_id": record.rel_id, "release": release, "record": qa}
    if isinstance(qa.get("alias"), list):
        metadata["subject_alias"] = qa["alias"]
    item = BenchmarkItem(
        id=release_question_id(benchmark, index, "fact", scope, n), benchmark=benchmark,
        task=TASK_FACT if in_scope else TASK_LOCALITY, form="generation", question=record.question,
        answers=answers, unknown=unknown, scorer="elken-fact", entity_ids=list(dict.fromkeys(entity_ids)),
        slices={"event_type": event_type, "relation": record.rel_id or UNKNOWN, "known": not unknown,
                "needs_background": needs_background, "scope": "in" if in_scope else "out", "part": "fact"},
        metadata=metadata)
    if in_scope and subject is not None and subject.id:
        # the fact the import's event asserts for this answer (release_import.release_plan): what the
        # question TESTS in the graph. An out-of-scope question's fact is not in the graph (its
        # entities are stubs): it tests none.
        item = item.model_copy(update={"fact_ids": [edit_fact_id(event_id, subject.id, item.slices["relation"],
                                                                 release_target(item))]})
    return item


def release_target(item: BenchmarkItem) -> Target:
    """The object an in-scope fact question of a release answers with (its event asserts it)."""
    answer = item.metadata["answer"]
    obj_id = answer["id"] if answer.get("id") and answer["id"] != "NA" else None
    return (Target(None, "unknown", ("unknown",), unknown=True) if item.unknown
            else Target(obj_id, answer["name"], tuple(answer.get("alias") or ())))


def parse_options(candidate: str) -> list[tuple[str, str]]:
    """``"(A) x (B) y (C) z"`` → ``[("A", "x"), ("B", "y"), ("C", "z")]``."""
    parts = _OPTION.split(candidate)
    return [(parts[i], parts[i + 1].strip()) for i in range(1, len(parts) - 1, 2)]


def _tendency_item(qa: Any, *, benchmark: str, index: int, scope: str, n: int, event_id: str, event_type: str,
                   text: str, report: ReleaseReport, problem, release: dict) -> BenchmarkItem | None:
    label = release["field"]
    record = _validated(ReleaseTendencyQA, qa, problem)
    if record is None:
        return None
    at = _where(report, release)
    for key in sorted(set(qa) - TENDENCY_KEYS):
        report.variants.add(f"{label} with extra key {key!r}", at)
    options = parse_options(record.candidate)
    letters = [letter for letter, _ in options]
    if len(options) < 2 or letters != [chr(ord("A") + i) for i in range(len(options))]:
        problem(f"question skipped: candidate {record.candidate!r} is not '(A) .. (B) .. (C) ..'")
        return None
    found = _LETTER.match(record.answer.strip())
    if not found or found.group(1) not in letters:
        problem(f"question skipped: answer {record.answer!r} is not one of the options {'/'.join(letters)}")
        return None
    letter = found.group(1)
    if letter != record.answer:
        report.variants.add(f"{label} answer written {record.answer!r} (read as {letter!r})", at)
    if len(options) != 3:
        report.variants.add(f"{label} with {len(options)} options", at)
    return BenchmarkItem(
        id=release_question_id(benchmark, index, "tendency", scope, n), benchmark=benchmark, task=TASK_TENDENCY,
        form="multi-choice", question=record.question, choices=[c for _, c in options], answers=[letter],
        answer_index=letters.index(letter), scorer="elken-tendency",
        slices={"event_type": event_type, "relation": "tendency", "known": True, "needs_background": False,
                "scope": "in" if scope == "qas" else "out", "part": "tendency"},
        metadata={"event_id": event_id, "event": text, "candidate": record.candidate, "release": release,
                  "record": qa})


__all__ = ["ElkenRelease", "ReleaseEvent", "ReleaseProblem", "ReleaseReport", "decode_records",
           "default_release_name", "parse_options", "read_elken_release", "release_event_id",
           "release_question_id"]

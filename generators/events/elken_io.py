"""ELKEN's released format: export our events in it, import it, and salvage truncated files.

Format (a JSON list of events, METHODS.md §3)::

    {"event_type": ..., "event": ...,
     "fact": {"qas": [{"question", "subject": {id, name}, "answer": {id, name, alias: []},
                       "type": 0|1, "rel_id"}], "local_qas": [...]},
     "tendency": {"qas": [{"question", "candidate": "(A) .. (B) .. (C) ..", "answer": "A"}],
                  "local_qas": [...]}}

Unknown answers are ``{"id": "NA", "name": "unknown", "alias": ["unknown"]}``. We write
``type`` = 1 for questions that need background knowledge and 0 otherwise (our reading of the
released field; the paper does not define it). JSONL and HF exports use our own item schema.

The record schema is the pydantic model ``ElkenEvent``: the exporter builds its records with
it (field order = the released order) and the importers validate every record against it.
Keys beyond the schema are allowed on import (a released file may carry more) and kept.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowforge.errors import InputError, describe_validation_error
from knowforge.models.types import BenchmarkItem

log = logging.getLogger(__name__)

EXPORT_VERSION = "1"
FIELDS = ("fact.qas", "fact.local_qas", "tendency.qas", "tendency.local_qas")


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class ElkenEntity(_Record):
    id: str
    name: str


class ElkenAnswer(ElkenEntity):
    alias: list[str]


class FactQA(_Record):
    question: str
    subject: ElkenEntity
    answer: ElkenAnswer
    type: Literal[0, 1]          # 1: needs background knowledge (our reading)
    rel_id: str | None


class TendencyQA(_Record):
    question: str
    candidate: str               # "(A) .. (B) .. (C) .."
    answer: str                  # the letter


class FactQAs(_Record):
    qas: list[FactQA] = Field(default_factory=list)
    local_qas: list[FactQA] = Field(default_factory=list)


class TendencyQAs(_Record):
    qas: list[TendencyQA] = Field(default_factory=list)
    local_qas: list[TendencyQA] = Field(default_factory=list)


class ElkenEvent(_Record):
    """One event of a released ELKEN file."""

    event_type: str
    event: str
    fact: FactQAs
    tendency: TendencyQAs


def _fact_qa(item: BenchmarkItem) -> FactQA:
    return FactQA(question=item.question, subject=item.metadata["subject"],
                  answer=item.metadata["answer"],
                  type=1 if item.slices.get("needs_background") else 0,
                  rel_id=item.slices.get("relation"))


def _tendency_qa(item: BenchmarkItem) -> TendencyQA:
    candidate = " ".join(f"({'ABC'[i]}) {c}" for i, c in enumerate(item.choices))
    return TendencyQA(question=item.question, candidate=candidate, answer=item.answers[0])


def to_elken_event(event_type: str, text: str, items: Iterable[BenchmarkItem]) -> dict:
    parts: dict[str, dict[str, list]] = {"fact": {"qas": [], "local_qas": []},
                                         "tendency": {"qas": [], "local_qas": []}}
    for item in items:
        scope = "qas" if item.slices.get("scope") == "in" else "local_qas"
        if item.task == "events/tendency":
            parts["tendency"][scope].append(_tendency_qa(item))
        else:
            parts["fact"][scope].append(_fact_qa(item))
    return ElkenEvent(event_type=event_type, event=text, fact=FactQAs(**parts["fact"]),
                      tendency=TendencyQAs(**parts["tendency"])).model_dump(mode="json")


def write_elken(path: str | Path, events: list[dict]) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(events, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# --- import -------------------------------------------------------------------------------------
@dataclass
class ElkenImport:
    events: list[dict]
    counts: dict[str, int] = field(default_factory=dict)
    event_types: dict[str, int] = field(default_factory=dict)
    recovered: int = 0                 # complete events read
    damage_offset: int | None = None   # byte offset where a truncated file stops parsing
    skipped: int = 0                   # records that parsed but are not valid events
    problems: list[str] = field(default_factory=list)   # why each skipped record was skipped


def _check_event(event) -> str | None:
    """Why a decoded record is not a valid ELKEN event (``field ...: ...``), or None."""
    try:
        ElkenEvent.model_validate(event)
    except ValidationError as exc:
        return describe_validation_error(exc)
    return None


def _record_line(text: str, index: int) -> int | None:
    """The line on which record ``index`` of a JSON list starts (for error messages)."""
    decoder = json.JSONDecoder()
    pos = text.index("[") + 1
    for _ in range(index + 1):
        pos = _skip_ws(text, pos)
        if text.startswith(",", pos):
            pos = _skip_ws(text, pos + 1)
        start = pos
        _, pos = decoder.raw_decode(text, pos)
    return text.count("\n", 0, start) + 1


def _summarise(events: list[dict]) -> tuple[dict[str, int], dict[str, int]]:
    counts = {"events": len(events)}
    for name in FIELDS:
        part, scope = name.split(".")
        counts[name] = sum(len(e[part].get(scope, [])) for e in events)
    types: dict[str, int] = {}
    for e in events:
        types[e["event_type"]] = types.get(e["event_type"], 0) + 1
    return counts, dict(sorted(types.items()))


def import_elken(path: str | Path) -> ElkenImport:
    """Read a complete ELKEN file; a malformed record is an InputError naming it."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        events = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg}); if the file is truncated, use salvage",
                         path=str(path), line=exc.lineno) from exc
    if not isinstance(events, list):
        raise InputError("expected a JSON list of events", path=str(path))
    for index, event in enumerate(events):
        problem = _check_event(event)
        if problem:
            raise InputError(f"record {index}: {problem}", path=str(path),
                             line=_record_line(text, index))
    counts, types = _summarise(events)
    return ElkenImport(events, counts, types, recovered=len(events))


def salvage_elken(path: str | Path) -> ElkenImport:
    """Recover every complete event of a truncated (or otherwise damaged) ELKEN file.

    Events are decoded one by one; the first one that does not decode marks the damage, whose
    byte offset (from the start of the file) is reported. Complete but invalid records are
    skipped and counted.
    """
    path = Path(path)
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if not text.startswith("[", pos):
        return ElkenImport([], *_summarise([]), recovered=0, damage_offset=_byte(text, pos))
    pos = _skip_ws(text, pos + 1)
    events: list[dict] = []
    skipped = 0
    problems: list[str] = []
    damage = None
    index = 0
    while pos < len(text):
        if text[pos] == "]":
            break
        try:
            record, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            damage = _byte(text, pos)
            break
        problem = _check_event(record)
        if problem is None:
            events.append(record)
        else:
            skipped += 1
            problems.append(f"record {index}: {problem}")
            log.warning("%s: skipped record %d: %s", path, index, problem)
        index += 1
        pos = _skip_ws(text, end)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
        elif pos < len(text) and text[pos] == "]":
            break
        else:
            damage = _byte(text, pos)
            break
    else:
        damage = _byte(text, pos)  # the list never closed
    counts, types = _summarise(events)
    if damage is not None:
        log.warning("%s: damaged at byte %d; recovered %d complete events", path, damage, len(events))
    return ElkenImport(events, counts, types, recovered=len(events), damage_offset=damage,
                       skipped=skipped, problems=problems)


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _byte(text: str, pos: int) -> int:
    return len(text[:pos].encode("utf-8"))

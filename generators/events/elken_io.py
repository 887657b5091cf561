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

The record schema of what we write is the pydantic model ``ElkenEvent`` (field order = the
released order); an imported question is written back as the record it was read from. Reading
a release, with the variants real files carry, is ``elken_release.read_elken_release``;
``import_elken`` and ``salvage_elken`` here are its raw-record view.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowforge.errors import InputError
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


def to_elken_event(event_type: str, text: str, items: Iterable[BenchmarkItem],
                   extra: dict | None = None) -> dict:
    """One event in the released layout. An imported question keeps the record it was read
    from (``metadata.record``), so an imported release exports as released; ``extra`` adds
    the release's event-level keys beyond the schema."""
    parts: dict[str, dict[str, list]] = {"fact": {"qas": [], "local_qas": []},
                                         "tendency": {"qas": [], "local_qas": []}}
    for item in items:
        scope = "qas" if item.slices.get("scope") == "in" else "local_qas"
        part = "tendency" if item.task == "events/tendency" else "fact"
        record = item.metadata.get("record")
        if record is None:
            record = (_tendency_qa(item) if part == "tendency" else _fact_qa(item)).model_dump(mode="json")
        parts[part][scope].append(record)
    return {"event_type": event_type, "event": text, **parts, **(extra or {})}


def write_elken(path: str | Path, events: list[dict]) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(events, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# --- import (read_elken_release does the reading) ------------------------------------------------
@dataclass
class ElkenImport:
    events: list[dict]
    counts: dict[str, int] = field(default_factory=dict)
    event_types: dict[str, int] = field(default_factory=dict)
    recovered: int = 0                 # complete events read
    damage_offset: int | None = None   # byte offset where a truncated file stops parsing
    skipped: int = 0                   # events and questions that could not be read
    problems: list[str] = field(default_factory=list)   # where and why each was skipped
    variants: dict[str, int] = field(default_factory=dict)   # accepted differences from the schema


def _summarise(events: list[dict]) -> tuple[dict[str, int], dict[str, int]]:
    counts = {"events": len(events)}
    for name in FIELDS:
        part, scope = name.split(".")
        counts[name] = sum(len(e[part].get(scope, [])) if isinstance(e.get(part), dict) else 0 for e in events)
    types: dict[str, int] = {}
    for e in events:
        key = e.get("event_type") or "unknown"
        types[key] = types.get(key, 0) + 1
    return counts, dict(sorted(types.items()))


def salvage_elken(path: str | Path) -> ElkenImport:
    """Every complete event of an ELKEN file, whole or truncated (``read_elken_release``):
    the byte offset of the damage, every variant counted, every unreadable record listed."""
    from .elken_release import read_elken_release

    release = read_elken_release(path)
    report = release.report
    events = [dict(e.record) for e in release.events]
    counts, types = _summarise(events)
    if report.truncated:
        log.warning("%s", report.damage_note())
    return ElkenImport(events, counts, types, recovered=len(events), damage_offset=report.damage_offset,
                       skipped=report.events_skipped + sum(report.questions_skipped.values()),
                       problems=[str(p) for p in report.problems], variants=dict(report.variants))


def import_elken(path: str | Path) -> ElkenImport:
    """``salvage_elken`` for a file that must be whole: an InputError at the damage."""
    result = salvage_elken(path)
    if result.damage_offset is not None:
        raise InputError(f"not valid JSON at byte {result.damage_offset} (a truncated file? "
                         f"{result.recovered} complete events precede it; salvage_elken reads them)",
                         path=str(path))
    return result

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
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from knowforge.errors import InputError
from knowforge.models.types import BenchmarkItem

log = logging.getLogger(__name__)

EXPORT_VERSION = "1"
FIELDS = ("fact.qas", "fact.local_qas", "tendency.qas", "tendency.local_qas")


def _fact_qa(item: BenchmarkItem) -> dict:
    return {"question": item.question, "subject": item.metadata["subject"],
            "answer": item.metadata["answer"],
            "type": 1 if item.slices.get("needs_background") else 0,
            "rel_id": item.slices.get("relation")}


def _tendency_qa(item: BenchmarkItem) -> dict:
    candidate = " ".join(f"({'ABC'[i]}) {c}" for i, c in enumerate(item.choices))
    return {"question": item.question, "candidate": candidate, "answer": item.answers[0]}


def to_elken_event(event_type: str, text: str, items: Iterable[BenchmarkItem]) -> dict:
    out = {"event_type": event_type, "event": text,
           "fact": {"qas": [], "local_qas": []}, "tendency": {"qas": [], "local_qas": []}}
    for item in items:
        scope = "qas" if item.slices.get("scope") == "in" else "local_qas"
        if item.task == "events/tendency":
            out["tendency"][scope].append(_tendency_qa(item))
        else:
            out["fact"][scope].append(_fact_qa(item))
    return out


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


def _check_event(event, index: int, path: str) -> str | None:
    if not isinstance(event, dict):
        return f"record {index} is not an object"
    for key in ("event_type", "event", "fact", "tendency"):
        if key not in event:
            return f"record {index} lacks {key!r}"
    for part in ("fact", "tendency"):
        if not isinstance(event[part], dict) or not all(isinstance(event[part].get(s, []), list)
                                                         for s in ("qas", "local_qas")):
            return f"record {index}: {part} needs lists qas and local_qas"
    return None


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
        problem = _check_event(event, index, str(path))
        if problem:
            raise InputError(problem, path=str(path), record=str(index))
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
        if _check_event(record, index, str(path)) is None:
            events.append(record)
        else:
            skipped += 1
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
                       skipped=skipped)


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _byte(text: str, pos: int) -> int:
    return len(text[:pos].encode("utf-8"))

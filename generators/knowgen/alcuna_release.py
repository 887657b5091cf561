"""Read a released ALCUNA dataset (``meta_data.jsonl`` + ``id2question.json``) into entities and
items. A pure function of the files: no graph (``release_import.py`` stores what it returns).

The layout is the one METHODS.md §1 and the ALCUNA README give; ``alcuna_schema.py`` is the
strict schema our exporter writes. A release differs from it, and every difference is
accepted and counted (``report.variants``):

* ``meta_data.related_property`` is a property structure ``{name, type, values}``, or for a
  variation the pair ``[old, new]`` (the README's wording), where our export writes the
  property's name;
* ids are numbers or strings (``-328614`` / ``"-328614"``), ``rank`` or ``parent_entity`` may
  be missing, a property's ``values`` may be one bare value, ``answers`` one bare answer;
* forms and types are spelled differently (``multiple-choice``, ``KU``);
* multi-choice options are written in the question (``A. x`` lines or ``(A) x (B) y``), the
  gold as a letter, a letter and its text, or the text;
* keys beyond the schema are kept on the raw record and counted.

A line or question that cannot be read (not JSON, no question text, no answers, options that
cannot be found, an entity id missing from ``meta_data.jsonl``) is skipped and listed with the
file, line and reason.
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
from knowforge.kg.release_input import (parse_release_json, read_release_text, record_problem, release_file,
                                        release_lines)
from knowforge.models.release_report import Variants
from knowforge.models.types import BenchmarkItem

from .questions import SCORERS, TYPE_NAMES, UNKNOWN_ANSWERS

META_FILE = "meta_data.jsonl"
QUESTION_FILE = "id2question.json"
TYPES = {v.lower(): k for k, v in TYPE_NAMES.items()} | {k.lower(): k for k in TYPE_NAMES}
FORMS = {"boolean": "boolean", "bool": "boolean", "yes/no": "boolean", "true/false": "boolean",
         "fill-in-blank": "fill-in-blank", "fill-in-the-blank": "fill-in-blank", "fill_in_blank": "fill-in-blank",
         "blank": "fill-in-blank", "multi-choice": "multi-choice", "multiple-choice": "multi-choice",
         "multi_choice": "multi-choice", "multiple choice": "multi-choice", "mc": "multi-choice"}
DIFFERENCES = ("heredity", "variation", "dropout", "extension")
META_KEYS = frozenset({"artificial_entity", "parent_entity", "difference"})
QUESTION_KEYS = frozenset({"question", "answers", "form", "type", "meta_data"})
UNKNOWN_TEXTS = frozenset({"unknown", "i don't know", "i do not know", "not known", "none of the above"})
_LINE_OPTION = re.compile(r"^\s*\(?([A-H])[.)]\s*(.+?)\s*$")
_INLINE_OPTION = re.compile(r"\(([A-H])\)")
_LETTER = re.compile(r"^\(?([A-H])[.)]?$")


def _text(value: Any) -> Any:
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def _as_list(value: Any) -> Any:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class ReleaseProperty(_Record):
    name: str = Field(min_length=1)
    type: str = "attribute"
    values: list[str] = Field(default_factory=list)

    @field_validator("values", mode="before")
    @classmethod
    def _values(cls, value: Any) -> Any:
        return [_text(v) for v in _as_list(value)]


class ReleaseEntity(_Record):
    name: str = Field(min_length=1)
    id: int
    rank: str | None = None
    property: list[ReleaseProperty] = Field(default_factory=list)

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> Any:
        return int(value.strip()) if isinstance(value, str) and value.strip().lstrip("-").isdigit() else value


class ReleaseMeta(_Record):
    artificial_entity: ReleaseEntity
    parent_entity: ReleaseEntity | None = None
    difference: dict[str, list[Any]] = Field(default_factory=dict)


class ReleaseQuestion(_Record):
    question: str = Field(min_length=1)
    answers: list[str] = Field(min_length=1)
    form: str
    type: str
    meta_data: dict[str, Any] = Field(default_factory=dict)

    @field_validator("answers", mode="before")
    @classmethod
    def _answers(cls, value: Any) -> Any:
        return [_text(v) for v in _as_list(value)]


# --- what the reader returns ----------------------------------------------------------------------
@dataclass(frozen=True)
class ReleaseProblem:
    path: str
    line: int | None
    record: str
    reason: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}, {self.record}: {self.reason}"


@dataclass
class ReleaseReport:
    meta_path: str
    question_path: str
    entities: int = 0
    lines_skipped: int = 0
    questions: Counter = field(default_factory=Counter)           # by type (KU, KD, KA)
    questions_skipped: int = 0
    forms: Counter = field(default_factory=Counter)
    variants: Variants = field(default_factory=Variants)          # what differed, and where first
    problems: list[ReleaseProblem] = field(default_factory=list)


@dataclass(frozen=True)
class ReleaseEntityRecord:
    """One artificial entity as released, with the benchmark's ids."""

    id: str                              # the graph id: alcuna:<batch>:<alcuna id>
    alcuna_id: int
    name: str
    rank: str | None
    parent: ReleaseEntity | None
    properties: tuple[ReleaseProperty, ...]
    differences: Mapping[str, tuple[str, ...]]     # property name -> its difference kinds
    line: int
    record: Mapping[str, Any]


class AlcunaRelease(NamedTuple):
    entities: list[ReleaseEntityRecord]
    items: list[BenchmarkItem]
    report: ReleaseReport


def release_files(paths) -> tuple[Path, Path]:
    """``meta_data.jsonl`` and ``id2question.json`` among ``paths`` (files or folders)."""
    found: dict[str, Path] = {}
    for p in map(Path, paths):
        for f in (sorted(p.rglob("*")) if p.is_dir() else [p]):
            if f.name in (META_FILE, QUESTION_FILE):
                found.setdefault(f.name, release_file(f, f"ALCUNA's {f.name}"))
    missing = [n for n in (META_FILE, QUESTION_FILE) if n not in found]
    if missing:
        raise InputError(f"an ALCUNA release needs {META_FILE} and {QUESTION_FILE}; missing "
                         + ", ".join(missing), path=str(Path(paths[0])))
    return found[META_FILE], found[QUESTION_FILE]


def entity_graph_id(benchmark: str, alcuna_id: int) -> str:
    return f"alcuna:{benchmark.split(':', 1)[-1]}:{alcuna_id}"


def question_id(benchmark: str, alcuna_id: int, n: int) -> str:
    """``knowgen:<batch>:<alcuna id>:q<n>``: the benchmark is in every id."""
    return f"{benchmark}:{alcuna_id}:q{n:03d}"


def read_alcuna_release(paths, *, benchmark: str = "knowgen:alcuna") -> AlcunaRelease:
    meta_path, question_path = release_files(list(paths))
    report = ReleaseReport(str(meta_path), str(question_path))
    entities = _read_meta(meta_path, benchmark, report)
    by_alcuna = {e.alcuna_id: e for e in entities}
    items = _read_questions(question_path, benchmark, by_alcuna, report)
    if not items:
        # a truncated or emptied release must not register as an empty benchmark
        first = f" (first problem: {report.problems[0]})" if report.problems else ""
        raise InputError(f"no question could be read: {report.entities} artificial entities, "
                         f"{report.questions_skipped} questions skipped{first}", path=str(question_path))
    return AlcunaRelease(entities, items, report)


def _read_meta(path: Path, benchmark: str, report: ReleaseReport) -> list[ReleaseEntityRecord]:
    entities: dict[int, ReleaseEntityRecord] = {}
    repaired: list[tuple[int, str]] = []
    for line_no, line in release_lines(path, repaired):
        while repaired:
            at, why = repaired.pop(0)
            report.problems.append(ReleaseProblem(str(path), at, "meta line", f"{why}: line kept"))
        if not line.strip():
            continue

        def skip(reason: str, line_no=line_no) -> None:
            report.lines_skipped += 1
            report.problems.append(ReleaseProblem(str(path), line_no, "meta line", reason))

        try:
            raw = parse_release_json(line)
        except ValueError as exc:
            skip(f"not JSON ({getattr(exc, 'msg', exc)}): line skipped")
            continue
        refused = record_problem(raw)
        if refused:
            skip(f"{refused}: line skipped")
            continue
        try:
            meta = ReleaseMeta.model_validate(raw)
        except ValidationError as exc:
            skip(f"{describe_validation_error(exc)}: line skipped")
            continue
        entity = meta.artificial_entity
        if entity.id in entities:
            skip(f"artificial entity {entity.id} again (first on line {entities[entity.id].line}): "
                 "line skipped")
            continue
        _meta_variants(raw, meta, report, f"{path}:{line_no}")
        entities[entity.id] = ReleaseEntityRecord(
            id=entity_graph_id(benchmark, entity.id), alcuna_id=entity.id, name=entity.name,
            rank=entity.rank, parent=meta.parent_entity, properties=tuple(entity.property),
            differences=_differences(meta.difference, report, f"{path}:{line_no}"), line=line_no, record=raw)
    report.entities = len(entities)
    return list(entities.values())


def _meta_variants(raw: Mapping, meta: ReleaseMeta, report: ReleaseReport, where: str) -> None:
    def v(key: str) -> None:
        report.variants.add(key, where)

    for key in sorted(set(raw) - META_KEYS):
        v(f"meta line with extra key {key!r}")
    art = raw["artificial_entity"]
    if not isinstance(art.get("id"), int):
        v("entity id as a string")
    if "rank" not in art:
        v("artificial entity without rank")
    if meta.parent_entity is None:
        v("meta line without parent_entity")
    if "difference" not in raw:
        v("meta line without difference")
    for entity in (art, raw.get("parent_entity") or {}):
        for prop in entity.get("property") or []:
            if isinstance(prop, Mapping) and not isinstance(prop.get("values"), list):
                v("property values as one bare value")
            if isinstance(prop, Mapping) and prop.get("type") not in ("attribute", "relation"):
                v(f"property type {prop.get('type')!r} (read as attribute)")


def _prop_name(value: Any) -> str | None:
    if isinstance(value, Mapping):
        return value.get("name")
    if isinstance(value, list) and value:
        return _prop_name(value[-1])      # a variation pair [old, new]: the new property
    return value if isinstance(value, str) else None


def _differences(difference: Mapping[str, list], report: ReleaseReport, where: str) -> dict[str, tuple[str, ...]]:
    """Property name -> the difference kinds it appears under (variation: the new property)."""
    out: dict[str, list[str]] = {}
    for kind, props in difference.items():
        if kind not in DIFFERENCES:
            report.variants.add(f"difference kind {kind!r}", where)
        for prop in props or []:
            name = _prop_name(prop)
            if name:
                out.setdefault(name, [])
                if kind not in out[name]:
                    out[name].append(kind)
    return {k: tuple(v) for k, v in out.items()}


def _question_lines(text: str, keys) -> dict[str, int]:
    """The line on which each entity's question list starts in id2question.json."""
    lines: dict[str, int] = {}
    for key in keys:
        at = text.find(json.dumps(key))
        if at >= 0:
            lines[key] = text.count("\n", 0, at) + 1
    return lines


def _read_questions(path: Path, benchmark: str, entities: dict[int, ReleaseEntityRecord],
                    report: ReleaseReport) -> list[BenchmarkItem]:
    repaired: list[tuple[int, str]] = []
    text = read_release_text(path, repaired)
    for at, why in repaired:
        report.problems.append(ReleaseProblem(str(path), at, "questions", f"{why}: kept"))
    try:
        data = parse_release_json(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg}; a truncated file?)", path=str(path), line=exc.lineno) from exc
    except ValueError as exc:
        raise InputError(f"not readable JSON: {exc}", path=str(path)) from exc
    if not isinstance(data, Mapping):
        raise InputError("expected an object {entity id: [question, ...]}", path=str(path))
    lines = _question_lines(text, data)
    items: list[BenchmarkItem] = []
    for key, questions in data.items():
        line = lines.get(key)

        def problem(record: str, reason: str, line=line) -> None:
            report.problems.append(ReleaseProblem(str(path), line, record, reason))

        try:
            alcuna_id = int(str(key).strip())
        except ValueError:
            alcuna_id = None
        questions = questions if isinstance(questions, list) else None
        if questions is None:
            report.questions_skipped += 1
            problem(f"entity {key}", "not a list of questions: skipped")
            continue
        entity = entities.get(alcuna_id) if alcuna_id is not None else None
        if entity is None:
            report.questions_skipped += len(questions)
            problem(f"entity {key}", f"not an artificial entity of {META_FILE}: its {len(questions)} "
                                     "questions skipped")
            continue
        for n, raw in enumerate(questions):
            refused = record_problem(raw)
            if refused:
                report.questions_skipped += 1
                problem(f"entity {key} [{n}]", f"{refused}: skipped")
                continue
            item = _item(raw, n, entity, benchmark, report, lambda r, n=n: problem(f"entity {key} [{n}]", r),
                         release={"file": path.name, "entity": key, "index": n, "line": line})
            if item is None:
                report.questions_skipped += 1
                continue
            report.questions[item.slices["type"]] += 1
            report.forms[item.form] += 1
            items.append(item)
    return items


def knowledge_passage(entity: ReleaseEntityRecord) -> str:
    """The entity's properties as sentences (the in-context setting, like a generated batch's)."""
    sentences = [f"{entity.name} is a {entity.rank}." if entity.rank else f"{entity.name} is an organism."]
    for prop in entity.properties:
        values = [v for v in prop.values if v]
        if not values:
            continue
        joined = values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]
        if prop.type == "relation":
            sentences.append(f"{entity.name} {prop.name} {joined}.")
        else:
            sentences.append(f"The {prop.name} of {entity.name} is {joined}.")
    return " ".join(sentences)


def split_options(question: str) -> tuple[str, list[str]]:
    """A multi-choice question's stem and options: ``A. x`` lines, or ``(A) x (B) y`` inline."""
    stem_lines, options = [], []
    for line in question.split("\n"):
        found = _LINE_OPTION.match(line)
        if found and found.group(1) == "ABCDEFGH"[len(options)]:
            options.append(found.group(2))
        elif not options:
            stem_lines.append(line)
    if len(options) >= 2:
        return "\n".join(stem_lines).strip(), options
    parts = _INLINE_OPTION.split(question)
    letters = parts[1::2]
    if len(letters) >= 2 and letters == list("ABCDEFGH"[:len(letters)]):
        return parts[0].strip(), [p.strip() for p in parts[2::2]]
    return question, []


def _is_unknown(answers: list[str]) -> bool:
    return bool(answers) and all(a.strip().lower().rstrip(".") in UNKNOWN_TEXTS for a in answers)


def _item(raw: Any, n: int, entity: ReleaseEntityRecord, benchmark: str, report: ReleaseReport, problem,
          release: dict) -> BenchmarkItem | None:
    try:
        q = ReleaseQuestion.model_validate(raw)
    except ValidationError as exc:
        problem(f"question skipped: {describe_validation_error(exc)}")
        return None
    where = f"{report.question_path}:{release['line']}, entity {release['entity']} [{release['index']}]"

    def v(key: str) -> None:
        report.variants.add(key, where)

    for key in sorted(set(raw) - QUESTION_KEYS):
        v(f"question with extra key {key!r}")
    if not isinstance(raw["answers"], list):
        v("answers as one bare value")
    form = FORMS.get(q.form.strip().lower())
    qtype = TYPES.get(q.type.strip().lower())
    if form is None or qtype is None:
        problem(f"question skipped: form {q.form!r} / type {q.type!r} not recognised")
        return None
    if form != q.form:
        v(f"form written {q.form!r}")
    if TYPE_NAMES[qtype] != q.type:
        v(f"type written {q.type!r}")
    meta = q.meta_data
    related = meta.get("related_property")
    if isinstance(related, Mapping):
        v("related_property as a property structure")
    elif isinstance(related, list):
        v("related_property as an [old, new] pair")
    related_name = _prop_name(related) or ""
    difference = meta.get("difference")
    if difference not in DIFFERENCES:
        guessed = (entity.differences.get(related_name) or ("heredity",))[0]
        v(f"difference {difference!r} (read from meta_data.jsonl)")
        difference = guessed
    hops = meta.get("hop_triplets")
    if qtype == "KA" and not (isinstance(hops, list) and len(hops) >= 2):
        v("KA question without hop_triplets (2+ hops)")
    question, answers = q.question, [a for a in q.answers if a.strip()]
    if not answers:
        problem("question skipped: no answer")
        return None
    unknown = _is_unknown(answers)
    choices: list[str] = []
    answer_index = None
    if form == "multi-choice":
        question, choices = split_options(q.question)
        answer_index = _gold_index(answers, choices)
        if not choices or answer_index is None:
            problem(f"question skipped: multi-choice options {choices or 'not found'}, gold {answers!r} not among them")
            return None
        answers = [choices[answer_index]]
        unknown = _is_unknown(answers)
    elif form == "boolean" and not unknown:
        lowered = [a.strip().lower().rstrip(".") for a in answers]
        if lowered[0] not in ("yes", "no"):
            problem(f"question skipped: boolean answer {answers[0]!r} is not yes/no")
            return None
        if lowered[0] != answers[0]:
            v(f"boolean answer written {answers[0]!r}")
        answers = [lowered[0]]
    if unknown and form != "multi-choice":
        answers = list(UNKNOWN_ANSWERS)
    parent = entity.parent
    slices = {"type": qtype, "form": form, "difference": difference,
              "hop_count": len(hops) if qtype == "KA" and isinstance(hops, list) else 1}
    metadata = {"type_name": TYPE_NAMES[qtype], "related_property": related_name, "entity_name": entity.name,
                "parent_id": f"eol:{parent.id}" if parent else None, "parent_name": parent.name if parent else None,
                "alcuna_id": entity.alcuna_id, "release": release, "record": raw}
    if isinstance(hops, list):
        metadata["hop_triplets"] = hops
    return BenchmarkItem(
        id=question_id(benchmark, entity.alcuna_id, n), benchmark=benchmark, task=f"knowgen/{qtype}", form=form,
        question=question, context=knowledge_passage(entity), choices=choices, answers=answers,
        answer_index=answer_index, unknown=unknown, scorer=SCORERS[form], entity_ids=[entity.id], slices=slices,
        metadata=metadata)


def _gold_index(answers: list[str], choices: list[str]) -> int | None:
    lowered = [c.strip().lower() for c in choices]
    for answer in answers:
        letter = _LETTER.match(answer.strip())
        if letter and "ABCDEFGH".index(letter.group(1)) < len(choices):
            return "ABCDEFGH".index(letter.group(1))
        if answer.strip().lower() in lowered:
            return lowered.index(answer.strip().lower())
    return None


__all__ = ["AlcunaRelease", "ReleaseEntityRecord", "ReleaseProblem", "ReleaseReport", "entity_graph_id",
           "knowledge_passage", "question_id", "read_alcuna_release", "release_files", "split_options"]

"""ChroKnowBench's file format: export records, import released (or our) files.

Layout of a ChroKnowBench directory (as the released code reads it)::

    TimeVariant_<Domain>_Dynamic.jsonl   TimeVariant_<Domain>_Static.jsonl
    TimeInvariant_<Domain>.jsonl         Fewshots/Fewshot_<Domain>.jsonl

with <Domain> in General, Biomedical, Legal, CommonSense, Math. Lines:

* time variant: ``{subject, relation, objects_YYYY: [...], release_date_YYYY, distractor: [>=3]}``
  (General's ``objects_YYYY`` is a list of lists — an object with its aliases — as released);
* legal: ``{question (with ____), question_type, answers_YYYY: [...], release_date_YYYY, distractor}``;
* time invariant: ``{subject, relation, objects: [...], distractor}``.

Our export adds keys the released scripts ignore (``id``, ``domain``, ``subject_id``,
``relation_id``, ``change``, ``split``, ``distractor_YYYY``, ``fact_ids_YYYY``,
``subject_labels``), so export → import gives back identical records and items. A released
file without them imports too: ids are derived from the line, the temporal state from the file
name, per-year distractors from ``distractor``.

``read_chroknowbench`` reads a release tolerantly (each line validated by ``ReleaseLine``): a
line it cannot read is skipped and listed with file, line and reason, and what differs from the
layout above (``[name, alias]`` object lists, ``release_date`` values such as "2020AA", bare
values for lists, missing or short distractor lists, a subject and relation on two lines, a
``.json`` list instead of JSON lines) is accepted and counted.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from knowforge.errors import InputError, describe_validation_error
from knowforge.generators.chrono.records import ChronoRecord
from knowforge.models.release_report import Variants
from knowforge.kg.records import stable_id
from knowforge.kg.release_input import parse_release_json, read_release_text, record_problem, release_file

DOMAIN_FILE_NAMES = {"general": "General", "biomedical": "Biomedical", "legal": "Legal",
                     "commonsense": "CommonSense", "math": "Math"}
FILE_DOMAINS = {v.lower(): k for k, v in DOMAIN_FILE_NAMES.items()}
INVARIANT_YEARS = tuple(range(2020, 2025))
_YEAR_KEY = re.compile(r"^(objects|answers|release_date|distractor|fact_ids)_(\d{4})$")


def _file_for(record: ChronoRecord) -> str:
    name = DOMAIN_FILE_NAMES.get(record.domain, record.domain.capitalize())
    if record.split == "fewshot":
        return f"Fewshots/Fewshot_{name}.jsonl"
    if record.change == "invariant":
        return f"TimeInvariant_{name}.jsonl"
    return f"TimeVariant_{name}_{record.change.capitalize()}.jsonl"


def record_to_line(record: ChronoRecord) -> dict:
    """One ChroKnowBench line (plus our extra keys)."""
    line: dict = {}
    if record.kind == "legal":
        line["question"] = record.question
        line["question_type"] = record.question_type
    else:
        line["subject"] = record.subject
        line["relation"] = record.relation_label or record.relation
    if record.change == "invariant":
        line["objects"] = record.objects[record.years[0]]
    else:
        for y in record.years:
            objs = record.objects[y]
            if record.kind == "legal":
                line[f"answers_{y}"] = objs
            elif record.domain == "general":
                line[f"objects_{y}"] = [[o] for o in objs]
            else:
                line[f"objects_{y}"] = objs
            line[f"release_date_{y}"] = y
    line["distractor"] = record.distractor
    line.update({"id": record.id, "domain": record.domain, "subject_id": record.subject_id,
                 "relation_id": record.relation, "subject_name": record.subject,
                 "relation_label": record.relation_label,
                 "change": record.change, "split": record.split, "subject_labels": record.subject_labels,
                 "years": record.years})
    for y in record.years:
        if y in record.distractors:
            line[f"distractor_{y}"] = record.distractors[y]
        if y in record.fact_ids:
            line[f"fact_ids_{y}"] = record.fact_ids[y]
    return line


def export_chroknowbench(records: Iterable[ChronoRecord], out_dir: str | Path) -> list[Path]:
    """Write the records into ChroKnowBench's directory layout; returns the files written."""
    out = Path(out_dir)
    groups: dict[str, list[ChronoRecord]] = {}
    for r in sorted(records, key=lambda r: r.id):
        groups.setdefault(_file_for(r), []).append(r)
    written = []
    for rel_path, recs in sorted(groups.items()):
        path = out / rel_path
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as fh:
            for r in recs:
                fh.write(json.dumps(record_to_line(r), ensure_ascii=False, sort_keys=True) + "\n")
        written.append(path)
    return written


def _flat(values) -> list[str]:
    """An object list; General's [[name, alias...], ...] keeps each object's first name."""
    out = []
    if values is not None and not isinstance(values, list):
        values = [values]
    for v in values or []:
        if isinstance(v, list):
            if v:
                out.append(str(v[0]))
        elif v is not None:
            out.append(str(v))
    return out


def line_to_record(line: dict, *, domain: str, change: str | None, split: str,
                   invariant_years: Sequence[int] = INVARIANT_YEARS) -> ChronoRecord:
    """One ChroKnowBench line → record (raises KeyError/ValueError on a malformed line)."""
    per_year: dict[str, dict[int, object]] = {}
    for key, value in line.items():
        m = _YEAR_KEY.match(key)
        if m:
            per_year.setdefault(m.group(1), {})[int(m.group(2))] = value
    legal = "question" in line and "subject" not in line
    domain = line.get("domain", domain)
    if "objects" in line:
        objs = _flat(line["objects"])
        if not objs:
            raise ValueError("no objects/answers")
        years = line.get("years") or list(invariant_years)
        objects = {int(y): list(objs) for y in years}
        change = line.get("change", "invariant")
    else:
        source = per_year.get("answers" if legal else "objects", {})
        objects = {y: _flat(v) for y, v in sorted(source.items()) if _flat(v)}
        change = line.get("change") or change
        if change is None:
            sets = {frozenset(v) for v in objects.values()}
            change = "dynamic" if len(sets) > 1 else "static"
    if not objects:
        raise ValueError("no objects/answers")
    subject = line.get("subject_name") or line.get("subject") or line.get("question", "")
    relation = line.get("relation_id") or line.get("relation") or "text"
    rid = line.get("id") or stable_id("cr:", domain, line.get("subject") or line.get("question"), relation)
    distractor = line.get("distractor") or []
    distractor = [str(d) for d in (distractor if isinstance(distractor, list) else [distractor])]
    distractors = {y: [str(d) for d in v] for y, v in per_year.get("distractor", {}).items()}
    return ChronoRecord(
        id=rid, domain=domain, kind="legal" if legal else "triplet", subject=subject,
        subject_id=line.get("subject_id"), relation=relation,
        relation_label=(line["relation_label"] if "relation_label" in line
                        else None if legal else line.get("relation")),
        question=line.get("question") if legal else None,
        question_type=line.get("question_type") if legal else None,
        objects=objects, distractor=distractor,
        distractors=distractors or {y: list(distractor) for y in objects},
        change=change, split=line.get("split", split),
        fact_ids={y: list(v) for y, v in per_year.get("fact_ids", {}).items()},
        subject_labels=list(line.get("subject_labels") or []))


def _describe(path: Path) -> tuple[str, str | None, str]:
    """(domain, change, split) from a ChroKnowBench file name."""
    stem = path.stem
    m = re.match(r"^Fewshot_(\w+)$", stem)
    if m:
        return FILE_DOMAINS.get(m.group(1).lower(), m.group(1).lower()), None, "fewshot"
    m = re.match(r"^TimeVariant_(\w+?)_(Dynamic|Static)$", stem)
    if m:
        return FILE_DOMAINS.get(m.group(1).lower(), m.group(1).lower()), m.group(2).lower(), "test"
    m = re.match(r"^TimeInvariant_(\w+)$", stem)
    if m:
        return FILE_DOMAINS.get(m.group(1).lower(), m.group(1).lower()), "invariant", "test"
    raise InputError("not a ChroKnowBench file name (TimeVariant_<Domain>_<Dynamic|Static>.jsonl, "
                     "TimeInvariant_<Domain>.jsonl or Fewshot_<Domain>.jsonl)", path=str(path))


# --- reading a release, tolerant of its variants ------------------------------------------------------
OUR_KEYS = frozenset({"id", "domain", "subject_id", "relation_id", "subject_name", "relation_label", "change",
                      "split", "subject_labels", "years"})
RELEASED_KEYS = frozenset({"subject", "relation", "objects", "distractor", "question", "question_type"})


def _scalar_text(value):
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


class ReleaseLine(BaseModel):
    """One line as a release (or our export) writes it; per-year keys are extra fields."""

    model_config = ConfigDict(extra="allow")

    subject: str | None = None
    relation: str | None = None
    question: str | None = None
    question_type: str | None = None
    objects: list | None = None
    distractor: list[str] | None = None

    _texts = field_validator("subject", "relation", "question", "question_type", mode="before")(_scalar_text)

    @field_validator("objects", mode="before")
    @classmethod
    def _objects(cls, value):
        return value if value is None or isinstance(value, list) else [value]

    @field_validator("distractor", mode="before")
    @classmethod
    def _distractor(cls, value):
        if value is None:
            return None
        return [str(v) for v in (value if isinstance(value, list) else [value]) if v is not None]


@dataclass
class ChronoImportReport:
    files: dict[str, int] = field(default_factory=dict)          # records read per file
    files_skipped: list[str] = field(default_factory=list)       # "path: why"
    lines_skipped: Counter = field(default_factory=Counter)      # by reason
    duplicates: int = 0
    variants: Variants = field(default_factory=Variants)         # what differed, and where first
    problems: list[str] = field(default_factory=list)            # "path:line: why", skipped lines

    def skip(self, path: Path, line: int, reason: str, kind: str) -> None:
        self.lines_skipped[kind] += 1
        self.problems.append(f"{path}:{line}: {reason}")


_NOT_JSON = object()


def _file_lines(path: Path, report: ChronoImportReport) -> list[tuple[int, object]]:
    """(line or index, decoded value) of a JSONL file, or of a JSON list (``.json``); a line
    that is not JSON comes as ``(line, (_NOT_JSON, message))``, in its place."""
    repaired: list[tuple[int, str]] = []
    text = read_release_text(path, repaired)
    report.problems.extend(f"{path}:{line}: {why}: kept" for line, why in repaired)
    if text.lstrip().startswith("["):
        try:
            values = parse_release_json(text)
        except json.JSONDecodeError as exc:
            return [(exc.lineno, (_NOT_JSON, f"{exc.msg}: the file is skipped"))]
        except ValueError as exc:
            return [(1, (_NOT_JSON, f"{exc}: the file is skipped"))]
        report.variants.add("a JSON list instead of JSON lines", str(path))
        return list(enumerate(values, 1))
    out = []
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((line_no, parse_release_json(line)))
        except ValueError as exc:
            out.append((line_no, (_NOT_JSON, getattr(exc, "msg", str(exc)))))
    return out


def _line_variants(raw: dict, line: ReleaseLine, report: ChronoImportReport, where: str) -> None:
    def v(key: str) -> None:
        report.variants.add(key, where)

    for key, value in (line.model_extra or {}).items():
        m = _YEAR_KEY.match(key)
        if m is None:
            if key not in OUR_KEYS:
                v(f"extra key {key!r}")
            continue
        kind, year = m.group(1), m.group(2)
        if kind in ("objects", "answers"):
            if not isinstance(value, list):
                v(f"{kind}_YYYY as one bare value")
            elif any(isinstance(x, list) for x in value):
                if any(isinstance(x, list) and len(x) > 1 for x in value):
                    v(f"{kind}_YYYY as [name, alias, ...] lists (the first name is kept)")
                else:
                    v(f"{kind}_YYYY as [name] lists")
            elif not value:
                v(f"{kind}_YYYY empty (no object that year)")
            elif any(isinstance(x, (int, float)) for x in value):
                v(f"{kind}_YYYY with numbers (read as text)")
            if f"release_date_{year}" not in raw:
                v("objects_YYYY without release_date_YYYY")
        elif kind == "release_date":
            if not any(f"{k}_{year}" in raw for k in ("objects", "answers")):
                v("release_date_YYYY without objects that year")
            if str(value)[:4] != year:
                v("release_date_YYYY whose value names another year")
            elif not isinstance(value, int):
                v(f"release_date_YYYY written as {'text' if isinstance(value, str) else type(value).__name__}")
    if isinstance(raw.get("objects"), list) and any(isinstance(x, (int, float)) for x in raw["objects"]):
        v("objects with numbers (read as text)")
    elif "objects" in raw and not isinstance(raw["objects"], list):
        v("objects as one bare value")
    if line.distractor is None:
        v("no distractor (mcqa/tf have fewer options)")
    elif len(line.distractor) < 3:
        v("fewer than 3 distractors (mcqa/tf have fewer options)")
    if line.distractor is not None and not isinstance(raw.get("distractor"), list):
        v("distractor as one bare value")


def read_chroknowbench(paths: Iterable[str | Path]) -> tuple[list[ChronoRecord], ChronoImportReport]:
    """Records of ChroKnowBench files or folders (recursively; ``.jsonl``, or ``.json`` lists)
    and a report: lines read per file, every skipped line with file, line and reason, every
    variant met. A line whose subject and relation another line already has is kept under its
    own id unless it is the same record again (then it is counted as a duplicate)."""
    report = ChronoImportReport()
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            # a folder named like a release file is refused by name, never skipped in silence
            files.extend(release_file(f, "a ChroKnowBench file")
                         for f in sorted(p.rglob("*")) if f.suffix in (".jsonl", ".json"))
        elif p.is_file():
            files.append(p)
        else:
            raise InputError("no such file or directory", path=str(p))
    records: dict[str, ChronoRecord] = {}
    for path in files:
        try:
            domain, change, split = _describe(path)
        except InputError as exc:
            report.files_skipped.append(str(exc))
            continue
        read = 0
        for line_no, raw in _file_lines(path, report):
            if isinstance(raw, tuple) and raw[0] is _NOT_JSON:
                report.skip(path, line_no, f"not JSON ({raw[1]})", "malformed JSON")
                continue
            if not isinstance(raw, dict):
                report.skip(path, line_no, f"not an object ({type(raw).__name__})", "not an object")
                continue
            refused = record_problem(raw)
            if refused:
                report.skip(path, line_no, refused, "refused record")
                continue
            try:
                line = ReleaseLine.model_validate(raw)
                rec = line_to_record(raw, domain=domain, change=change, split=split)
            except ValidationError as exc:
                report.skip(path, line_no, describe_validation_error(exc), "malformed record")
                continue
            except (KeyError, ValueError, TypeError) as exc:
                report.skip(path, line_no, f"not a ChroKnowBench record: {exc}", "malformed record")
                continue
            _line_variants(raw, line, report, f"{path}:{line_no}")
            if rec.id in records:
                if records[rec.id].model_dump(exclude={"id"}) == rec.model_dump(exclude={"id"}):
                    report.duplicates += 1
                    report.problems.append(f"{path}:{line_no}: the same record as {rec.id} again: skipped")
                    continue
                if "id" in raw:
                    report.skip(path, line_no, f"id {rec.id} is used by another record", "id used twice")
                    continue
                report.variants.add("a subject and relation on two lines (both kept)", f"{path}:{line_no}")
                rec = rec.model_copy(update={"id": stable_id("cr:", domain, rec.subject, rec.relation,
                                                              path.name, line_no)})
            records[rec.id] = rec
            read += 1
        report.files[str(path)] = read
    if not records:
        first = f" (first problem: {report.problems[0]})" if report.problems else ""
        raise InputError(f"no ChroKnowBench record could be read from {len(files)} file(s){first}",
                         path=str(files[0]) if files else None)
    return sorted(records.values(), key=lambda r: r.id), report


def import_chroknowbench(paths: Iterable[str | Path]) -> list[ChronoRecord]:
    """``read_chroknowbench`` for files that must be whole (export → import round trips): an
    InputError at the first line it could not read."""
    records, report = read_chroknowbench(paths)
    if report.problems and report.lines_skipped:
        first = next(p for p in report.problems if "again: skipped" not in p)
        where, _, reason = first.partition(": ")
        path, _, line = where.rpartition(":")
        raise InputError(reason, path=path, line=int(line))
    return records

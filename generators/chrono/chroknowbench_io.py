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
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from knowforge.errors import InputError
from knowforge.generators.chrono.records import ChronoRecord
from knowforge.kg.records import stable_id

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
    distractor = [str(d) for d in line.get("distractor") or []]
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


def import_chroknowbench(paths: Iterable[str | Path], *, skipped: list[str] | None = None) -> list[ChronoRecord]:
    """Records of ChroKnowBench files or directories (recursively). A malformed line raises
    ``InputError`` naming file and line; ids repeated across files keep the first."""
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*.jsonl")))
        elif p.is_file():
            files.append(p)
        else:
            raise InputError("no such file or directory", path=str(p))
    records: dict[str, ChronoRecord] = {}
    for path in files:
        domain, change, split = _describe(path)
        with path.open(encoding="utf-8") as fh:
            for line_no, text in enumerate(fh, 1):
                if not text.strip():
                    continue
                try:
                    line = json.loads(text)
                    rec = line_to_record(line, domain=domain, change=change, split=split)
                except (json.JSONDecodeError, KeyError, ValueError, TypeError) as exc:
                    raise InputError(f"not a ChroKnowBench line: {exc}", path=str(path), line=line_no) from exc
                if rec.id in records:
                    if skipped is not None:
                        skipped.append(f"{path}:{line_no}: duplicate id {rec.id}")
                    continue
                records[rec.id] = rec
    return sorted(records.values(), key=lambda r: r.id)

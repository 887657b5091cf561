"""NewTerm's released layout, in and out.

A release folder (``benchmark_2022/``, ``multilingual_2024/``, ...) holds JSONL files, one
record a line, keys sorted, written as ``json.dumps(record, sort_keys=True, indent=0,
ensure_ascii=False)`` with the newlines of the indentation turned into spaces
(``{ "choices": [ "a", "b" ], "gold": 0, ... }``):

=====================  ==============================================================
file                   record
=====================  ==============================================================
COMA[_clean].jsonl     {choices[4], gold, meaning, question, split: cause|effect, term, type}
COST[_clean].jsonl     {choices[4], gold, meaning, question (one "_"), term, type}
CSJ[_clean].jsonl      {gold: true|false, meaning, question, term, type}
new_terms.jsonl        {meaning, term, type}
term_generation.jsonl  {meaning, phrases[5], term, type?}
=====================  ==============================================================

``type`` is the term's category (``new words not deduced``, ``new phrases not deduced``,
``frequently word not deduced``) or, in the multilingual set, a language. Some files of the
official repository carry a ``.json`` suffix over the same JSONL content; sample folders add
a number (``COMA_4.jsonl``); both are read.

Every question becomes a ``BenchmarkItem`` whose metadata keeps the record as released, the
file and the line; every other line becomes a ``(:ReleaseRecord)``. Export writes each file
back from those, so import → export reproduces a release byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from knowforge.kg.loaders.newterms import category_of, entity_id, meaning_fact_id
from knowforge.models.types import BenchmarkItem

TASKS = ("COMA", "COST", "CSJ")
VARIANTS = ("raw", "clean")
TERMS_FILE = "new_terms.jsonl"
RELATED_FILE = "term_generation.jsonl"
# our categories → the release's type names
RELEASE_TYPES = {"new word": "new words not deduced", "new phrase": "new phrases not deduced",
                 "new meaning": "frequently word not deduced"}
_QUESTION_FILE = re.compile(r"^(COMA|COST|CSJ)(_clean)?(?:_(\d+))?\.jsonl?$")
_YEAR = re.compile(r"(?<!\d)(20\d\d)(?!\d)")


def dump_line(record: Mapping) -> str:
    """One record the way the official scripts write it (without the newline)."""
    return json.dumps(record, sort_keys=True, indent=0, ensure_ascii=False).replace("\n", " ")


def release_type(category: str, term_type: str | None = None) -> str:
    """The ``type`` a record carries: the term list's own release type when it has one, the
    release name of our category, or the category itself (a language)."""
    if term_type in RELEASE_TYPES.values():
        return term_type
    return RELEASE_TYPES.get(category, term_type or category)


@dataclass(frozen=True)
class ReleaseFile:
    path: Path
    kind: str                     # question | terms | related
    task: str | None = None       # COMA, COST, CSJ
    variant: str | None = None    # raw, clean
    sample: str | None = None     # the number of a sample file (COMA_4.jsonl → "4")

    @property
    def name(self) -> str:
        """The file name an export writes (always ``.jsonl``)."""
        if self.kind == "terms":
            return TERMS_FILE
        if self.kind == "related":
            return RELATED_FILE
        return question_file(self.task, self.variant, self.sample)


def question_file(task: str, variant: str | None = "raw", sample: str | None = None) -> str:
    return f"{task}{'_clean' if variant == 'clean' else ''}{f'_{sample}' if sample else ''}.jsonl"


def classify(path: Path) -> ReleaseFile | None:
    """What a file of a release folder holds, from its name; None for anything else."""
    stem = path.name
    if stem in ("new_terms.jsonl", "new_terms.json", "new_terms.txt"):
        return ReleaseFile(path, "terms")
    if stem in ("term_generation.jsonl", "term_generation.json"):
        return ReleaseFile(path, "related")
    match = _QUESTION_FILE.match(stem)
    if match:
        return ReleaseFile(path, "question", match.group(1), "clean" if match.group(2) else "raw", match.group(3))
    return None


def release_files(paths: Sequence[Path]) -> tuple[list[ReleaseFile], list[Path]]:
    """(recognised files in a stable order, files that are not part of a release)."""
    found, other = [], []
    for path in paths:
        # a folder named like a release file is a candidate too: refused by name when read
        candidates = sorted(p for p in path.rglob("*") if p.is_file() or classify(p)) if path.is_dir() else [path]
        for candidate in candidates:
            spec = classify(candidate)
            if spec is None:
                other.append(candidate)
            else:
                found.append(spec)
    order = {"terms": 0, "related": 1, "question": 2}
    found.sort(key=lambda f: (order[f.kind], f.name, str(f.path)))
    names = [f.name for f in found]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        from knowforge.errors import InputError

        raise InputError(f"two files would both be {', '.join(duplicates)} in one benchmark; import the "
                         "folders one at a time (one benchmark each)", path=str(paths[0]))
    return found, other


def year_from_paths(paths: Sequence[Path]) -> int | None:
    """The year a release folder is named after (``benchmark_2022`` → 2022)."""
    for path in paths:
        for part in reversed(Path(path).resolve().parts):
            match = _YEAR.search(part)
            if match:
                return int(match.group(1))
    return None


# --- records ↔ items ------------------------------------------------------------------------

def _text(record: Mapping, key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"'{key}' must be a non-empty string")
    return value


def check_record(record, task: str) -> None:
    """ValueError when ``record`` does not have the release's fields for ``task``."""
    if not isinstance(record, dict):
        raise ValueError("a record must be a JSON object")
    for key in ("question", "term", "meaning"):
        _text(record, key)
    if not isinstance(record.get("type", ""), str):
        raise ValueError("'type' must be a string")
    if task == "CSJ":
        if not isinstance(record.get("gold"), bool):
            raise ValueError("CSJ gold must be true or false")
        return
    choices = record.get("choices")
    if not isinstance(choices, list) or len(choices) < 2 or not all(isinstance(c, str) for c in choices):
        raise ValueError("'choices' must be a list of strings")
    gold = record.get("gold")
    if not isinstance(gold, int) or isinstance(gold, bool) or not 0 <= gold < len(choices):
        raise ValueError(f"'gold' must be a choice index 0..{len(choices) - 1}")
    if task == "COMA" and record.get("split") not in ("cause", "effect"):
        raise ValueError("COMA 'split' must be cause or effect")


def entry_key(term: str, meaning: str) -> str:
    return hashlib.sha1(f"{term}\x1f{meaning}".encode()).hexdigest()[:12]


def entry_id(benchmark: str, term: str, meaning: str) -> str:
    return f"{benchmark}:term:{entry_key(term, meaning)}"


def make_item(record: Mapping, *, benchmark: str, task: str, variant: str | None, file: str, position: int,
              year: int | None, item_id: str, extra_slices: Mapping | None = None,
              extra_metadata: Mapping | None = None) -> BenchmarkItem:
    """The item of one release record (the record must pass ``check_record``)."""
    term, meaning = record["term"], record["meaning"]
    category = category_of(record.get("type"), term)
    slices = {"term_type": record.get("type"), "category": category, "year": year,
              "variant": variant or "raw", **(extra_slices or {})}
    if task == "COMA":
        slices["split"] = record["split"]
    task_name = f"newterm/{task}{'_clean' if variant == 'clean' else ''}"
    metadata = {"term": term, "meaning": meaning, "type": record.get("type"), "category": category,
                "release_file": file, "position": position, "record": dict(record),
                "term_id": entity_id(term), "entry_id": entry_id(benchmark, term, meaning),
                **(extra_metadata or {})}
    fact_ids = [meaning_fact_id(term, meaning, year)] if year is not None else []
    common = dict(id=item_id, benchmark=benchmark, task=task_name, question=record["question"],
                  slices=slices, entity_ids=[entity_id(term)], fact_ids=fact_ids)
    if task == "CSJ":
        gold = bool(record["gold"])
        return BenchmarkItem(**common, form="true-false", answers=["true" if gold else "false"],
                             scorer="newterm-csj", metadata={**metadata, "gold": gold})
    if task == "COMA":
        metadata["split"] = record["split"]
    choices = list(record["choices"])
    return BenchmarkItem(**common, form="multi-choice", choices=choices, answer_index=record["gold"],
                         answers=[choices[record["gold"]]], scorer="newterm-choice", metadata=metadata)


def write_files(out: Path, items: Sequence[BenchmarkItem], other: Sequence[dict]) -> list[Path]:
    """Write the release files of ``items`` (their stored records) and ``other`` lines
    (``{file, line, record_json}``) into folder ``out``; returns the files, sorted."""
    out.mkdir(parents=True, exist_ok=True)
    lines: dict[str, list[tuple[int, str, str]]] = {}
    for item in items:
        meta = item.metadata
        lines.setdefault(meta["release_file"], []).append((int(meta["position"]), item.id,
                                                           dump_line(meta["record"])))
    for row in other:
        record = json.loads(row["record_json"])
        lines.setdefault(row["file"], []).append((int(row["line"]), "", dump_line(record)))
    written = []
    for name in sorted(lines):
        path = out / name
        with path.open("w", encoding="utf-8", newline="\n") as handle:
            for _position, _id, text in sorted(lines[name]):
                handle.write(text + "\n")
        written.append(path)
    return written

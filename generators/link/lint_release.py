"""Read LINT-style JSONL (``lint_head.jsonl``, ``lint_longtail.jsonl``) into statements and the
13 probe items of each. A pure function of the files: no graph (``release_import.py`` stores it).

The LINT data has not been published with the LINK code (its README: "will be publicly
released soon"), so the layout read is ours (docs/link.md, schema version 1), which carries
every field of a LINK statement, and the minimal shape any statement list has: a ``premise``
and a ``conclusion`` per line. What differs from our layout is accepted and counted:

* the distribution from the file name (``*head*``, ``*tail*``) when a line has none, and
  ``tail`` / ``long-tail`` for ``longtail``;
* ``negation`` / ``conclusion_negation`` for ``conclusion_negated``, ``conclusion_question`` /
  ``question`` under either name, ``positive_conclusion`` for ``positive``;
* a statement without ¬C or C? gets only the templates its forms allow (1-5 and 13 need only
  C); the templates left out are counted, never silently;
* keys beyond the layout are kept on the raw record and counted.

A line that cannot be read (not JSON, no premise or conclusion) is skipped and listed with the
file, line and reason; a line repeating a statement already read is counted as a duplicate.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from knowforge.errors import InputError, describe_validation_error
from knowforge.kg.release_input import parse_release_json, record_problem, release_file, release_lines
from knowforge.models.release_report import Variants
from knowforge.models.types import BenchmarkItem

from .probe import TEMPLATES, render
from .statements import TASK, conclusion_fact_id

OUR_KEYS = frozenset({"version", "id", "statement", "rule", "domain", "constraint", "centre", "distribution", "rank",
                      "positive", "variables", "premise", "conclusion", "conclusion_negated", "conclusion_question",
                      "full_statement", "hidden_premises", "chain", "depth", "graph_premises", "premises",
                      "grounding", "reranker_score", "loglik", "provenance"})
NEGATION_KEYS = ("conclusion_negated", "conclusion_negation", "negation", "negated_conclusion")
QUESTION_KEYS = ("conclusion_question", "question")
POSITIVE_KEYS = ("positive", "positive_conclusion")
DISTRIBUTIONS = {"head": "head", "longtail": "longtail", "long-tail": "longtail", "long_tail": "longtail",
                 "tail": "longtail"}


class ReleaseStatement(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    premise: str = Field(min_length=1)
    conclusion: str = Field(min_length=1)
    id: str | None = None
    statement: str | None = None
    rule: str | None = None
    domain: str | None = None
    distribution: str | None = None
    rank: int | None = None

    @field_validator("id", "statement", "rule", "domain", "distribution", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


@dataclass
class LintReport:
    files: dict[str, int] = field(default_factory=dict)          # statements read per file
    lines_skipped: Counter = field(default_factory=Counter)      # by reason
    duplicates: int = 0
    templates_left_out: Counter = field(default_factory=Counter)  # template number -> statements without it
    variants: Variants = field(default_factory=Variants)          # what differed, and where first
    problems: list[str] = field(default_factory=list)            # "path:line: why"


@dataclass(frozen=True)
class LintStatement:
    id: str                       # <statement key>:<distribution>
    key: str
    distribution: str
    record: dict[str, Any]        # as released, with the distribution filled in and spelled ours
    items: tuple[BenchmarkItem, ...]


class LintRelease(NamedTuple):
    statements: list[LintStatement]
    items: list[BenchmarkItem]
    report: LintReport


def release_files(paths) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(release_file(f, "a LINT file") for f in (sorted(p.rglob("*.jsonl")) if p.is_dir() else [p]))
    if not files:
        raise InputError("no LINT file (*.jsonl) here", path=str(paths[0]))
    return files


def _file_distribution(path: Path) -> str | None:
    stem = path.stem.lower()
    if "tail" in stem:
        return "longtail"
    return "head" if "head" in stem else None


def _first(raw: dict, keys: tuple[str, ...]) -> tuple[str | None, Any]:
    for key in keys:
        if raw.get(key) is not None:
            return key, raw[key]
    return None, None


def read_lint_release(paths, *, benchmark: str = "link:lint") -> LintRelease:
    paths = list(paths)
    report = LintReport()
    statements: dict[str, LintStatement] = {}
    for path in release_files(paths):
        read = 0
        repaired: list[tuple[int, str]] = []
        for line_no, line in release_lines(path, repaired):
            report.problems.extend(f"{path}:{at}: {why}: kept" for at, why in repaired)
            repaired.clear()
            if not line.strip():
                continue

            def skip(reason: str, kind: str, line_no=line_no) -> None:
                report.lines_skipped[kind] += 1
                report.problems.append(f"{path}:{line_no}: {reason}")

            try:
                raw = parse_release_json(line)
            except ValueError as exc:
                skip(f"not JSON ({getattr(exc, 'msg', exc)})", "malformed JSON")
                continue
            if not isinstance(raw, dict):
                skip(f"not an object ({type(raw).__name__})", "not an object")
                continue
            refused = record_problem(raw)
            if refused:
                skip(refused, "refused record")
                continue
            try:
                record = ReleaseStatement.model_validate(raw)
            except ValidationError as exc:
                skip(describe_validation_error(exc), "malformed record")
                continue
            statement = _statement(raw, record, path, line_no, benchmark, report, skip)
            if statement is None:
                continue
            if statement.id in statements:
                same = statements[statement.id].record == statement.record
                if same:
                    report.duplicates += 1
                report.problems.append(f"{path}:{line_no}: statement {statement.id} "
                                       + ("again: skipped" if same else "is used by another statement: skipped"))
                if not same:
                    report.lines_skipped["id used twice"] += 1
                continue
            statements[statement.id] = statement
            read += 1
        report.files[str(path)] = read
    ordered = sorted(statements.values(), key=lambda s: s.id)
    if not ordered:
        first = f" (first problem: {report.problems[0]})" if report.problems else ""
        raise InputError(f"no LINT statement could be read{first}", path=str(paths[0]))
    return LintRelease(ordered, [i for s in ordered for i in s.items], report)


def _statement(raw: dict, record: ReleaseStatement, path: Path, line_no: int, benchmark: str, report: LintReport,
               skip) -> LintStatement | None:
    def v(key: str) -> None:
        report.variants.add(key, f"{path}:{line_no}")

    for key in sorted(set(raw) - OUR_KEYS - set(NEGATION_KEYS) - set(QUESTION_KEYS) - set(POSITIVE_KEYS)):
        v(f"extra key {key!r}")
    distribution = record.distribution
    if distribution is None:
        distribution = _file_distribution(path)
        if distribution is None:
            skip("no distribution, and the file name says neither head nor tail", "no distribution")
            return None
        v("distribution from the file name")
    elif DISTRIBUTIONS.get(distribution.lower()) is None:
        skip(f"distribution {distribution!r} is neither head nor longtail", "no distribution")
        return None
    elif DISTRIBUTIONS[distribution.lower()] != distribution:
        v(f"distribution written {distribution!r}")
    distribution = DISTRIBUTIONS[distribution.lower()]
    neg_key, negation = _first(raw, NEGATION_KEYS)
    q_key, question = _first(raw, QUESTION_KEYS)
    pos_key, positive = _first(raw, POSITIVE_KEYS)
    for key, ours in ((neg_key, "conclusion_negated"), (q_key, "conclusion_question"), (pos_key, "positive")):
        if key is not None and key != ours:
            v(f"{ours} written {key!r}")
    if positive is None:
        v("positive missing (read as a negative conclusion, LINT's default)")
    positive = bool(positive)
    key = record.statement or (record.id.rsplit(":", 1)[0] if record.id and ":" in record.id else None) or hashlib.sha1(
        f"{record.premise}\x1f{record.conclusion}".encode("utf-8")).hexdigest()[:16]
    statement_id = f"{key}:{distribution}"
    if record.id is not None and record.id != statement_id:
        v("id not <statement>:<distribution> (our id used)")
    forms = {"C": True, "N": isinstance(negation, str) and bool(negation.strip()),
             "Q": isinstance(question, str) and bool(question.strip())}
    if not forms["N"]:
        v("no negated conclusion (templates 6-8, 10-12 left out)")
    if not forms["Q"]:
        v("no conclusion question (template 9 left out)")
    stored = {**raw, "distribution": distribution}     # our spelling, so an export files it right
    hidden = raw.get("hidden_premises") if isinstance(raw.get("hidden_premises"), list) else []
    variables = raw.get("variables") if isinstance(raw.get("variables"), dict) else {}
    entity_ids = sorted({str(x["id"]) for x in variables.values() if isinstance(x, dict) and x.get("id")})
    slices = {"distribution": distribution, "rule": record.rule or "unknown", "domain": record.domain or "unknown",
              "constraint": raw.get("constraint"), "centre": raw.get("centre"), "positive": positive,
              "graph_premises": int(raw.get("graph_premises") or 0),
              "hidden_premises": int(raw.get("premises") or len(hidden)),
              "grounding": raw.get("grounding") or "release", "depth": int(raw.get("depth") or 1)}
    items = []
    for t in TEMPLATES:
        if not forms[t.uses]:
            report.templates_left_out[t.number] += 1
            continue
        gold = t.gold(positive)
        items.append(BenchmarkItem(
            id=f"{benchmark}:{statement_id}:t{t.number:02d}", benchmark=benchmark, task=TASK, form="boolean",
            question=render(t, record.premise, record.conclusion, negation if forms["N"] else None,
                            question if forms["Q"] else None),
            answers=[gold], scorer="boolean", fact_ids=[conclusion_fact_id(benchmark, key)], entity_ids=entity_ids,
            slices={**slices, "template": f"{t.number:02d}", "label": gold},
            metadata={"statement_id": statement_id, "statement": key, "template": t.number, "label": gold,
                      "premise": record.premise, "conclusion": record.conclusion,
                      "negation": negation if forms["N"] else None, "question": question if forms["Q"] else None,
                      "rank": record.rank, "loglik": raw.get("loglik"),
                      "release": {"file": path.name, "line": line_no}}))
    return LintStatement(statement_id, key, distribution, stored, tuple(items))


__all__ = ["LintRelease", "LintReport", "LintStatement", "read_lint_release", "release_files"]

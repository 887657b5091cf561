"""A run's samples: one filtered page of them, and one sample in full (its prompt, answers,
gold, score, the scorer's explanation and rule, the facts its question tests)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import BadRequest, NotFound
from .runs import PAGE_SIZE, read_run

_SLICE_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
OUTCOMES = ("right", "wrong")
FAILURES = ("parse", "error")


@dataclass(frozen=True)
class SampleFilters:
    task: str | None = None
    slice: str | None = None          # a slice key, e.g. "year"
    value: str | None = None          # its value as text
    outcome: str | None = None        # right | wrong
    failed: str | None = None         # parse | error

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> SampleFilters:
        def get(name: str) -> str | None:
            value = (params.get(name) or "").strip()
            return value or None

        out = cls(task=get("task"), slice=get("slice"), value=get("value"), outcome=get("outcome"),
                  failed=get("failed"))
        if out.slice is not None and not _SLICE_KEY.match(out.slice):
            raise BadRequest(f"bad slice key {out.slice!r}: use letters, digits and _")
        if out.slice is not None and out.value is None:
            raise BadRequest(f"slice {out.slice!r} needs a value (value=...)")
        if out.outcome not in (None, *OUTCOMES):
            raise BadRequest(f"outcome {out.outcome!r} is not one of {', '.join(OUTCOMES)}")
        if out.failed not in (None, *FAILURES):
            raise BadRequest(f"failed {out.failed!r} is not one of {', '.join(FAILURES)}")
        return out

    def query(self) -> dict[str, str]:
        """The filters as query-string parameters (for links to other pages of the same list)."""
        return {k: v for k, v in (("task", self.task), ("slice", self.slice), ("value", self.value),
                                  ("outcome", self.outcome), ("failed", self.failed)) if v}

    @property
    def active(self) -> bool:
        return bool(self.query())


@dataclass(frozen=True)
class SamplesPage:
    run: dict
    answers: int
    filters: SampleFilters
    rows: list[dict]
    page: int
    page_size: int
    has_next: bool
    slice_keys: list[str]


def samples_page(store, run_id: str, filters: SampleFilters, page: int = 1,
                 page_size: int = PAGE_SIZE) -> SamplesPage:
    """One page of a run's samples in answer-id order. The next page is known to exist when one
    more row than the page came back; filtered lists are not counted (a count reads every
    answer of the run)."""
    run, answers = read_run(store, run_id)
    if filters.failed == "error" and run.get("errors") == 0:
        rows: list[dict] = []           # the run recorded no failed request: nothing to look for
    else:
        # the filters in one map: each is a string or null, and Neo4j keys its plan cache on
        # every parameter's type, so each mix of set and unset filters made a plan of its own
        rows = store.read("view/run_samples", run_id=run_id, prefix=f"{run_id}:",
                          filter={"task": filters.task,
                                  "slice": f"slice_{filters.slice}" if filters.slice else None,
                                  "value": filters.value, "outcome": filters.outcome, "failed": filters.failed},
                          skip=(page - 1) * page_size, limit=page_size + 1)
    keys = store.read("view/run_slice_keys", run_id=run_id, limit=200)
    return SamplesPage(run=run, answers=answers, filters=filters, rows=rows[:page_size], page=page,
                       page_size=page_size, has_next=len(rows) > page_size,
                       slice_keys=sorted({k for r in keys for k in r["keys"]}))


@dataclass(frozen=True)
class Sample:
    run: dict
    answer: dict
    question: dict
    facts: list[dict]
    entities: list[dict]
    events: list[dict]
    rule: str | None
    metadata: dict

    @property
    def scorer(self) -> str | None:
        """The scorer that scored this sample: the one its answer records, else the question's."""
        recorded = self.answer.get("rule")
        return str(recorded).partition(":")[0] if recorded else self.question.get("scorer")

    @property
    def slices(self) -> list[tuple[str, Any]]:
        return sorted((k[len("slice_"):], v) for k, v in self.question.items() if k.startswith("slice_"))


def answer_id(run_id: str, question_id: str, index: int) -> str:
    """Answers are keyed ``<run>:<question>:<sample index>`` (``eval.results.record_run``)."""
    return f"{run_id}:{question_id}:{index}"


def read_sample(store, run_id: str, question_id: str, index: int) -> Sample:
    run, _ = read_run(store, run_id)
    rows = store.read("view/read_sample", run_id=run_id, answer_id=answer_id(run_id, question_id, index))
    if not rows:
        raise NotFound(f"run {run_id!r} has no sample {index} of question {question_id!r}")
    question = {k: v for k, v in rows[0]["question"]}
    facts = store.read("view/question_facts", question_id=question_id, skip=0, limit=100)
    links = store.read("view/question_links", question_id=question_id, limit=50)[0]
    try:
        metadata = json.loads(question.get("metadata_json") or "{}")
    except ValueError:
        metadata = {}
    return Sample(run=run, answer=rows[0]["answer"], question=question, facts=facts,
                  entities=links["entities"], events=links["events"],
                  # the answer records the rule that scored it (a task may score with another
                  # scorer than its questions name); runs from before that fall back to the run's
                  rule=_rule_name(rows[0]["answer"].get("rule")) or scoring_rule_of(run, question.get("scorer")),
                  metadata=metadata)


def _rule_name(recorded: str | None) -> str | None:
    """``scorer:rule`` as a sample records it -> ``rule`` (the page names the scorer beside it)."""
    return str(recorded).partition(":")[2] or None if recorded else None


def scoring_rule_of(run: Mapping, scorer: str | None) -> str | None:
    """The rule the run applied with ``scorer`` (its ``scoring_rules`` hold ``scorer:rule``)."""
    for entry in run.get("scoring_rules") or ():
        name, _, rule = str(entry).partition(":")
        if name == scorer:
            return rule
    return None



__all__ = ["FAILURES", "OUTCOMES", "Sample", "SampleFilters", "SamplesPage", "answer_id", "read_sample",
           "samples_page", "scoring_rule_of"]

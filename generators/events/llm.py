"""Optional LLM steps of ELKEN's construction, through any backend (cached by the backend).

* ``paraphrase_events``: a more natural wording of each event text. A paraphrase is kept only
  when it is one line and still names every entity the template text names; otherwise the
  template text stays (counted).
* ``tendency_items``: multiple-choice tendency questions (3 options): in-scope ones about the
  event's likely consequences and out-of-scope ones whose answer is always "No significant
  change". Replies that do not follow the requested line format are dropped (counted).

Without a backend neither runs: the event text is the template text and there are no
tendency questions.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace

from knowforge.models.types import Backend, BenchmarkItem, GenerationRequest
from knowforge.kg.records import stable_id

from .instantiate import EventPlan
from .questions import TASK_TENDENCY

log = logging.getLogger(__name__)

NO_CHANGE = "No significant change"
_LINE = re.compile(r"^\s*(IN|OUT)\s*\|\s*(.+?)\s*\|\s*\(A\)\s*(.+?)\s*\(B\)\s*(.+?)\s*\(C\)\s*(.+?)\s*\|\s*([ABC])\s*$")


@dataclass
class LLMStats:
    paraphrased: int = 0
    paraphrase_rejected: int = 0
    tendency_questions: int = 0
    tendency_lines_rejected: int = 0


def paraphrase_prompt(text: str) -> str:
    return ("Rewrite the following news event in one natural sentence. Keep every name exactly "
            "as written and do not add consequences.\n"
            f"Event: {text}\nRewritten event:")


def tendency_prompt(text: str, n_in: int, n_out: int) -> str:
    return ("Assume the following event has happened. Write "
            f"{n_in} questions about tendencies it makes likely (marked IN) and {n_out} questions "
            "about things it does not affect (marked OUT, whose answer is option C, "
            f"'{NO_CHANGE}'). One per line, exactly in the form:\n"
            "IN | question | (A) option (B) option (C) option | letter\n"
            f"Event: {text}\n")


def paraphrase_events(backend: Backend, plans: list[EventPlan], *, seed: int,
                      stats: LLMStats) -> list[EventPlan]:
    requests = [GenerationRequest(prompt=paraphrase_prompt(p.text), temperature=0.0, seed=seed,
                                  max_tokens=80, stop=("\n",)) for p in plans]
    results = backend.generate(requests) if requests else []
    out = []
    for plan, result in zip(plans, results):
        text = (result.texts[0] if result.texts and result.error is None else "").strip()
        names = [s.entity for s in plan.slots if s.entity in plan.text]
        if text and "\n" not in text and all(n in text for n in names):
            out.append(replace(plan, text=text))
            stats.paraphrased += 1
        else:
            out.append(plan)
            stats.paraphrase_rejected += 1
    return out


def parse_tendency_lines(text: str) -> tuple[list[tuple[str, str, list[str], str]], int]:
    """(scope, question, options, letter) per well-formed line, and the number of bad lines."""
    good, bad = [], 0
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        m = _LINE.match(line)
        if not m:
            bad += 1
            continue
        scope, question, a, b, c, letter = m.groups()
        if scope == "OUT" and (letter != "C" or c.strip().rstrip(".").lower() != NO_CHANGE.lower()):
            bad += 1
            continue
        good.append(("in" if scope == "IN" else "out", question, [a, b, c], letter))
    return good, bad


def tendency_items(backend: Backend, plans: list[EventPlan], *, benchmark: str, seed: int,
                   stats: LLMStats, n_in: int = 6, n_out: int = 2) -> dict[str, list[BenchmarkItem]]:
    requests = [GenerationRequest(prompt=tendency_prompt(p.text, n_in, n_out), temperature=0.0,
                                  seed=seed, max_tokens=600) for p in plans]
    results = backend.generate(requests) if requests else []
    out: dict[str, list[BenchmarkItem]] = {}
    for plan, result in zip(plans, results):
        text = result.texts[0] if result.texts and result.error is None else ""
        lines, bad = parse_tendency_lines(text)
        stats.tendency_lines_rejected += bad
        items = []
        for n, (scope, question, options, letter) in enumerate(lines):
            items.append(BenchmarkItem(
                id=stable_id("q:", plan.id, "tendency", scope, n, question),
                benchmark=benchmark, task=TASK_TENDENCY, form="multi-choice", question=question,
                choices=options, answers=[letter], answer_index="ABC".index(letter),
                scorer="elken-tendency",
                slices={"event_type": plan.type, "relation": "tendency", "known": True,
                        "needs_background": False, "scope": scope, "part": "tendency"},
                metadata={"event_id": plan.id, "event": plan.text, "generated_by": backend.model}))
        stats.tendency_questions += len(items)
        out[plan.id] = items
    return out

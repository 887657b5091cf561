"""ChroKnowPrompt: chronological prompting for Partial Known facts (paper §6, Algorithm 2).

For a Partial Known fact and a target year t whose category is not Correct:

* the previous span is the up-to-3 nearest earlier years whose category is Correct or Partial
  Correct, nearest first; the next span the same after t. Each such year contributes its
  majority-voted matching answer (the model's own wording) as context.
* Step by step (previous span first, then the next span with ``span="total"``), the year's
  context is added — previous years above the target question, next years below — and the
  model proposes a candidate for t (first step) or verifies/refines the current one.
* The candidate list is recorded; t becomes Chrono-correct when the LAST candidate
  fuzzy-matches t's objects. A fact is Known afterwards when every year is Correct or
  Chrono-correct.

All targets advance in lockstep: step s of every traversal is one batched ``generate``.
Traversal planning and prompt assembly are pure functions.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from knowforge.errors import ConfigError
from knowforge.eval.ask import ask, expect
from knowforge.eval.chrono.categories import (CORRECT, KNOWN, PARTIAL_KNOWN, RIGHT, THRESHOLD, fuzzy_in,
                                              known_after_chronoprompt, majority_object)
from knowforge.eval.chrono.check import CheckResult, FactCheck, YearCheck, percent_at
from knowforge.eval.metric_stats import grouped_totals, row_label
from knowforge.eval.unit import CannotResample, Totals, UnitCopy
from knowforge.models.types import Backend, BenchmarkItem, GenerationRequest

SPANS = ("total", "previous")
MAX_SPAN = 3
PROPOSE = ("Each block is a question about one year and its answer. Fill in the answer marked "
           "'Candidate A.' for its year, using the other years as context. Reply with one line: "
           "'A. <object>'.")
VERIFY = ("Each block is a question about one year and its answer. The line 'Candidate A.' holds "
          "the current candidate answer for its year. Check it against the other years: if it is "
          "right, repeat it; if it is wrong, give the right one. Reply with one line: 'A. <object>'.")


@dataclass(frozen=True)
class Step:
    year: int
    direction: str   # "previous" | "next"
    object: str


@dataclass
class Traversal:
    record_id: str
    target: int
    golds: tuple[str, ...]
    steps: list[Step]
    candidates: list[str] = field(default_factory=list)
    current: str | None = None
    prompts: list[str] = field(default_factory=list)

    @property
    def chrono_correct(self) -> bool:
        return bool(self.candidates) and fuzzy_in(self.candidates[-1], self.golds)


def plan_traversal(categories: Mapping[int, str], context: Mapping[int, str], target: int, *,
                   span: str = "total", max_previous: int = MAX_SPAN, max_next: int = MAX_SPAN) -> list[Step]:
    """The steps for one target: known earlier years nearest first, then (total span) known
    later years nearest first. ``context`` maps a year to its majority-voted object."""
    if span not in SPANS:
        raise ConfigError(f"span must be one of {', '.join(SPANS)}, not {span!r}")
    usable = sorted(y for y, c in categories.items() if c in RIGHT and context.get(y) and y != target)
    prev = [y for y in reversed(usable) if y < target][:max_previous]
    nxt = [y for y in usable if y > target][:max_next] if span == "total" else []
    return ([Step(y, "previous", context[y]) for y in prev] + [Step(y, "next", context[y]) for y in nxt])


def assemble_prompt(questions: Mapping[int, str], target: int, steps_so_far: Sequence[Step],
                    candidate: str | None) -> str:
    """The prompt after ``steps_so_far``: earlier years above the target block, later years
    below it (each side in chronological order), then the target question to answer."""
    above = sorted((s for s in steps_so_far if s.direction == "previous"), key=lambda s: s.year)
    below = sorted((s for s in steps_so_far if s.direction == "next"), key=lambda s: s.year)
    blocks = [f"Q. {questions[s.year]}\nA. {s.object}" for s in above]
    blocks.append(f"Q. {questions[target]}\nCandidate A. {candidate if candidate else '[Object]'}")
    blocks += [f"Q. {questions[s.year]}\nA. {s.object}" for s in below]
    system = VERIFY if candidate else PROPOSE
    return f"{system}\n\n" + "\n\n".join(blocks) + f"\n\nQ. {questions[target]}\nA."


_PREFIXES = re.compile(r"^\s*(?:candidate\s+a\.|a\.|answer\s*:|the answer is|final answer\s*[:.])\s*", re.I)


def extract_candidate(text: str | None) -> str:
    """The object of a reply: its first non-empty line without an "A." / "Answer:" prefix."""
    for line in (text or "").splitlines():
        if line.strip():
            return _PREFIXES.sub("", line.strip(), count=1).strip().rstrip(".").strip()
    return ""


def advance(traversal: Traversal, reply: str) -> None:
    """One step's bookkeeping: a non-empty, different answer replaces the candidate; the
    candidate after the step is appended to the list."""
    answer = extract_candidate(reply)
    if answer and (traversal.current is None or answer.lower() != traversal.current.lower()):
        traversal.current = answer
    traversal.candidates.append(traversal.current or "")


def run_traversals(traversals: Sequence[Traversal], questions: Mapping[str, Mapping[int, str]],
                   backend: Backend, *, seed: int = 0, max_tokens: int = 50,
                   progress: Callable[[int], None] | None = None) -> int:
    """Drive every traversal to its end; returns the number of requests sent."""
    sent = 0
    depth = max((len(t.steps) for t in traversals), default=0)
    expect(progress, sum(len(t.steps) for t in traversals))
    for s in range(depth):
        active = [t for t in traversals if len(t.steps) > s]
        prompts = [assemble_prompt(questions[t.record_id], t.target, t.steps[:s + 1], t.current) for t in active]
        replies = ask([GenerationRequest(prompt=p, n=1, temperature=0.0, seed=seed, max_tokens=max_tokens,
                                         stop=("\n",)) for p in prompts], backend)
        for t, p, r in zip(active, prompts, replies):
            t.prompts.append(p)
            advance(t, r.texts[0] if r.texts else "")
        sent += len(active)
        if progress:
            progress(len(active))
    return sent


@dataclass
class PromptResult:
    span: str
    traversals: list[Traversal]
    known_before: dict[str, bool]        # record_id -> Known before
    known_after: dict[str, bool]         # record_id -> Known after ChroKnowPrompt
    facts: dict[str, FactCheck]
    requests: int = 0

    def remap(self, copies: Sequence[UnitCopy]) -> PromptResult:
        """The result on the resampled records (the run's unit is the record): each copy's
        facts, traversals and verdicts under its renamed record id."""
        by_record: dict[str, list[Traversal]] = defaultdict(list)
        for t in self.traversals:
            by_record[t.record_id].append(t)
        out = PromptResult(self.span, [], {}, {}, {}, self.requests)
        for c in copies:
            if c.unit is None:
                raise CannotResample("ChroKnowPrompt's results follow records, and the run's unit is not the record")
            if c.unit not in self.facts:
                continue
            rid = c.rename(c.unit)
            out.facts[rid] = self.facts[c.unit] if not c.tag else replace(self.facts[c.unit], record_id=rid)
            out.known_before[rid] = self.known_before[c.unit]
            out.known_after[rid] = self.known_after[c.unit]
            out.traversals += [t if not c.tag else replace(t, record_id=rid) for t in by_record.get(c.unit, ())]
        return out


def plan_chronoprompt(check: CheckResult, items: Sequence[BenchmarkItem], *, span: str = "total",
                      template: str = "generation", threshold: int = THRESHOLD
                      ) -> tuple[list[Traversal], dict[str, dict[int, str]]]:
    """Traversals of every non-Correct year of every Partial Known fact of ``template``."""
    questions: dict[str, dict[int, str]] = defaultdict(dict)
    for item in items:
        if (item.slices.get("template") or item.task.split("/")[-1]) == template:
            questions[item.metadata.get("record_id", item.id)][int(item.slices["year"])] = item.question
    years: dict[str, dict[int, YearCheck]] = defaultdict(dict)
    for y in check.years:
        if y.template == template:
            years[y.record_id][y.year] = y
    traversals = []
    for fact in check.facts:
        if fact.template != template or fact.category != PARTIAL_KNOWN:
            continue
        per_year = years[fact.record_id]
        context = {}
        for year, yc in per_year.items():
            if yc.category in RIGHT:
                obj = majority_object([*yc.greedy, *yc.sampled], yc.golds, threshold)
                if obj:
                    context[year] = obj
        for target, cat in sorted(fact.categories.items()):
            if cat == CORRECT:
                continue
            steps = plan_traversal(fact.categories, context, target, span=span)
            traversals.append(Traversal(record_id=fact.record_id, target=target,
                                        golds=per_year[target].golds, steps=steps))
    return traversals, questions


def run_chronoprompt(check: CheckResult, items: Sequence[BenchmarkItem], backend: Backend, *,
                     span: str = "total", seed: int = 0, max_tokens: int = 50,
                     progress: Callable[[int], None] | None = None) -> PromptResult:
    traversals, questions = plan_chronoprompt(check, items, span=span)
    sent = run_traversals(traversals, questions, backend, seed=seed, max_tokens=max_tokens, progress=progress)
    chrono: dict[str, set[int]] = defaultdict(set)
    for t in traversals:
        if t.chrono_correct:
            chrono[t.record_id].add(t.target)
    facts = {f.record_id: f for f in check.facts if f.template == "generation"}
    before = {rid: f.category == KNOWN for rid, f in facts.items()}
    after = {rid: known_after_chronoprompt(f.categories, chrono.get(rid, set())) for rid, f in facts.items()}
    return PromptResult(span=span, traversals=traversals, known_before=before, known_after=after,
                        facts=facts, requests=sent)


GAIN_SHARES = {"Known % before": percent_at(0, 2), "Known % after": percent_at(1, 2),
               "Known % gain": percent_at(1, 2, minus=0)}


def gain_totals(results: Sequence[PromptResult], items: Sequence[BenchmarkItem]) -> Totals:
    """``gain_table``'s shares as sums: each fact adds (Known before, Known after, 1) to its
    (span, domain, change) row, on an item of its record among ``items`` and reading all of
    them (``Totals.reads``: a sum over records when the run's unit is the record)."""
    of_record: dict[str, list[str]] = defaultdict(list)
    for item in items:
        of_record[str(item.metadata.get("record_id", item.id))].append(item.id)
    rows, reads, leaves = [], [], {}
    for res in results:
        for rid, f in res.facts.items():
            ids = of_record.get(rid)
            if not ids:
                raise CannotResample(f"record {rid} of ChroKnowPrompt's results has no item in the task")
            label = row_label({"span": res.span, "domain": f.domain, "change": f.change})
            leaves.update({(label, name): (label, share) for name, share in GAIN_SHARES.items()})
            rows.append((ids[0], label, (float(res.known_before[rid]), float(res.known_after[rid]), 1.0)))
            reads.append(ids)
    return grouped_totals(rows, 3, leaves, reads)


def gain_table(results: Sequence[PromptResult]) -> list[dict]:
    """Table 3 of the paper: Known % per (domain, change) and its increase, per span."""
    rows = []
    for res in results:
        groups: dict[tuple[str, str], list[str]] = defaultdict(list)
        for rid, f in res.facts.items():
            groups[(f.domain, f.change)].append(rid)
        for (domain, change), rids in sorted(groups.items()):
            ids = set(rids)
            targets = [t for t in res.traversals if t.record_id in ids]
            before = sum(res.known_before[r] for r in rids)
            after = sum(res.known_after[r] for r in rids)
            n = len(rids)
            rows.append({"span": res.span, "domain": domain, "change": change, "facts": n,
                         "Known % before": round(100 * before / n, 1), "Known % after": round(100 * after / n, 1),
                         "Known % gain": round(100 * (after - before) / n, 1),
                         "targets": len(targets), "chrono-correct": sum(t.chrono_correct for t in targets)})
    return rows

"""MCQA distractors: drawn from the graph, or made by an LLM and verified.

From the graph, candidates come in tiers, hardest first:

1. the same subject's objects of the same relation in *other* years (temporally mismatched);
2. objects of the same relation for other subjects of the same type (shared domain label);
3. objects of the same relation for any other subject.

A candidate is never an answer of the item's own year: it is rejected when it fuzzy-matches
(token_set_ratio >= 70) any gold object of that year, and when it fuzzy-matches a distractor
already chosen. The LLM path (``llm_distractors``) asks a backend for three wrong options,
then verifies them: the same fuzzy rule, and a second request in which the model answers the
MCQA and marks every option it thinks correct; marked distractors are regenerated.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from knowforge.models.matching import fuzzy_equal, fuzzy_in
from knowforge.models.types import Backend, GenerationRequest

N_DISTRACTORS = 3


def choose_distractors(golds: Sequence[str], tiers: Sequence[Sequence[str]], rng: random.Random,
                       k: int = N_DISTRACTORS) -> list[str]:
    """Up to ``k`` distractors from ``tiers`` (hardest first), none fuzzy-equal to a gold or to
    each other. Within a tier the order is a seeded shuffle of the sorted candidates."""
    chosen: list[str] = []
    for tier in tiers:
        pool = sorted(set(tier))
        rng.shuffle(pool)
        for cand in pool:
            if len(chosen) >= k:
                return chosen
            if fuzzy_in(cand, golds) or fuzzy_in(cand, chosen):
                continue
            chosen.append(cand)
    return chosen


# ---- LLM distractors with a verify step ------------------------------------------------------
@dataclass(frozen=True)
class DistractorTask:
    question: str          # the question as a reader sees it
    golds: tuple[str, ...]  # every right answer


_SYSTEM = ("You write plausible but wrong answer options for quiz questions. Give exactly three "
           "options, one per line, numbered 1. 2. 3., and nothing else.")


def distractor_prompt(task: DistractorTask, rejected: Sequence[str] = ()) -> str:
    golds = ", ".join(f"'{g}'" for g in task.golds)
    text = (f"{_SYSTEM}\n\nThe question \"{task.question}\" can be answered with {golds}. "
            "Write three plausible incorrect options for this question.")
    if rejected:
        text += " Do not use these, they are right answers or repeats: " + ", ".join(f"'{r}'" for r in rejected) + "."
    return text + "\n1."


def verify_prompt(task: DistractorTask, options: Sequence[str]) -> str:
    letters = "abcdefgh"
    lines = "\n".join(f"({letters[i]}) {o}" for i, o in enumerate(options))
    return (f"Question: {task.question}\n{lines}\nList the letters of ALL options that are correct "
            "answers, separated by commas.\nCorrect options:")


_NUMBERED = re.compile(r"^\s*(?:\d+[.)]|[-*])?\s*(.+?)\s*$")


def parse_numbered(text: str) -> list[str]:
    """Options of a "1. x / 2. y / 3. z" reply (the prompt already opened "1.")."""
    out = []
    for line in (text or "").splitlines():
        m = _NUMBERED.match(line)
        if m and m.group(1).strip():
            out.append(m.group(1).strip().strip("'\""))
    return out


def parse_letters(text: str, n: int) -> set[int]:
    letters = "abcdefgh"[:n]
    return {letters.index(ch) for ch in re.findall(rf"\(?\b([{letters}])\b\)?", (text or "").lower())}


def llm_distractors(backend: Backend, tasks: Sequence[DistractorTask], *, rounds: int = 3,
                    seed: int = 0, max_tokens: int = 64) -> list[list[str]]:
    """Three verified distractors per task (fewer when ``rounds`` run out). Every round sends
    one batched ``generate`` for the tasks still short of options and one for verification."""
    chosen: list[list[str]] = [[] for _ in tasks]
    rejected: list[list[str]] = [[] for _ in tasks]
    for round_no in range(rounds):
        todo = [i for i, c in enumerate(chosen) if len(c) < N_DISTRACTORS]
        if not todo:
            break
        replies = backend.generate([
            GenerationRequest(prompt=distractor_prompt(tasks[i], rejected[i]),
                              temperature=0.0 if round_no == 0 else 0.7, seed=seed + round_no,
                              max_tokens=max_tokens) for i in todo])
        for i, reply in zip(todo, replies):
            for cand in parse_numbered(reply.texts[0] if reply.texts else ""):
                if len(chosen[i]) >= N_DISTRACTORS:
                    break
                if fuzzy_in(cand, tasks[i].golds) or fuzzy_in(cand, chosen[i]):
                    rejected[i].append(cand)
                    continue
                chosen[i].append(cand)
        # verify: the model marks every option it believes right; marked distractors go
        checks = [i for i in todo if chosen[i]]
        verdicts = backend.generate([
            GenerationRequest(prompt=verify_prompt(tasks[i], [tasks[i].golds[0], *chosen[i]]),
                              temperature=0.0, seed=seed, max_tokens=16) for i in checks])
        for i, verdict in zip(checks, verdicts):
            marked = parse_letters(verdict.texts[0] if verdict.texts else "", 1 + len(chosen[i]))
            keep = [d for j, d in enumerate(chosen[i], start=1) if j not in marked]
            rejected[i].extend(d for d in chosen[i] if d not in keep)
            chosen[i] = keep
    return chosen


def same_year_clash(distractors: Sequence[str], golds: Sequence[str]) -> list[str]:
    """Distractors that fuzzy-equal a gold (the invariant every build must keep empty)."""
    return [d for d in distractors if any(fuzzy_equal(d, g) for g in golds)]

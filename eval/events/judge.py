"""ELKEN's Tendency-G: open tendency answers (with the gold event in context) scored by any
backend as judge on correctness, coherence, comprehensiveness and overall (1-5). Prompt
building and parsing are pure; unparseable judgements are counted, never guessed."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from knowforge.eval.ask import ask
from knowforge.eval.events.metrics import in_scope, part
from knowforge.models.types import Backend, BenchmarkItem, GenerationRequest


def _rate(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def event_context(text: str) -> str:
    # ELKEN's instruction: assume the event has happened, answer from it and your knowledge.
    return (f"Assume that this event has happened: {text} Answer the question based on the "
            "event and your own knowledge; if you do not know, answer \"unknown\".")


JUDGE_DIMENSIONS = ("correctness", "coherence", "comprehensiveness", "overall")
# "correctness: 4", "Correctness = 4", "**Coherence**: 5/5", "Overall score: 3". The number is
# read whole ("4.5", "45", "0" and "7" are malformed, not truncated to a score).
_JUDGE_LINE = re.compile(
    r"\b(correctness|coherence|comprehensiveness|overall)\b[\s*_]*(?:score)?[\s*_]*[:=][\s*_]*"
    r"(\d+(?:[.,]\d+)?)(?:\s*/\s*5\b)?", re.IGNORECASE)


def judge_prompt(event: str, question: str, answer: str, label: str) -> str:
    return ("You are a fair assessor. Given an event (assume it happened), a question about its "
            "consequences, a model's answer and the human label, rate the answer from 1 to 5 on: "
            "correctness (does the judgement agree with the label), coherence (are the reasons "
            "sound and consistent), comprehensiveness (does it cover several aspects), and "
            "overall (no more than 3 when correctness is 3 or less). Reply with four lines "
            "exactly like 'correctness: 4'.\n\n"
            f"Event: {event}\nQuestion: {question}\nLabel: {label}\nAnswer: {answer}\n")


def parse_judgement(text: str | None) -> dict[str, int] | None:
    """The four scores, or None (unparsed) when the judge's reply lacks one of them, gives one
    outside 1..5 or not a whole number, or gives one dimension two different scores."""
    scores: dict[str, int] = {}
    for name, value in _JUDGE_LINE.findall(text or ""):
        name = name.lower()
        if not value.isdigit() or not 1 <= int(value) <= 5:
            return None
        if scores.setdefault(name, int(value)) != int(value):
            return None
    if set(scores) != set(JUDGE_DIMENSIONS):
        return None
    if scores["correctness"] <= 3:
        scores["overall"] = min(scores["overall"], 3)   # the rubric's cap, enforced
    return scores


def judge_tendency(judge: Backend, cases: Sequence[dict], *, max_tokens: int = 48) -> dict:
    """Score open tendency answers with any backend as judge.

    ``cases``: [{event, question, answer, label}]. Returns mean scores, full-mark rates per
    dimension, and the number of unparseable judgements (counted, never guessed).
    """
    requests = [GenerationRequest(prompt=judge_prompt(c["event"], c["question"], c["answer"], c["label"]),
                                  temperature=0.0, max_tokens=max_tokens, seed=0) for c in cases]
    results = ask(requests, judge) if requests else []
    parsed = [parse_judgement(r.texts[0] if r.texts and r.error is None else None) for r in results]
    good = [p for p in parsed if p is not None]
    out = {"cases": len(cases), "unparsed": len(parsed) - len(good), "judgements": parsed}
    for dim in JUDGE_DIMENSIONS:
        out[f"mean_{dim}"] = sum(p[dim] for p in good) / len(good) if good else None
        out[f"full_mark_{dim}"] = _rate([p[dim] == 5 for p in good])
    return out


def open_tendency_prompt(item: BenchmarkItem) -> str:
    return (f"{event_context(item.metadata['event'])}\nQuestion: {item.question}\n"
            "Give your judgement first, then explain it in two or three sentences.\nAnswer:")


def tendency_generation(model: Backend, judge: Backend, items: Sequence[BenchmarkItem], *,
                        seed: int = 0, max_tokens: int = 128) -> dict:
    """Tendency-G: ask tendency questions open-ended (with the gold event in context) and let
    ``judge`` score the answers against the gold option's text (ELKEN's human label)."""
    tend = [i for i in items if part(i) == "tendency" and in_scope(i)]
    requests = [GenerationRequest(prompt=open_tendency_prompt(i), temperature=0.0, seed=seed,
                                  max_tokens=max_tokens) for i in tend]
    answers = ask(requests, model) if requests else []
    cases = [{"event": i.metadata["event"], "question": i.question,
              "answer": a.texts[0] if a.texts and a.error is None else "",
              "label": i.choices[i.answer_index] if i.answer_index is not None else i.answers[0]}
             for i, a in zip(tend, answers)]
    judged = judge_tendency(judge, cases)
    # the event level (MetricForAutoEval.compute_event_score's full mark, every event counted):
    # an event counts when every open answer of it got overall 5; an unparsed judgement does not
    by_event: dict[str, list[bool]] = defaultdict(list)
    for item, judgement in zip(tend, judged["judgements"]):
        by_event[str(item.metadata.get("event_id", item.metadata["event"]))].append(
            judgement is not None and judgement["overall"] == 5)
    judged["events"] = len(by_event)
    judged["event_full_mark_overall"] = _rate([all(v) for v in by_event.values()])
    return judged



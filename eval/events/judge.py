"""ELKEN's Tendency-G: open tendency answers (with the gold event in context) scored by any
backend as judge on correctness, coherence, comprehensiveness and overall (1-5). Prompt
building and parsing are pure; unparseable judgements are counted, never guessed."""

from __future__ import annotations

import re
from collections.abc import Sequence

from knowforge.eval.ask import ask
from knowforge.eval.events import helm
from knowforge.eval.events.metrics import in_scope, part
from knowforge.eval.types import DEFAULT_SCORING
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


# the judge's dimensions under the names ELKEN's exam files use
EXAM_KEYS = {"overall": "overall", "correctness": "accuracy", "coherence": "coherence",
             "comprehensiveness": "comprehensive"}
FAILED = -1     # ELKEN's evaluator writes -1 where the judge's reply could not be read


def exam_states(items: Sequence[BenchmarkItem], answers: Sequence[str],
                judgements: Sequence[dict[str, int] | None]) -> list[dict]:
    """The ``*_exam.json`` request states of judged open answers: one per in-scope tendency
    question, with the judge's scores (all -1 for a judgement that failed to parse)."""
    states = []
    for item, answer, judgement in zip(items, answers, judgements):
        scores = {exam: (judgement[dim] if judgement is not None else FAILED) for dim, exam in EXAM_KEYS.items()}
        label = item.choices[item.answer_index] if item.answer_index is not None else item.answers[0]
        states.append(helm.request_state(
            event_type=item.slices.get("event_type"), event=helm.event_text(item), event_id=helm.event_id(item),
            input_text=open_tendency_prompt(item), answer=label, local=False, completion=answer, scores=scores))
    return states


def judge_summary(judged: dict, states: Sequence[dict], scoring: str) -> dict:
    """Means and full-mark rates of the judge's scores, and the event level, by ``scoring``'s rule.

    ``official`` is ``MetricForAutoEval`` through the same functions ``knowforge score elken``
    uses (``helm.judge_scores``/``judge_event_scores``): a failed judgement stays in the totals
    as -1, so the means and full-mark rates replace ``judge_tendency``'s. ``knowforge`` keeps
    those (over the parsed judgements; the failures are counted in ``unparsed``) and counts an
    event's full mark when every answer of it got overall 5."""
    out: dict = {"scoring": scoring}
    if scoring == "official":
        scores = helm.judge_scores(states)
        full = {"overall": "full_mark", "accuracy": "acc_full_mark", "coherence": "cohere_full_mark",
                "comprehensive": "compre_full_mark"}
        for dim, exam in EXAM_KEYS.items():
            out[f"mean_{dim}"] = scores[exam]
            out[f"full_mark_{dim}"] = scores[full[exam]]
    events = helm.judge_event_scores(states, scoring)
    out["events"] = events["events"]
    out["event_full_mark_overall"] = events["full_mark"]
    out["event_mean_overall"] = events["overall"]
    return out


def tendency_generation(model: Backend, judge: Backend, items: Sequence[BenchmarkItem], *,
                        seed: int = 0, max_tokens: int = 128, scoring: str = DEFAULT_SCORING) -> dict:
    """Tendency-G: ask tendency questions open-ended (with the gold event in context) and let
    ``judge`` score the answers against the gold option's text (ELKEN's human label). The
    judged answers are kept as exam request states (``exam_states``), which ``export run
    --format helm`` writes as ``tendency_gen_exam.json``."""
    tend = [i for i in items if part(i) == "tendency" and in_scope(i)]
    requests = [GenerationRequest(prompt=open_tendency_prompt(i), temperature=0.0, seed=seed,
                                  max_tokens=max_tokens) for i in tend]
    answers = ask(requests, model) if requests else []
    texts = [a.texts[0] if a.texts and a.error is None else "" for a in answers]
    cases = [{"event": i.metadata["event"], "question": i.question, "answer": text,
              "label": i.choices[i.answer_index] if i.answer_index is not None else i.answers[0]}
             for i, text in zip(tend, texts)]
    judged = judge_tendency(judge, cases)
    states = exam_states(tend, texts, judged["judgements"])
    judged.update(judge_summary(judged, states, scoring))
    judged["exam_states"] = states
    return judged


def overall_event_level(items: Sequence[BenchmarkItem], answers: dict[str, str | None], judged: dict,
                        scoring: str) -> dict:
    """``overall_event_level_metric.py``: the share of judged events whose every open tendency
    answer got overall 5 and whose every in-scope fact question is right."""
    facts = [helm.item_state(i, answers.get(i.id), with_event=True) for i in items
             if part(i) == "fact" and in_scope(i) and i.id in answers]
    return helm.overall_event_level(facts, judged.get("exam_states", []), scoring)


def judge_rows(judged: dict) -> list[dict]:
    """The Tendency-G numbers as a table, each with the rule that made it."""
    official = judged.get("scoring") == "official"
    over = ("every judged answer, a failed judgement counted as -1 (compute_score)" if official
            else f"the parsed judgements ({judged['unparsed']} of {judged['cases']} failed to parse)")
    rows = [{"measure": "open answers judged", "value": judged["cases"], "over": "in-scope tendency questions"},
            {"measure": "judgements that failed to parse", "value": judged["unparsed"], "over": "open answers"}]
    for dim in JUDGE_DIMENSIONS:
        rows.append({"measure": f"mean {dim} (1-5)", "value": _round(judged.get(f"mean_{dim}")), "over": over})
    for dim in JUDGE_DIMENSIONS:
        rows.append({"measure": f"full-mark share, {dim} (%)", "value": _percent(judged.get(f"full_mark_{dim}")),
                     "over": over})
    rows.append({"measure": "events whose every answer got overall 5 (%)",
                 "value": _percent(judged.get("event_full_mark_overall")),
                 "over": (f"{judged.get('events')} events (compute_event_score, as released)" if official
                          else f"{judged.get('events')} events")})
    level = judged.get("overall_event_level") or {}
    if level:
        rows.append({"measure": "overall event level (%)", "value": _round(level.get("percent")),
                     "over": f"{level.get('correct')} of {level.get('events')} judged events with every fact "
                             "question right too (overall_event_level_metric.py)"})
    return rows


def _round(value) -> float | None:
    return None if value is None else round(value, 3)


def _percent(value) -> float | None:
    return None if value is None else round(100 * value, 1)

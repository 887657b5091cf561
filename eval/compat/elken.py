"""ELKEN's official scoring, reproduced rule for rule (METHODS.md §3).

* answer normalisation: first line, strip, lower-case, drop ONE trailing period;
* fact labels = aliases + name; gold "unknown" → right iff the normalised prediction contains
  "unknown"; otherwise exact match of normalised prediction and a normalised label;
* tendency: first line; if it contains "(" exactly one "(A)"/"(B)"/"(C)" must occur and that
  letter is the answer; else if it contains "." the text before the first "."; else the line;
  compared case-sensitively with the gold letter (so "b" and " B" are wrong);
* locality: before/after answers normalised, mapped to the first alias when they are an alias,
  anything containing "unknown" collapsed to "unknown"; unchanged ⇒ local;
* edit level: an event counts only if all its questions are right.

No rule here is "improved": differences from the default scorers are listed in docs/eval.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from knowforge.errors import InputError
from knowforge.models.types import BenchmarkItem
from knowforge.eval.types import Score

UNKNOWN = "unknown"
_TENDENCY_LETTER = re.compile(r"\((A|B|C)\)")
_CANDIDATE = re.compile(r"\(([A-C])\)")


def normalize(text: str | None) -> str:
    """First line, strip, lower-case, drop one trailing period."""
    text = (text or "").split("\n")[0].strip().lower()
    if text.endswith("."):
        text = text[:-1]
    return text


def fact_labels(name: str, aliases: Sequence[str] = ()) -> list[str]:
    """aliases + name, in that order (the first alias is the canonical form for locality)."""
    return [*aliases, name]


def is_unknown_gold(name: str, aliases: Sequence[str] = ()) -> bool:
    return normalize(name) == UNKNOWN


def score_fact(prediction: str | None, name: str, aliases: Sequence[str] = ()) -> bool:
    """One fact question: right or wrong under the official rule."""
    pred = normalize(prediction)
    if is_unknown_gold(name, aliases):
        return UNKNOWN in pred
    return pred in {normalize(label) for label in fact_labels(name, aliases)}


def parse_tendency(prediction: str | None) -> str | None:
    """The option a tendency answer picks, or None when the "(" rule finds not exactly one."""
    line = (prediction or "").split("\n")[0]
    if "(" in line:
        found = _TENDENCY_LETTER.findall(line)
        return found[0] if len(found) == 1 else None
    if "." in line:
        return line.split(".")[0]
    return line


def score_tendency(prediction: str | None, gold_letter: str) -> bool:
    return parse_tendency(prediction) == gold_letter


def locality_label(prediction: str | None, aliases: Sequence[str] = ()) -> str:
    """A locality answer in canonical form: first alias when it is an alias; "unknown" collapsed."""
    pred = normalize(prediction)
    if UNKNOWN in pred:
        return UNKNOWN
    normalised_aliases = [normalize(a) for a in aliases]
    if pred in normalised_aliases:
        return normalised_aliases[0]
    return pred


def locality_unchanged(before: str | None, after: str | None, aliases: Sequence[str] = ()) -> bool:
    """An out-of-scope answer is local when the edit did not change it."""
    return locality_label(before, aliases) == locality_label(after, aliases)


def edit_level(question_results: Iterable[bool]) -> bool:
    """An event is edited only when every one of its questions is right (and it has some)."""
    results = list(question_results)
    return bool(results) and all(results)


# --- adapters to BenchmarkItem (scorer registry names "elken-fact", "elken-tendency") --------
def score_fact_item(item: BenchmarkItem, response: str) -> Score:
    """``item.answers`` holds the fact labels (aliases + name); ``item.unknown`` marks a deleted fact."""
    pred = normalize(response)
    right = UNKNOWN in pred if item.unknown else pred in {normalize(a) for a in item.answers}
    return Score(value=1.0 if right else 0.0, answer=pred,
                 explanation="ELKEN official: normalised exact match with aliases + name")


def score_tendency_item(item: BenchmarkItem, response: str) -> Score:
    gold = item.answers[0] if item.answers else "ABC"[item.answer_index or 0]
    parsed = parse_tendency(response)
    return Score(value=1.0 if parsed == gold else 0.0, answer=parsed,
                 explanation="ELKEN official tendency parsing, case-sensitive letter")


# --- the released format ---------------------------------------------------------------------
def parse_candidates(candidate: str) -> list[str]:
    """"(A) x (B) y (C) z" → ["x", "y", "z"]."""
    parts = _CANDIDATE.split(candidate)
    # split gives ["", "A", " x ", "B", " y ", ...]
    return [parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)]


def read_official(path: str | Path, *, benchmark: str = "elken") -> list[BenchmarkItem]:
    """Read ELKEN's released JSON (a list of events) into items scored in compat mode.

    Fact questions use scorer "elken-fact", tendency questions "elken-tendency"; every item's
    ``metadata`` keeps the event index, so edit-level reliability can be computed per event.
    """
    path = Path(path)
    try:
        events = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}", path=str(path), line=exc.lineno) from exc
    if not isinstance(events, list):
        raise InputError("expected a JSON list of events", path=str(path))
    items: list[BenchmarkItem] = []
    for e_index, event in enumerate(events):
        if not isinstance(event, Mapping) or "event" not in event:
            raise InputError("an event needs an 'event' field", path=str(path), record=f"event {e_index}")
        for part in ("fact", "tendency"):
            for scope in ("qas", "local_qas"):
                for q_index, qa in enumerate(event.get(part, {}).get(scope, [])):
                    items.append(_item(benchmark, e_index, event, part, scope, q_index, qa, path))
    return items


def _item(benchmark, e_index, event, part, scope, q_index, qa, path) -> BenchmarkItem:
    record = f"event {e_index} {part}.{scope}[{q_index}]"
    try:
        base = dict(id=f"elken:{e_index}:{part}:{scope}:{q_index}", benchmark=benchmark,
                    context=event["event"],
                    slices={"part": part, "scope": "in" if scope == "qas" else "out",
                            "event_type": event.get("event_type")},
                    metadata={"event_index": e_index})
        if part == "tendency":
            choices = parse_candidates(qa["candidate"])
            return BenchmarkItem(**base, task=f"elken/tendency-{base['slices']['scope']}",
                                 form="multi-choice", question=qa["question"], choices=choices,
                                 answers=[qa["answer"]], answer_index="ABC".index(qa["answer"]),
                                 scorer="elken-tendency")
        answer = qa["answer"]
        base["metadata"].update(name=answer["name"], aliases=list(answer.get("alias") or []),
                                rel_id=qa.get("rel_id"))
        return BenchmarkItem(**base, task=f"elken/fact-{base['slices']['scope']}", form="generation",
                             question=qa["question"], answers=fact_labels(answer["name"], answer.get("alias") or []),
                             unknown=answer.get("id") == "NA" or normalize(answer["name"]) == UNKNOWN,
                             scorer="elken-fact")
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"malformed question: {exc}", path=str(path), record=record) from exc

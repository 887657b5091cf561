"""Scorers: pure functions from (item, response) to a ``Score``.

Two layers:

* parsers (``extract_choice_letter``, ``extract_yes_no``, ``is_unknown``, ``normalize_answer``)
  turn free text into an answer and never look at the gold;
* scorers (``score_fuzzy``, ``score_exact``, ...) compare a parsed answer with the item's gold.

The generic scorers are declared in ``knowforge.eval.generic``; a method's own scorers (with
their ``official`` variants) in its ``eval/<method>/`` unit; ``knowforge.eval.scoring``
dispatches on the name an item carries and the run's scoring mode.

The default ("robust") scorers read the first non-empty line of a response and accept the
usual ways models phrase an answer; docs/eval.md lists where they differ from compat mode.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable, Sequence

from rapidfuzz import fuzz

from knowforge.errors import ConfigError
from knowforge.models.types import BenchmarkItem
from knowforge.eval.types import Score

FUZZY_THRESHOLD = 70
LETTERS = "ABCDEFGHIJ"

Scorer = Callable[[BenchmarkItem, str], Score]


# --------------------------------------------------------------------------------------------
# text helpers
# --------------------------------------------------------------------------------------------
def first_line(text: str | None) -> str:
    """The first non-empty line, stripped (models often open with a newline)."""
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


_FINAL_ANSWER = re.compile(r"(?:final answer|answer)\s*(?:is)?\s*[:：]\s*(.+)", re.IGNORECASE)


def final_answer(text: str | None) -> str:
    """The answer of a chain-of-thought response: what follows the last "Answer:", if any.

    Without such a marker the whole response is returned, so the usual first-line rules apply.
    """
    text = text or ""
    matches = list(_FINAL_ANSWER.finditer(text))
    if not matches:
        return text
    return matches[-1].group(1).strip()


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SEPARATORS = re.compile(r"[-‐–—/_]")
_PUNCT = re.compile(f"[{re.escape(string.punctuation)}‘’“”]")
_ANSWER_PREFIX = re.compile(r"^\s*(?:the\s+)?(?:final\s+)?answer\s*(?:is)?\s*[:：]?\s*", re.IGNORECASE)


def normalize_answer(text: str | None) -> str:
    """SQuAD-style normalisation: lower-case, punctuation deleted (dashes and slashes become
    spaces), articles a/an/the dropped, single spaces. "U.S.A." → "usa"."""
    text = _SEPARATORS.sub(" ", (text or "").lower())
    text = _PUNCT.sub("", text)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def strip_answer_prefix(text: str) -> str:
    """Drop a leading "Answer:" / "The answer is" that models like to add."""
    return _ANSWER_PREFIX.sub("", text, count=1)


# --------------------------------------------------------------------------------------------
# parsers
# --------------------------------------------------------------------------------------------
def extract_choice_letter(response: str | None, n_choices: int = 4) -> str | None:
    """The option letter a response picks, or None.

    Accepts "(B)", "B", "B.", "b)", "B) text", "Answer: B", "The answer is (C)", "Option C",
    with trailing text. A bare lower-case letter counts only when it stands alone or is
    followed by ")" / "." (so the article "a" in "a cat" is not read as option A).
    """
    return _choice_letter(final_answer(response or ""), n_choices)


def _choice_letter(answer: str, n_choices: int) -> str | None:
    """``extract_choice_letter`` of a response whose ``final_answer`` is ``answer``."""
    letters = LETTERS[:max(1, min(n_choices, len(LETTERS)))]
    text = answer.strip()
    if not text:
        return None
    for pattern in _choice_patterns(letters):
        match = pattern.search(text)
        if not match:
            continue
        # "the answer is a dog": a lower-case letter followed by a word is an article
        if match.group(1).islower() and _WORD_AFTER.match(text, match.end(1)):
            continue
        return match.group(1).upper()
    return None


_WORD_AFTER = re.compile(r"\s+[A-Za-z]")


# compiled once per set of letters: built and looked up in re's cache on every call, the four
# patterns were a third of scoring a multiple-choice answer (100,000-sample profile)
@functools.lru_cache(maxsize=32)
def _choice_patterns(letters: str) -> tuple[re.Pattern, ...]:
    cls = f"[{letters}{letters.lower()}]"
    upper = f"[{letters}]"
    return (
        # "answer is (C)", "Answer: B", "option b", "choice: (d)"
        re.compile(rf"(?:answer|option|choice)\s*(?:is|:|：)?\s*[:：]?\s*\(?\s*({cls})\s*\)?(?![A-Za-z])",
                   re.IGNORECASE),
        # "(B)" anywhere; the first one wins
        re.compile(rf"\(\s*({cls})\s*\)"),
        # leading "B.", "b)", "B:", "B -", or "B" alone
        re.compile(rf"^\s*({cls})\s*(?:[.):\]-]|$)"),
        # a leading capital letter followed by text: "B Paris"
        re.compile(rf"^\s*({upper})\s"),
    )


_YES = {"yes", "true", "right", "correct", "y", "t"}
_NO = {"no", "false", "wrong", "incorrect", "n", "f", "not"}


# cached: a run's metrics read each boolean answer several times (balanced accuracy and its
# per-unit totals, the report), and answers repeat; a pure function of one string
@functools.lru_cache(maxsize=1 << 16)
def extract_yes_no(response: str | None) -> bool | None:
    """True for yes/true/right/correct, False for no/false/wrong/incorrect, else None.

    Reads the first word of the answer (after an optional "Answer:" prefix), so
    "No, he was not." is False and "Yes." is True; "It is true that ..." falls back to the
    first yes/no word of the first line.
    """
    line = strip_answer_prefix(first_line(final_answer(response)))
    words = re.findall(r"[a-z]+", line.lower())
    if not words:
        return None
    if words[0] in _YES:
        return True
    if words[0] in _NO:
        return False
    for word in words:
        if word in _YES - {"y", "t"}:
            return True
        if word in _NO - {"n", "f", "not"}:
            return False
    return None


_UNKNOWN = re.compile(
    r"\b(unknown|i\s+do\s*n[o']?t\s+know|i\s+dont\s+know|don[’']t\s+know|not\s+known|"
    r"no\s+information|cannot\s+be\s+determined|can[’']?not\s+(?:know|tell|say|determine)|"
    r"not\s+sure|unsure|no\s+idea|not\s+enough\s+information|insufficient\s+information|"
    r"uncertain)\b", re.IGNORECASE)


def is_unknown(response: str | None) -> bool:
    """Does the response say the answer is unknown ("unknown", "I don't know", ...)?"""
    return bool(_UNKNOWN.search(first_line(final_answer(response))))


# --------------------------------------------------------------------------------------------
# matchers (no item needed; handy for generators)
# --------------------------------------------------------------------------------------------
def fuzzy_match(response: str | None, golds: Sequence[str], threshold: int = FUZZY_THRESHOLD) -> tuple[bool, float]:
    """ChroKnowledge's rule: ``token_set_ratio(answer.lower(), gold.lower()) >= threshold`` for
    any gold. Returns (matched, best ratio)."""
    return _fuzzy_match(strip_answer_prefix(first_line(response)), golds, threshold)


def _fuzzy_match(line: str, golds: Sequence[str], threshold: int) -> tuple[bool, float]:
    """``fuzzy_match`` of a response whose first line, without an answer prefix, is ``line``."""
    answer = line.lower()
    best = 0.0
    for gold in golds:
        if not gold:
            continue
        best = max(best, fuzz.token_set_ratio(answer, gold.lower()))
    return best >= threshold, best


def exact_match(response: str | None, golds: Sequence[str]) -> bool:
    """Normalised exact match against any gold (name or alias)."""
    answer = normalize_answer(strip_answer_prefix(first_line(response)))
    return bool(answer) and any(answer == normalize_answer(g) for g in golds if g)


# --------------------------------------------------------------------------------------------
# scorers
# --------------------------------------------------------------------------------------------
def _unknown_score(item: BenchmarkItem, response: str) -> Score:
    hit = is_unknown(response)
    return Score(value=1.0 if hit else 0.0, answer="unknown" if hit else first_line(response),
                 explanation="gold is unknown; right iff the response says it does not know")


def score_fuzzy(item: BenchmarkItem, response: str, threshold: int = FUZZY_THRESHOLD) -> Score:
    if item.unknown:
        return _unknown_score(item, response)
    line = strip_answer_prefix(first_line(response))      # read once: the match and the answer
    matched, ratio = _fuzzy_match(line, item.answers, threshold)
    return Score(value=1.0 if matched else 0.0, answer=line,
                 explanation=f"best token_set_ratio {ratio:.1f} (threshold {threshold})",
                 metadata={"ratio": ratio})


def score_exact(item: BenchmarkItem, response: str) -> Score:
    if item.unknown:
        return _unknown_score(item, response)
    answer = strip_answer_prefix(first_line(response))
    matched = exact_match(response, item.answers)
    return Score(value=1.0 if matched else 0.0, answer=answer,
                 explanation="normalised exact match against answers and aliases")


def gold_choice_index(item: BenchmarkItem) -> int | None:
    """The gold option of a multiple-choice item: ``answer_index`` or a letter/choice in answers."""
    if item.answer_index is not None:
        return item.answer_index
    for answer in item.answers:
        letter = extract_choice_letter(answer, max(len(item.choices), 1))
        if letter is not None and len(answer.strip()) <= 3:
            return LETTERS.index(letter)
        for i, choice in enumerate(item.choices):
            if normalize_answer(choice) == normalize_answer(answer):
                return i
    return None


def choice_from_text(response: str, choices: Sequence[str]) -> int | None:
    """The one choice whose text appears in the response (case-insensitive), else None."""
    lowered = (response or "").lower()
    present = [i for i, c in enumerate(choices) if c and c.lower() in lowered]
    return present[0] if len(present) == 1 else None


def score_multiple_choice(item: BenchmarkItem, response: str) -> Score:
    gold = gold_choice_index(item)
    if gold is None:
        raise ConfigError(f"item {item.id}: a multiple-choice item needs answer_index or a letter answer")
    n = max(len(item.choices), 4 if not item.choices else len(item.choices))
    answer = final_answer(response)        # read once: a long reasoning is scanned once, not twice
    letter = _choice_letter(answer, n)
    picked = LETTERS.index(letter) if letter is not None else choice_from_text(answer, item.choices)
    parsed = LETTERS[picked] if picked is not None else None
    return Score(value=1.0 if picked == gold else 0.0, answer=parsed,
                 explanation=f"gold {LETTERS[gold]}, parsed {parsed or 'nothing'}")


def gold_boolean(item: BenchmarkItem) -> bool:
    for answer in item.answers:
        value = extract_yes_no(answer)
        if value is not None:
            return value
    raise ConfigError(f"item {item.id}: a boolean item needs an answer such as yes/no or true/false")


def score_boolean(item: BenchmarkItem, response: str) -> Score:
    """yes/no, true/false and right/wrong questions (any spelling of either side)."""
    if item.unknown:
        return _unknown_score(item, response)
    gold = gold_boolean(item)
    parsed = extract_yes_no(response)
    return Score(value=1.0 if parsed is gold else 0.0,
                 answer=None if parsed is None else ("yes" if parsed else "no"),
                 explanation=f"gold {'yes' if gold else 'no'}")


def score_unknown(item: BenchmarkItem, response: str) -> Score:
    """Right iff the response says it does not know (knowledge dropout / deletion)."""
    return _unknown_score(item, response)

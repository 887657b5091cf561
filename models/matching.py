"""The fuzzy answer-match rule that generators and scorers must agree on.

ChroKnowledge's released code matches an answer to an object with rapidfuzz
``token_set_ratio(answer.lower(), object.lower()) >= 70``. The chrono check scores answers
with it, and the chrono generator uses the same rule to keep distractors from matching a gold
object; one definition keeps the two from drifting apart.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz

THRESHOLD = 70


def fuzzy_equal(a: str | None, b: str | None, threshold: int = THRESHOLD) -> bool:
    """The paper's match rule between two strings (empty strings never match)."""
    if not a or not b or not a.strip() or not b.strip():
        return False
    return fuzz.token_set_ratio(a.lower(), b.lower()) >= threshold


def fuzzy_in(answer: str | None, golds: Sequence[str], threshold: int = THRESHOLD) -> bool:
    return any(fuzzy_equal(answer, g, threshold) for g in golds)

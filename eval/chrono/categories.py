"""ChroKnowledge's categories, as pure functions over answers (no requests, no backend).

Per (fact, year), after SliCK (paper Table 1), with the released code's two partial kinds:

* ``correct``: every greedy answer matches an object of that year;
* ``partial_correct1``: some, not all, greedy answers match;
* ``partial_correct2``: no greedy answer matches, some sampled (temperature 0.7) answer does;
* ``incorrect``: nothing matches.

Over all years of a fact (paper Figure 4): ``Known`` (correct every year), ``Unknown``
(incorrect every year), ``Cut-off`` (right up to a year and wrong from then on, or wrong up to a
year and right from then on — "right" meaning correct or partial, as in the released code),
``Partial Known`` (everything else).

A match is rapidfuzz ``token_set_ratio(answer.lower(), object.lower()) >= 70``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from knowforge.models.matching import THRESHOLD, fuzzy_in

CORRECT = "correct"
PARTIAL_GREEDY = "partial_correct1"
PARTIAL_SAMPLED = "partial_correct2"
INCORRECT = "incorrect"
YEAR_CATEGORIES = (CORRECT, PARTIAL_GREEDY, PARTIAL_SAMPLED, INCORRECT)
RIGHT = frozenset({CORRECT, PARTIAL_GREEDY, PARTIAL_SAMPLED})

KNOWN = "Known"
UNKNOWN = "Unknown"
CUT_OFF = "Cut-off"
PARTIAL_KNOWN = "Partial Known"
FACT_CATEGORIES = (KNOWN, CUT_OFF, PARTIAL_KNOWN, UNKNOWN)


def classify_year(greedy: Sequence[str], sampled: Sequence[str], golds: Sequence[str],
                  threshold: int = THRESHOLD) -> str:
    """Category of one (fact, year) from its greedy and sampled answers."""
    greedy_hits = [fuzzy_in(a, golds, threshold) for a in greedy]
    if greedy_hits and all(greedy_hits):
        return CORRECT
    if any(greedy_hits):
        return PARTIAL_GREEDY
    if any(fuzzy_in(a, golds, threshold) for a in sampled):
        return PARTIAL_SAMPLED
    return INCORRECT


def classify_timeline(categories: Mapping[int, str]) -> str:
    """Chronological category of a fact from its per-year categories."""
    seq = [categories[y] for y in sorted(categories)]
    if not seq:
        raise ValueError("a fact needs at least one year")
    if all(c == CORRECT for c in seq):
        return KNOWN
    if all(c == INCORRECT for c in seq):
        return UNKNOWN
    right = [c in RIGHT for c in seq]
    # exactly one switch between a right run and a wrong run, in either direction
    switches = sum(1 for a, b in zip(right, right[1:]) if a != b)
    if switches == 1:
        return CUT_OFF
    return PARTIAL_KNOWN


def known_after_chronoprompt(categories: Mapping[int, str], chrono_correct: set[int]) -> bool:
    """A fact is Known after ChroKnowPrompt when every year is Correct or Chrono-correct."""
    return all(c == CORRECT or y in chrono_correct for y, c in categories.items())


def majority_object(answers: Sequence[str], golds: Sequence[str], threshold: int = THRESHOLD) -> str | None:
    """The most frequent of the answers that match the year's objects (the model's own wording);
    ties go to the answer seen first. None when no answer matches."""
    matching = [a.strip() for a in answers if fuzzy_in(a, golds, threshold)]
    if not matching:
        return None
    counts = Counter(m.lower() for m in matching)
    best = max(counts.values())
    return next(m for m in matching if counts[m.lower()] == best)

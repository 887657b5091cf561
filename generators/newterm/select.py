"""Pure decisions of NewTerm: which terms to keep, how to thin related terms and choices, which
items survive the LLM filter and which one per term is hardest.

Each function takes plain values (and, where similarity matters, a similarity matrix) and
returns its decision with the reason for everything it drops, so the pipeline's behaviour
is testable on small inputs and reproducible from a seed.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

# wordfreq Zipf frequency → the paper's frequency buckets (§4.4: New, Rare, Moderate, Frequent).
# "New" stands for "<= 10 web hits": wordfreq has no entry at all.
FREQUENCY_BUCKETS = ((0.0, "new"), (2.5, "rare"), (4.0, "moderate"), (math.inf, "frequent"))


def frequency_bucket(zipf: float | None) -> str:
    if not zipf:
        return "new"
    for bound, name in FREQUENCY_BUCKETS[1:]:
        if zipf < bound:
            return name
    return "frequent"


@dataclass(frozen=True)
class TermCandidate:
    """One (term, meaning) added in the benchmark's year, with its selection signals."""

    term_id: str
    fact_id: str
    term: str
    meaning: str
    category: str
    term_type: str | None = None
    year: int | None = None
    heads: tuple[str, ...] = ()          # lemma ids of the meaning's head words
    in_wordnet: bool = False             # the term itself is a WordNet lemma
    zipf: float = 0.0                    # wordfreq Zipf frequency of the term
    guess: str | None = None             # the LLM's guess of the meaning from the spelling
    similarity: float | None = None      # guess vs meaning (lower = harder to deduce)

    @property
    def frequency_bucket(self) -> str:
        return frequency_bucket(self.zipf)


@dataclass
class TermSelection:
    kept: list[TermCandidate] = field(default_factory=list)
    dropped: dict[str, list[TermCandidate]] = field(default_factory=lambda: defaultdict(list))

    def counts(self) -> dict[str, int]:
        return {reason: len(terms) for reason, terms in sorted(self.dropped.items())}


def select_terms(candidates: Sequence[TermCandidate], n: int, categories: Sequence[str],
                 *, novelty: bool = True) -> TermSelection:
    """NewTerm's term selection, offline.

    * Category: only ``categories``.
    * Novelty (new words and phrases): a term that is a WordNet lemma is not new.
    * Deducing difficulty: within a category, the least deducible first (lowest similarity
      of the guessed meaning); ties by frequency — the rarest first for new words and
      phrases, the most frequent first for old words with new meanings, as the paper picks
      them — then by term id. The first ``n`` of each category are kept.
    """
    result = TermSelection()
    by_category: dict[str, list[TermCandidate]] = defaultdict(list)
    for c in candidates:
        if c.category not in categories:
            result.dropped[f"category {c.category!r} not asked"].append(c)
        elif novelty and c.category in ("new word", "new phrase") and c.in_wordnet:
            result.dropped["not new: a WordNet lemma"].append(c)
        else:
            by_category[c.category].append(c)
    for category in categories:
        members = by_category.get(category, [])
        frequent_first = category == "new meaning"
        members.sort(key=lambda c: (c.similarity if c.similarity is not None else 0.0,
                                    -c.zipf if frequent_first else c.zipf, c.term_id, c.fact_id))
        result.kept.extend(members[:n])
        for c in members[n:]:
            result.dropped["more deducible than the kept ones"].append(c)
    return result


def thin(texts: Sequence[str], keep: int, similarity: Sequence[Sequence[float]],
         protected: Sequence[int] = ()) -> list[int]:
    """Indices of ``texts`` left after NewTerm's thinning: while more than ``keep`` remain,
    take the most similar pair and drop one of it — never a protected index (the meaning, a
    gold choice); between two unprotected ones, the one whose next-closest neighbour is
    closer (the more redundant; on a tie the earlier one, as the official ``filter_sim``).

    When every remaining index is protected the loop stops early. The result keeps the
    input order.
    """
    alive = list(range(len(texts)))
    protected_set = set(protected)
    while len(alive) > keep:
        best = None
        for a_pos, a in enumerate(alive):
            for b in alive[a_pos + 1:]:
                if a in protected_set and b in protected_set:
                    continue
                value = similarity[a][b]
                if best is None or value > best[0]:
                    best = (value, a, b)
        if best is None:
            break
        _, a, b = best
        if a in protected_set:
            drop = b
        elif b in protected_set:
            drop = a
        else:
            second = {i: _second_closest(i, alive, similarity) for i in (a, b)}
            drop = a if second[a] >= second[b] else b
        alive.remove(drop)
    return alive


def _second_closest(i: int, alive: Sequence[int], similarity: Sequence[Sequence[float]]) -> float:
    values = sorted((similarity[i][j] for j in alive if j != i), reverse=True)
    return values[1] if len(values) > 1 else -math.inf


# --- the LLM filter ------------------------------------------------------------------------------

@dataclass(frozen=True)
class ChoiceVerdict:
    kept: bool
    reason: str                        # "kept" or why it was dropped
    choices: tuple[int, ...] = ()      # indices into the candidate choices, in the kept order
    picked: tuple[int, ...] = ()


def judge_choices(n_choices: int, gold: int, picked: Sequence[int], *, must_stay: Sequence[int] = (),
                  keep: int = 4, min_distractors: int = 3) -> ChoiceVerdict:
    """The COMA / COST filter rule on one multi-select answer.

    Drop the item when the filter model did not pick the gold choice (the question is
    inconsistent), or when fewer than ``min_distractors`` distractors stay unpicked; for
    COST, a ``must_stay`` choice (the new term, when a related term is gold) that was picked
    also drops it. Otherwise the candidates are the gold plus the unpicked distractors;
    ``thin_choices`` cuts them to ``keep``.
    """
    picked = tuple(sorted(set(i for i in picked if 0 <= i < n_choices)))
    if gold not in picked:
        return ChoiceVerdict(False, "gold not picked", picked=picked)
    stay = [i for i in must_stay if i != gold]
    if any(i in picked for i in stay):
        return ChoiceVerdict(False, "new term picked as a distractor", picked=picked)
    unpicked = [i for i in range(n_choices) if i not in picked]
    if len(unpicked) < min_distractors:
        return ChoiceVerdict(False, f"fewer than {min_distractors} unpicked distractors", picked=picked)
    return ChoiceVerdict(True, "kept", tuple(sorted([gold, *unpicked])), picked)


def judge_rating(gold: bool, rating: int | None, *, true_above: int = 7, false_at_most: int = 3) -> tuple[bool, str]:
    """CSJ's filter: a true sentence stays when rated above 7, a false one when rated 3 or less."""
    if rating is None:
        return False, "no rating"
    if gold:
        return (True, "kept") if rating > true_above else (False, f"true sentence rated {rating} <= {true_above}")
    return (True, "kept") if rating <= false_at_most else (False, f"false sentence rated {rating} > {false_at_most}")


# --- hardness ------------------------------------------------------------------------------------

def perplexity(total_logprob: float, n_tokens: int) -> float:
    """exp(-mean token log-probability); 1.0 for an empty continuation."""
    return math.exp(-total_logprob / n_tokens) if n_tokens else 1.0


def hardest(items: Sequence[object], *, group: Callable[[object], str], score: Callable[[object], float | None],
            ident: Callable[[object], str], per_group: int) -> tuple[list[object], list[object]]:
    """(kept, dropped): the ``per_group`` items of each group with the highest score (the
    reference model's perplexity), ties by id; items without a score rank last."""
    groups: dict[str, list[object]] = defaultdict(list)
    for item in items:
        groups[group(item)].append(item)
    kept, dropped = [], []
    for key in sorted(groups):
        ranked = sorted(groups[key], key=lambda it: (score(it) is None, -(score(it) or 0.0), ident(it)))
        kept.extend(ranked[:per_group])
        dropped.extend(ranked[per_group:])
    return kept, dropped

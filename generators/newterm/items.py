"""NewTerm's candidate items, built from model replies without a model: pure functions.

The pipeline (``generate.py``) asks; these functions turn the replies into candidates, apply
the filter's verdicts and build the released records. A candidate remembers where each of
its choices came from (the gold sentence, the new term, or related term *r*), so the graph
can say which kind of related term a distractor was.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from . import prompts
from .related import Related
from .select import ChoiceVerdict, judge_choices, judge_rating, thin
from .text import (blank_term, capitalised, count_term, first_sentence_line, parse_letters, parse_rating,
                   replace_term, split_paragraph, word_count)

GOLD = -1          # source of the gold sentence (COMA) in ``Candidate.sources``
TERM = -2          # source of the new term itself (COST)


@dataclass(frozen=True)
class Candidate:
    """One question before the filter: choices in asking order, and each choice's source
    (``GOLD``, ``TERM`` or the rank of the related term it came from)."""

    task: str                              # COMA, COST, CSJ
    fact_id: str                           # the term's meaning fact (identifies the term entry)
    question: str
    choices: tuple[str, ...] = ()
    sources: tuple[int, ...] = ()
    gold: int | bool = 0
    split: str | None = None               # COMA: cause | effect
    gold_kind: str = "term"                # COST: term | related
    sentence: str = ""                     # the full sentence, for perplexity
    context: str = ""                      # perplexity: the part the score is conditioned on
    verdict: str | None = None             # "kept" or why the filter dropped it
    picked: tuple[str, ...] = ()           # letters the filter model picked
    rating: int | None = None              # CSJ: the filter model's 0-10 rating
    perplexity: float | None = None

    @property
    def key(self) -> str:
        payload = "\x1f".join([self.task, self.fact_id, self.question, *self.choices, str(self.gold)])
        return hashlib.sha1(payload.encode("utf-8")).hexdigest()[:16]

    @property
    def continuation(self) -> str:
        return self.sentence[len(self.context):]


def _rng(seed: int, *parts: str) -> random.Random:
    return random.Random(f"{seed}:newterm:" + ":".join(parts))


def _shuffle(seed: int, what: str, fact_id: str, question: str, order: list[int]) -> list[int]:
    order = list(order)
    _rng(seed, what, fact_id, question).shuffle(order)
    return order


# --- COMA -------------------------------------------------------------------------------------

def coma_premises(reply: str | None, *, term: str, split: str) -> list[tuple[str, str]]:
    """(premise, gold) pairs of a paragraphs reply: lines in the "Sentence 1. <marker>
    Sentence 2." form whose first sentence uses the term; each premise once."""
    out, seen = [], set()
    for line in (reply or "").splitlines():
        parts = split_paragraph(line, prompts.MARKERS[split])
        if parts is None or count_term(parts[0], term) < 1:
            continue
        premise, gold = parts
        if premise.lower() in seen:
            continue
        seen.add(premise.lower())
        out.append((premise, gold))
    return out


def coma_completion_premise(premise: str, term: str, related: Related) -> str | None:
    """The premise with the new term replaced by a related term (asked to be completed)."""
    return replace_term(premise, term, related.text)


def coma_candidate(*, fact_id: str, premise: str, gold: str, split: str,
                   completions: Sequence[tuple[int, str | None]], seed: int, similarity,
                   max_choices: int = 6) -> Candidate | None:
    """A COMA question from a premise, its gold second sentence and the completions written
    for the premise with related term ``rank`` in place of the term. A completion that
    repeats the related term, is empty or duplicates another is left out; more than
    ``max_choices`` candidates are thinned (gold protected); the order is shuffled."""
    texts, sources = [gold], [GOLD]
    for rank, text in completions:
        text = first_sentence_line(text)
        if not text or text.lower() in (t.lower() for t in texts):
            continue
        texts.append(text)
        sources.append(rank)
    if len(texts) < 4:
        return None
    if len(texts) > max_choices:
        keep = thin(texts, max_choices, similarity.matrix(texts), protected=[0])
        texts, sources = [texts[i] for i in keep], [sources[i] for i in keep]
    order = _shuffle(seed, "coma", fact_id, premise, list(range(len(texts))))
    marker = prompts.MARKERS[split]
    return Candidate("COMA", fact_id, premise, tuple(texts[i] for i in order), tuple(sources[i] for i in order),
                     gold=order.index(0), split=split, sentence=f"{premise} {marker} {gold}",
                     context=f"{premise} {marker}")


# --- COST -------------------------------------------------------------------------------------

def cost_questions(reply: str | None, gold_text: str) -> list[str]:
    """Sentences of a reply with their one occurrence of ``gold_text`` blanked as ``_``."""
    out = []
    for line in (reply or "").splitlines():
        sentence = first_sentence_line(line)
        blanked = blank_term(sentence, gold_text) if sentence else None
        if blanked and blanked.count("_") == 1 and word_count(blanked.replace("_", "")) >= 3 \
                and blanked not in out:
            out.append(blanked)
    return out


def cost_candidate(*, fact_id: str, term: str, question: str, related: Sequence[Related], gold_rank: int | None,
                   seed: int) -> Candidate:
    """A COST question: the related terms and the new term as choices (capitalised, as
    released), gold the new term (``gold_rank`` None) or related term ``gold_rank``."""
    texts = [capitalised(r.text) for r in related] + [capitalised(term)]
    sources = list(range(len(related))) + [TERM]
    gold_index = len(related) if gold_rank is None else gold_rank
    order = _shuffle(seed, "cost", fact_id, question, list(range(len(texts))))
    gold_text = texts[gold_index]
    sentence = question.replace("_", gold_text.lower() if gold_rank is not None else term, 1)
    first = sentence.split(" ", 1)[0]
    return Candidate("COST", fact_id, question, tuple(texts[i] for i in order), tuple(sources[i] for i in order),
                     gold=order.index(gold_index), gold_kind="term" if gold_rank is None else "related",
                     sentence=sentence, context=first if " " in sentence else "")


# --- CSJ --------------------------------------------------------------------------------------

def csj_true(reply: str | None, term: str) -> list[str]:
    out = []
    for line in (reply or "").splitlines():
        sentence = first_sentence_line(line)
        if sentence and count_term(sentence, term) >= 1 and sentence not in out:
            out.append(sentence)
    return out


def csj_candidate(*, fact_id: str, sentence: str, gold: bool) -> Candidate:
    first = sentence.split(" ", 1)[0]
    return Candidate("CSJ", fact_id, sentence, gold=gold, sentence=sentence,
                     context=first if " " in sentence else "")


# --- the filter -------------------------------------------------------------------------------

def apply_choice_filter(candidate: Candidate, reply: str | None, *, similarity, seed: int,
                        keep: int = 4) -> Candidate:
    """The COMA / COST filter verdict on a multi-select reply; a kept candidate is cut to
    ``keep`` choices (gold, and for COST the new term, protected) and shuffled again."""
    letters = parse_letters(reply, len(candidate.choices))
    picked = [ord(letter) - ord("A") for letter in letters]
    must_stay = [i for i, s in enumerate(candidate.sources) if s == TERM] if candidate.task == "COST" else []
    verdict: ChoiceVerdict = judge_choices(len(candidate.choices), candidate.gold, picked, must_stay=must_stay,
                                           keep=keep)
    if not verdict.kept:
        return replace(candidate, verdict=verdict.reason, picked=letters)
    indices = list(verdict.choices)
    if len(indices) > keep:
        texts = [candidate.choices[i] for i in indices]
        protected = [indices.index(candidate.gold)] + [indices.index(i) for i in must_stay if i in indices]
        indices = [indices[j] for j in thin(texts, keep, similarity.matrix(texts), protected=protected)]
    order = _shuffle(seed, f"{candidate.task.lower()}-final", candidate.fact_id, candidate.question, indices)
    return replace(candidate, choices=tuple(candidate.choices[i] for i in order),
                   sources=tuple(candidate.sources[i] for i in order), gold=order.index(candidate.gold),
                   verdict="kept", picked=letters)


def apply_rating_filter(candidate: Candidate, reply: str | None) -> Candidate:
    rating = parse_rating(reply)
    kept, reason = judge_rating(bool(candidate.gold), rating)
    return replace(candidate, rating=rating, verdict="kept" if kept else reason)


# --- records ----------------------------------------------------------------------------------

def record_of(candidate: Candidate, *, term: str, meaning: str, type_: str) -> dict:
    """The released record of a kept candidate."""
    record = {"meaning": meaning, "question": candidate.question, "term": term, "type": type_}
    if candidate.task == "CSJ":
        record["gold"] = bool(candidate.gold)
        return record
    record["choices"] = list(candidate.choices)
    record["gold"] = int(candidate.gold)
    if candidate.task == "COMA":
        record["split"] = candidate.split
    return record

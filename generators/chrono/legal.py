"""Fill-in-the-blank items from CFR paragraph versions (pure).

A changed paragraph: the blank is the span where its versions differ — the longest common
prefix and suffix (in word/punctuation tokens) of all versions stay, the middle becomes
``____`` and each year's answer is that year's middle. Only small changes are kept (at most
``max_blank_tokens`` tokens, never an empty side, as ChroKnowBench keeps single-word or
short-span updates). An unchanged paragraph gets a blank over one span that carries meaning:
a number with its unit word if it has one, else a capitalised name inside the sentence, else
its longest word (ChroKnowBench used spaCy entities here; we use these cheap rules instead).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from knowforge.generators.chrono.templates import BLANK

_TOKEN = re.compile(r"\w+(?:[.,]\d+)*|[^\w\s]")
MAX_BLANK_TOKENS = 8
UNITS = frozenset("""feet foot miles mile knots knot hours hour days day percent pounds pound grams gram
mg kg g mcg meters meter years year months month minutes minute seconds second calories calorie
dollars ounces ounce inches inch""".split())


@dataclass(frozen=True)
class LegalBlank:
    question: str                     # text with "____"
    answers: dict[int, list[str]]     # year -> [span]
    question_type: str


def _tokens(text: str) -> list[re.Match]:
    return list(_TOKEN.finditer(text))


def _common_prefix(seqs: Sequence[Sequence[str]]) -> int:
    n = 0
    for column in zip(*seqs):
        if len(set(column)) != 1:
            break
        n += 1
    return n


def _span_type(spans: Sequence[str]) -> str:
    if any(re.search(r"\d", s) for s in spans):
        return "number"
    if all(s[:1].isupper() for s in spans):
        return "name"
    return "phrase"


def changed_blank(texts_by_year: Mapping[int, str], max_blank_tokens: int = MAX_BLANK_TOKENS) -> LegalBlank | None:
    """The blank of a paragraph whose text differs between years, or None when the change is
    not a small replacement (too long, a pure insertion/deletion, or nothing left around it)."""
    years = sorted(texts_by_year)
    versions = sorted(set(texts_by_year.values()))
    if len(versions) < 2:
        return None
    toks = {v: _tokens(v) for v in versions}
    words = [[m.group(0) for m in toks[v]] for v in versions]
    pre = _common_prefix(words)
    suf = _common_prefix([list(reversed(w[pre:])) for w in words])
    spans: dict[str, str] = {}
    for v, w in zip(versions, words):
        middle = toks[v][pre:len(w) - suf]
        if not middle or len(middle) > max_blank_tokens:
            return None
        spans[v] = v[middle[0].start():middle[-1].end()]
    if pre == 0 and suf == 0:
        return None
    ref = versions[0]
    ref_toks = toks[ref]
    start = ref_toks[pre].start()
    end = ref_toks[len(ref_toks) - suf - 1].end()
    question = ref[:start] + BLANK + ref[end:]
    answers = {y: [spans[texts_by_year[y]]] for y in years}
    return LegalBlank(question=question, answers=answers, question_type=_span_type(list(spans.values())))


def static_blank(text: str, years: Sequence[int], rng: random.Random) -> LegalBlank | None:
    """A blank over one meaningful span of an unchanged paragraph (None if nothing fits)."""
    toks = _tokens(text)
    body = toks[3:] if len(toks) > 3 and toks[0].group(0) == "(" and toks[2].group(0) == ")" else toks
    numbers = [i for i, m in enumerate(body) if re.search(r"\d", m.group(0))]
    if numbers:
        i = rng.choice(numbers)
        last = i + 1 if i + 1 < len(body) and body[i + 1].group(0).lower() in UNITS else i
        span_toks, kind = body[i:last + 1], "number"
    else:
        names = [i for i, m in enumerate(body) if i > 0 and m.group(0)[:1].isupper()
                 and m.group(0).isalpha() and body[i - 1].group(0) not in {".", "("}]
        if names:
            i = rng.choice(names)
            span_toks, kind = [body[i]], "name"
        else:
            words = [m for m in body if m.group(0).isalpha()]
            if not words:
                return None
            longest = max(len(m.group(0)) for m in words)
            span_toks, kind = [next(m for m in words if len(m.group(0)) == longest)], "phrase"
    start, end = span_toks[0].start(), span_toks[-1].end()
    span = text[start:end]
    return LegalBlank(question=text[:start] + BLANK + text[end:],
                      answers={y: [span] for y in years}, question_type=kind)

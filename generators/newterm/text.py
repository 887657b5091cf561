"""Pure text helpers of NewTerm generation: reading model replies and placing a term in a sentence.

Every function here is deterministic and model-free, so what the pipeline keeps or drops
can be tested on strings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

LETTERS = "ABCDEF"
MAX_TERM_WORDS = 5       # a related term longer than this is a sentence, not a term

_NUMBERING = re.compile(r"^\s*(?:[-*\u2022]+|\(?\d+(?:\.\d*)*[.):]?|[A-Fa-f][.)])\s*")
_QUOTES = "\"'\u201c\u201d\u2018\u2019`"
_INTEGER = re.compile(r"(?<![\d.])(\d{1,2})(?![\d.])")
_LETTER = re.compile(r"(?<![A-Za-z])([A-F])(?![A-Za-z])")


def clean_line(line: str) -> str:
    """A reply line without list numbering, bullets and surrounding quotes."""
    text = _NUMBERING.sub("", line.strip(), count=1).strip()
    return text.strip(_QUOTES).strip()


def parse_terms(reply: str | None, *, exclude: Sequence[str] = ()) -> list[str]:
    """Terms of a one-per-line reply, in order, each once (case-insensitively).

    As the official pipeline does, a line is not a term when it has more than five words, a
    colon or a full stop (an explanation), or says "none" / "n/a"; ``exclude`` (the new term
    itself, its meaning) is left out too.
    """
    seen = {e.strip().lower() for e in exclude if e}
    out = []
    for line in (reply or "").splitlines():
        text = clean_line(line).rstrip(",;")
        lowered = text.lower()
        if (not text or len(text.split()) > MAX_TERM_WORDS or ":" in text or "." in text
                or "none" in lowered.split() or "n/a" in lowered or lowered in seen):
            continue
        seen.add(lowered)
        out.append(text)
    return out


def term_pattern(term: str) -> re.Pattern:
    """The term as a whole word or phrase, case-insensitive, with a simple inflection on its
    last word (plural, past, -ing, possessive): "Deheat" matches "deheating"."""
    words = [re.escape(w) for w in term.strip().split()]
    if not words:
        raise ValueError("empty term")
    last = words[-1]
    body = r"\s+".join(words[:-1] + [last + r"(?:s|es|d|ed|ing|'s|\u2019s)?"])
    return re.compile(rf"(?<![\w-]){body}(?![\w-])", re.IGNORECASE)


def count_term(sentence: str, term: str) -> int:
    return len(term_pattern(term).findall(sentence))


def blank_term(sentence: str, term: str) -> str | None:
    """The sentence with its one occurrence of ``term`` replaced by ``_`` (COST's blank), or
    None when the term occurs zero or several times."""
    pattern = term_pattern(term)
    if len(pattern.findall(sentence)) != 1:
        return None
    return pattern.sub("_", sentence, count=1)


def replace_term(sentence: str, term: str, other: str) -> str | None:
    """The sentence with ``term`` (first occurrence) replaced by ``other``, or None without one."""
    pattern = term_pattern(term)
    if not pattern.search(sentence):
        return None
    return pattern.sub(lambda _m: other, sentence, count=1)


def split_paragraph(line: str, marker: str) -> tuple[str, str] | None:
    """COMA's "Sentence 1. <marker> Sentence 2." → (premise, second sentence), or None.

    The marker must occur once, and not as "<marker> of" (an effect *of* something is not the
    causal frame); ":" or "," after it and a trailing full stop's surroundings are stripped.
    """
    text = clean_line(line)
    if text.count(marker) != 1 or f"{marker.rstrip(',:').lower()} of" in text.lower():
        return None
    premise, rest = text.split(marker, 1)
    premise = premise.strip()
    rest = rest.strip().lstrip(":,").strip()
    if not premise or not rest:
        return None
    return premise, rest


def first_sentence_line(reply: str | None) -> str:
    """The first non-empty line of a reply, cleaned (a completion or a rewritten sentence)."""
    for line in (reply or "").splitlines():
        text = clean_line(line)
        if text:
            return text
    return ""


def parse_wrong_sentences(reply: str | None) -> list[str]:
    """The sentences after "Wrong sentence:" labels (any case) of a CSJ rewrite reply."""
    out = []
    for line in (reply or "").splitlines():
        match = re.match(r"^\s*(?:\d+[.)]\s*)?\**wrong\s+sentence\**\s*\d*\s*:\s*(.+)$", line, re.IGNORECASE)
        if match:
            text = match.group(1).strip().strip(_QUOTES).strip()
            if text:
                out.append(text)
    return out


def parse_letters(reply: str | None, n_choices: int) -> tuple[str, ...]:
    """The option letters a multi-select reply names ("A, C" → ("A", "C")), in order, each once."""
    valid = LETTERS[:n_choices]
    out: list[str] = []
    for letter in _LETTER.findall(reply or ""):
        if letter in valid and letter not in out:
            out.append(letter)
    return tuple(out)


def parse_rating(reply: str | None) -> int | None:
    """The first integer 0..10 of a rating reply, or None."""
    for match in _INTEGER.finditer(reply or ""):
        value = int(match.group(1))
        if 0 <= value <= 10:
            return value
    return None


def capitalised(text: str) -> str:
    """The official COST choices start with a capital letter ("Quarking")."""
    return text[:1].upper() + text[1:] if text else text


def word_count(text: str) -> int:
    return len(text.split())

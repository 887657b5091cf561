"""Lemma keys and WordNet's detachment rules: the pure word functions the WordNet loader and
the NewTerm loader share (its meanings are linked to the lemmas of their head words). Here, not
in ``wordnet.py``, so that the two loaders import each other in one direction only
(``wordnet`` → ``newterms`` → ``lemmas``)."""

from __future__ import annotations


def lemma_key(word: str) -> str:
    """WordNet's own key of a word: lower case, spaces as underscores (``Ice cream`` → ``ice_cream``)."""
    return "_".join(word.strip().lower().split())


# WordNet's "morphy" detachment rules (wn's morph.c), per part of speech
DETACHMENT = {
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
          ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
          ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}


def base_forms(word: str, exceptions: dict[str, tuple[str, ...]] | None = None) -> list[str]:
    """Candidate lemma keys of an inflected word, most likely first: the word itself, its
    irregular bases (``exceptions``), then every detachment rule's result. Existence is the
    caller's question (a graph lookup or an index)."""
    key = lemma_key(word)
    out = [key]
    for base in (exceptions or {}).get(key, ()):
        out.append(base)
    for pos in ("n", "v", "a"):
        for suffix, ending in DETACHMENT[pos]:
            if key.endswith(suffix) and len(key) > len(suffix) + 1:
                out.append(key[: -len(suffix)] + ending)
    return list(dict.fromkeys(out))


__all__ = ["DETACHMENT", "base_forms", "lemma_key"]

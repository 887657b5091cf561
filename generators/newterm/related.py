"""Related terms, the source of every NewTerm distractor: the lexical graph first, the LLM only
for what the graph lacks, then the official thinning to five.

The paper's four kinds, and where knowforge finds them:

=========  ==========================================================  ===========================
kind       what it is                                                  from the graph (WordNet)
=========  ==========================================================  ===========================
synonym    means the same as the new term                              the other lemmas of the
                                                                       head words' synsets
antonym    means the opposite                                          antonyms of those lemmas
                                                                       (and indirect ones through
                                                                       similar-to)
partial    one aspect of the meaning ("partial synonym")               hypernyms, hyponyms,
                                                                       instances, similar-to
spelling   what the spelling suggests ("meaning guess")                the closest lemmas by edit
                                                                       distance (rapidfuzz)
=========  ==========================================================  ===========================

A kind the graph leaves short of ``per_kind`` is topped up by the backend with a prompt for
that kind (cached like every request). The pool, with the meaning itself protected, is then
thinned to ``keep`` terms by ``select.thin``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from . import prompts
from .select import thin
from .text import parse_terms

KINDS = prompts.KINDS


@dataclass(frozen=True)
class Related:
    """One candidate related term of a term."""

    text: str
    kind: str                       # synonym | antonym | partial | spelling
    origin: str                     # graph | llm | release
    via: str | None = None          # sense, antonym, hypernym, ..., edit_distance; None from an LLM
    node_id: str | None = None      # the lemma, for graph terms
    head: str | None = None         # the head lemma it came through

    def row(self) -> dict:
        return {"text": self.text, "kind": self.kind, "origin": self.origin, "via": self.via,
                "node_id": self.node_id, "head": self.head}


def from_graph(rows: Sequence[dict], *, term: str, meaning: str, per_kind: int,
               heads: Sequence[str]) -> dict[str, list[Related]]:
    """Up to ``per_kind`` graph terms per kind (synonym, antonym, partial) from
    ``read_related_lemmas`` rows: head words in their order, within a head the query's order
    (sense, frequency); never the term itself, a word of the meaning, or a term twice."""
    banned = {term.strip().lower(), meaning.strip().lower()} | _meaning_words(meaning)
    order = {h: i for i, h in enumerate(heads)}
    out: dict[str, list[Related]] = {k: [] for k in KINDS if k != "spelling"}
    seen = set(banned)
    ranked = sorted(rows, key=lambda r: (order.get(r["head"], len(order)), r["kind"],
                                         _VIA_ORDER.get(r["via"], 9), r.get("sense") or 1,
                                         -(r.get("popularity") or 0.0), r["lemma_id"]))
    for r in ranked:
        kind, name = r["kind"], (r["name"] or "").strip()
        if kind not in out or not name or name.lower() in seen or len(out[kind]) >= per_kind:
            continue
        seen.add(name.lower())
        out[kind].append(Related(name, kind, "graph", r["via"], r["lemma_id"], r["head"]))
    return out


_VIA_ORDER = {"sense": 0, "antonym": 0, "indirect_antonym": 1, "hypernym": 0, "similar_to": 1,
              "hyponym": 2, "instance_hypernym": 3}


def _meaning_words(meaning: str) -> set[str]:
    return {w.strip(".,;:()'\"").lower() for w in meaning.split()}


def spelling_neighbours(term: str, lemmas: Sequence[tuple[str, str]], *, per_kind: int,
                        exclude: Sequence[str] = ()) -> list[Related]:
    """The ``per_kind`` lemmas ((id, name) pairs) closest to the term's spelling (rapidfuzz
    ``ratio``; ties by name), never the term itself or an excluded text."""
    banned = {term.strip().lower()} | {e.strip().lower() for e in exclude}
    names = [name for _, name in lemmas]
    scored = process.extract(term.lower(), names, scorer=fuzz.ratio, limit=per_kind + len(banned) + 10)
    ranked = sorted(((score, name, index) for name, score, index in scored), key=lambda s: (-s[0], s[1]))
    out = []
    for _score, name, index in ranked:
        if name.lower() in banned or len(out) >= per_kind:
            continue
        banned.add(name.lower())
        out.append(Related(name, "spelling", "graph", "edit_distance", lemmas[index][0]))
    return out


def top_up(found: dict[str, list[Related]], replies: dict[str, str | None], *, term: str, meaning: str,
           per_kind: int) -> dict[str, list[Related]]:
    """Each kind filled up to ``per_kind`` from the LLM's reply for that kind (lines that are
    not terms, repeats and the term itself are left out)."""
    taken = {r.text.lower() for rs in found.values() for r in rs}
    out = {k: list(found.get(k, [])) for k in KINDS}
    for kind in KINDS:
        need = per_kind - len(out[kind])
        if need <= 0 or kind not in replies:
            continue
        for text in parse_terms(replies[kind], exclude=[term, meaning, *taken]):
            if need <= 0:
                break
            out[kind].append(Related(text, kind, "llm"))
            taken.add(text.lower())
            need -= 1
    return out


def pool(found: dict[str, list[Related]]) -> list[Related]:
    """Kinds in the paper's order, graph terms before LLM ones within a kind."""
    return [r for kind in KINDS for r in sorted(found.get(kind, []), key=lambda r: r.origin != "graph")]


def thin_related(meaning: str, candidates: Sequence[Related], keep: int, similarity) -> list[int]:
    """Indices (into ``candidates``) of the ``keep`` terms left after thinning a pool with the
    meaning protected: near-duplicates, and terms too close to the meaning, go first."""
    texts = [meaning] + [c.text for c in candidates]
    kept = thin(texts, keep + 1, similarity.matrix(texts), protected=[0])
    return [i - 1 for i in kept if i != 0]

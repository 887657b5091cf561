"""New, pronounceable entity names blended from real ones, and a fast fuzzy-collision index.

A name is built like the paper's "Alcuna" (Alpaca + Vicuna): the head of one source word cut
after a vowel (or vowel + consonant) joined to the tail of another cut before a consonant that
starts a syllable. Every candidate is checked against every existing entity name and alias
(and each word of four letters or more of them) and every name generated so far; a candidate
whose rapidfuzz ``fuzz.ratio`` with any of them is >= ``cutoff`` (default 85) is rejected.

Speed: ``ratio >= c`` bounds the Indel distance ``d <= (1 - c/100) * (len(a) + len(b))``. That
gives two *sound* filters (no false negatives): a length window, and a bigram count (each
insertion/deletion destroys at most two bigram occurrences of the query, so a match shares at
least ``distinct_bigrams(query) - 2d`` distinct bigrams with it). Candidates that pass both are
scored exactly with rapidfuzz. The names generated during the batch are filtered the same
way (``_AddedNames``), so a lookup does not grow with the batch. Measured in
``benchmarks/knowgen_scale.py``.
"""

from __future__ import annotations

import math
import random
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
from rapidfuzz import fuzz, process

from knowforge.errors import KnowforgeError

DEFAULT_CUTOFF = 85.0
VOWELS = frozenset("aeiouy")
_WORD = re.compile(r"[a-z]+")
_MIN_LEN, _MAX_LEN = 4, 12


class NameCollisionError(KnowforgeError):
    """A name fuzzy-matches an existing or already generated name."""


def normalize(name: str) -> str:
    """Lower-case ASCII letters, digits and single spaces (what the fuzzy check compares)."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    return " ".join(re.findall(r"[a-z0-9]+", text))


def index_keys(name: str) -> list[str]:
    """The strings of one name that a new name must not resemble: the whole name and its words."""
    norm = normalize(name)
    if not norm:
        return []
    keys = [norm]
    words = norm.split(" ")
    if len(words) > 1:
        keys.extend(w for w in words if len(w) >= 4)
    return keys


def _bigrams(text: str) -> set[str]:
    return {text[i:i + 2] for i in range(len(text) - 1)}


class NameIndex:
    """Every name the graph holds, searchable for fuzzy matches at ``cutoff``."""

    def __init__(self, names: Iterable[str] = (), *, cutoff: float = DEFAULT_CUTOFF):
        self.cutoff = cutoff
        keys = sorted({k for n in names for k in index_keys(n)})
        self._keys = keys
        self._lengths = np.fromiter((len(k) for k in keys), dtype=np.int32, count=len(keys))
        postings: dict[str, list[int]] = defaultdict(list)
        for i, key in enumerate(keys):
            for gram in _bigrams(key):
                postings[gram].append(i)
        self._postings = {g: np.asarray(ids, dtype=np.int32) for g, ids in postings.items()}
        self._added = _AddedNames()   # the names generated so far (this batch's own names)

    def __len__(self) -> int:
        return len(self._keys) + len(self._added)

    def _length_window(self, length: int) -> tuple[int, int]:
        c = self.cutoff / 100.0
        return math.ceil(length * c / (2 - c) - 1e-9), math.floor(length * (2 - c) / c + 1e-9)

    def find_match(self, name: str) -> str | None:
        """An indexed string that fuzzy-matches ``name`` (ratio >= cutoff), or None."""
        for key in index_keys(name):
            hit = self._match_key(key)
            if hit is not None:
                return hit
        return None

    def _match_key(self, key: str) -> str | None:
        length = len(key)
        lo, hi = self._length_window(length)
        # Candidates most similar by shared bigrams first, in chunks: a collision (the common
        # outcome while a new name is being searched for) is found after one small chunk.
        for chunk in self._candidate_chunks(key, lo, hi):
            hit = process.extractOne(key, chunk, scorer=fuzz.ratio, score_cutoff=self.cutoff,
                                     processor=None)
            if hit is not None:
                return hit[0]
        added = self._added.candidates(key, lo, hi, self.cutoff)
        if added:
            hit = process.extractOne(key, added, scorer=fuzz.ratio, score_cutoff=self.cutoff,
                                     processor=None)
            if hit is not None:
                return hit[0]
        return None

    def _candidate_chunks(self, key: str, lo: int, hi: int, chunk: int = 256):
        if not self._keys:
            return
        grams = _bigrams(key)
        lengths = self._lengths
        arrays = [self._postings[g] for g in grams if g in self._postings]
        counts = (np.bincount(np.concatenate(arrays), minlength=len(self._keys)) if arrays
                  else np.zeros(len(self._keys), dtype=np.int64))
        # Required shared distinct bigrams per indexed length; where it is <= 0 the bigram
        # filter proves nothing and every string of that length is a candidate.
        need = _need(len(grams), len(key), lengths, self.cutoff)
        mask = (lengths >= lo) & (lengths <= hi) & ((counts >= need) | (need <= 0))
        ids = np.nonzero(mask)[0]
        if ids.size == 0:
            return
        ids = ids[np.argsort(-counts[ids], kind="stable")]
        for start in range(0, ids.size, chunk):
            yield [self._keys[i] for i in ids[start:start + chunk].tolist()]

    def add(self, name: str) -> None:
        for key in index_keys(name):
            self._added.add(key)

    def check_and_add(self, name: str) -> None:
        """Reserve ``name``; raise NameCollisionError if it resembles an indexed name."""
        hit = self.find_match(name)
        if hit is not None:
            raise NameCollisionError(f"generated name {name!r} fuzzy-matches existing name {hit!r} "
                                     f"(rapidfuzz ratio >= {self.cutoff:g})")
        self.add(name)


def _need(grams: int, length: int, lengths: np.ndarray, cutoff: float) -> np.ndarray:
    """Distinct bigrams a string of each of ``lengths`` must share with a query of ``length``
    and ``grams`` distinct bigrams to reach ratio >= cutoff; <= 0 means the filter proves nothing."""
    return grams - 2 * np.floor((1.0 - cutoff / 100.0) * (length + lengths) + 1e-9)


class _AddedNames:
    """The strings generated so far, with a bigram x string presence matrix.

    A batch adds one name per entity and looks up several candidates per name. Scoring every
    generated string of the length window with rapidfuzz made each lookup cost O(batch), so a
    10k batch planned ~18x slower than a 1k one; here a lookup sums the query's bigram rows of
    the matrix (a few rows of uint8, vectorised) and scores only the strings that pass the same
    sound filters as the main index. The survivors keep the old order (by length, then in the
    order they were added), so ``extractOne`` returns the same string as before.
    """

    def __init__(self) -> None:
        self.keys: list[str] = []
        self._seen: set[str] = set()
        self._lengths = np.zeros(1024, dtype=np.int32)
        self._rows: dict[str, int] = {}                        # bigram -> row of the matrix
        self._matrix = np.zeros((64, 1024), dtype=np.uint8)   # bigram x string, 1 = present

    def __len__(self) -> int:
        return len(self.keys)

    def add(self, key: str) -> None:
        if key in self._seen:
            return
        self._seen.add(key)
        i = len(self.keys)
        if i == self._matrix.shape[1]:
            self._matrix = np.concatenate([self._matrix, np.zeros_like(self._matrix)], axis=1)
            self._lengths = np.concatenate([self._lengths, np.zeros_like(self._lengths)])
        for gram in _bigrams(key):
            row = self._rows.setdefault(gram, len(self._rows))
            if row == self._matrix.shape[0]:
                self._matrix = np.concatenate([self._matrix, np.zeros_like(self._matrix)], axis=0)
            self._matrix[row, i] = 1
        self._lengths[i] = len(key)
        self.keys.append(key)

    def candidates(self, key: str, lo: int, hi: int, cutoff: float) -> list[str]:
        """The added strings of length lo..hi that may match ``key``, by length then age."""
        n = len(self.keys)
        if not n:
            return []
        grams = _bigrams(key)
        rows = [self._rows[g] for g in grams if g in self._rows]
        lengths = self._lengths[:n]
        counts = (self._matrix[rows, :n].sum(axis=0, dtype=np.int32) if rows
                  else np.zeros(n, dtype=np.int32))
        need = _need(len(grams), len(key), lengths, cutoff)
        ids = np.nonzero((lengths >= lo) & (lengths <= hi) & ((counts >= need) | (need <= 0)))[0]
        ids = ids[np.argsort(lengths[ids], kind="stable")]
        return [self.keys[i] for i in ids.tolist()]


# -- blending -------------------------------------------------------------------------------

def source_words(names: Iterable[str]) -> list[str]:
    """Distinct words usable as blend material: the last word of each name (the species
    epithet of a binomial; the genus word is shared by all siblings), at least 4 letters."""
    out: list[str] = []
    for name in names:
        words = _WORD.findall(normalize(name))
        if words and len(words[-1]) >= 4 and words[-1] not in out:
            out.append(words[-1])
    return out


def head_cuts(word: str) -> list[int]:
    """Cut points i for word[:i]: right after a vowel or after vowel + one consonant."""
    cuts = []
    for i in range(2, len(word)):
        prev = word[i - 1]
        if prev in VOWELS and word[i] not in VOWELS:
            cuts.append(i)
        elif prev not in VOWELS and word[i - 2] in VOWELS and word[i] not in VOWELS:
            cuts.append(i)
    return cuts


def tail_cuts(word: str) -> list[int]:
    """Cut points j for word[j:]: at a consonant that is followed by a vowel."""
    return [j for j in range(1, len(word) - 1)
            if word[j] not in VOWELS and word[j + 1] in VOWELS]


def pronounceable(name: str) -> bool:
    """Letters only, 4-12 long, no run of 3 consonants or 3 vowels, no doubled first letters."""
    if not (_MIN_LEN <= len(name) <= _MAX_LEN) or not name.isalpha():
        return False
    if re.search(r"[^aeiouy]{3}", name) or re.search(r"[aeiouy]{3}", name):
        return False
    return name[0] != name[1]


def blend_candidates(head_word: str, tail_word: str) -> list[str]:
    """All pronounceable blends head_word[:i] + tail_word[j:] (sorted, so rng picks are stable)."""
    out = set()
    for i in head_cuts(head_word):
        for j in tail_cuts(tail_word):
            cand = head_word[:i] + tail_word[j:]
            if len(tail_word) - j >= 2 and pronounceable(cand) and cand not in (head_word, tail_word):
                out.add(cand)
    return sorted(out)


_FALLBACK_SYLLABLES = ("ba", "ca", "da", "fe", "ga", "ki", "lo", "ma", "ne", "po", "ra", "su",
                       "ta", "vi", "zo", "lu", "me", "ni", "ro", "sa")


def make_name(rng: random.Random, parent_names: Sequence[str], sibling_names: Sequence[str],
              index: NameIndex, *, attempts: int = 40) -> str:
    """A new pronounceable name from the parent's and siblings' names, reserved in ``index``.

    Tries blends of a parent word with a sibling word (both orders); then the same blends with
    a syllable appended; every draw comes from ``rng``. Raises NameCollisionError if nothing
    passes (practically only for an index that already holds nearly every short word).
    """
    parents = source_words(parent_names) or ["nova"]
    siblings = source_words(sibling_names) or parents
    for attempt in range(attempts):
        p = parents[rng.randrange(len(parents))]
        s = siblings[rng.randrange(len(siblings))]
        head, tail = (p, s) if rng.random() < 0.5 else (s, p)
        cands = blend_candidates(head, tail)
        if not cands:
            cands = [head[: max(2, len(head) // 2)] + tail[len(tail) // 2:]]
        cand = cands[rng.randrange(len(cands))]
        if attempt >= attempts // 2:
            cand = cand[:8] + _FALLBACK_SYLLABLES[rng.randrange(len(_FALLBACK_SYLLABLES))]
        if not pronounceable(cand):
            continue
        name = cand.capitalize()
        if index.find_match(name) is None:
            index.add(name)
            return name
    for _ in range(1000):  # last resort: syllable strings, still checked
        name = "".join(_FALLBACK_SYLLABLES[rng.randrange(len(_FALLBACK_SYLLABLES))]
                       for _ in range(rng.randint(3, 5))).capitalize()
        if pronounceable(name.lower()) and index.find_match(name) is None:
            index.add(name)
            return name
    raise NameCollisionError("could not find a new name that does not fuzzy-match an existing one")

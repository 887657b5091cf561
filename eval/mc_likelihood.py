"""Multiple-choice scoring by likelihood, as lm-evaluation-harness does it.

Instead of generating an answer and parsing a letter out of it, the model scores every option:
one ``LoglikelihoodRequest(context=<prompt ending in "Answer:">, continuation=" " + option)``
per option, and the option with the highest summed log-probability is the model's answer
(``acc``). Like lm-eval we also record the pick after dividing each log-probability by the
option's length in characters (``acc_norm``), which removes the bias towards short options.

Continuations are the option texts by default (lm-eval's choice for ARC, HellaSwag, ...);
``continuation="letter"`` scores `` A``, `` B``, ... instead (lm-eval's MMLU style). Boolean
and true/false items score their two words (yes/no, true/false) either way.

Everything here is pure: building the requests of an item and choosing among scored options.
The runner sends the requests and turns the outcome into ``SampleResult`` records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from knowforge.errors import ConfigError
from knowforge.eval.prompts import LETTERS, render_prompt
from knowforge.eval.scorers import gold_boolean, gold_choice_index
from knowforge.models.types import BenchmarkItem, LoglikelihoodRequest, LoglikelihoodResult

MC_SCORING_MODES = ("generate", "likelihood")
CONTINUATIONS = ("text", "letter")
# Settings whose prompt ends in "Answer:", so an option can follow it directly.
LIKELIHOOD_SETTINGS = ("vanilla", "zero-shot", "few-shot")
_BOOLEAN_WORDS = {"boolean": ("yes", "no"), "true-false": ("true", "false")}


@dataclass(frozen=True)
class ChoiceSelection:
    index: int        # highest summed log-probability (acc)
    index_norm: int   # highest log-probability per character of the option (acc_norm)


def select_choice(logprobs: Sequence[float], lengths: Sequence[int]) -> ChoiceSelection:
    """The picked option by total log-probability and by log-probability per character.

    Ties go to the lowest index (numpy's argmax, as in lm-eval). A zero length counts as 1.
    """
    if not logprobs:
        raise ValueError("select_choice needs at least one option")
    if len(lengths) != len(logprobs):
        raise ValueError(f"{len(logprobs)} log-probabilities but {len(lengths)} lengths")
    normed = [lp / max(int(n), 1) for lp, n in zip(logprobs, lengths)]
    return ChoiceSelection(index=_argmax(logprobs), index_norm=_argmax(normed))


def _argmax(values: Sequence[float]) -> int:
    best = 0
    for i, value in enumerate(values):
        if value > values[best]:
            best = i
    return best


@dataclass(frozen=True)
class ChoiceQuestion:
    """One item as a likelihood question: the shared context and one continuation per option."""

    item: BenchmarkItem
    options: tuple[str, ...]        # option texts as shown (yes/no, true/false for boolean forms)
    labels: tuple[str, ...]         # what ``parsed`` records: letters, or yes/no like score_boolean
    scored: tuple[str, ...]         # the text each continuation scores (acc_norm length)
    gold: int
    context: str

    @property
    def requests(self) -> list[LoglikelihoodRequest]:
        return [LoglikelihoodRequest(context=self.context, continuation=" " + s) for s in self.scored]


def build_choice_question(item: BenchmarkItem, setting: str, continuation: str = "text") -> ChoiceQuestion | None:
    """``item`` as a likelihood question, or None when it is generated as usual: other forms,
    multi-choice items without listed choices, boolean items whose gold is "unknown"."""
    if continuation not in CONTINUATIONS:
        raise ConfigError(f"unknown continuation {continuation!r}; choose one of {', '.join(CONTINUATIONS)}")
    if item.form == "multi-choice":
        if not item.choices:
            return None
        gold = gold_choice_index(item)
        if gold is None or not 0 <= gold < len(item.choices):
            raise ConfigError(f"item {item.id}: a multiple-choice item needs a valid answer_index "
                              "or a letter answer")
        letters = tuple(LETTERS[i] for i in range(len(item.choices)))
        scored = tuple(item.choices) if continuation == "text" else letters
        return ChoiceQuestion(item, tuple(item.choices), letters, scored, gold, render_prompt(item, setting))
    if item.form in _BOOLEAN_WORDS and not item.unknown:
        words = _BOOLEAN_WORDS[item.form]
        gold = 0 if gold_boolean(item) else 1
        return ChoiceQuestion(item, words, ("yes", "no"), words, gold, render_prompt(item, setting))
    return None


@dataclass(frozen=True)
class ChoiceOutcome:
    index: int               # the picked option (acc)
    raw: str                 # the picked option's text
    parsed: str              # its label (letter, or yes/no)
    score: float             # 1.0 when the pick (acc) is the gold option
    explanation: str
    metadata: dict


def judge_choice_question(question: ChoiceQuestion, results: Sequence[LoglikelihoodResult]) -> ChoiceOutcome:
    """Pick the option of ``question`` from its scored continuations (same order as requests)."""
    if len(results) != len(question.scored):
        raise ValueError(f"item {question.item.id}: {len(results)} results for {len(question.scored)} options")
    logprobs = [float(r.total) for r in results]
    lengths = [len(s) for s in question.scored]
    pick = select_choice(logprobs, lengths)
    labels = question.labels
    shown = ", ".join(f"{labels[i]}={lp:.3f}" for i, lp in enumerate(logprobs))
    metadata = {"mc_scoring": "likelihood", "continuations": [" " + s for s in question.scored],
                "logprobs": logprobs, "lengths": lengths, "is_greedy": [r.is_greedy for r in results],
                "gold": labels[question.gold], "pick": labels[pick.index], "pick_norm": labels[pick.index_norm],
                "acc": 1.0 if pick.index == question.gold else 0.0,
                "acc_norm": 1.0 if pick.index_norm == question.gold else 0.0}
    return ChoiceOutcome(index=pick.index, raw=question.options[pick.index], parsed=labels[pick.index],
                         score=metadata["acc"],
                         explanation=f"gold {labels[question.gold]}, picked {labels[pick.index]} by likelihood "
                                     f"({labels[pick.index_norm]} per character); logprobs {shown}",
                         metadata=metadata)

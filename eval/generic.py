"""The generic evaluation unit: what every benchmark can use, whatever its method.

* solvers: ALCUNA's four prompting settings (``vanilla``, ``zero-shot``, ``few-shot``,
  ``chain-of-thought``), which a JSONL file benchmark also takes;
* metrics: ``accuracy`` (mean score of every sample) and ``balanced_accuracy`` (boolean and
  true/false items: the mean per-class recall of each item's first sample);
* scorers: ``fuzzy`` (ChroKnowledge's token_set_ratio >= 70), ``exact``, ``multi-choice``,
  ``boolean`` and ``unknown``, with their lm-evaluation-harness readings.

The registry loads this unit first, under the owner name "knowforge".
"""

from __future__ import annotations

import numpy as np

from knowforge.eval.lm_eval_export import UNKNOWN, generation_targets
from knowforge.eval.metric_stats import chance_of
from knowforge.eval.metrics import accuracy, balanced_accuracy
from knowforge.eval.prompts import SETTINGS
from knowforge.eval.scorers import (extract_yes_no, gold_boolean, score_boolean, score_exact, score_fuzzy,
                                    score_multiple_choice, score_unknown)
from knowforge.eval.solvers import PromptSolver
from knowforge.eval.stats import ratio_of_totals
from knowforge.eval.unit import EvalUnit, MetricInput, MetricSpec, NoArgs, ScorerSpec, SolverSpec, Totals

SETTING_DESCRIPTIONS = {
    "vanilla": "the question only",
    "zero-shot": "an instruction for the item's form, then the question",
    "few-shot": "instruction + the item's own exemplars",
    "chain-of-thought": "think step by step; the last line 'Answer: ...' is scored",
}
BOOLEAN_FORMS = ("boolean", "true-false")


def _accuracy(data: MetricInput) -> float | None:
    return accuracy(s.score for s in data.samples)


def _balanced_accuracy(data: MetricInput) -> float | None:
    """Over boolean / true-false items with a yes/no gold: mean of the per-class recall of the
    first sample (an item whose gold is "unknown" has no yes/no class and is left out)."""
    by_id = {i.id: i for i in data.items if i.form in BOOLEAN_FORMS and not i.unknown}
    golds, preds = [], []
    for s in data.samples:
        if s.item_id in by_id and s.sample_index == 0:
            golds.append(gold_boolean(by_id[s.item_id]))
            preds.append(extract_yes_no(s.parsed if s.parsed is not None else s.raw))
    return balanced_accuracy(golds, preds) if golds else None


def accuracy_totals(samples, ids=None) -> Totals:
    """An accuracy as sums: each scored sample adds (score, 1) to its item's unit; the number is
    the ratio of the two totals (``metrics.accuracy`` leaves an unscored sample out)."""
    rows = [s for s in samples if s.score is not None]
    # np.fromiter: a list of [score, 1] pairs costs 1 s at 100k samples
    counts = np.column_stack([np.fromiter((s.score for s in rows), dtype=float, count=len(rows)),
                              np.ones(len(rows))])
    return Totals([s.item_id for s in rows], counts, {(): ratio_of_totals})


def _accuracy_totals(data: MetricInput) -> Totals:
    return accuracy_totals(data.samples)


def _balanced_accuracy_totals(data: MetricInput) -> Totals:
    """Per gold class (no, yes), the right and the asked first samples: columns (right_no,
    asked_no, right_yes, asked_yes); the number is the mean recall over the classes asked."""
    by_id = {i.id: i for i in data.items if i.form in BOOLEAN_FORMS and not i.unknown}
    ids, counts = [], []
    for s in data.samples:
        if s.item_id in by_id and s.sample_index == 0:
            gold = gold_boolean(by_id[s.item_id])
            right = float(extract_yes_no(s.parsed if s.parsed is not None else s.raw) == gold)
            ids.append(s.item_id)
            counts.append([right, 1.0, 0.0, 0.0] if gold is False else [0.0, 0.0, right, 1.0])
    return Totals(ids, np.array(counts).reshape(len(ids), 4), {(): mean_recall})


def mean_recall(totals: np.ndarray) -> np.ndarray:
    """The mean over classes of right / asked, over the classes asked (NaN when none was):
    totals[..., 2c] right and totals[..., 2c + 1] asked of class c."""
    right, asked = totals[..., 0::2], totals[..., 1::2]
    present = asked > 0
    recall = np.where(present, right / np.where(present, asked, 1.0), 0.0)
    return recall.sum(axis=-1) / present.sum(axis=-1)


def _accuracy_chance(data: MetricInput) -> float | None:
    return chance_of(data.items, data.samples)


def _boolean_lm_eval(item):
    return (UNKNOWN, {"targets": ["unknown"]}) if item.unknown else "scorer 'boolean' has no lm-eval form"


def _prompt_solver(setting: str) -> SolverSpec:
    return SolverSpec(setting, SETTING_DESCRIPTIONS[setting], NoArgs,
                      lambda component, _args: PromptSolver(component, setting))


GENERIC_UNIT = EvalUnit(
    solvers=tuple(_prompt_solver(s) for s in SETTINGS),
    metrics=(MetricSpec("accuracy", _accuracy, "mean score over every sample", chance=_accuracy_chance,
                        totals=_accuracy_totals, scale="share"),
             MetricSpec("balanced_accuracy", _balanced_accuracy,
                        "boolean and true/false items: mean per-class recall of the first sample",
                        chance=lambda data: 0.5, totals=_balanced_accuracy_totals, scale="share")),
    scorers=(ScorerSpec("fuzzy", score_fuzzy, description="token_set_ratio >= 70 against any gold (ChroKnowledge)",
                        lm_eval=generation_targets),
             ScorerSpec("exact", score_exact, description="normalised exact match against answers and aliases",
                        lm_eval=generation_targets),
             ScorerSpec("multi-choice", score_multiple_choice, description="the option letter (or text) picked"),
             ScorerSpec("boolean", score_boolean, description="yes/no, true/false, right/wrong",
                        lm_eval=_boolean_lm_eval),
             ScorerSpec("unknown", score_unknown, description="right iff the answer says it does not know",
                        lm_eval=generation_targets)),
)

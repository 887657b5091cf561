"""ELKEN's evaluation side: the editing solvers (ice, bm25, dense, no-edit, ft, serac, rome, memit), the fact and
tendency scorers in both modes (official: ``metric.py``), reliability, locality and tendency
metrics, the HELM-style files ``metric.py`` reads, scoring of such files, and the editing
methods against no edit in the validity report."""

from __future__ import annotations

from knowforge.eval.events import validity
from knowforge.eval.events.editing import DenseArgs, EditingSolver, FineTuneArgs, JudgeArgs
from knowforge.eval.events.metrics import (EDITING, in_scope, metric_locality, metric_reliability, metric_tendency,
                                           metric_tendency_edit_level, metric_tendency_locality, totals_locality,
                                           totals_reliability, totals_tendency, totals_tendency_edit_level,
                                           totals_tendency_locality)
from knowforge.eval.events.official import HelmArgs, fact_lm_eval, files_table, score_files, write_helm
from knowforge.eval.events.ripple_probe import show_run_ripple
from knowforge.eval.events.serac import SeracArgs, SeracSolver
from knowforge.eval.events.weight_edit import weight_edit_solvers
from knowforge.eval.events.rules import (score_fact_item, score_fact_item_official, score_tendency_item,
                                         score_tendency_item_official)
from knowforge.eval.metric_stats import chance_of
from knowforge.eval.events.listing import LISTING
from knowforge.eval.unit import (EvalUnit, RunViewSpec, FileScoringSpec, MetricSpec, RunExportSpec, ScorerSpec, SolverSpec,
                                 ValiditySpec)


def _editing(name: str, method: str, description: str, args=JudgeArgs) -> SolverSpec:
    return SolverSpec(name, description, args, lambda component, parsed: EditingSolver(component, method, parsed),
                      provides=frozenset({EDITING}))


UNIT = EvalUnit(
    solvers=(_editing("ice", "ice", "ELKEN: the gold event in context (-S judge_model=M: Tendency-G)"),
             _editing("bm25", "bm25", "ELKEN: the top-1 event retrieved by BM25 from all edits"),
             _editing("dense", "dense", "ELKEN: the top-1 event retrieved by a dense (E5-style) encoder "
                                        "(-S dense_model=PATH)", DenseArgs),
             _editing("no-edit", "none", "ELKEN: the unedited model"),
             _editing("ft", "ft", "ELKEN: fine-tuning baseline, a copy of a transformers model tuned per event "
                                  "(hf backends; -S epochs=12 -S lr=1e-3)", FineTuneArgs),
             SolverSpec("serac", "ELKEN: SERAC, a scope classifier (MiniLM embeddings, -S encoder=PATH) puts the "
                                 "retrieved edit in context or none; trained on -S train_benchmark=NAME's events, "
                                 "else cross-fitted over the run's events (-S folds=2)", SeracArgs,
                        lambda component, parsed: SeracSolver(component, "serac", parsed),
                        provides=frozenset({EDITING})),
             *weight_edit_solvers()),
    scorers=(ScorerSpec("elken-fact", score_fact_item, official=score_fact_item_official,
                        description="ELKEN fact questions: normalised exact match with aliases + name",
                        lm_eval=fact_lm_eval),
             ScorerSpec("elken-tendency", score_tendency_item, official=score_tendency_item_official,
                        description="ELKEN tendency questions: the option letter picked")),
    metrics=(MetricSpec("edit_reliability", metric_reliability,
                        "question- and edit-level reliability of in-scope fact questions, with splits",
                        totals=totals_reliability, scale="share"),
             MetricSpec("locality", metric_locality, "out-of-scope fact answers unchanged by the edit",
                        needs=EDITING, totals=totals_locality, label="answers unchanged by the edit", scale="share"),
             MetricSpec("tendency_accuracy", metric_tendency, "tendency multiple-choice accuracy (in scope)",
                        chance=lambda data: {"accuracy": chance_of([i for i in data.items if in_scope(i)])},
                        totals=totals_tendency, scale="share"),
             MetricSpec("tendency_edit_level", metric_tendency_edit_level,
                        "events whose every in-scope tendency question is right (metric.py's compute_event_acc)",
                        totals=totals_tendency_edit_level, scale="share"),
             MetricSpec("tendency_locality", metric_tendency_locality,
                        "out-of-scope tendency answers unchanged by the edit", needs=EDITING,
                        totals=totals_tendency_locality, label="tendency answers unchanged by the edit", scale="share")),
    run_exports=(RunExportSpec("helm", "ELKEN's request_states files (fact.json, fact_local.json, tendency_mc.json, "
                               "tendency_mc_local.json) from an editing run", write_helm, HelmArgs),),
    file_scorings=(FileScoringSpec("elken", "ELKEN HELM-style prediction files (request_states JSON): what "
                                   "metric.py prints", score_files, files_table),),
    validity=(ValiditySpec("elken", validity.check),),
    listings=(LISTING,),
    run_views=(RunViewSpec("ripple", "an event's ripple probes in a run (-S ripple_hops): what the model did on "
                                     "each, classified", show_run_ripple),),
)

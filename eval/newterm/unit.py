"""NewTerm's evaluation side: the Base/Gold solver with the three official phrasings, the
COMA/COST and CSJ scorers in both modes (official: ``get_results.py``), the metrics (pooled
score, Base, Gold, the gap, the breakdown by category and year), the result files
``get_results.py`` reads, and scoring of such files."""

from __future__ import annotations

from knowforge.eval.newterm.official import ResultsArgs, results_table, score_files, write_run_results
from knowforge.eval.newterm.rules import (score_choice_item, score_choice_item_official, score_judgement_item,
                                          score_judgement_item_official)
from knowforge.eval.newterm.solver import (ANSWERS, ROW_FIELDS, NewTermArgs, NewTermSolver, chance, metric_base, metric_breakdown,
                                           metric_gap, metric_gold, metric_score, gap_p_value, totals_base,
                                           totals_breakdown, totals_gap, totals_gold, totals_score)
from knowforge.eval.unit import EvalUnit, FileScoringSpec, MetricSpec, RunExportSpec, ScorerSpec, SolverSpec

UNIT = EvalUnit(
    solvers=(SolverSpec("newterm", "NewTerm: Base or Gold (-S setting=base|gold), three official phrasings pooled",
                        NewTermArgs, NewTermSolver, provides=frozenset({ANSWERS})),),
    scorers=(ScorerSpec("newterm-choice", score_choice_item, official=score_choice_item_official,
                        description="COMA/COST: the first token A-D, else the gold choice's text alone"),
             ScorerSpec("newterm-csj", score_judgement_item, official=score_judgement_item_official,
                        description="CSJ: official substring rule (NO/No/... first); knowforge: whole words")),
    metrics=(MetricSpec("newterm_score", metric_score, "the run's setting pooled over phrasings (CSJ balanced)",
                        needs=ANSWERS, chance=chance, totals=totals_score, scale="share"),
             MetricSpec("newterm_base", metric_base, "Base, pooled", needs=ANSWERS, chance=chance,
                        totals=totals_base, scale="share"),
             MetricSpec("newterm_gold", metric_gold, "Gold, pooled", needs=ANSWERS, chance=chance,
                        totals=totals_gold, scale="share"),
             MetricSpec("newterm_gap", metric_gap, "Base - Gold (paired by term: both settings of the same items)",
                        needs=ANSWERS, test=gap_p_value, totals=totals_gap, scale="share"),
             MetricSpec("newterm_breakdown", metric_breakdown, "Base, Gold and the gap by category and year",
                        needs=ANSWERS, rows=ROW_FIELDS, totals=totals_breakdown, scale="share")),
    run_exports=(RunExportSpec("newterm-results", "NewTerm's results_{year}/{TASK}_{model}[_gold].jsonl, one line per "
                               "phrasing (clean/ and raw/ sets; -O year=Y for items without one)",
                               write_run_results, ResultsArgs),),
    file_scorings=(FileScoringSpec("newterm", "NewTerm result files (results_{year}/{TASK}_{model}[_{prompt}].jsonl): "
                                   "what newterm/get_results.py prints", score_files, results_table),),
)

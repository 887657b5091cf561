"""ChroKnow's evaluation side: the knowledge check and ChroKnowPrompt solvers, the check's
scorer (ChroKnowledge's fuzzy rule, which is the released one), the category and
ChroKnowPrompt tables as metrics, and the categories against the truth in the validity report."""

from __future__ import annotations

from knowforge.eval.chrono import validity
from knowforge.eval.chrono.check import CHECK_SCORER, score_check
from knowforge.eval.chrono.solver import (CHECK, CHRONOPROMPT, ChronoCheckArgs, ChronoPromptArgs, ChronoSolver,
                                          metric_categories, metric_chronoprompt_gain, totals_categories,
                                          totals_chronoprompt_gain)
from knowforge.eval.unit import EvalUnit, MetricSpec, ScorerSpec, SolverSpec, ValiditySpec

UNIT = EvalUnit(
    solvers=(SolverSpec("chrono-check", "ChroKnowledge's sampling-based knowledge check and categories",
                        ChronoCheckArgs, lambda component, args: ChronoSolver(component, args),
                        # its ChroKnowPrompt detail is empty: the gain table of a check alone is none
                        provides=frozenset({CHECK, CHRONOPROMPT})),
             SolverSpec("chronoprompt", "the knowledge check, then ChroKnowPrompt on Partial Known facts (-S span=...)",
                        ChronoPromptArgs, lambda component, args: ChronoSolver(component, args, span=args.span),
                        provides=frozenset({CHECK, CHRONOPROMPT}))),
    scorers=(ScorerSpec(CHECK_SCORER, score_check, official=score_check,
                        description="the object a completion names fuzzy-matches an object of the year (>= 70)"),),
    metrics=(MetricSpec("chrono_categories", metric_categories, "chronological categories per template",
                        needs=CHECK, totals=totals_categories, scale="percent"),
             MetricSpec("chronoprompt_gain", metric_chronoprompt_gain,
                        "Known % before and after ChroKnowPrompt (the paper's Table 3)", needs=CHRONOPROMPT,
                        totals=totals_chronoprompt_gain, scale="percent")),
    validity=(ValiditySpec("chrono", validity.check),),
)

"""LINK / LINT's evaluation side: the entailment probe solver, its scorer in both modes, and
the metrics the paper reports (per template, all-13 "known", head vs long tail)."""

from __future__ import annotations

from knowforge.eval.link.probe import (LinkProbeSolver, chance_by, chance_head_tail, chance_known, chance_templates,
                                       drop_p_values, metric_by, metric_head_tail, metric_known, metric_templates,
                                       score_probe, score_probe_robust, totals_by, totals_head_tail,
                                       totals_known, totals_templates)
from knowforge.eval.unit import EvalUnit, MetricSpec, NoArgs, ScorerSpec, SolverSpec

UNIT = EvalUnit(
    solvers=(SolverSpec("link-probe", "LINT's entailment probe: each of a statement's 13 template items as it is",
                        NoArgs, lambda component, _args: LinkProbeSolver(component)),),
    scorers=(ScorerSpec("link-probe", score_probe_robust, official=score_probe,
                        description="official: the reply's first token is the label (LINK's ProbingModel); "
                                    "knowforge: any spelling of the label's side"),),
    metrics=(MetricSpec("link_templates", metric_templates, "accuracy per template (1-13) with its label",
                        chance=chance_templates, totals=totals_templates, scale="share"),
             MetricSpec("link_known", metric_known, "share of statements whose 13 templates are all right",
                        chance=chance_known, totals=totals_known, scale="share"),
             MetricSpec("link_head_tail", metric_head_tail,
                        "head vs long tail accuracy and known rate, with the relative drop (unpaired: different "
                        "statements; a permutation test of the distribution labels)",
                        chance=chance_head_tail, test=drop_p_values, totals=totals_head_tail, scale="share"),
             MetricSpec("link_by_domain", metric_by("domain"), "head/tail by domain", chance=chance_by("domain"),
                        totals=totals_by("domain"), scale="share"),
             MetricSpec("link_by_rule", metric_by("rule"), "head/tail by rule", chance=chance_by("rule"),
                        totals=totals_by("rule"), scale="share"),
             MetricSpec("link_by_graph_premises", metric_by("graph_premises"),
                        "head/tail by graph premises / hidden premises", chance=chance_by("graph_premises"),
                        totals=totals_by("graph_premises"), scale="share")),
)

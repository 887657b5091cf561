"""Scoring one response by name and mode: the dispatch every solver's samples go through.

An item names its scorer (``BenchmarkItem.scorer``); the registry knows the scorer's
``knowforge`` rule and, where the benchmark released a scoring script, its ``official`` rule.
``scoring_rule`` says which one a mode applies (a scorer without an official rule scores the
same in both modes), so every sample records the rule that scored it.
"""

from __future__ import annotations

from knowforge.errors import ConfigError
from knowforge.eval.registry import scorer_spec
from knowforge.eval.types import DEFAULT_SCORING, SCORING_MODES, Score
from knowforge.eval.unit import Scorer
from knowforge.models.types import BenchmarkItem


def check_scoring(mode: str) -> str:
    if mode not in SCORING_MODES:
        raise ConfigError(f"unknown scoring mode {mode!r}; choose one of {', '.join(SCORING_MODES)}")
    return mode


def scoring_rule(name: str, mode: str = DEFAULT_SCORING) -> str:
    """The rule ``get_scorer(name, mode)`` applies: "official" only where a released script
    defines one, else "knowforge"."""
    official = scorer_spec(name).official is not None
    return "official" if check_scoring(mode) == "official" and official else "knowforge"


def get_scorer(name: str, mode: str = DEFAULT_SCORING) -> Scorer:
    spec = scorer_spec(name)
    if scoring_rule(name, mode) == "official":
        return spec.official
    return spec.knowforge


def score_item(item: BenchmarkItem, response: str | None, mode: str = DEFAULT_SCORING, *,
               scorer: str | None = None) -> Score:
    """Score one response to one item with its own scorer (or ``scorer``) under ``mode``."""
    return get_scorer(scorer or item.scorer, mode)(item, response or "")


__all__ = ["check_scoring", "get_scorer", "score_item", "scoring_rule"]

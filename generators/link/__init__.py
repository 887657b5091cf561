"""LINK / LINT: long-tail inferential statements from symbolic rules over the graph.

``rules`` (the rule shape, validated), ``grounding`` (predicates the graph answers, as named
Cypher patterns), ``search`` (the knowledge beam search with critic and reranker),
``statements`` (statements, probe items, the inferred layer), ``generate`` (one batch) and
``method`` (the knowforge method). See docs/link.md.
"""

from .params import LinkParams
from .rules import Rule, load_rules

__all__ = ["LinkParams", "Rule", "load_rules"]

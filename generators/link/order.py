"""The order in which a rule's variables are searched, from a networkx graph of its variables.

LINK (``Rule.parse_rule`` in INK-USC/LINK ``knowledge_beam_search.py``) searches one variable at
a time, always starting at the generic one (PersonX, ObjectX). The conclusion-first order
walks from the generic variable to the conclusion's other variable and then along the
constraint chain of the remaining premises; the premise-first order is the generic variable
followed by that chain reversed, so the premise that mentions the generic variable is
searched first. Rules with a factual variable (one right value: a year, an age) are searched
conclusion-first, the others premise-first, as the official scripts do.

Here the chain is a depth-first walk over the graph whose nodes are the non-generic variables
and whose edges are the predicates joining two of them, starting at the conclusion's
variable; neighbours are visited in name order, so the order is a pure function of the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .rules import Predicate, Rule

if TYPE_CHECKING:   # imported in the functions: every `knowforge generate` imports this module
    import networkx as nx


@dataclass(frozen=True)
class SearchOrder:
    variables: tuple[str, ...]          # generic first
    entity: str                         # "premise" or "conclusion" first

    def position(self, var: str) -> int:
        return self.variables.index(var)


def variable_graph(rule: Rule) -> nx.Graph:
    """Variables as nodes; an edge per two-variable predicate (its texts in ``predicates``)."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(sorted(rule.variables))
    for pred in sorted((*rule.premises, rule.conclusion), key=lambda p: p.text):
        if len(pred.args) == 2:
            u, v = pred.args
            if graph.has_edge(u, v):
                graph.edges[u, v]["predicates"].append(pred.text)
            else:
                graph.add_edge(u, v, predicates=[pred.text])
    return graph


def search_order(rule: Rule, *, entity: str | None = None) -> SearchOrder:
    """The variables in search order (generic first); ``entity`` forces premise/conclusion-first."""
    import networkx as nx

    graph = variable_graph(rule)
    generic = rule.generic
    entity = entity or ("conclusion" if rule.factual else "premise")
    rest = graph.subgraph([v for v in graph if v != generic])
    start = next((a for a in rule.conclusion.args if a != generic), None)
    chain: list[str] = []
    if start is not None:
        chain = list(nx.dfs_preorder_nodes(rest, source=start, sort_neighbors=sorted))
    # variables the walk does not reach hang off the generic variable alone
    chain += sorted(v for v in rest if v not in chain)
    ordered = chain if entity == "conclusion" else list(reversed(chain))
    return SearchOrder(variables=(generic, *ordered), entity=entity)


def linking_predicates(rule: Rule, var: str, bound: set[str]) -> list[Predicate]:
    """Predicates that contain ``var`` and whose other variables are all bound."""
    out = []
    for pred in (*rule.premises, rule.conclusion):
        if var in pred.args and all(a == var or a in bound for a in pred.args):
            out.append(pred)
    return out


__all__ = ["SearchOrder", "linking_predicates", "search_order", "variable_graph"]

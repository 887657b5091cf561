"""How ``knowforge view`` draws LINK's knowledge: a statement's chain of rules and premises."""

from __future__ import annotations

from knowforge.models.view import Mark, MethodView, ViewTable

STATEMENT_VIEW = MethodView(
    name="statement",
    title="Statement and its rule chain",
    description="A LINK conclusion and every fact it rests on, each premise marked by where it came from: "
                "a fact of the graph, a premise a model proposed (and the critic accepted), the "
                "statement's own assumption, or an earlier rule's conclusion. With its probe questions.",
    key="statement",
    graph="view/link_statement",
    keys="view/link_statement_keys",
    choices="view/link_statement_choices",
    node_marks=(Mark("conclusion", "#d62728", "the conclusion", "star"),
                Mark("graph", "#2ca02c", "premise from the graph", "round-rectangle"),
                Mark("model", "#ff7f0e", "premise a model proposed", "diamond"),
                Mark("assumption", "#1f77b4", "the statement's assumption"),
                Mark("chain", "#9467bd", "an earlier rule's conclusion", "hexagon")),
    edge_marks=(Mark("premise", "#4b5563", "rests on a premise"),
                Mark("assumption", "#1f77b4", "rests on its assumption", "dashed"),
                Mark("chain", "#9467bd", "rests on an earlier rule", "dotted")),
    tables=(ViewTable("Probe questions", "view/link_statement_questions"),),
    layout="breadthfirst",
)

VIEWS = (STATEMENT_VIEW,)

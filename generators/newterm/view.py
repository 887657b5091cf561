"""How ``knowforge view`` draws NewTerm's knowledge: a term with its related terms."""

from __future__ import annotations

from knowforge.models.view import Mark, MethodView, ViewTable

TERM_VIEW = MethodView(
    name="term",
    title="Term and its related terms",
    description="A new term as one benchmark took it, its meaning, and its related terms (the source of "
                "every distractor) by kind, kept or thinned away; those found in the lexical graph "
                "open their lemma. With the questions made for it.",
    key="term",
    graph="view/newterm_term",
    keys="view/newterm_term_keys",
    choices="view/newterm_term_choices",
    node_marks=(Mark("term", "#d62728", "the new term", "star"),
                Mark("meaning", "#1f77b4", "its meaning", "round-rectangle"),
                Mark("synonym", "#2ca02c", "synonym"),
                Mark("antonym", "#9467bd", "antonym"),
                Mark("partial", "#ff7f0e", "partial synonym"),
                Mark("spelling", "#8c564b", "spelling neighbour or guess"),
                Mark("related", "#9aa3af", "related term of another kind")),
    edge_marks=(Mark("means", "#1f77b4", "means"),
                Mark("kept", "#4b5563", "kept after thinning"),
                Mark("thinned", "#c7c9cc", "dropped by thinning", "dashed")),
    tables=(ViewTable("Questions made for it", "view/newterm_term_questions"),),
)

VIEWS = (TERM_VIEW,)

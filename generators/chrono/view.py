"""How ``knowforge view`` draws ChroKnow's knowledge: a fact's timeline with a model's answers."""

from __future__ import annotations

from knowforge.models.view import Mark, MethodView, ViewParam, ViewTable

TIMELINE_VIEW = MethodView(
    name="timeline",
    title="Fact timeline",
    description="One subject and relation year by year: each year's gold objects above it and, with a "
                "run, what the model said below it, the year marked by how the model did.",
    key="record",
    graph="view/chrono_timeline",
    keys="view/chrono_timeline_keys",
    choices="view/chrono_timeline_choices",
    node_marks=(Mark("subject", "#1f77b4", "subject and relation", "round-rectangle"),
                Mark("right", "#2ca02c", "year answered right"),
                Mark("partial", "#ffbf00", "year partly right"),
                Mark("wrong", "#d62728", "year answered wrong"),
                Mark("unasked", "#c7c9cc", "year not asked in the run"),
                Mark("gold", "#98df8a", "a gold object of the year", "rectangle"),
                Mark("said", "#ff9896", "what the model said", "tag")),
    edge_marks=(Mark("next", "#4b5563", "the next year"),
                Mark("gold", "#98df8a", "gold", "dotted"),
                Mark("said", "#ff9896", "answered", "dotted")),
    tables=(ViewTable("Questions and answers by year", "view/chrono_timeline_answers"),),
    params=(ViewParam("run", "the run whose answers are shown (a run id)", kind="run"),),
    layout="preset",
    drawing="timeline",
)

VIEWS = (TIMELINE_VIEW,)

"""How ``knowforge view`` draws ELKEN's knowledge: an event's ripple subgraph."""

from __future__ import annotations

from knowforge.models.view import Mark, MethodView, ViewParam, ViewTable

RIPPLE_VIEW = MethodView(
    name="ripple",
    title="Event ripple",
    description="The event, the entities filling its slots, the facts it asserted and retracted, and the "
                "current facts within k hops of the entities those edits touch: candidates that may "
                "change too (as `knowforge ripple` walks). With the event's questions.",
    key="event",
    graph="view/events_ripple",
    keys="view/events_ripple_keys",
    node_marks=(Mark("event", "#d62728", "the event", "diamond"),
                Mark("slot", "#1f77b4", "an entity filling a slot", "round-rectangle"),
                Mark("entity", "#9aa3af", "an entity"),
                Mark("value", "#e5e7eb", "a literal value or unknown", "rectangle")),
    edge_marks=(Mark("asserted", "#2ca02c", "asserted by the event"),
                Mark("retracted", "#d62728", "retracted by the event", "dashed"),
                Mark("candidate", "#ff7f0e", "candidate: reachable, may change too", "dotted"),
                Mark("slot", "#1f77b4", "slot of the event")),
    tables=(ViewTable("The event's questions", "view/events_questions"),),
    params=(ViewParam("hops", "how many facts away to look, 1 to 3", default=1, minimum=1, maximum=3),),
)

VIEWS = (RIPPLE_VIEW,)

"""How ``knowforge view`` draws ELKEN's knowledge: an event's ripple subgraph, and with a run
recorded with ``-S ripple_hops=K``, what the model did on it."""

from __future__ import annotations

from knowforge.kg.ripple import ignored_relations
from knowforge.models.view import Mark, MethodView, ViewParam, ViewTable


def _ripple_params() -> dict:
    # the relations `knowforge ripple` never walks (kg/ripple.yaml): the view walks the same
    return {"ignored": sorted(ignored_relations())}


# what the model did on a probed fact (knowforge.eval.events.ripple_probe's outcomes)
OUTCOME_MARKS = (("moved", "#2ca02c", "the model moved where the graph moved"),
                 ("missed", "#ff7f0e", "should move, the model stayed"),
                 ("collateral", "#d62728", "should stay, the model moved (collateral)"),
                 ("kept", "#1f77b4", "should stay, the model stayed"))

RIPPLE_VIEW = MethodView(
    name="ripple",
    title="Event ripple",
    description="The event, the entities filling its slots, the facts it asserted and retracted, and the "
                "current facts within k hops of the entities those edits touch: candidates that may "
                "change too (walked as `knowforge ripple` walks). With a run recorded with "
                "-S ripple_hops=K, each probed fact and each entity asked about is coloured by what the "
                "model did (an entity by its worst probe: collateral, missed, moved, kept). With the "
                "event's questions.",
    key="event",
    graph="view/events_ripple",
    keys="view/events_ripple_keys",
    node_marks=(Mark("event", "#d62728", "the event", "diamond"),
                Mark("slot", "#9467bd", "an entity filling a slot", "round-rectangle"),
                Mark("entity", "#9aa3af", "an entity"),
                Mark("value", "#e5e7eb", "a literal value or unknown", "rectangle"),
                *(Mark(kind, colour, f"asked: {text}", "hexagon") for kind, colour, text in OUTCOME_MARKS)),
    edge_marks=(Mark("asserted", "#2ca02c", "asserted by the event"),
                Mark("retracted", "#d62728", "retracted by the event", "dashed"),
                Mark("candidate", "#ff7f0e", "candidate: reachable, may change too", "dotted"),
                Mark("slot", "#9467bd", "slot of the event"),
                *(Mark(kind, colour, f"probed: {text}") for kind, colour, text in OUTCOME_MARKS)),
    tables=(ViewTable("The event's questions", "view/events_questions"),),
    params=(ViewParam("hops", "how many facts away to look, 1 to 3", default=1, minimum=1, maximum=3),
            ViewParam("run", "a run recorded with -S ripple_hops=K: colour what its model did", kind="run")),
    bind=_ripple_params,
)

VIEWS = (RIPPLE_VIEW,)

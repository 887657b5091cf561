"""How ``knowforge view`` draws KnowGen's knowledge: an artificial entity beside its parent."""

from __future__ import annotations

from knowforge.models.view import Mark, MethodView, ViewTable

ENTITY_VIEW = MethodView(
    name="entity",
    title="Artificial entity beside its parent",
    description="The entity's facts, each marked by the operation that made it (heredity, variation, "
                "extension), the parent's facts it dropped, the parent's values a variation replaced, "
                "and the questions about it.",
    key="entity",
    graph="view/knowgen_entity",
    keys="view/knowgen_entity_keys",
    choices="view/knowgen_entity_choices",
    node_marks=(Mark("artificial", "#d62728", "the artificial entity", "star"),
                Mark("parent", "#1f77b4", "its parent", "round-rectangle"),
                Mark("entity", "#9aa3af", "an entity a fact points at"),
                Mark("value", "#e5e7eb", "a literal value", "rectangle")),
    edge_marks=(Mark("heredity", "#2ca02c", "heredity: inherited unchanged"),
                Mark("variation", "#ff7f0e", "variation: a new value"),
                Mark("extension", "#9467bd", "extension: taken from a sibling"),
                Mark("dropout", "#7f7f7f", "dropout: a parent's fact it lacks", "dashed"),
                Mark("parent", "#6baed6", "the parent's value a variation replaced", "dotted"),
                Mark("derived", "#1d2330", "made from the parent", "dotted")),
    tables=(ViewTable("Questions about it", "view/knowgen_entity_questions"),),
)

VIEWS = (ENTITY_VIEW,)

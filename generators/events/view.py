"""How ``knowforge view`` draws ELKEN's knowledge: an event's ripple subgraph, and with a run
recorded with ``-S ripple_hops=K``, what the model did on it.

The drawing is the walk of ``knowforge ripple`` itself (``knowforge.kg.ripple.ripple_event``),
not a second walk in Cypher, so the two show the same facts. It is laid out in columns, left to
right and placed here (no force layout, so the same event always draws the same): the event;
the entities filling its slots; the other entities of the facts it asserted and retracted; then
the entities the walk reached, one column per hop. Within a column nodes are ordered by kind,
name and id.
"""

from __future__ import annotations

from typing import Any

from knowforge.kg.relations import labelled
from knowforge.kg.ripple import FactRef, ripple_event
from knowforge.models.view import Mark, MethodView, ViewParam, ViewTable

COLUMN = 280        # horizontal distance between columns (px of the preset layout)
ROW = 56            # vertical distance between nodes of a column


# what the model did on a probed fact (knowforge.eval.events.ripple_probe's outcomes), worst first
OUTCOME_MARKS = (("collateral", "#d62728", "should stay, the model moved (collateral)"),
                 ("missed", "#ff7f0e", "should move, the model stayed"),
                 ("moved", "#2ca02c", "the model moved where the graph moved"),
                 ("kept", "#1f77b4", "should stay, the model stayed"))
_WORST = [kind for kind, _, _ in OUTCOME_MARKS]


def _object_node(ref: FactRef, key: str) -> str:
    return ref.object_id or f"value:{key}"


def ripple_drawing(store, key: str, *, hops: int = 1, run: str | None = None, limit: int = 400,
                   **_: Any) -> dict | None:
    """The ripple view's graph ``{nodes, edges}`` for event ``key`` (None: no such event): the
    facts ``ripple_event(store, key, hops)`` lists (edited, declared, candidate; at most
    ``limit`` walked facts, nearest first, as it orders them), the event's slots, and with
    ``run`` each probed fact and asked entity marked by what the model did. Every node carries
    its place (x, y) in the columns the module docstring describes."""
    rows = store.read("view/events_ripple_marks", key=key, run={"id": run})
    if not rows:
        return None
    event = rows[0]
    report = ripple_event(store, key, hops)
    walked = report.facts[:limit]
    probes = {p["probe"]: p for p in event["probes"]}
    outcomes: dict[str, list[str]] = {}
    for p in event["probes"]:
        outcomes.setdefault(p["subject_id"], []).append(p["outcome"])

    column: dict[str, int] = {}            # node id -> column
    nodes: dict[str, dict] = {}

    def place(node_id: str, col: int, **data: Any) -> None:
        if node_id not in nodes:
            nodes[node_id] = {"id": node_id, **data}
        if col < column.get(node_id, col + 1):
            column[node_id] = col

    def asked(node_id: str) -> tuple[str, str] | None:
        """(worst outcome, what the probes found) of an entity the run asked about; None if unasked."""
        kinds = outcomes.get(node_id)
        if not kinds:
            return None
        counts = ", ".join(f"{sum(1 for k in kinds if k == o)} {o}" for o in _WORST if o in kinds)
        return min(kinds, key=_WORST.index), f"{len(kinds)} probe(s): {counts}"

    event_node = f"event:{key}"
    place(event_node, 0, label=event["text"], kind="event", title=f"{event['type']} on {event['date']}")
    for slot in event["slots"]:
        # a slot the run asked about is marked by what the model did (the slot's column says what it is)
        found = asked(slot["id"])
        place(slot["id"], 1, label=slot["name"], kind=found[0] if found else "slot", entity=slot["id"],
              title=f"slot {slot['slot']}" + (f"; {found[1]}" if found else ""))

    def entity(node_id: str, name: str | None, col: int) -> None:
        found = asked(node_id)
        place(node_id, col, label=name or node_id, kind=found[0] if found else "entity", entity=node_id,
              **({"title": found[1]} if found else {}))

    edges = [{"source": event_node, "target": s["id"], "label": s["slot"], "kind": "slot"} for s in event["slots"]]

    def fact(ref: FactRef, change: str, depth: int, key_: str, col: int, reason: str) -> None:
        entity(ref.subject_id, ref.subject, col)
        target = _object_node(ref, key_)
        if ref.object_id:
            entity(ref.object_id, ref.object, col)
        else:
            place(target, col, label=ref.object or "unknown", kind="value")
        probe = probes.get(ref.fact_id or "")
        title = change + (f", {depth} hop(s) away" if depth else "") + f" ({reason})"
        if probe is not None:
            title += (f"; {probe['outcome']}: {probe['question']} {probe['answer_before'] or '-'} → "
                      f"{probe['answer_after'] or '-'}")
        edges.append({"source": ref.subject_id, "target": target,
                      "label": labelled(ref.relation, ref.relation_label),
                      "kind": probe["outcome"] if probe is not None else change, "title": title})

    for change, ref in report.edited:
        fact(ref, change, 0, ref.fact_id or f"{change}:{ref.subject_id}|{ref.relation}", 2, "edited by the event")
    for f in walked:
        # the walk's facts keep ripple's own kinds: declared (the template accounts for it) or candidate
        fact(f.fact, f.kind, f.depth, f.fact.fact_id or "", 2 + f.depth, f.reason)

    by_column: dict[int, list[str]] = {}
    for node_id, col in column.items():
        by_column.setdefault(col, []).append(node_id)
    for col, ids in by_column.items():
        ids.sort(key=lambda n: (str(nodes[n].get("label")), n))
        top = -(len(ids) - 1) * ROW / 2
        for i, node_id in enumerate(ids):
            nodes[node_id].update(x=col * COLUMN, y=top + i * ROW)
    return {"nodes": list(nodes.values()), "edges": edges,
            "truncated": len(report.facts) > len(walked), "walked": len(report.facts)}


RIPPLE_VIEW = MethodView(
    name="ripple",
    title="Event ripple",
    description="The walk of `knowforge ripple EVENT --hops K` drawn: the event, the entities filling its "
                "slots, the facts it asserted and retracted, and the current facts within k hops of the "
                "entities those edits touch, declared (the event's template accounts for them) or candidates "
                "(reachable by a path only: ripples the template may have missed). Columns, left to right: "
                "the event, its slots, the other entities of its edits, then the entities reached at each hop. "
                "With a run recorded with -S ripple_hops=K, each probed fact and each entity asked about is "
                "coloured by what the model did (an entity by its worst probe: collateral, missed, moved, "
                "kept). With the event's questions.",
    key="event",
    graph="view/events_ripple_marks",
    keys="view/events_ripple_keys",
    choices="view/events_ripple_choices",
    build=ripple_drawing,
    node_marks=(Mark("event", "#d62728", "the event", "diamond"),
                Mark("slot", "#9467bd", "an entity filling a slot", "round-rectangle"),
                Mark("entity", "#9aa3af", "an entity"),
                Mark("value", "#e5e7eb", "a literal value or unknown", "rectangle"),
                *(Mark(kind, colour, f"asked: {text}", "hexagon") for kind, colour, text in OUTCOME_MARKS)),
    edge_marks=(Mark("asserted", "#2ca02c", "asserted by the event"),
                Mark("retracted", "#d62728", "retracted by the event", "dashed"),
                Mark("declared", "#8c564b", "declared: the event's template accounts for it"),
                Mark("candidate", "#ff7f0e", "candidate: reachable by a path only, may change too", "dotted"),
                Mark("slot", "#9467bd", "slot of the event"),
                *(Mark(kind, colour, f"probed: {text}") for kind, colour, text in OUTCOME_MARKS)),
    tables=(ViewTable("The event's questions", "view/events_questions"),),
    params=(ViewParam("hops", "how many facts away to look, 1 to 3 (knowforge ripple --hops)", default=1,
                      minimum=1, maximum=3),
            ViewParam("run", "a run recorded with -S ripple_hops=K: colour what its model did", kind="run")),
    layout="preset",
)

VIEWS = (RIPPLE_VIEW,)

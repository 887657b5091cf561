"""Layer planned events onto the graph, read it as of before/after an event, and unstack.

An applied event is ``(:Event {id, type, date, year, batch, seed, text, seq, applied})`` with
``[:SLOT {name}]`` edges to its fillers, ``[:ASSERTS]`` edges to new ``:Fact {layer:'edit'}``
nodes (valid from the event date; unknown answers are facts with ``unknown: true``) and
``[:RETRACTS {until}]`` edges to the facts it ends. Source facts are never modified, so the
unedited graph can always be read back and events stack and unstack in ``seq`` order.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import asdict

from knowforge.errors import KnowforgeError
from knowforge.kg.records import stable_id
from knowforge.kg.store import Store

from .instantiate import EventPlan
from .paths import Target

log = logging.getLogger(__name__)


def plan_payload(plan: EventPlan) -> str:
    """The plan as canonical JSON, stored on the Event for export and ripple analysis."""
    return json.dumps(asdict(plan), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def edit_fact_id(plan_id: str, subject_id: str | None, relation: str, obj: Target) -> str:
    """The id of the fact an event asserts for one object of an impacted triplet: what the
    event's in-scope question about (subject, relation) TESTS, written before the event is."""
    key = obj.id or ("unknown" if obj.unknown else obj.name)
    return stable_id("f:edit:", plan_id, subject_id, relation, key)


def edit_fact_rows(plan: EventPlan) -> list[dict]:
    rows = []
    for impact in plan.impacts:
        for obj in impact.objects:
            props = {"relation": impact.relation, "relation_label": impact.relation_label,
                     "start": plan.date, "start_precision": "day", "start_year": plan.year,
                     "temporal": True, "source": "events", "batch": plan.batch,
                     "event_id": plan.id, "unknown": obj.unknown,
                     "needs_background": impact.needs_background}
            if obj.id is not None:
                props["kind"] = "relation"
            elif obj.unknown:
                props.update(kind="relation", value="unknown")
            else:
                props.update(kind="attribute", value=obj.name, datatype="time",
                             point_in_time=obj.name, point_in_time_precision="day")
            rows.append({"id": edit_fact_id(plan.id, impact.subject.id, impact.relation, obj),
                         "event_id": plan.id, "subject_id": impact.subject.id,
                         "object_id": obj.id, "props": props})
    return rows


def apply_events(store: Store, plans: list[EventPlan], *, fact_rows=edit_fact_rows,
                 extra_props: Mapping[str, Mapping] | None = None) -> list[int]:
    """Apply events in order on top of whatever is applied; returns their ``seq`` numbers.

    Three batched writes for the whole list (events, retractions, new facts): the seq numbers
    are assigned here, so the stacking order does not depend on write order. ``fact_rows``
    makes a plan's edit-fact rows and ``extra_props`` adds properties per event id (an imported
    release's provenance).
    """
    start = store.read("events/read_max_seq")[0]["seq"] + 1
    seqs = list(range(start, start + len(plans)))
    store.write("events/upsert_events", [{
        "id": plan.id,
        "props": {"type": plan.type, "date": plan.date, "year": plan.year,
                  "batch": plan.batch, "seed": plan.seed, "text": plan.text, "seq": seq,
                  "applied": True, "index": plan.index, "payload": plan_payload(plan),
                  **(extra_props or {}).get(plan.id, {})},
        "slots": [{"name": s.name, "id": s.id} for s in plan.slots]}
        for plan, seq in zip(plans, seqs)])
    store.write("events/retract_facts", [
        {"event_id": plan.id, "fact_id": r.fact_id, "until": plan.date}
        for plan in plans for r in plan.retractions])
    store.write("events/assert_facts", [row for plan in plans for row in fact_rows(plan)])
    return seqs


def unapply_last(store: Store, batch: str | None = None) -> str | None:
    """Unstack the most recently applied event (of ``batch``); returns its id or None."""
    rows = store.read("events/read_last_event", batch=batch)
    if not rows:
        return None
    event_id = rows[0]["id"]
    if batch is not None:
        # Only the top of the whole stack may be removed, or later events would dangle.
        top = store.read("events/read_last_event", batch=None)[0]
        if top["id"] != event_id:
            raise KnowforgeError(f"event {event_id} is not the last applied event "
                                 f"({top['id']} of batch {top['batch']} is); unstack that first")
    store.run("events/delete_event", event_id=event_id)
    return event_id


def unapply_batch(store: Store, batch: str) -> int:
    """Unstack every event of a batch (it must be on top of the stack)."""
    count = 0
    while unapply_last(store, batch) is not None:
        count += 1
    return count


def facts_as_of(store: Store, event_id: str, subject_ids: list[str], *, after: bool) -> list[dict]:
    name = "events/facts_as_of_after" if after else "events/facts_as_of_before"
    return store.read(name, event_id=event_id, subject_ids=subject_ids)


def source_checksum(store: Store) -> str:
    """SHA-256 over every source fact (properties and object), in id order."""
    digest = hashlib.sha256()
    for rec in store.stream("events/read_source_checksum"):
        digest.update(json.dumps(rec, sort_keys=True, default=str).encode("utf-8"))
    return digest.hexdigest()

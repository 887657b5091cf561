"""Questions of an event: in-scope ones from its impacted triplets, out-of-scope (locality)
ones from facts of the same entities whose relations the event does not touch.

Locality facts are read BEFORE the event is applied (their answers must not change). Items
are ``BenchmarkItem`` values with slices {event_type, relation, known, needs_background,
scope, part} (part: fact or tendency, as ELKEN's file splits them). Without an LLM the event text is the template text and there are no tendency
questions; ``llm.py`` adds paraphrases and tendency questions through any backend.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from knowforge.models.types import BenchmarkItem
from knowforge.kg.records import stable_id
from knowforge.kg.store import Store

from .instantiate import EventPlan, ImpactedTriplet
from .layering import edit_fact_id
from .paths import read_current
from .templates import load_locality_relations, load_relations

TASK_FACT = "events/fact"
TASK_LOCALITY = "events/locality"
TASK_TENDENCY = "events/tendency"


@dataclass(frozen=True)
class LocalFact:
    fact_id: str
    subject_id: str
    subject_name: str
    relation: str
    object_id: str | None
    object_name: str
    aliases: tuple[str, ...]


def _answers(names: list[tuple[str, tuple[str, ...]]]) -> list[str]:
    out: list[str] = []
    for name, aliases in names:
        for text in (name, *aliases):
            if text and text not in out:
                out.append(text)
    return out


def in_scope_items(plan: EventPlan, benchmark: str) -> list[BenchmarkItem]:
    relations = load_relations()
    items = []
    for impact in plan.impacts:
        if impact.subject.id is None:
            continue
        question = relations[impact.relation].question.format(subject=impact.subject.name)
        answer = impact.answer
        answers = ["unknown"] if impact.unknown else _answers(
            [(o.name, o.aliases) for o in impact.objects])
        items.append(BenchmarkItem(
            id=stable_id("q:", plan.id, "in", impact.subject.id, impact.relation),
            benchmark=benchmark, task=TASK_FACT, form="generation", question=question,
            answers=answers, unknown=impact.unknown, scorer="elken-fact",
            # the facts the event asserts for (subject, relation): what the question tests (the
            # validity report's seen vs unseen reads them: edited facts are unseen by any model)
            fact_ids=[edit_fact_id(plan.id, impact.subject.id, impact.relation, o) for o in impact.objects],
            entity_ids=[impact.subject.id] + [o.id for o in impact.objects if o.id],
            slices={"event_type": plan.type, "relation": impact.relation,
                    "known": not impact.unknown, "needs_background": impact.needs_background,
                    "scope": "in", "part": "fact"},
            metadata={"event_id": plan.id, "event": plan.text,
                      "subject": {"id": impact.subject.id, "name": impact.subject.name},
                      "answer": _elken_answer(impact), "declared": impact.declared,
                      "path": [[h.source, h.relation, h.target, h.fact_id]
                               for h in answer.path]}))
    return items


def _elken_answer(impact: ImpactedTriplet) -> dict:
    if impact.unknown:
        return {"id": "NA", "name": "unknown", "alias": ["unknown"]}
    obj = impact.answer
    others = [o.name for o in impact.objects[1:]]
    return {"id": obj.id or obj.name, "name": obj.name, "alias": list(obj.aliases) + others}


def read_local_facts(store: Store, plans: list[EventPlan],
                     locality_path: str | None = None) -> dict[str, list[LocalFact]]:
    """Candidate locality facts per event: current facts of the slot entities whose relation
    is in the configured set and is not impacted for that entity by the event."""
    relation_ids, _ = load_locality_relations(locality_path)
    pairs = {(s.id, r) for p in plans for s in p.slots for r in relation_ids}
    current = read_current(store, pairs)
    out: dict[str, list[LocalFact]] = {}
    for plan in plans:
        touched = {(i.subject.id, i.relation) for i in plan.impacts}
        touched |= {(r.subject_id, r.relation) for r in plan.retractions}
        facts: dict[tuple[str, str], LocalFact] = {}
        for slot in plan.slots:
            for relation in relation_ids:
                if (slot.id, relation) in touched:
                    continue
                for rec in current.get((slot.id, relation), []):
                    if rec["unknown"] or not rec["object_name"]:
                        continue
                    facts.setdefault((slot.id, relation), LocalFact(
                        rec["fact_id"], slot.id, slot.entity, relation, rec["object_id"], rec["object_name"],
                        tuple(rec["aliases"])))
        out[plan.id] = [facts[k] for k in sorted(facts)]
    return out


def locality_items(plan: EventPlan, facts: list[LocalFact], benchmark: str, seed: int,
                   per_event: int, asked: set[str] | None = None) -> list[BenchmarkItem]:
    """``per_event`` locality questions of ``plan``, none whose text is in ``asked`` (the batch's
    earlier events'): ELKEN's metric.py pairs out-of-scope answers by question text and stops
    when one repeats, so a batch asks each at most once. ``asked`` gains the chosen texts."""
    relations = load_relations()
    asked = set() if asked is None else asked
    texts = [relations[f.relation].question.format(subject=f.subject_name) for f in facts]
    first = {text: i for i, text in reversed(list(enumerate(texts)))}   # one fact per question text
    free = [i for i, text in enumerate(texts) if text not in asked and first[text] == i]
    rng = random.Random(f"{seed}:events:locality:{plan.id}")
    chosen = sorted(free[k] for k in rng.sample(range(len(free)), min(per_event, len(free))))
    items = []
    for i in chosen:
        fact = facts[i]
        asked.add(texts[i])
        items.append(BenchmarkItem(
            id=stable_id("q:", plan.id, "out", fact.subject_id, fact.relation),
            benchmark=benchmark, task=TASK_LOCALITY, form="generation",
            question=texts[i],
            answers=_answers([(fact.object_name, fact.aliases)]), scorer="elken-fact",
            fact_ids=[fact.fact_id],          # the source fact whose answer the event must leave alone
            entity_ids=[fact.subject_id] + ([fact.object_id] if fact.object_id else []),
            slices={"event_type": plan.type, "relation": fact.relation, "known": True,
                    "needs_background": False, "scope": "out", "part": "fact"},
            metadata={"event_id": plan.id, "event": plan.text,
                      "subject": {"id": fact.subject_id, "name": fact.subject_name},
                      "answer": {"id": fact.object_id or fact.object_name,
                                 "name": fact.object_name, "alias": list(fact.aliases)}}))
    return items


def build_items(store: Store, plans: list[EventPlan], *, benchmark: str, seed: int,
                locality_path: str | None = None) -> dict[str, list[BenchmarkItem]]:
    """Items per event id (in-scope first, then locality). Call before applying the events."""
    _, per_event = load_locality_relations(locality_path)
    local = read_local_facts(store, plans, locality_path)
    asked: set[str] = set()
    return {plan.id: in_scope_items(plan, benchmark)
            + locality_items(plan, local[plan.id], benchmark, seed, per_event, asked)
            for plan in plans}

"""Plan events: fill a template's slots and compute its impacted triplets from the graph.

Planning is deterministic: a slot's candidates are the entities of its label, read by a named
statement ordered by id and kept when every ``where`` predicate holds (each predicate one
batched named read, ``predicates.evaluate``); every choice is drawn in Python from
``random.Random(f"{seed}:events:{type}")``, weighted by popularity (capped like ELKEN's
Wikipedia frequency, at 300). A filling whose constraints fail, whose required impact path
is empty, or that repeats an earlier event is rejected and another is drawn (backtracking,
bounded). Planning only reads the graph; ``layering.apply_events`` writes.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from knowforge.errors import ConfigError
from knowforge.kg.cypher import validate_label
from knowforge.kg.records import stable_id
from knowforge.kg.store import Store

from .paths import Hop, Target, describe_path, follow, read_current
from .predicates import Predicate, PredicateCache
from .templates import EventTemplate, Impact, PathRef, Retract, ValueRef, load_relations

log = logging.getLogger(__name__)

POPULARITY_CAP = 300.0
MAX_ATTEMPTS = 200
DEFAULT_DATE = "2025-01-01"


@dataclass(frozen=True)
class ImpactedTriplet:
    subject: Target
    relation: str
    relation_label: str
    objects: tuple[Target, ...]
    unknown: bool
    needs_background: bool
    replace: bool
    declared: str            # the template's path, e.g. "(A, P551, B→P159)"

    @property
    def answer(self) -> Target:
        return self.objects[0]


@dataclass(frozen=True)
class Retraction:
    fact_id: str
    subject_id: str
    relation: str
    object_id: str | None
    reason: str


@dataclass(frozen=True)
class Slot:
    name: str
    id: str
    entity: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class EventPlan:
    id: str
    type: str
    batch: str
    seed: int
    index: int
    date: str
    year: int
    text: str
    slots: tuple[Slot, ...]
    impacts: tuple[ImpactedTriplet, ...]
    retractions: tuple[Retraction, ...]

    def slot(self, name: str) -> Slot:
        return next(s for s in self.slots if s.name == name)


@dataclass
class PlanReport:
    plans: list[EventPlan] = field(default_factory=list)
    requested: dict[str, int] = field(default_factory=dict)
    made: dict[str, int] = field(default_factory=dict)
    rejected: dict[str, int] = field(default_factory=dict)   # fillings rejected by constraints


class Planner:
    """Plans events of one batch against the graph as it stands now."""

    def __init__(self, store: Store, templates: dict[str, EventTemplate], *, seed: int,
                 batch: str, date: str = DEFAULT_DATE):
        self.store = store
        self.templates = templates
        self.seed = seed
        self.batch = batch
        self.date = date
        try:
            self.year = int(date[:4])
        except ValueError as exc:
            raise ConfigError(f"event date {date!r} must be YYYY-MM-DD") from exc
        self.relations = load_relations()
        self._member_lists: dict[tuple, list[dict]] = {}
        self._predicates = PredicateCache(store)
        self._candidates: dict[tuple, list[dict]] = {}
        self._used: set[tuple] = set()

    # -- reads ----------------------------------------------------------------------------------
    def _members(self, label: str | None, only: list[str] | None) -> list[dict]:
        """Loaded entities with ``label`` (any when None), restricted to ``only`` ids; by id."""
        labels = [validate_label(label)] if label else []
        key = (label, tuple(only) if only is not None else None)
        if key not in self._member_lists:
            self._member_lists[key] = (
                self.store.read("events/read_slot_members", labels=labels) if only is None
                else self.store.read("events/read_slot_entities", labels=labels, ids=only))
        return self._member_lists[key]

    def _candidates_for(self, template: EventTemplate, slot_name: str, bound: dict[str, Slot],
                        only: list[str] | None) -> list[dict]:
        """The slot's fillers given the slots bound so far: not a stub, not already bound,
        within ``only`` (a derived slot), every ``where`` predicate holding. Ordered by id."""
        key = (template.type, slot_name, tuple((k, v.id) for k, v in bound.items()),
               tuple(only) if only is not None else None)
        if key not in self._candidates:
            slot = template.slots[slot_name]
            ids = {k: v.id for k, v in bound.items()}
            rows = [r for r in self._members(slot.label, only) if r["id"] not in ids.values()]
            for predicate in slot.where:
                keep = self._predicates.evaluate(predicate, [{**ids, slot_name: r["id"]} for r in rows])
                rows = [r for r, ok in zip(rows, keep) if ok]
            self._candidates[key] = rows
        return list(self._candidates[key])

    def candidates(self, template: EventTemplate, slot_name: str,
                   fillers: dict[str, str] | None = None) -> list[str]:
        """Ids of the entities that may fill ``slot_name`` of a sampled slot, given the ids of
        the slots before it (e.g. which countries qualify for a win-election)."""
        bound = {k: Slot(k, v, v) for k, v in (fillers or {}).items()}
        return [c["id"] for c in self._candidates_for(template, slot_name, bound, None)]

    def _holds(self, condition: Predicate, bound: dict[str, Slot]) -> bool:
        """Whether an impact's ``when`` predicate holds for this filling."""
        return self._predicates.evaluate(condition, [{k: v.id for k, v in bound.items()}])[0]

    def _targets(self, ref, bound: dict[str, Slot]) -> list[Target] | None:
        """Targets of a slot name or a path; None for 'unknown' and literal values."""
        if isinstance(ref, PathRef):
            start = bound[ref.from_]
            found = follow(self.store, {start.id: Target(start.id, start.entity, start.aliases)},
                           ref.path)
            return found.get(start.id, [])
        if isinstance(ref, ValueRef) or ref == "unknown":
            return None
        slot = bound[ref]
        return [Target(slot.id, slot.entity, slot.aliases)]

    # -- planning --------------------------------------------------------------------------------
    def plan_one(self, template: EventTemplate, rng: random.Random, index: int,
                 report: PlanReport) -> EventPlan | None:
        order = template.slot_order()
        attempts = [0]

        def fill(i: int, bound: dict[str, Slot]):
            if i == len(order):
                # Role-swapped duplicates (A divorces B / B divorces A) count as the same event.
                key = (template.type, tuple(sorted(v.id for v in bound.values())))
                if key in self._used:
                    return None
                resolved = self._resolve(template, bound)
                if resolved is None:
                    report.rejected[template.type] = report.rejected.get(template.type, 0) + 1
                    return None
                self._used.add(key)
                return bound, resolved
            name = order[i]
            slot = template.slots[name]
            only = None
            if slot.derive is not None:
                only = [t.id for t in self._targets(slot.derive, bound)]
                if not only:
                    return None
            candidates = self._candidates_for(template, name, bound, only)
            while candidates and attempts[0] < MAX_ATTEMPTS:
                attempts[0] += 1
                weights = [min(float(c["popularity"] or 0.0), POPULARITY_CAP) + 1.0
                           for c in candidates]
                pick = rng.choices(range(len(candidates)), weights=weights)[0]
                c = candidates.pop(pick)
                result = fill(i + 1, {**bound, name: Slot(name, c["id"], c["name"],
                                                          tuple(c["aliases"]))})
                if result is not None:
                    return result
            return None

        result = fill(0, {})
        if result is None:
            return None
        bound, resolved = result
        return self._make_plan(template, bound, resolved, index)

    def plan_fixed(self, template: EventTemplate, slot_ids: dict[str, str],
                   index: int = 0) -> EventPlan:
        """Plan one event with the given fillers (derived slots may be left out).

        Raises ConfigError naming the slot when a filler violates the template's constraints.
        """
        bound: dict[str, Slot] = {}
        for name in template.slot_order():
            slot = template.slots[name]
            only = [slot_ids[name]] if name in slot_ids else None
            if slot.derive is not None:
                derived = [t.id for t in self._targets(slot.derive, bound)]
                only = [i for i in derived if only is None or i in only]
            elif only is None:
                raise ConfigError(f"event type {template.type}: slot {name} needs a filler")
            candidates = self._candidates_for(template, name, bound, only)
            if not candidates:
                raise ConfigError(f"event type {template.type}: no filler for slot {name} "
                                  f"({slot_ids.get(name, 'derived')}) satisfies its constraints")
            c = candidates[0]
            bound[name] = Slot(name, c["id"], c["name"], tuple(c["aliases"]))
        resolved = self._resolve(template, bound)
        if resolved is None:
            raise ConfigError(f"event type {template.type}: a required impact path is empty for "
                              f"{ {k: v.id for k, v in bound.items()} }")
        return self._make_plan(template, bound, resolved, index)

    def _make_plan(self, template, bound, resolved, index) -> EventPlan:
        impacts, retractions = resolved
        slots = tuple(bound[name] for name in template.slot_order())
        names = {s.name: s.entity for s in slots}
        text = template.text.format(**names, date=self.date)
        event_id = stable_id("ev:", self.batch, self.seed, template.type, index,
                             [(s.name, s.id) for s in slots], self.date)
        return EventPlan(event_id, template.type, self.batch, self.seed, index, self.date,
                         self.year, text, slots, tuple(impacts), retractions)

    def _resolve(self, template: EventTemplate, bound: dict[str, Slot]):
        """Impacted triplets and retractions of a filling; None rejects the filling."""
        stated = template.text_slots()
        impacts: list[ImpactedTriplet] = []
        retract_specs: list[tuple[Target, str, list[str] | None, str]] = []
        for spec in template.impacts:
            if spec.when is not None and not self._holds(spec.when, bound):
                continue
            subjects = self._targets(spec.subject, bound) or []
            if isinstance(spec.object, ValueRef):
                objects: list[Target] | None = [Target(None, self.date)]
                unknown = False
            elif spec.object == "unknown":
                objects, unknown = [Target(None, "unknown", ("unknown",), unknown=True)], True
            else:
                objects, unknown = self._targets(spec.object, bound), False
                if not objects:
                    if spec.optional:
                        continue
                    return None
            background = spec.needs_background
            if background is None:
                # A conditional impact needs the background fact its condition reads (e.g.
                # that the country is a presidential republic), which the text does not state.
                background = (spec.when is not None
                              or isinstance(spec.subject, PathRef)
                              or isinstance(spec.object, PathRef)
                              or (isinstance(spec.object, str) and spec.object not in ("unknown",)
                                  and spec.object not in stated))
            info = self.relations[spec.relation]
            for subject in subjects:
                if any(o.id is not None and o.id == subject.id for o in objects):
                    return None  # an entity related to itself: not a reasonable edit
                impacts.append(ImpactedTriplet(subject, spec.relation, info.label, tuple(objects),
                                               unknown, bool(background), spec.replace,
                                               _declared(spec)))
                if spec.replace:
                    retract_specs.append((subject, spec.relation, None, f"replaced by {_declared(spec)}"))
        for spec in template.retracts:
            objects = None
            if spec.object is not None:
                objects = [t.id for t in (self._targets(spec.object, bound) or [])]
            for subject in self._targets(spec.subject, bound) or []:
                retract_specs.append((subject, spec.relation, objects, f"retracted by {_declared(spec)}"))
        return impacts, self._retractions(retract_specs)

    def _retractions(self, specs) -> tuple[Retraction, ...]:
        current = read_current(self.store, {(s.id, rel) for s, rel, _, _ in specs if s.id})
        out: dict[str, Retraction] = {}
        for subject, relation, objects, reason in specs:
            for rec in current.get((subject.id, relation), []):
                if objects is not None and rec["object_id"] not in objects:
                    continue
                out.setdefault(rec["fact_id"], Retraction(rec["fact_id"], subject.id, relation,
                                                          rec["object_id"], reason))
        return tuple(out[k] for k in sorted(out))


def _declared(spec: Impact | Retract) -> str:
    def ref(r) -> str:
        if r is None:
            return "*"
        if isinstance(r, PathRef):
            return describe_path(r.from_, r.path)
        if isinstance(r, ValueRef):
            return r.value
        return r
    return f"({ref(spec.subject)}, {spec.relation}, {ref(spec.object)})"


def plan_events(store: Store, templates: dict[str, EventTemplate], types: list[str], n: int, *,
                seed: int, batch: str, date: str = DEFAULT_DATE,
                progress: Callable[[int], None] | None = None) -> PlanReport:
    """Plan ``n`` events of each type (fewer when the graph runs out of valid fillings)."""
    unknown = [t for t in types if t not in templates]
    if unknown:
        raise ConfigError(f"unknown event type(s) {', '.join(unknown)}; known: "
                          f"{', '.join(templates)}")
    planner = Planner(store, templates, seed=seed, batch=batch, date=date)
    report = PlanReport()
    for event_type in types:
        template = templates[event_type]
        rng = random.Random(f"{seed}:events:{event_type}")
        report.requested[event_type] = n
        made = 0
        for index in range(n):
            plan = planner.plan_one(template, rng, index, report)
            if plan is None:
                log.warning("event type %s: only %d of %d events could be instantiated",
                            event_type, made, n)
                if progress:
                    progress(n - index)
                break
            report.plans.append(plan)
            made += 1
            if progress:
                progress(1)
        report.made[event_type] = made
    return report


__all__ = ["EventPlan", "Hop", "ImpactedTriplet", "PlanReport", "Planner", "Retraction", "Slot",
           "Target", "plan_events"]

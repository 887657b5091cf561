"""Wrong answers for KnowGen questions, drawn from the graph without rebuilding big lists.

A question's candidate wrong values are, in order: the values its class has for the relation
(the parent's and siblings'), for a class-level relation the other classes, then every value
the batch read for the relation (sorted), then numeric fallbacks; duplicates keep their first
place, and values equal (case-insensitively) to a right answer are left out. A seeded
``rng.sample`` then picks from that list.

The last part is large (every value of ``body_mass`` in a 10k-species taxonomy) and the same
for every question, so it is sorted once per relation (``Ranked``) and each question only
works out which few positions it loses. ``Pool`` shows the result to ``rng.sample`` as a
sequence (length and indexing), so the draws, and therefore the output, are exactly those of
the plain list it stands for; ``random.Random.sample`` accepts any ``Sequence`` and only takes
``len`` and items by position.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .plan import PlannedEntity, display_value
from .read import GraphInputs


class Ranked:
    """Distinct strings in a fixed order, with positions by value and by lower-cased value."""

    __slots__ = ("_unknown", "by_lower", "position", "values")

    def __init__(self, values: Iterable[str]):
        self.values = list(values)
        self.position = {v: i for i, v in enumerate(self.values)}
        by_lower: dict[str, list[int]] = defaultdict(list)
        for i, v in enumerate(self.values):
            by_lower[v.lower()].append(i)
        self.by_lower = dict(by_lower)
        self._unknown: list[int] | None = None

    def unknown_positions(self) -> list[int]:
        """Positions of values that read like "unknown" (dropout questions leave them out)."""
        if self._unknown is None:
            self._unknown = [i for v, i in self.position.items() if "unknown" in v.lower()]
        return self._unknown


EMPTY = Ranked(())


@dataclass
class Candidates:
    """A candidate list, described: ``head`` (distinct, small), then each ranked segment less
    the positions in its ``removed`` set (positions already in an earlier part, or not
    candidates of this question), then ``extra`` (may repeat what came before)."""

    head: list[str]
    segments: list[tuple[Ranked, set[int]]] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)

    def materialise(self) -> list[str]:
        out = list(self.head)
        for ranked, removed in self.segments:
            out.extend(v for i, v in enumerate(ranked.values) if i not in removed)
        return out + list(self.extra)


class Pool(Sequence):
    """Segments of (values, sorted removed positions) read as one list, without copying."""

    def __init__(self, parts: list[tuple[list[str], list[int]]]):
        self._parts = [(values, removed, len(values) - len(removed)) for values, removed in parts]
        self._len = sum(n for _, _, n in self._parts)

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, j):
        if not isinstance(j, int) or not 0 <= j < self._len:
            raise IndexError(j)
        for values, removed, n in self._parts:
            if j < n:
                i = j
                for r in removed:        # ascending: the j-th position not removed
                    if r > i:
                        break
                    i += 1
                return values[i]
            j -= n
        raise IndexError(j)

    def __iter__(self):
        for values, removed, _ in self._parts:
            skip = set(removed)
            yield from (v for i, v in enumerate(values) if i not in skip)


def pick_distractors(rng: random.Random, candidates: Candidates, exclude: Iterable[str], k: int,
                     first: Sequence[str] = (), *, drop_unknown: bool = False) -> list[str]:
    """Up to ``k`` wrong answers: ``first`` (when not excluded), then a seeded sample of the
    candidates whose lower-cased form is neither excluded nor already chosen.
    ``drop_unknown``: leave out candidates that read like "unknown"."""
    exclude_norm = {e.lower() for e in exclude}
    chosen = [c for c in first if c and c.lower() not in exclude_norm][:k]
    need = k - len(chosen)
    if need <= 0:
        return chosen
    seen = exclude_norm | {c.lower() for c in chosen}

    def keep(v: str) -> bool:
        low = v.lower()
        return low not in seen and not (drop_unknown and "unknown" in low)

    parts = [([v for v in candidates.head if keep(v)], [])]
    for ranked, removed in candidates.segments:
        gone = set(removed)
        for low in seen:
            gone.update(ranked.by_lower.get(low, ()))
        if drop_unknown:
            gone.update(ranked.unknown_positions())
        parts.append((ranked.values, sorted(gone)))
    if candidates.extra:
        listed = set(candidates.head)

        def listed_before(v: str) -> bool:
            if v in listed:
                return True
            for ranked, removed in candidates.segments:
                i = ranked.position.get(v)
                if i is not None and i not in removed:
                    return True
            return False

        parts.append(([v for v in dict.fromkeys(candidates.extra) if keep(v) and not listed_before(v)], []))
    pool = Pool(parts)
    if len(pool):
        chosen.extend(rng.sample(pool, min(need, len(pool))))
    return chosen


class DistractorPools:
    """Wrong answers drawn from the graph: the same attribute on siblings, the objects of the
    same relation in the class, then anywhere the batch read."""

    def __init__(self, inputs: GraphInputs):
        self.inputs = inputs
        self.global_objects: dict[str, dict[str, str]] = defaultdict(dict)
        self.global_values: dict[str, dict[str, None]] = defaultdict(dict)
        for fs in inputs.facts.values():
            for f in fs:
                self._add(f.relation, f)
        self._member_values: dict[tuple[str, str, str], list] = {}
        self._rest: dict[tuple[str, str], Ranked] = {}
        self._ends: dict[str, tuple[Ranked, dict[str, int], dict[str, int]]] = {}
        self._classes: Ranked | None = None
        self._class_owners: dict[str, int] = {}
        self._rest_minus_classes: dict[tuple[str, str], set[int]] = {}

    def _add(self, relation: str, f) -> None:
        if f.object_id:
            self.global_objects[relation].setdefault(f.object_id, f.object_name or f.object_id)
        elif f.value is not None:
            self.global_values[relation].setdefault(display_value(f.value, f.unit), None)

    def add_object(self, relation: str, object_id: str, name: str) -> None:
        self.global_objects[relation].setdefault(object_id, name)
        for key in [k for k in self._rest if k[0] == relation]:
            del self._rest[key]
        self._ends.pop(relation, None)
        self._rest_minus_classes.clear()

    def _values_of(self, member_id: str, relation: str, kind: str) -> list:
        key = (member_id, relation, kind)
        values = self._member_values.get(key)
        if values is None:
            values = [f.object_name if kind == "relation" else display_value(f.value, f.unit)
                      for f in self.inputs.facts.get(member_id, ()) if f.relation == relation]
            self._member_values[key] = values
        return values

    def _rest_of(self, relation: str, kind: str) -> Ranked:
        key = (relation, kind)
        ranked = self._rest.get(key)
        if ranked is None:
            if kind == "relation":
                values = sorted(self.global_objects.get(relation, {}).values())
            else:
                values = sorted(self.global_values.get(relation, {}))
            ranked = self._rest[key] = Ranked(dict.fromkeys(v for v in values if v))
        return ranked

    def _class_names(self) -> Ranked:
        if self._classes is None:
            owners: dict[str, int] = defaultdict(int)
            for c in self.inputs.classes:
                owners[c.name] += 1
            self._class_owners = dict(owners)
            self._classes = Ranked(dict.fromkeys(c.name for c in self.inputs.classes if c.name))
        return self._classes

    def candidates(self, entity: PlannedEntity, relation: str, kind: str) -> Candidates:
        """Candidate wrong values, class first, in a stable order (non-empty values only)."""
        local: dict[str, None] = {}
        for m in (entity.parent, *entity.siblings):
            for v in self._values_of(m.id, relation, kind):
                local.setdefault(v, None)
        head = [v for v in local if v]
        rest = self._rest_of(relation, kind)
        segments = []
        class_level = (kind == "relation" and relation == entity.facts[0].relation
                       and entity.facts[0].class_level)
        if class_level:
            # sibling classes are the natural wrong parents: every class name but this class's
            # own (unless another class has the same name), after the members' values
            classes = self._class_names()
            own = entity.cls.name
            if self._class_owners.get(own, 0) > 1:
                # a name two classes share stays, at the first place another class gives it
                classes = Ranked(dict.fromkeys(c.name for c in self.inputs.classes
                                               if c.id != entity.cls.id and c.name))
            removed = {classes.position[v] for v in local if v in classes.position}
            if self._class_owners.get(own) == 1:
                removed.add(classes.position[own])
            segments.append((classes, removed))
            rest_removed = set(self._rest_minus_classes_of(relation, kind, entity))
        else:
            rest_removed = set()
        rest_removed.update(rest.position[v] for v in local if v in rest.position)
        segments.append((rest, rest_removed))
        return Candidates(head=head, segments=segments)

    def _rest_minus_classes_of(self, relation: str, kind: str, entity: PlannedEntity) -> set[int]:
        """Positions in the relation's sorted values of the class names this entity's
        class-level question already lists (every class name but its own, if unshared)."""
        key = (relation, kind, entity.cls.name)
        got = self._rest_minus_classes.get(key)
        if got is None:
            rest = self._rest_of(relation, kind)
            own_unshared = self._class_owners.get(entity.cls.name) == 1
            got = {rest.position[name] for name in self._class_names().values
                   if name in rest.position and not (own_unshared and name == entity.cls.name)}
            self._rest_minus_classes[key] = got
        return got

    def end_candidates(self, relation: str, end_ids: Iterable[str]) -> Candidates:
        """Names of the relation's objects in object-id order, less the given objects (the
        right answers of a KA question), duplicates after their first place dropped."""
        ranked, first_of, count = self._ends_of(relation)
        objects = self.global_objects.get(relation, {})
        ends = set(end_ids)
        removed = set()
        for oid in ends:
            name = objects.get(oid)
            if name is None:
                continue
            if count[name] > 1:
                # a name two objects share: its first place depends on which ones are left out
                return Candidates(head=list(dict.fromkeys(
                    v for k, v in sorted(objects.items()) if k not in ends)))
            removed.add(first_of[name])
        return Candidates(head=[], segments=[(ranked, removed)])

    def _ends_of(self, relation: str):
        got = self._ends.get(relation)
        if got is None:
            names = [v for _, v in sorted(self.global_objects.get(relation, {}).items())]
            count: dict[str, int] = defaultdict(int)
            for v in names:
                count[v] += 1
            ranked = Ranked(dict.fromkeys(names))
            got = self._ends[relation] = (ranked, ranked.position, dict(count))
        return got

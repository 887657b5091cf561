"""Pure, deterministic planning of artificial entities (paper's Algorithm 1).

Graph reads in (``GraphInputs``), planned entities out; every random choice is drawn from
generators derived from the batch seed (``random.Random(f"{seed}:knowgen:<component>")``).
Nothing here touches the graph, so it is unit-testable on small inputs.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from knowforge.kg.cypher import ALLOWED_LABELS
from knowforge.kg.records import stable_id

from .names import NameIndex, make_name
from .params import KnowGenParams
from .read import ClassInfo, GraphInputs, Member, SourceFact

OPS = ("heredity", "variation", "dropout", "extension")
# Numeric variation draws v + N(0, |v|/10) truncated to +-4 sigma, i.e. within [0.6 v, 1.4 v]:
# a positive quantity stays positive (no negative mass or life span) and the bound is testable.
NOISE_SIGMA = 0.1
NOISE_TRUNCATE = 4.0
SIGNIFICANT_DIGITS = 3
ALCUNA_ID_STRIDE = 10**10


@dataclass(frozen=True)
class PlannedFact:
    id: str
    op: str                       # heredity | variation | extension
    kind: str
    relation: str
    relation_label: str
    value: str | None = None
    value_num: float | None = None
    unit: str | None = None
    datatype: str | None = None
    object_id: str | None = None
    object_name: str | None = None
    object_aliases: tuple[str, ...] = ()
    sources: tuple[tuple[str, str], ...] = ()   # (source fact id, role)
    old: SourceFact | None = None               # the parent's fact a variation replaced
    class_level: bool = False                   # the class-membership fact every ẽ of C has

    def display(self) -> str:
        if self.kind == "relation":
            return self.object_name or self.object_id or ""
        return display_value(self.value, self.unit)


@dataclass(frozen=True)
class PlannedEntity:
    id: str
    index: int
    name: str
    alcuna_id: int
    cls: ClassInfo
    parent: Member
    rank: str | None
    labels: tuple[str, ...]
    facts: tuple[PlannedFact, ...]
    dropout: tuple[SourceFact, ...] = ()
    siblings: tuple[Member, ...] = field(default=(), repr=False)

    def facts_of(self, relation: str) -> list[PlannedFact]:
        return [f for f in self.facts if f.relation == relation]


def display_value(value: str | None, unit: str | None) -> str:
    text = value or ""
    return f"{text} {unit}" if unit and unit not in ("1", "") else text


def format_number(x: float) -> str:
    """Round to SIGNIFICANT_DIGITS and print without a trailing '.0' (60.0 -> '60')."""
    if x == 0:
        return "0"
    digits = SIGNIFICANT_DIGITS - int(math.floor(math.log10(abs(x)))) - 1
    rounded = round(x, digits)
    return f"{rounded:.{max(digits, 0)}f}".rstrip("0").rstrip(".") if digits > 0 else f"{int(round(rounded))}"


def vary_number(rng: random.Random, v: float) -> float:
    """v + N(0, |v|/10), truncated at +-4 sigma, rounded, and different from v after rounding.

    Truncation (a resample) keeps positive quantities positive; a value that rounds back to v
    is resampled too, so a KD question always has a new value to ask for.
    """
    sigma = abs(v) * NOISE_SIGMA
    if sigma == 0:
        return float(rng.choice((1, 2, 3)))  # zero has no scale; a small positive step
    for _ in range(100):
        noise = rng.gauss(0.0, sigma)
        if abs(noise) > NOISE_TRUNCATE * sigma:
            continue
        new = float(format_number(v + noise))
        if new != v and (v <= 0 or new > 0):
            return new
    # Rounding swallowed every draw (tiny sigma at 3 significant digits): step one unit in
    # the last kept digit, still inside the bound.
    step = 10 ** (math.floor(math.log10(abs(v))) - SIGNIFICANT_DIGITS + 1)
    return float(format_number(v + step))


def alcuna_id(parent_id: str, occurrence: int) -> int:
    """The released data's id: minus the parent's numeric id. A parent used again in the same
    batch gets -(parent + k * 10**10) so ids stay unique integers (documented)."""
    tail = parent_id.rsplit(":", 1)[-1]
    num = int(tail) if tail.isdigit() else int(hashlib.sha1(parent_id.encode()).hexdigest()[:9], 16)
    return -(num + occurrence * ALCUNA_ID_STRIDE)


def eligible_parents(inputs: GraphInputs) -> list[tuple[ClassInfo, Member]]:
    """Members that have at least one fact besides class membership, with their class."""
    return [(c, m) for c in inputs.classes for m in c.members if inputs.facts.get(m.id)]


def draw_parents(rng: random.Random, pool: list[tuple[ClassInfo, Member]], n: int):
    """n parents: a seeded shuffle of all eligible members, reshuffled when exhausted, so
    every parent is used once before any is used twice."""
    out = []
    while len(out) < n:
        order = list(pool)
        rng.shuffle(order)
        out.extend(order[: n - len(out)])
    return out


def plan_entities(inputs: GraphInputs, params: KnowGenParams, names: NameIndex) -> list[PlannedEntity]:
    """Plan ``params.n`` artificial entities. ``names`` is updated with every new name."""
    return list(iter_plan_entities(inputs, params, names))


def iter_plan_entities(inputs: GraphInputs, params: KnowGenParams,
                       names: NameIndex) -> Iterator[PlannedEntity]:
    """The entities of ``plan_entities`` one at a time (the writer can apply the first ones
    while the next are planned). An InputError for inputs with nothing to plan is raised by
    this call, not at the first entity."""
    pool = eligible_parents(inputs)
    if not pool:
        from knowforge.errors import InputError
        raise InputError("no class member has facts besides class membership: nothing to inherit")
    parents = draw_parents(random.Random(f"{params.seed}:knowgen:parents"), pool, params.n)
    return _plan_each(inputs, params, names, parents)


def _plan_each(inputs: GraphInputs, params: KnowGenParams, names: NameIndex,
               parents: list[tuple[ClassInfo, Member]]) -> Iterator[PlannedEntity]:
    name_rng = random.Random(f"{params.seed}:knowgen:names")
    used: dict[str, int] = {}
    for index, (cls, parent) in enumerate(parents):
        occurrence = used.get(parent.id, 0)
        used[parent.id] = occurrence + 1
        rng = random.Random(f"{params.seed}:knowgen:entity:{index}")
        siblings = tuple(m for m in cls.members if m.id != parent.id)
        name = make_name(name_rng, [parent.name, *parent.aliases],
                         [n for s in siblings for n in (s.name, *s.aliases)], names)
        yield plan_entity(rng, inputs, params, index=index, cls=cls, parent=parent,
                          siblings=siblings, name=name, alcuna=alcuna_id(parent.id, occurrence))


def plan_entity(rng: random.Random, inputs: GraphInputs, params: KnowGenParams, *, index: int,
                cls: ClassInfo, parent: Member, siblings: tuple[Member, ...], name: str,
                alcuna: int) -> PlannedEntity:
    entity_id = f"gen:{params.batch}:{index:06d}"
    p_her, p_var, _ = params.split_probabilities()
    facts: list[PlannedFact] = []
    dropout: list[SourceFact] = []

    def fact_id() -> str:
        return stable_id("f:gen:", params.batch, entity_id, len(facts))

    # Class-level fact: ẽ is a member of C, like its parent.
    facts.append(PlannedFact(id=fact_id(), op="heredity", kind="relation", relation=params.parent_rel,
                             relation_label=_class_rel_label(params.parent_rel), object_id=cls.id,
                             object_name=cls.name, sources=((parent.class_fact_id, "inherited"),)
                             if parent.class_fact_id else (), class_level=True))
    parent_facts = inputs.facts.get(parent.id, ())
    # One draw per fact, in fact-id order: the split never depends on anything else.
    split = []
    for f in parent_facts:
        u = rng.random()
        split.append((f, "heredity" if u < p_her else "variation" if u < p_her + p_var else "dropout"))
    parent_objects = {(f.relation, f.object_id) for f in parent_facts if f.object_id}
    for f, op in split:
        if op == "dropout":
            dropout.append(f)
            continue
        if op == "variation":
            varied = _vary(rng, inputs, f, parent, siblings, parent_objects, fact_id())
            if varied is not None:
                facts.append(varied)
                continue
            # Nothing to vary to (object without class siblings, attribute no sibling has a
            # different value for): the fact is inherited unchanged instead.
        facts.append(_copy(f, fact_id(), "heredity", (f.id, "inherited")))
    facts.extend(_extend(rng, inputs, params, siblings, facts, dropout, fact_id_base=(params.batch, entity_id)))
    labels = tuple(label for label in parent.labels
                   if label in ALLOWED_LABELS and label not in ("Entity", "Artificial", "Stub"))
    return PlannedEntity(id=entity_id, index=index, name=name, alcuna_id=alcuna, cls=cls,
                         parent=parent, rank=parent.rank, labels=labels, facts=tuple(facts),
                         dropout=tuple(dropout), siblings=siblings)


def _class_rel_label(parent_rel: str) -> str:
    return "parent taxon" if parent_rel == "P171" else parent_rel.replace("_", " ")


def _copy(f: SourceFact, new_id: str, op: str, *sources: tuple[str, str]) -> PlannedFact:
    return PlannedFact(id=new_id, op=op, kind=f.kind, relation=f.relation,
                       relation_label=f.relation_label, value=f.value, value_num=f.value_num,
                       unit=f.unit, datatype=f.datatype, object_id=f.object_id,
                       object_name=f.object_name, object_aliases=f.object_aliases,
                       sources=tuple(sources))


def _vary(rng, inputs: GraphInputs, f: SourceFact, parent: Member, siblings, parent_objects,
          new_id: str) -> PlannedFact | None:
    if f.kind == "relation":
        oc = inputs.object_classes.get(f.object_id)
        options = [s for s in (oc.siblings if oc else ())
                   if (f.relation, s.id) not in parent_objects and s.id != parent.id]
        if not options:
            return None
        pick = options[rng.randrange(len(options))]
        return PlannedFact(id=new_id, op="variation", kind="relation", relation=f.relation,
                           relation_label=f.relation_label, object_id=pick.id,
                           object_name=pick.name, object_aliases=pick.aliases,
                           sources=((f.id, "varied"),), old=f)
    if f.is_numeric:
        new = vary_number(rng, float(f.value_num))
        return PlannedFact(id=new_id, op="variation", kind="attribute", relation=f.relation,
                           relation_label=f.relation_label, value=format_number(new),
                           value_num=new, unit=f.unit, datatype=f.datatype,
                           sources=((f.id, "varied"),), old=f)
    parent_values = {x.value for x in inputs.facts.get(parent.id, ()) if x.relation == f.relation}
    options = [x for s in siblings for x in inputs.facts.get(s.id, ())
               if x.relation == f.relation and x.kind == "attribute" and x.value not in parent_values]
    if not options:
        return None
    pick = options[rng.randrange(len(options))]
    return PlannedFact(id=new_id, op="variation", kind="attribute", relation=f.relation,
                       relation_label=f.relation_label, value=pick.value, value_num=pick.value_num,
                       unit=pick.unit, datatype=pick.datatype,
                       sources=((f.id, "varied"), (pick.id, "value_from")), old=f)


def _extend(rng, inputs: GraphInputs, params: KnowGenParams, siblings, facts: list[PlannedFact],
            dropout: list[SourceFact], *, fact_id_base) -> list[PlannedFact]:
    """Sample extension facts from the siblings' facts that ẽ does not have yet.

    An attribute ẽ already has (or that was dropped) is not added again: one body mass per
    entity, and a dropped property stays unknown.
    """
    k = rng.randint(0, params.max_extension)
    if k == 0:
        return []
    have_attrs = {f.relation for f in facts if f.kind == "attribute"} | {
        f.relation for f in dropout if f.kind == "attribute"}
    have_pairs = {(f.relation, f.object_id) for f in facts if f.object_id}
    pool = [x for s in siblings for x in inputs.facts.get(s.id, ())]
    pool = [x for x in pool if not (x.kind == "attribute" and x.relation in have_attrs)
            and not (x.object_id and (x.relation, x.object_id) in have_pairs)]
    order = list(range(len(pool)))
    rng.shuffle(order)
    out: list[PlannedFact] = []
    for i in order:
        if len(out) == k:
            break
        x = pool[i]
        if x.kind == "attribute" and x.relation in have_attrs:
            continue
        if x.object_id and (x.relation, x.object_id) in have_pairs:
            continue
        new_id = stable_id("f:gen:", *fact_id_base, len(facts) + len(out))
        out.append(_copy(x, new_id, "extension", (x.id, "sampled")))
        if x.kind == "attribute":
            have_attrs.add(x.relation)
        else:
            have_pairs.add((x.relation, x.object_id))
    return out

"""The fast distractor pools draw exactly what the plain candidate lists drew.

``reference_candidates`` and ``reference_pick`` are the code that built the distractors before
the 10k speed work (issue #13, item 5): a full, sorted candidate list per question, de-duplicated,
then ``rng.sample``. The pools in ``knowgen.distractors`` must give the same answers AND leave the
generator in the same state, on inputs built to hit every corner: class names shared by two
classes (the entity's own among them), member values that equal class names, one name for two
objects, values that differ only by case, values that read like "unknown", numeric fallbacks
that repeat a listed value, empty names.
"""

from __future__ import annotations

import random
from collections import defaultdict

import pytest
from knowforge.generators.knowgen.distractors import DistractorPools, pick_distractors
from knowforge.generators.knowgen.plan import PlannedEntity, PlannedFact, display_value
from knowforge.generators.knowgen.read import ClassInfo, GraphInputs, Member, SourceFact

PARENT_REL = "P171"


def reference_candidates(inputs: GraphInputs, global_objects, global_values, entity: PlannedEntity,
                         relation: str, kind: str) -> list[str]:
    local: dict[str, None] = {}
    for m in (entity.parent, *entity.siblings):
        for f in inputs.facts.get(m.id, ()):
            if f.relation == relation:
                local.setdefault(f.object_name if kind == "relation" else display_value(f.value, f.unit), None)
    if kind == "relation":
        if relation == entity.facts[0].relation and entity.facts[0].class_level:
            local.update({c.name: None for c in inputs.classes if c.id != entity.cls.id})
        rest = sorted(global_objects.get(relation, {}).values())
    else:
        rest = sorted(global_values.get(relation, {}))
    out = list(local)
    out.extend(v for v in rest if v not in local)
    return [v for v in out if v]


def reference_pick(rng: random.Random, candidates: list[str], exclude: set[str], k: int,
                   first: list[str] = ()) -> list[str]:
    exclude_norm = {e.lower() for e in exclude}
    chosen = [c for c in first if c and c.lower() not in exclude_norm][:k]
    seen = exclude_norm | {c.lower() for c in chosen}
    pool = [c for c in dict.fromkeys(candidates) if c.lower() not in seen]
    need = k - len(chosen)
    if need > 0 and pool:
        chosen.extend(rng.sample(pool, min(need, len(pool))))
    return chosen


def reference_globals(inputs: GraphInputs):
    objects: dict[str, dict[str, str]] = defaultdict(dict)
    values: dict[str, dict[str, None]] = defaultdict(dict)
    for fs in inputs.facts.values():
        for f in fs:
            if f.object_id:
                objects[f.relation].setdefault(f.object_id, f.object_name or f.object_id)
            elif f.value is not None:
                values[f.relation].setdefault(display_value(f.value, f.unit), None)
    return objects, values


# Small vocabularies so that collisions (same name, same value in another case) are frequent.
CLASS_NAMES = ["Quercus", "Pinus", "Quercus", "Acer", "unknown genus", "Betula"]
OBJECT_NAMES = ["Oak", "oak", "Pine", "Quercus", "Acer", "Unknown", "Fern", "Moss", "Lichen", "Oak tree"]
VALUES = ["1", "2", "3", "12", "0.5", "Unknown", "unknown", "7", "forest", "Forest", "grassland", ""]
# and enough distinct ones that pools pass 21 values, where rng.sample draws by index
OBJECT_NAMES += [f"Species {i}" for i in range(40)]
VALUES += [str(3 * i) for i in range(40)]
UNITS = [None, "kg", "1"]


def make_world(seed: int):
    rng = random.Random(f"test-distractors:{seed}")
    classes, facts = [], {}
    n = 0
    for ci, cname in enumerate(CLASS_NAMES):
        members = []
        for mi in range(rng.randint(2, 5)):
            mid = f"Q{ci}{mi}"
            members.append(Member(id=mid, name=f"M{ci}{mi}"))
            # the graph read leaves the class-membership fact out; keep it now and then anyway
            fs = [SourceFact(id=f"F{n}", subject_id=mid, kind="relation", relation=PARENT_REL,
                             relation_label="parent taxon", object_id=f"C{ci}", object_name=cname)
                  ] if rng.random() < 0.3 else []
            n += 1
            for _ in range(rng.randint(0, 10)):
                n += 1
                if rng.random() < 0.5:
                    rel = rng.choice(["eats", "preys_on"])
                    oi = rng.randrange(len(OBJECT_NAMES) + 2)
                    # two object ids share a name; "C<k>" objects are the classes themselves
                    oid, oname = ((f"O{oi}", OBJECT_NAMES[oi]) if oi < len(OBJECT_NAMES)
                                  else (f"C{rng.randrange(len(CLASS_NAMES))}", rng.choice(CLASS_NAMES)))
                    fs.append(SourceFact(id=f"F{n}", subject_id=mid, kind="relation", relation=rel,
                                         relation_label=rel, object_id=oid, object_name=oname))
                else:
                    rel = rng.choice(["mass", "habitat"])
                    fs.append(SourceFact(id=f"F{n}", subject_id=mid, kind="attribute", relation=rel,
                                         relation_label=rel, value=rng.choice(VALUES),
                                         unit=rng.choice(UNITS)))
            facts[mid] = tuple(fs)
        classes.append(ClassInfo(id=f"C{ci}", name=cname, rank="genus", members=tuple(members)))
    return GraphInputs(classes=tuple(classes), facts=facts, object_classes={})


def entity_of(inputs: GraphInputs, ci: int, mi: int, class_level: bool) -> PlannedEntity:
    cls = inputs.classes[ci]
    parent = cls.members[mi]
    first = PlannedFact(id="G0", op="heredity", kind="relation", relation=PARENT_REL,
                        relation_label="parent taxon", object_id=cls.id, object_name=cls.name,
                        class_level=class_level)
    return PlannedEntity(id="A1", index=0, name="Neoquercus", alcuna_id=-1, cls=cls, parent=parent,
                         rank="species", labels=("Taxon",), facts=(first,),
                         siblings=tuple(m for m in cls.members if m.id != parent.id))


@pytest.mark.parametrize("seed", range(40))
def test_pools_draw_what_the_plain_lists_drew(seed):
    inputs = make_world(seed)
    pools = DistractorPools(inputs)
    objects, values = reference_globals(inputs)
    rng = random.Random(f"draws:{seed}")
    checked = 0
    for ci, cls in enumerate(inputs.classes):
        for mi in range(len(cls.members)):
            for class_level in (True, False):
                entity = entity_of(inputs, ci, mi, class_level)
                for relation, kind in ((PARENT_REL, "relation"), ("eats", "relation"),
                                       ("preys_on", "relation"), ("mass", "attribute"),
                                       ("habitat", "attribute"), ("absent", "attribute")):
                    ref = reference_candidates(inputs, objects, values, entity, relation, kind)
                    extra = [rng.choice(VALUES + OBJECT_NAMES) for _ in range(rng.randint(0, 3))]
                    have = set(rng.sample(ref + extra, min(2, len(ref + extra)))) | {rng.choice(VALUES)}
                    first = [rng.choice(VALUES + OBJECT_NAMES + [""])] if rng.random() < 0.5 else []
                    k = rng.randint(1, 4)
                    state = rng.getstate()
                    r1, r2 = random.Random(), random.Random()
                    r1.setstate(state)
                    r2.setstate(state)
                    want = reference_pick(r1, ref + extra, have, k, first)
                    cands = pools.candidates(entity, relation, kind)
                    cands.extra = extra
                    # the same list once duplicates keep only their first place
                    assert list(dict.fromkeys(cands.materialise())) == list(dict.fromkeys(ref + extra))
                    got = pick_distractors(r2, cands, have, k, first)
                    assert got == want, (relation, kind, class_level)
                    assert r1.getstate() == r2.getstate()
                    # dropout questions: the same, less anything that reads like "unknown"
                    r1.setstate(state)
                    r2.setstate(state)
                    plain = [c for c in ref if "unknown" not in c.lower()]
                    want = reference_pick(r1, plain, {"Unknown"}, k, first)
                    got = pick_distractors(r2, pools.candidates(entity, relation, kind), {"Unknown"}, k,
                                           first, drop_unknown=True)
                    assert got == want and r1.getstate() == r2.getstate()
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize("seed", range(20))
def test_chain_end_candidates_match_the_plain_list(seed):
    inputs = make_world(seed)
    pools = DistractorPools(inputs)
    objects, _ = reference_globals(inputs)
    rng = random.Random(f"ends:{seed}")
    for relation in ("eats", "preys_on", PARENT_REL):
        ids = sorted(objects.get(relation, {}))
        for _ in range(30):
            ends = {i: objects[relation][i] for i in rng.sample(ids, rng.randint(1, len(ids)))} if ids else {}
            answers = set(ends.values()) | {rng.choice(OBJECT_NAMES)}
            state = rng.getstate()
            r1, r2 = random.Random(), random.Random()
            r1.setstate(state)
            r2.setstate(state)
            plain = [v for k, v in sorted(objects.get(relation, {}).items()) if k not in ends]
            want = reference_pick(r1, plain, answers, 3)
            cands = pools.end_candidates(relation, ends)
            assert cands.materialise() == list(dict.fromkeys(plain))
            got = pick_distractors(r2, cands, answers, 3)
            assert got == want and r1.getstate() == r2.getstate()


def test_objects_added_after_a_read_are_candidates():
    inputs = make_world(0)
    pools = DistractorPools(inputs)
    entity = entity_of(inputs, 0, 0, False)
    before = pools.candidates(entity, "eats", "relation").materialise()
    pools.add_object("eats", "Z9", "Zebra mussel")
    after = pools.candidates(entity, "eats", "relation").materialise()
    assert "Zebra mussel" not in before and "Zebra mussel" in after
    assert [v for v in after if v != "Zebra mussel"] == before
    ends = pools.end_candidates("eats", []).materialise()
    assert "Zebra mussel" in ends

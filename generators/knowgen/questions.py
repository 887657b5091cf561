"""KU / KD / KA questions about a batch's artificial entities, in three forms.

Builds ``BenchmarkItem`` values (eval/types.py) and the graph rows that link each
``(:Question)`` to the facts it tests and the entities it is about. Every choice (which fact a
boolean asks about, yes or no, distractors, the gold position, few-shot exemplars) comes from
``random.Random(f"{seed}:knowgen:questions:...")``.

Yes/no balance: boolean questions are first built with both a "yes" and a "no" variant; then,
within each question type, exactly half (±1) get "no". A fact with no possible wrong value gets
no boolean question. Dropout booleans have the gold answer "unknown" and are outside the
yes/no balance.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from knowforge.models.types import BenchmarkItem

from .distractors import DistractorPools, pick_distractors
from .params import KnowGenParams
from .plan import PlannedEntity, PlannedFact, display_value, format_number
from .read import GraphInputs, SourceFact
from .render import group_properties, knowledge_passage, relation_verb

TYPE_NAMES = {"KU": "Knowledge Understanding", "KD": "Knowledge Differentiation",
              "KA": "Knowledge Association"}
# Names in knowforge.eval.scorers.SCORERS; "fuzzy" and "boolean" score an ``unknown`` item as
# right iff the response says it does not know.
SCORERS = {"boolean": "boolean", "fill-in-blank": "fuzzy", "multi-choice": "multi-choice"}
UNKNOWN_ANSWERS = ["unknown", "I don't know"]
UNKNOWN_CHOICE = "Unknown"

ATTRIBUTE_TEMPLATES = {
    "diet": ("What type of food is included in the diet of {name}?",
             "Is {value} included in the diet of {name}?"),
    "habitat": ("What is the habitat of {name}?", "Is {value} a habitat of {name}?"),
    "first_appearance": ("When did {name} first appear?", "Did {name} first appear in the {value}?"),
}
RELATION_TEMPLATES = {
    "P171": ("What is the parent taxon of {name}?", "Is {value} the parent taxon of {name}?"),
    "eats": ("What does {name} eat?", "Does {name} eat {value}?"),
    "is_eaten_by": ("What is {name} eaten by?", "Is {name} eaten by {value}?"),
    "preys_on": ("What does {name} prey on?", "Does {name} prey on {value}?"),
    "competes_with": ("What does {name} compete with?", "Does {name} compete with {value}?"),
    "parasitizes": ("What does {name} parasitize?", "Does {name} parasitize {value}?"),
    "is_parasitized_by": ("What is {name} parasitized by?", "Is {name} parasitized by {value}?"),
}


def templates(relation: str, label: str, kind: str) -> tuple[str, str]:
    if kind == "relation":
        return RELATION_TEMPLATES.get(relation) or (
            f"Which entity is the {label} of {{name}}?", f"Is {{value}} the {label} of {{name}}?")
    return ATTRIBUTE_TEMPLATES.get(relation) or (
        f"What is the {label} of {{name}}?", f"Is the {label} of {{name}} {{value}}?")


@dataclass
class Spec:
    """A question before its id and (for booleans) its yes/no label are fixed."""

    entity: PlannedEntity
    qtype: str
    form: str
    difference: str
    question: str
    answers: list[str]
    fact_ids: list[str]
    entity_ids: list[str]
    related_property: str
    hop_count: int = 1
    choices: list[str] = field(default_factory=list)
    answer_index: int | None = None
    unknown: bool = False
    yes_no: tuple[str, str] | None = None   # (question if yes, question if no)
    no_fact_ids: list[str] = field(default_factory=list)
    hop_triplets: list | None = None
    chains: list | None = None


def _numeric_fallbacks(f: PlannedFact | SourceFact) -> list[str]:
    """When the graph has too few values of a numeric attribute: 0.5x, 2x, 3x the value."""
    if f.value_num is None:
        return []
    return [display_value(format_number(f.value_num * m), f.unit) for m in (0.5, 2.0, 3.0)]


def _answers_for(facts: list[PlannedFact]) -> list[str]:
    out: dict[str, None] = {}
    for f in facts:
        out.setdefault(f.display(), None)
        if f.kind == "attribute" and f.unit and f.value:
            out.setdefault(f.value, None)
        for a in f.object_aliases:
            out.setdefault(a, None)
    return [a for a in out if a]


def _mc(rng, spec: Spec, gold: str, distractors: list[str]) -> Spec | None:
    if len(distractors) < 3:
        return None
    options = list(distractors[:3])
    pos = rng.randrange(4)
    options.insert(pos, gold)
    spec.choices = options
    spec.answer_index = pos
    return spec


def build_entity_specs(entity: PlannedEntity, inputs: GraphInputs, pools: DistractorPools,
                       params: KnowGenParams, chains2: list[dict], chains3: list[dict]) -> list[Spec]:
    rng = random.Random(f"{params.seed}:knowgen:questions:{entity.index}")
    specs: list[Spec] = []
    forms = params.forms
    name = entity.name
    eid = [entity.id]

    # ---- Knowledge Understanding: one property (relation) at a time -------------------------
    properties = group_properties(entity.facts)
    if params.max_ku and len(properties) > params.max_ku:
        keep = sorted(rng.sample(range(len(properties)), params.max_ku))
        properties = [properties[i] for i in keep]
    for relation, label, kind, facts in properties:
        wh, yn = templates(relation, label, kind)
        tested = facts[rng.randrange(len(facts))]
        answers = _answers_for(facts)
        have = {f.display() for f in facts}
        cands = pools.candidates(entity, relation, kind)
        cands.extra = _numeric_fallbacks(tested) if kind == "attribute" else []
        wrong = pick_distractors(rng, cands, have, 3)
        base = dict(entity=entity, qtype="KU", difference=tested.op, entity_ids=eid,
                    related_property=label)
        if "fill-in-blank" in forms:
            specs.append(Spec(form="fill-in-blank", question=wh.format(name=name), answers=answers,
                              fact_ids=[f.id for f in facts], **base))
        if "multi-choice" in forms:
            mc = _mc(rng, Spec(form="multi-choice", question=wh.format(name=name),
                               answers=[tested.display()], fact_ids=[tested.id], **base),
                     tested.display(), wrong)
            if mc:
                specs.append(mc)
        if "boolean" in forms and wrong:
            specs.append(Spec(form="boolean", question="", answers=[], fact_ids=[tested.id],
                              yes_no=(yn.format(name=name, value=tested.display()),
                                      yn.format(name=name, value=wrong[0])), **base))

    # ---- Knowledge Differentiation: variation (new value, old one tempting) and dropout ------
    for f in entity.facts:
        if f.op != "variation" or f.old is None:
            continue
        same = entity.facts_of(f.relation)
        have = {x.display() for x in same}
        old = display_value(f.old.value, f.old.unit) if f.kind == "attribute" else (
            f.old.object_name or f.old.object_id)
        wh, yn = templates(f.relation, f.relation_label, f.kind)
        cands = pools.candidates(entity, f.relation, f.kind)
        cands.extra = _numeric_fallbacks(f) if f.kind == "attribute" else []
        wrong = pick_distractors(rng, cands, have, 3, first=[old])
        base = dict(entity=entity, qtype="KD", difference="variation", entity_ids=eid,
                    related_property=f.relation_label)
        tested_ids = [f.id, f.old.id]
        if "fill-in-blank" in forms:
            specs.append(Spec(form="fill-in-blank", question=wh.format(name=name),
                              answers=_answers_for(same), fact_ids=tested_ids, **base))
        if "multi-choice" in forms:
            mc = _mc(rng, Spec(form="multi-choice", question=wh.format(name=name),
                               answers=[f.display()], fact_ids=tested_ids, **base), f.display(), wrong)
            if mc:
                specs.append(mc)
        if "boolean" in forms and old not in have:
            specs.append(Spec(form="boolean", question="", answers=[], fact_ids=[f.id],
                              no_fact_ids=[f.old.id],
                              yes_no=(yn.format(name=name, value=f.display()),
                                      yn.format(name=name, value=old)), **base))
    dropped_relations: dict[str, list[SourceFact]] = {}
    for d in entity.dropout:
        if not entity.facts_of(d.relation):   # still has the property otherwise: not unknown
            dropped_relations.setdefault(d.relation, []).append(d)
    for relation, dfs in dropped_relations.items():
        d = dfs[0]
        wh, yn = templates(relation, d.relation_label, d.kind)
        old = display_value(d.value, d.unit) if d.kind == "attribute" else (d.object_name or d.object_id)
        base = dict(entity=entity, qtype="KD", difference="dropout", entity_ids=eid,
                    related_property=d.relation_label, unknown=True,
                    fact_ids=[x.id for x in dfs])
        if "fill-in-blank" in forms:
            specs.append(Spec(form="fill-in-blank", question=wh.format(name=name),
                              answers=list(UNKNOWN_ANSWERS), **base))
        if "multi-choice" in forms:
            # a real value that reads like "unknown" would make two right options
            wrong = pick_distractors(rng, pools.candidates(entity, relation, d.kind), {UNKNOWN_CHOICE}, 3,
                                     first=[old] if "unknown" not in old.lower() else [],
                                     drop_unknown=True)
            mc = _mc(rng, Spec(form="multi-choice", question=wh.format(name=name),
                               answers=[UNKNOWN_CHOICE], **base), UNKNOWN_CHOICE, wrong)
            if mc:
                specs.append(mc)
        if "boolean" in forms:
            specs.append(Spec(form="boolean", question=yn.format(name=name, value=old),
                              answers=list(UNKNOWN_ANSWERS), **base))

    # ---- Knowledge Association: 2- and 3-hop chains from ẽ's new relation facts -------------
    # (the relation paths to ask were picked with the seeded rng in pick_ka_groups)
    noun = "organism" if "Taxon" in entity.labels else "entity"
    for hop, groups in ((2, chains2), (3, chains3)):
        for group in groups:
            if group["answers"] and group["chains"]:
                specs.extend(_ka_specs(rng, entity, group, hop, noun, pools, params))
    return specs


def pick_ka_groups(params: KnowGenParams, entity_index: int, groups2: list[dict],
                   groups3: list[dict]) -> tuple[list[dict], list[dict]]:
    """Which relation paths (r1, r2[, r3]) of one entity become KA questions (seeded)."""
    rng = random.Random(f"{params.seed}:knowgen:ka:{entity_index}")
    out = []
    for groups, limit in ((groups2, params.max_ka2), (groups3, params.max_ka3)):
        picked = sorted(rng.sample(range(len(groups)), min(limit, len(groups)))) if groups else []
        out.append([groups[i] for i in picked])
    return out[0], out[1]


def _ka_specs(rng, entity: PlannedEntity, group: dict, hop: int, noun: str, pools: DistractorPools,
              params: KnowGenParams) -> list[Spec]:
    chains = group["chains"]
    answers: dict[str, None] = {}
    end_names: dict[str, str] = {}
    for a in group["answers"]:
        end_names.setdefault(a["id"], a["name"])
        answers.setdefault(a["name"], None)
        for alias in a["aliases"]:
            answers.setdefault(alias, None)
    first = chains[0]
    v1 = relation_verb(group["r1"], first["r1_label"])
    v2 = relation_verb(group["r2"], first["r2_label"])
    if hop == 2:
        stem = f"{entity.name} {v1} an {noun} X."
        last_rel, v_last, subj = group["r2"], v2, "X"
    else:
        v3 = relation_verb(group["r3"], first["r3_label"])
        stem = f"{entity.name} {v1} an {noun} X, and X {v2} an {noun} Y."
        last_rel, v_last, subj = group["r3"], v3, "Y"
    recorded = chains[: params.max_hop_triplets]
    triplets = [_triplets(entity, c, hop) for c in recorded]
    fact_ids = list(dict.fromkeys(fid for c in recorded for fid in _chain_fact_ids(c, hop)))
    op1 = first.get("op1") or "heredity"
    gold_id = sorted(end_names)[rng.randrange(len(end_names))]
    gold = end_names[gold_id]
    wrong = pick_distractors(rng, pools.end_candidates(last_rel, end_names), set(answers), 3)
    base = dict(entity=entity, qtype="KA", difference=op1, entity_ids=[entity.id],
                related_property=" -> ".join(t[1] for t in triplets[0]), hop_count=hop,
                hop_triplets=triplets[0], chains=triplets, fact_ids=fact_ids)
    specs = []
    if "fill-in-blank" in params.forms:
        specs.append(Spec(form="fill-in-blank", question=f"{stem} Name an {noun} that {subj} {v_last}.",
                          answers=list(answers), **base))
    if "multi-choice" in params.forms:
        mc = _mc(rng, Spec(form="multi-choice",
                           question=f"{stem} Which of the following is an {noun} that {subj} {v_last}?",
                           answers=[gold], **base), gold, wrong)
        if mc:
            specs.append(mc)
    if "boolean" in params.forms and wrong:
        specs.append(Spec(form="boolean", question="", answers=[],
                          yes_no=(f"{stem} Is it true that {subj} {v_last} {gold}?",
                                  f"{stem} Is it true that {subj} {v_last} {wrong[0]}?"), **base))
    return specs


def _triplets(entity: PlannedEntity, c: dict, hop: int) -> list[list[str]]:
    out = [[entity.name, c["r1_label"], c["x_name"]], [c["x_name"], c["r2_label"], c["y_name"]]]
    if hop == 3:
        out.append([c["y_name"], c["r3_label"], c["z_name"]])
    return out


def _chain_fact_ids(c: dict, hop: int) -> list[str]:
    return [c["f1"], c["f2"]] + ([c["f3"]] if hop == 3 else [])


def balance_booleans(specs: list[Spec], params: KnowGenParams) -> None:
    """Fix every yes/no boolean to "yes" or "no", exactly half each (±1) per question type."""
    rng = random.Random(f"{params.seed}:knowgen:questions:balance")
    by_type: dict[str, list[Spec]] = defaultdict(list)
    for s in specs:
        if s.yes_no is not None:
            by_type[s.qtype].append(s)
    for qtype in sorted(by_type):
        group = by_type[qtype]
        labels = ["yes"] * ((len(group) + 1) // 2) + ["no"] * (len(group) // 2)
        rng.shuffle(labels)
        for s, label in zip(group, labels):
            s.question = s.yes_no[0] if label == "yes" else s.yes_no[1]
            s.answers = [label]
            if label == "no" and s.no_fact_ids:
                s.fact_ids = s.fact_ids + s.no_fact_ids


def question_ids(specs: list[Spec]) -> list[str]:
    """``<entity id>:qNNN``: each entity's questions numbered in spec order."""
    counters: dict[str, int] = defaultdict(int)
    ids = []
    for s in specs:
        n = counters[s.entity.id]
        counters[s.entity.id] += 1
        ids.append(f"{s.entity.id}:q{n:03d}")
    return ids


def iter_items(specs: list[Spec], params: KnowGenParams) -> Iterator[BenchmarkItem]:
    """The items of ``specs`` in order, each with ``params.few_shot`` exemplars of the same type
    and form about other entities (the few-shot setting).

    Made one at a time, so that a writer sends the first items while the later ones are made.
    The exemplars are drawn from the specs by one seeded generator in item order: the items do
    not depend on how fast they are consumed.
    """
    ids = question_ids(specs)
    rng = random.Random(f"{params.seed}:knowgen:questions:few_shot")
    by_key: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, s in enumerate(specs):
        by_key[(s.qtype, s.form)].append(i)
    passages: dict[str, str] = {}
    shown: list[tuple[str, str] | None] = [None] * len(specs)  # exemplar text and gold, once each
    for i, s in enumerate(specs):
        e = s.entity
        if e.id not in passages:
            passages[e.id] = knowledge_passage(e)
        slices = {"type": s.qtype, "form": s.form, "difference": s.difference,
                  "hop_count": s.hop_count, "class": e.cls.name}
        meta = {"type_name": TYPE_NAMES[s.qtype], "related_property": s.related_property,
                "entity_name": e.name, "parent_id": e.parent.id, "parent_name": e.parent.name,
                "class_id": e.cls.id, "alcuna_id": e.alcuna_id}
        if s.hop_triplets is not None:
            meta["hop_triplets"] = s.hop_triplets
            meta["chains"] = s.chains
        shots = _few_shot(i, specs, ids, by_key[(s.qtype, s.form)], rng, params.few_shot, shown)
        yield BenchmarkItem(
            id=ids[i], benchmark=params.benchmark, task=f"knowgen/{s.qtype}",
            form=s.form, question=s.question, context=passages[e.id], choices=s.choices,
            answers=s.answers, answer_index=s.answer_index, unknown=s.unknown, scorer=SCORERS[s.form],
            fact_ids=sorted(set(s.fact_ids)), entity_ids=s.entity_ids, slices=slices,
            metadata=meta, few_shot=shots)


def _few_shot(i: int, specs: list[Spec], ids: list[str], pool: list[int], rng: random.Random,
              n: int, shown: list[tuple[str, str] | None]) -> list[dict[str, str]]:
    """Up to ``n`` exemplars for spec ``i`` from ``pool`` (the specs of its type and form),
    none about the same entities and none twice; at most ``4n`` draws. ``shown[j]``: spec
    ``j``'s exemplar text and gold, filled on first use (a spec is drawn about n times)."""
    shots: list[dict[str, str]] = []
    taken: list[int] = []  # ids are unique per spec: the same as comparing the shots' ids
    s = specs[i]
    for _ in range(n * 4):
        if len(shots) == n or len(pool) < 2:
            break
        j = pool[rng.randrange(len(pool))]
        ex = specs[j]
        if ex.entity_ids == s.entity_ids or j in taken:
            continue
        taken.append(j)
        if shown[j] is None:
            # the question with its options inline: the exemplar's passage is not repeated
            # (it would multiply every item's size by the number of shots)
            shown[j] = (ex.question + "".join(f"\n({'ABCD'[k]}) {c}" for k, c in enumerate(ex.choices)),
                        _gold_text(ex))
        text, gold = shown[j]
        shots.append({"id": ids[j], "question": text, "answer": gold})
    return shots


def _gold_text(spec: Spec) -> str:
    if spec.form == "multi-choice" and spec.answer_index is not None:
        return "ABCD"[spec.answer_index]
    return spec.answers[0] if spec.answers else ""


def build_specs(entities: list[PlannedEntity], inputs: GraphInputs, params: KnowGenParams,
                chains2: dict[str, list[dict]], chains3: dict[str, list[dict]]) -> list[Spec]:
    """Every question of the batch, its yes/no labels balanced (``iter_items`` makes the items)."""
    pools = DistractorPools(inputs)
    for groups in (*chains2.values(), *chains3.values()):
        for g in groups:
            for a in g["answers"]:
                pools.add_object(g.get("r3") or g["r2"], a["id"], a["name"])
    specs: list[Spec] = []
    for e in entities:
        specs.extend(build_entity_specs(e, inputs, pools, params, chains2.get(e.id, []),
                                        chains3.get(e.id, [])))
    balance_booleans(specs, params)
    return specs

"""ẽ's knowledge as a text passage (the in-context setting). Its JSON form (ALCUNA's
``artificial_entity``) is built from the graph by ``export.alcuna_meta``."""

from __future__ import annotations

from .plan import PlannedEntity

RELATION_VERBS = {
    "eats": "eats", "is_eaten_by": "is eaten by", "preys_on": "preys on",
    "is_preyed_on_by": "is preyed on by", "competes_with": "competes with",
    "parasitizes": "parasitizes", "is_parasitized_by": "is parasitized by",
}


def relation_verb(relation: str, label: str) -> str:
    return RELATION_VERBS.get(relation) or f"has {label} relation with"


def group_properties(facts) -> list[tuple[str, str, str, list]]:
    """(relation, label, kind, [facts]) in first-appearance order."""
    groups: dict[str, tuple[str, str, str, list]] = {}
    for f in facts:
        if f.relation not in groups:
            groups[f.relation] = (f.relation, f.relation_label, f.kind, [])
        groups[f.relation][3].append(f)
    return list(groups.values())


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def knowledge_passage(entity: PlannedEntity) -> str:
    """A short English passage stating every fact of ẽ (and nothing of what it lost)."""
    kind = entity.rank or "member"
    cls = f"the {entity.cls.rank} {entity.cls.name}" if entity.cls.rank else entity.cls.name
    sentences = [f"{entity.name} is a {kind} of {cls}."]
    for relation, label, fkind, facts in group_properties(entity.facts):
        if any(f.class_level for f in facts):
            continue
        values = [f.display() for f in facts]
        if fkind == "relation":
            sentences.append(f"{entity.name} {relation_verb(relation, label)} {_join(values)}.")
        else:
            sentences.append(f"The {label} of {entity.name} is {_join(values)}.")
    return " ".join(sentences)

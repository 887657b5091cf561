"""Graph reads that feed planning: a constant number of round trips per batch.

``read_inputs`` runs three statements (classes with members; every member's facts; the classes
and siblings of every relation object) whatever the number of entities requested.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from knowforge.errors import InputError
from knowforge.kg.store import Store

from .params import KnowGenParams

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Member:
    id: str
    name: str
    aliases: tuple[str, ...] = ()
    rank: str | None = None
    labels: tuple[str, ...] = ()
    class_fact_id: str | None = None


@dataclass(frozen=True)
class ClassInfo:
    id: str
    name: str
    rank: str | None
    members: tuple[Member, ...]


@dataclass(frozen=True)
class SourceFact:
    id: str
    subject_id: str
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

    @property
    def is_numeric(self) -> bool:
        return self.kind == "attribute" and self.value_num is not None


@dataclass(frozen=True)
class ObjectClass:
    object_id: str
    class_id: str
    siblings: tuple[Member, ...]


@dataclass(frozen=True)
class GraphInputs:
    classes: tuple[ClassInfo, ...]
    facts: dict[str, tuple[SourceFact, ...]]        # subject id -> facts (ordered by id)
    object_classes: dict[str, ObjectClass]          # object id -> its class and siblings


def _member(row: dict) -> Member:
    return Member(id=row["id"], name=row.get("name") or row["id"],
                  aliases=tuple(row.get("aliases") or ()), rank=row.get("rank"),
                  labels=tuple(row.get("labels") or ()), class_fact_id=row.get("class_fact_id"))


def read_inputs(store: Store, params: KnowGenParams) -> GraphInputs:
    rows = store.read("knowgen/read_classes", class_keys=list(params.classes) if params.classes else None,
                      parent_rel=params.parent_rel, member_label=params.class_label,
                      min_members=params.min_members)
    classes = tuple(ClassInfo(id=r["class_id"], name=r["class_name"] or r["class_id"],
                              rank=r["class_rank"], members=tuple(_member(m) for m in r["members"]))
                    for r in rows)
    if not classes:
        wanted = ", ".join(params.classes) if params.classes else "any class"
        raise InputError(f"no class with >= {params.min_members} members labelled "
                         f"{params.class_label!r} linked by {params.parent_rel!r} ({wanted}); "
                         "load a taxonomy first (knowforge load taxonomy) or check "
                         "--class/--class-label/--parent-rel")
    member_ids = sorted({m.id for c in classes for m in c.members})
    facts: dict[str, list[SourceFact]] = {}
    for r in store.read("knowgen/read_member_facts", ids=member_ids, parent_rel=params.parent_rel):
        facts.setdefault(r["subject_id"], []).append(SourceFact(
            id=r["fact_id"], subject_id=r["subject_id"], kind=r["kind"] or (
                "relation" if r["object_id"] else "attribute"),
            relation=r["relation"], relation_label=r["relation_label"], value=r["value"],
            value_num=r["value_num"], unit=r["unit"], datatype=r["datatype"],
            object_id=r["object_id"], object_name=r["object_name"],
            object_aliases=tuple(r["object_aliases"] or ())))
    object_ids = sorted({f.object_id for fs in facts.values() for f in fs if f.object_id})
    object_classes: dict[str, ObjectClass] = {}
    for r in store.read("knowgen/read_object_classes", ids=object_ids, parent_rel=params.parent_rel):
        if r["object_id"] in object_classes:
            continue  # an object with several classes: the first by class id
        object_classes[r["object_id"]] = ObjectClass(
            object_id=r["object_id"], class_id=r["class_id"],
            siblings=tuple(sorted((_member(s) for s in r["siblings"]), key=lambda m: m.id)))
    log.info("knowgen read %d classes, %d members, %d facts, %d relation objects",
             len(classes), len(member_ids), sum(len(v) for v in facts.values()), len(object_ids))
    return GraphInputs(classes=classes, facts={k: tuple(v) for k, v in facts.items()},
                       object_classes=object_classes)


def read_name_index_names(store: Store):
    """Every entity name and alias in the graph (streamed)."""
    for row in store.stream("knowgen/read_entity_names"):
        if row["name"]:
            yield row["name"]
        yield from (a for a in row["aliases"] or () if a)

"""Relation ids with their readable labels, for everything a person reads.

Facts store the relation as an id (``P551``, ``may_treat``) and the loaders write its label
twice: on the :Relation vocabulary node and on each fact (``relation_label``). Output meant for
people shows both, ``P551 (residence)``, so an id can still be copied into Cypher.
"""

from __future__ import annotations

from collections.abc import Iterable

from knowforge.kg.store import Store


def relation_labels(store: Store, ids: Iterable[object]) -> dict[str, str]:
    """{relation id: label} for the ids the :Relation vocabulary labels (others are absent)."""
    wanted = sorted({i for i in ids if isinstance(i, str) and i})
    if not wanted:
        return {}
    return {r["id"]: r["label"] for r in store.read("store/read_relation_labels", ids=wanted)}


def labelled(relation: object, label: str | None) -> str:
    """``P551 (residence)``; the id alone when there is no label or the label only respells it
    (``may_treat`` / "may treat")."""
    text = "-" if relation is None else str(relation)
    if not label or label.strip().replace(" ", "_").lower() == text.lower():
        return text
    return f"{text} ({label})"

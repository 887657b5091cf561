"""One entity as the viewer shows it: its properties, a page of its facts, the facts that point
at it, the questions about it, and the method views it opens."""

from __future__ import annotations

from dataclasses import dataclass

from .graphs import DeclaredView, ViewLink, view_links
from .errors import NotFound
from .runs import PAGE_SIZE

# properties shown in the header, not in the property table
_HEADER = ("id", "name", "description", "aliases", "alias_text")


@dataclass(frozen=True)
class EntityPage:
    entity: dict
    labels: list[str]
    properties: list[tuple[str, object]]
    facts: list[dict]
    incoming: list[dict]
    questions: list[dict]
    counts: dict[str, int]
    links: list[ViewLink]
    page: int
    has_next: bool


def entity_page(store, entity_id: str, views: list[DeclaredView], page: int = 1,
                page_size: int = PAGE_SIZE) -> EntityPage:
    rows = store.read("view/read_entity", id=entity_id)
    if not rows:
        raise NotFound(f"no entity {entity_id!r} in the graph")
    row = rows[0]
    params = {"id": entity_id, "skip": (page - 1) * page_size, "limit": page_size}
    facts = store.read("view/entity_facts", **params)
    incoming = store.read("view/entity_incoming", **params)
    questions = store.read("view/entity_questions", **params)
    counts = {"facts": row["facts"], "incoming": row["incoming"], "questions": row["questions"]}
    entity = row["entity"]
    return EntityPage(entity=entity, labels=sorted(row["labels"]),
                      properties=sorted((k, v) for k, v in entity.items() if k not in _HEADER),
                      facts=facts, incoming=incoming, questions=questions, counts=counts,
                      # every view is asked: an entity opens events it fills a slot of,
                      # statements resting on its facts, the records of its timelines...
                      links=view_links(store, views, entity_id=entity_id),
                      page=page, has_next=any(n > page * page_size for n in counts.values()))

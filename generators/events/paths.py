"""Follow relation paths over the current graph, one batched Cypher read per hop.

A hop is a relation id (``P36``: from subject to object) or an incoming relation (``^P35``:
from object back to subject). "Current" is defined once, in the two Cypher files: an
open-ended fact not retracted by an applied event (edit-layer facts included).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from knowforge.kg.store import Store


@dataclass(frozen=True)
class Hop:
    """One traversed fact: ``source`` -[relation]-> ``target`` (``relation`` may start with ^)."""

    source: str
    relation: str
    target: str | None
    fact_id: str


@dataclass(frozen=True)
class Target:
    """An entity (or literal / unknown) reached from a slot, with the facts traversed."""

    id: str | None
    name: str
    aliases: tuple[str, ...] = ()
    unknown: bool = False
    path: tuple[Hop, ...] = ()


def read_current(store: Store, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[dict]]:
    """Current facts for (entity id, hop) pairs; a hop ``^R`` reads incoming R facts."""
    forward, backward = [], []
    for entity_id, hop in dict.fromkeys(pairs):
        key = f"{entity_id}\t{hop}"
        if hop.startswith("^"):
            backward.append({"key": key, "object_id": entity_id, "relation": hop[1:]})
        else:
            forward.append({"key": key, "subject_id": entity_id, "relation": hop})
    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for name, rows in (("events/read_current_objects", forward),
                       ("events/read_current_subjects", backward)):
        if rows:
            for rec in store.read(name, batch={"rows": rows}):
                entity_id, hop = rec["key"].split("\t")
                out[(entity_id, hop)].append(rec)
    return out


def follow(store: Store, starts: dict[str, Target], path: tuple[str, ...]) -> dict[str, list[Target]]:
    """For each start target, the targets at the end of ``path`` (ordered by id, deduplicated).

    Unknown or literal objects end a path: nothing is reachable through them.
    """
    frontier: dict[str, list[Target]] = {sid: [start] for sid, start in starts.items()}
    for hop in path:
        wanted = {(t.id, hop) for targets in frontier.values() for t in targets if t.id}
        found = read_current(store, wanted)
        nxt: dict[str, list[Target]] = {}
        for sid, targets in frontier.items():
            reached: dict[str, Target] = {}
            for t in targets:
                if not t.id:
                    continue
                for rec in found.get((t.id, hop), []):
                    if rec["unknown"] or rec["object_id"] is None:
                        continue
                    step = Hop(t.id, hop, rec["object_id"], rec["fact_id"])
                    reached.setdefault(rec["object_id"], Target(
                        rec["object_id"], rec["object_name"], tuple(rec["aliases"]),
                        path=t.path + (step,)))
            nxt[sid] = [reached[k] for k in sorted(reached)]
        frontier = nxt
    return frontier


def describe_path(start: str, path: tuple[str, ...]) -> str:
    """``B→P159→P17`` style text of a declared path."""
    return "→".join((start, *path))

"""Ripple analysis: which facts change, or may change, within k hops of an edit?

Start from the edited facts (what an applied event asserted and retracted, or an ad-hoc
triplet edit "(X, r, Y) becomes (X, r, Z)"), take their subject and object entities, and walk
the current graph outward fact by fact (either direction), up to k facts away. Every fact met
is listed with the path that reached it and classified:

* ``declared``: the template already accounts for it: a retracted fact, or a fact an impacted
  triplet's answer was read through (e.g. (Chelsea, P118, Premier League) for the player's
  new league);
* ``candidate``: only reachable by a path, so a possibly missed ripple (e.g. the new club's
  country's capital, the spouse's residence).

The declared impacted triplets of an event are listed too (``changes``). Relations are shown
with their labels, ``P54 (member of sports team)``, in every output a person reads.

``ripple_graph`` turns a report into a networkx multigraph (entities as nodes, facts as
edges keyed by fact id) for graph algorithms and for a GraphML export (``write_graphml``)
that Gephi, Cytoscape or networkx read back.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from knowforge.errors import ConfigError, InputError
from knowforge.kg.cypher import load_cypher
from knowforge.kg.relations import labelled, relation_labels
from knowforge.kg.store import Store

if TYPE_CHECKING:   # imported where a graph is built: every method's import reaches this module
    import networkx as nx

@lru_cache(maxsize=None)
def ignored_relations() -> frozenset[str]:
    """Relations never listed as ripples (``ripple.yaml``): things an event cannot change."""
    path = resources.files("knowforge.kg").joinpath("ripple.yaml")
    return frozenset(yaml.safe_load(path.read_text(encoding="utf-8"))["ignore_relations"])


EDIT_SYNTAX = re.compile(r"^\s*([^,\s]+)\s*,\s*([^,\s]+)\s*,\s*([^,\s]*)\s*->\s*([^,\s]+)\s*$")
EDIT_TEXT = re.compile(r"\s*(,|->)\s*")


@dataclass(frozen=True)
class FactRef:
    fact_id: str | None
    subject_id: str
    subject: str
    relation: str
    object_id: str | None
    object: str | None
    relation_label: str | None = None

    def text(self) -> str:
        return f"({self.subject}, {labelled(self.relation, self.relation_label)}, {self.object})"


@dataclass(frozen=True)
class RippleFact:
    fact: FactRef
    depth: int
    kind: str                       # "declared" | "candidate"
    reason: str
    path: tuple[FactRef, ...]       # facts from an edited entity to this fact (this one last)


@dataclass
class RippleReport:
    target: str
    hops: int
    edited: list[tuple[str, FactRef]] = field(default_factory=list)   # (change, fact)
    changes: list[dict] = field(default_factory=list)                 # declared impacted triplets
    facts: list[RippleFact] = field(default_factory=list)

    @property
    def declared(self) -> list[RippleFact]:
        return [f for f in self.facts if f.kind == "declared"]

    @property
    def candidates(self) -> list[RippleFact]:
        return [f for f in self.facts if f.kind == "candidate"]

    def fact_ids(self) -> list[str]:
        ids = {f.fact.fact_id for f in self.facts} | {f.fact_id for _, f in self.edited}
        return sorted(i for i in ids if i)

    def to_dict(self) -> dict:
        return {"version": "1", "target": self.target, "hops": self.hops,
                "edited": [{"change": c, **asdict(f)} for c, f in self.edited],
                "changes": self.changes,
                "declared": [asdict(f) for f in self.declared],
                "candidates": [asdict(f) for f in self.candidates]}


def _ref(rec: dict) -> FactRef:
    return FactRef(rec["fact_id"], rec["subject_id"], rec["subject"], rec["relation"],
                   rec["object_id"], rec["object"], rec.get("relation_label"))


def parse_edit(text: str) -> tuple[str, str, str | None, str]:
    """``"Q76,P39,Q11696->Q30"`` → (subject, relation, old object or None, new object)."""
    match = EDIT_SYNTAX.match(text)
    if not match:
        raise InputError(f"bad edit {text!r}: write SUBJECT,RELATION,OLD->NEW "
                         "(OLD may be empty: every current object; NEW may be 'unknown')")
    subject, relation, old, new = match.groups()
    return subject, relation, old or None, new


def _walk(store: Store, starts: list[str], hops: int, skip: set[str],
          event_id: str | None) -> list[tuple[FactRef, int, tuple[FactRef, ...]]]:
    """BFS over the facts one event sees; each fact once, at its smallest depth, with a path.

    The first hop follows facts in both directions (a country whose head of state is the
    edited person); later hops only go from subject to object, the way answers are read, and
    only entities reached forwards are walked further.
    """
    ignored = ignored_relations()
    seen_entities = set(starts)
    paths: dict[str, tuple[FactRef, ...]] = {s: () for s in starts}   # entity -> path to it
    frontier = sorted(set(starts))
    found: dict[str, tuple[FactRef, int, tuple[FactRef, ...]]] = {}
    for depth in range(1, hops + 1):
        if not frontier:
            break
        rows = store.read("ripple/read_fact_neighbours", step={"ids": frontier, "event_id": event_id})
        nxt: list[str] = []
        for rec in rows:
            fid = rec["fact_id"]
            if fid in skip or fid in found or (depth > 1 and rec["direction"] != "out"):
                continue
            if rec["relation"] in ignored:
                continue
            ref = _ref(rec)
            path = paths[rec["via"]] + (ref,)
            found[fid] = (ref, depth, path)
            # only objects reached forwards are expanded: a hub's incoming facts (every
            # citizen of a country) are listed, but not walked through
            other = ref.object_id if rec["direction"] == "out" else None
            if other and other not in seen_entities:
                seen_entities.add(other)
                paths[other] = path
                nxt.append(other)
        frontier = sorted(set(nxt))
    return [found[k] for k in sorted(found, key=lambda k: (found[k][1], k))]


def ripple_event(store: Store, event_id: str, hops: int = 1) -> RippleReport:
    rows = store.read("ripple/read_event", event_id=event_id)
    if not rows:
        raise ConfigError(f"no event {event_id!r} in the graph (list them with "
                          "`knowforge query \"MATCH (e:Event) RETURN e.id, e.text\"`)")
    plan = json.loads(rows[0]["payload"])
    edits = store.read("ripple/read_event_edits", event_id=event_id)
    facts = {r["fact_id"]: _ref(r) for r in store.read("ripple/read_facts_by_id",
                                                       ids=[e["fact_id"] for e in edits])}
    report = RippleReport(target=event_id, hops=hops)
    report.edited = [(e["change"], facts[e["fact_id"]]) for e in edits if e["fact_id"] in facts]
    sources: dict[str, str] = {}
    labels = relation_labels(store, [impact["relation"] for impact in plan["impacts"]])
    for impact in plan["impacts"]:
        for obj in impact["objects"]:
            for hop in obj["path"]:
                sources.setdefault(hop["fact_id"], f"answer source of {impact['declared']}")
        report.changes.append({"subject": impact["subject"]["name"], "relation": impact["relation"],
                               "relation_label": impact.get("relation_label") or labels.get(impact["relation"]),
                               "object": impact["objects"][0]["name"], "unknown": impact["unknown"],
                               "needs_background": impact["needs_background"],
                               "declared": impact["declared"]})
    for r in plan["retractions"]:
        sources.setdefault(r["fact_id"], f"retracted: {r['reason']}")
    starts = sorted({x for _, f in report.edited for x in (f.subject_id, f.object_id) if x})
    skip = {f.fact_id for _, f in report.edited if f.fact_id}
    for ref, depth, path in _walk(store, starts, hops, skip, event_id):
        reason = sources.get(ref.fact_id)
        report.facts.append(RippleFact(ref, depth, "declared" if reason else "candidate",
                                       reason or "reachable by path only", path))
    return report


def ripple_edit(store: Store, edit: str, hops: int = 1) -> RippleReport:
    """Ad-hoc: what else should change if (X, r, Y) becomes (X, r, Z)? (On the source graph.)"""
    subject, relation, old, new = parse_edit(edit)
    report = RippleReport(target=edit, hops=hops)
    current = store.read("ripple/read_current_fact", subject_id=subject, relation=relation,
                         object_id=old)
    if old is not None and not current:
        raise ConfigError(f"({subject}, {relation}, {old}) is not a current fact of the graph")
    olds = {r["fact_id"]: _ref(r) for r in store.read("ripple/read_facts_by_id",
                                                       ids=[c["fact_id"] for c in current])}
    report.edited = [("retracted", f) for f in olds.values()]
    names = {r["id"]: r["name"] for r in store.read("ripple/read_entities",
                                                     ids=[subject] + ([new] if new != "unknown" else []))}
    if subject not in names:
        raise ConfigError(f"no entity {subject!r} in the graph")
    new_id = None if new == "unknown" else new
    if new_id is not None and new_id not in names:
        raise ConfigError(f"no entity {new!r} in the graph")
    label = relation_labels(store, [relation]).get(relation)
    report.edited.append(("asserted", FactRef(None, subject, names[subject], relation, new_id,
                                              names.get(new, "unknown"), label)))
    report.changes.append({"subject": names[subject], "relation": relation, "relation_label": label,
                           "object": names.get(new, "unknown"), "unknown": new_id is None,
                           "needs_background": False, "declared": edit})
    starts = sorted({x for _, f in report.edited for x in (f.subject_id, f.object_id) if x})
    for ref, depth, path in _walk(store, starts, hops, set(olds), None):
        report.facts.append(RippleFact(ref, depth, "candidate", "reachable by path only", path))
    return report


def ripple_cypher(report: RippleReport) -> str:
    """A Neo4j Browser snippet: the parameter line, then the named query."""
    return f":param fact_ids => {json.dumps(report.fact_ids())}\n\n{load_cypher('events/show_ripple_subgraph')}"


def ripple_graph(report: RippleReport) -> nx.MultiDiGraph:
    """The ripple subgraph: entities are nodes, facts are edges keyed by fact id.

    Node attributes: ``name``, ``kind`` (``entity``; ``value`` for a literal or unknown object,
    one node per fact, id ``value:<fact key>``) and ``edited`` (a start of the walk). Edge
    attributes: ``relation`` (the id), ``relation_label`` (its label, when the graph has one),
    ``label`` (both, ``P54 (member of sports team)``: what Gephi and Cytoscape show), ``kind``
    (``retracted``, ``asserted``, ``declared``, ``candidate``), ``depth`` (0 for the edited facts), ``reason`` and ``fact_id`` when the
    fact exists in the graph (an ad-hoc edit's new fact does not). Only GraphML scalar types.
    """
    import networkx as nx

    graph = nx.MultiDiGraph(target=report.target, hops=report.hops)
    starts = {x for _, f in report.edited for x in (f.subject_id, f.object_id) if x}

    def add(fact: FactRef, kind: str, depth: int, reason: str) -> None:
        key = fact.fact_id or f"{kind}:{fact.subject_id}|{fact.relation}|{fact.object_id or fact.object}"
        graph.add_node(fact.subject_id, name=fact.subject, kind="entity",
                       edited=fact.subject_id in starts)
        if fact.object_id:
            target = fact.object_id
            graph.add_node(target, name=fact.object or target, kind="entity", edited=target in starts)
        else:
            target = f"value:{key}"
            graph.add_node(target, name=fact.object or "unknown", kind="value", edited=False)
        attrs = {"relation": fact.relation, "label": labelled(fact.relation, fact.relation_label),
                 "kind": kind, "depth": depth, "reason": reason}
        if fact.relation_label:
            attrs["relation_label"] = fact.relation_label
        if fact.fact_id:
            attrs["fact_id"] = fact.fact_id
        graph.add_edge(fact.subject_id, target, key=key, **attrs)

    for change, fact in report.edited:
        add(fact, change, 0, "edited")
    for f in report.facts:
        add(f.fact, f.kind, f.depth, f.reason)
    return graph


def write_graphml(report: RippleReport, path: str | Path) -> nx.MultiDiGraph:
    """Write the ripple subgraph as GraphML (``networkx.read_graphml`` reads it back)."""
    graph = ripple_graph(report)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    import networkx as nx

    nx.write_graphml(graph, path)
    return graph


def ripple_table_rows(report: RippleReport) -> list[list[str]]:
    rows = []
    for change, f in report.edited:
        rows.append(["edited", change, f.text(), "0", ""])
    for c in report.changes:
        relation = labelled(c["relation"], c.get("relation_label"))
        # an ad-hoc edit as the user typed it is one long token: spaced, it wraps between ids
        declared = " ".join(EDIT_TEXT.sub(lambda m: ", " if m.group(1) == "," else " -> ", c["declared"]).split())
        rows.append(["change", "declared", f"({c['subject']}, {relation}, {c['object']})",
                     "0", declared])
    for f in report.facts:
        rows.append([f.kind, f.reason, f.fact.text(), str(f.depth),
                     " → ".join(p.text() for p in f.path)])
    return rows

"""Predicates and datatypes answered by the graph: named, parameterised Cypher patterns.

``predicates.yaml`` names each pattern, its kind (one fact, a path of facts, a comparison of
years) and the relations it follows; the Cypher is a fixed statement per kind in
``cypher/link/`` and the pattern only supplies parameters (relation lists, a gap in years).
Before a search, every relation a pattern names is checked against the relations the graph
holds (``check``): absent alternatives are dropped and reported, and a pattern with none
left is unavailable, so its predicate falls back to the model (or its rule is skipped).

``candidates`` binds a variable for a whole batch of beams in one round trip: the rows are
the distinct values already bound on the other side, the answer maps each of them to its
candidates, each with its popularity (sitelinks, degree) and the facts that prove it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from knowforge.errors import ConfigError
from knowforge.kg.cypher import validate_labels
from knowforge.kg.store import Store

log = logging.getLogger(__name__)

PATTERNS_VERSION = "1"


class Edge(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    relation: str
    subject: Literal["first", "second"]


class PredicatePattern(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""
    kind: Literal["relation", "path", "later"]
    edges: tuple[Edge, ...] = ()
    first_time: tuple[str, ...] = ()
    second_time: tuple[str, ...] = ()
    gap: int = 0

    @model_validator(mode="after")
    def _shape(self) -> PredicatePattern:
        if self.kind in ("relation", "path") and not self.edges:
            raise ValueError(f"a {self.kind} pattern needs edges")
        if self.kind == "path" and any(e.subject != "first" for e in self.edges):
            raise ValueError("a path pattern runs from the first variable to the second: every edge has subject: first")
        if self.kind == "later" and not (self.first_time and self.second_time):
            raise ValueError("a later pattern needs first_time and second_time relations")
        return self

    def relations(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys([e.relation for e in self.edges] + list(self.first_time) + list(self.second_time)))


class DatatypePattern(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""
    labels: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()
    class_names: tuple[str, ...] = ()
    class_relations: tuple[str, ...] = ()
    has: tuple[str, ...] = ()
    has_incoming: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _shape(self) -> DatatypePattern:
        validate_labels(self.labels)
        if (self.classes or self.class_names) and not self.class_relations:
            raise ValueError("classes need class_relations (e.g. [P31] or [IsA])")
        if not (self.labels or self.classes or self.class_names or self.has or self.has_incoming):
            raise ValueError("a datatype pattern needs labels, classes, class_names, has or has_incoming")
        return self

    def relations(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.class_relations + self.has + self.has_incoming))


class PatternFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int | str = PATTERNS_VERSION
    predicates: dict[str, PredicatePattern] = Field(default_factory=dict)
    datatypes: dict[str, DatatypePattern] = Field(default_factory=dict)


@dataclass(frozen=True)
class Candidate:
    """A value the graph offers for a variable, with what proves it."""

    id: str
    name: str
    sitelinks: float | None
    degree: int
    facts: tuple[str, ...] = ()

    @property
    def popularity(self) -> float:
        """Sitelinks where the source counts them (Wikidata), else the degree in source facts."""
        return float(self.sitelinks) if self.sitelinks is not None else float(self.degree)


def bundled_patterns_path() -> Path:
    return Path(str(resources.files("knowforge.generators.link").joinpath("predicates.yaml")))


def load_patterns(path: str | Path | None = None) -> PatternFile:
    path = Path(path) if path else bundled_patterns_path()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return PatternFile.model_validate(data or {})
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read the grounding patterns: {exc}") from exc
    except ValidationError as exc:
        problems = "; ".join(".".join(str(p) for p in e["loc"]) + ": " + e["msg"] for e in exc.errors())
        raise ConfigError(f"{path}: bad grounding patterns: {problems}") from exc


@dataclass
class Grounder:
    """The patterns, checked against one graph, and the batched queries that use them."""

    store: Store
    patterns: PatternFile
    present: frozenset[str] = frozenset()
    absent: dict[str, tuple[str, ...]] = field(default_factory=dict)   # pattern -> absent relations
    queries: int = 0
    # Answers already read in this generation: rules share patterns (three rules ask where the
    # same towns lie), and the graph does not change while a batch is searched.
    _candidates: dict[tuple[str, str, str], list[Candidate]] = field(default_factory=dict, repr=False)
    _members: dict[tuple[str, int], list[Candidate]] = field(default_factory=dict, repr=False)
    _admitted: dict[tuple[str, str], bool] = field(default_factory=dict, repr=False)

    @classmethod
    def for_graph(cls, store: Store, patterns: PatternFile | None = None) -> Grounder:
        grounder = cls(store=store, patterns=patterns or load_patterns())
        grounder.check()
        return grounder

    def check(self) -> None:
        """Which relations the patterns name does the graph hold (one round trip)?"""
        names = sorted({r for p in self.patterns.predicates.values() for r in p.relations()}
                       | {r for d in self.patterns.datatypes.values() for r in d.relations()})
        rows = self.store.read("link/read_relations_present", relations=names) if names else []
        self.queries += 1
        self.present = frozenset(r["relation"] for r in rows if r["present"])
        self.absent = {}
        for name, pattern in {**self.patterns.predicates, **self.patterns.datatypes}.items():
            missing = tuple(r for r in pattern.relations() if r not in self.present)
            if missing:
                self.absent[name] = missing

    # --- availability ------------------------------------------------------------------------
    def predicate_available(self, name: str) -> bool:
        pattern = self._predicate(name)
        if pattern.kind == "later":
            return any(r in self.present for r in pattern.first_time) and any(
                r in self.present for r in pattern.second_time)
        return any(e.relation in self.present for e in pattern.edges)

    def datatype_available(self, name: str) -> bool:
        pattern = self._datatype(name)
        if pattern.labels:
            return True
        if (pattern.classes or pattern.class_names) and not any(r in self.present for r in pattern.class_relations):
            return False
        if pattern.has and not any(r in self.present for r in pattern.has):
            return False
        if pattern.has_incoming and not any(r in self.present for r in pattern.has_incoming):
            return False
        return True

    def describe(self, name: str) -> str:
        """``is_ingredient_in: MadeOf, PartOf (absent: P186, P527)`` for reports."""
        pattern = self.patterns.predicates.get(name) or self.patterns.datatypes.get(name)
        if pattern is None:
            return f"{name}: unknown pattern"
        held = [r for r in pattern.relations() if r in self.present]
        if isinstance(pattern, DatatypePattern) and pattern.labels:
            held = [f":{label}" for label in pattern.labels] + held
        text = f"{name}: {', '.join(held) or 'nothing in this graph'}"
        return text + (f" (absent: {', '.join(self.absent[name])})" if name in self.absent else "")

    def _predicate(self, name: str) -> PredicatePattern:
        try:
            return self.patterns.predicates[name]
        except KeyError:
            known = ", ".join(sorted(self.patterns.predicates))
            raise ConfigError(f"no grounding pattern {name!r}; known: {known}") from None

    def _datatype(self, name: str) -> DatatypePattern:
        try:
            return self.patterns.datatypes[name]
        except KeyError:
            known = ", ".join(sorted(self.patterns.datatypes))
            raise ConfigError(f"no datatype pattern {name!r}; known: {known}") from None

    # --- queries -----------------------------------------------------------------------------
    def candidates(self, name: str, bound_position: Literal["first", "second"],
                   bound_ids: Iterable[str]) -> dict[str, list[Candidate]]:
        """For each bound id (the predicate's ``bound_position`` variable), the values the graph
        gives the other variable; one round trip for all ids not asked before."""
        ids = sorted(set(bound_ids))
        todo = [i for i in ids if (name, bound_position, i) not in self._candidates]
        if todo:
            for i, found in self._query_candidates(name, bound_position, todo).items():
                self._candidates[(name, bound_position, i)] = found
        return {i: self._candidates[(name, bound_position, i)] for i in ids
                if self._candidates[(name, bound_position, i)]}

    def _query_candidates(self, name: str, bound_position: str, ids: list[str]) -> dict[str, list[Candidate]]:
        pattern = self._predicate(name)
        rows = [{"id": i} for i in ids]
        if pattern.kind == "relation":
            # the bound entity is the fact's subject when the edge's subject is its position
            out = [e.relation for e in pattern.edges if e.subject == bound_position and e.relation in self.present]
            inc = [e.relation for e in pattern.edges if e.subject != bound_position and e.relation in self.present]
            result = self.store.read("link/ground_relation", batch={"rows": rows}, edges={"out": out, "in": inc})
        elif pattern.kind == "path":
            relations = [e.relation for e in pattern.edges if e.relation in self.present]
            statement = "link/ground_path_out" if bound_position == "first" else "link/ground_path_in"
            result = self.store.read(statement, batch={"rows": rows}, relations=relations)
        else:
            params = {"first_time": [r for r in pattern.first_time if r in self.present],
                      "second_time": [r for r in pattern.second_time if r in self.present], "gap": pattern.gap}
            statement = "link/ground_later" if bound_position == "second" else "link/ground_earlier"
            result = self.store.read(statement, batch={"rows": rows}, **params)
        self.queries += 1
        found: dict[str, dict[str, Candidate]] = {i: {} for i in ids}
        for r in result:
            # several proofs of one candidate (two paths, two relations): the first in order
            found[r["bound"]].setdefault(r["id"], Candidate(r["id"], r["name"] or r["id"], r["sitelinks"],
                                                            int(r["degree"] or 0), tuple(r["facts"])))
        return {k: list(v.values()) for k, v in found.items()}

    def _datatype_params(self, pattern: DatatypePattern) -> dict:
        """The ``$pattern`` map of link/type_members and link/type_filter (one map, one plan)."""
        return {"labels": list(pattern.labels), "classes": list(pattern.classes),
                "class_names": list(pattern.class_names),
                "class_relations": [r for r in pattern.class_relations if r in self.present],
                "has": [r for r in pattern.has if r in self.present],
                "has_incoming": [r for r in pattern.has_incoming if r in self.present]}

    def members(self, name: str, limit: int) -> list[Candidate]:
        """The entities datatype pattern ``name`` admits (at most ``limit``, in id order)."""
        key = (name, int(limit))
        if key not in self._members:
            rows = self.store.read("link/type_members", limit=int(limit), pattern=self._datatype_params(self._datatype(name)))
            self.queries += 1
            self._members[key] = [Candidate(r["id"], r["name"] or r["id"], r["sitelinks"], int(r["degree"] or 0))
                                  for r in rows]
        return self._members[key]

    def admits(self, name: str, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` datatype pattern ``name`` admits (one round trip for ids not asked before)."""
        todo = sorted({i for i in ids if (name, i) not in self._admitted})
        if todo:
            rows = self.store.read("link/type_filter", ids=todo, pattern=self._datatype_params(self._datatype(name)))
            self.queries += 1
            yes = {r["id"] for r in rows}
            self._admitted.update({(name, i): i in yes for i in todo})
        return {i for i in ids if self._admitted[(name, i)]}


__all__ = ["Candidate", "DatatypePattern", "Grounder", "PatternFile", "PredicatePattern", "load_patterns"]

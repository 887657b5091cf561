"""The closed vocabulary of event-template predicates, and their evaluation by named statements.

A template's slot constraints (``where:``) and conditional impacts (``when:``) are data, never
Cypher: each predicate is one of a few kinds whose arguments are validated values (slot names,
allow-listed relation ids, booleans, a number of years):

``has_fact`` / ``lacks_fact``  {subject, relation (one or a list), object?, current?, include_retracted?}
``shares_object``             {subject, relations: [first, second], current?, include_retracted?}
``terms_within``              {subject, relation, max_years}
``any_of``                    [predicate, ...]

Each kind is evaluated by one named, parameterised statement under ``cypher/events/check_*``
for many fillings at once (``UNWIND $batch.rows``), so a template file can add no text to any query:
the ``where: "true} ... DETACH DELETE n"`` of a hostile file fails validation before anything
runs, and even an unvalidated value could only ever be a parameter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from knowforge.kg.store import Store, chunked

SLOT_NAME = re.compile(r"^[A-Z][A-Za-z0-9]{0,15}$")
RELATION_ID = re.compile(r"^(P[0-9]{1,7}|[a-z][a-z0-9_]{1,63})$")
KINDS = ("has_fact", "lacks_fact", "shares_object", "terms_within", "any_of")
ROWS_PER_CALL = 5000


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _slot_name(value: str) -> str:
    if not SLOT_NAME.match(value):
        raise ValueError(f"{value!r} is not a slot name (A, B, Club1)")
    return value


def _relation_id(value: str) -> str:
    if not RELATION_ID.match(value):
        raise ValueError(f"{value!r} is not a relation id (P39, residence_country)")
    return value


SlotName = Annotated[str, AfterValidator(_slot_name)]
RelationId = Annotated[str, AfterValidator(_relation_id)]
# one relation id, or a list of them (any one matches)
RelationIds = Annotated[tuple[RelationId, ...], BeforeValidator(lambda v: (v,) if isinstance(v, str) else v),
                        Field(min_length=1)]


class FactTest(Strict):
    """A fact of ``relation`` (or one of a list) from slot ``subject``, to slot ``object`` if given."""

    subject: SlotName
    relation: RelationIds
    object: SlotName | None = None
    current: bool = False               # only open-ended facts (no end year)
    include_retracted: bool = False     # also facts an applied event retracted

    @property
    def relations(self) -> tuple[str, ...]:
        return self.relation


class SharedObject(Strict):
    """Slot ``subject`` has a fact of ``relations[0]`` and one of ``relations[1]`` with one object."""

    subject: SlotName
    relations: tuple[RelationId, RelationId]
    current: bool = False
    include_retracted: bool = False


class TermLimit(Strict):
    """Slot ``subject``'s facts of ``relation`` look like terms: one has ended, none > max_years."""

    subject: SlotName
    relation: RelationId
    max_years: int = Field(ge=0, le=10000)


class Condition(Strict):
    """Exactly one predicate kind (see the module docstring)."""

    has_fact: FactTest | None = None
    lacks_fact: FactTest | None = None
    shares_object: SharedObject | None = None
    terms_within: TermLimit | None = None
    any_of: tuple[Condition, ...] | None = Field(default=None, min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _no_cypher(cls, data):
        if isinstance(data, Mapping) and "cypher" in data:
            raise ValueError("Cypher text is not accepted in a template; write the predicate as "
                             f"one of {', '.join(KINDS)} (docs/events.md)")
        return data

    @model_validator(mode="after")
    def _exactly_one(self) -> Condition:
        given = [k for k in KINDS if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"a predicate has exactly one of {', '.join(KINDS)}; got "
                             f"{', '.join(given) if given else 'none'}")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in KINDS if getattr(self, k) is not None)

    @property
    def args(self):
        return getattr(self, self.kind)

    def references(self, where: str) -> list[tuple[str, str, str]]:
        """(field path, 'slot' | 'relation', value) of every slot and relation it names."""
        if self.any_of is not None:
            return [ref for i, child in enumerate(self.any_of)
                    for ref in child.references(f"{where}.any_of[{i}]")]
        args, at = self.args, f"{where}.{self.kind}"
        refs = [(f"{at}.subject", "slot", args.subject)]
        if isinstance(args, FactTest):
            if args.object is not None:
                refs.append((f"{at}.object", "slot", args.object))
            refs += [(f"{at}.relation", "relation", r) for r in args.relations]
        elif isinstance(args, SharedObject):
            refs += [(f"{at}.relations", "relation", r) for r in args.relations]
        else:
            refs.append((f"{at}.relation", "relation", args.relation))
        return refs


    def slot_names(self) -> tuple[str, ...]:
        """The slots the condition reads, sorted."""
        return tuple(sorted({v for _, kind, v in self.references("") if kind == "slot"}))


class Predicate(Condition):
    """A named condition: a slot constraint (``where``) or an impact's ``when``."""

    name: str = Field(min_length=1)


def _statement(condition: Condition) -> tuple[str, dict, tuple[str, ...], bool]:
    """(statement, parameters, row fields that hold slot names, negate) of one leaf predicate."""
    args = condition.args
    if isinstance(args, FactTest):
        return ("events/check_fact",
                {"relations": list(args.relations), "current": args.current,
                 "include_retracted": args.include_retracted},
                ("subject", "object"), condition.kind == "lacks_fact")
    if isinstance(args, SharedObject):
        return ("events/check_shared_object",
                {"first": args.relations[0], "second": args.relations[1],
                 "current": args.current, "include_retracted": args.include_retracted},
                ("subject",), False)
    return ("events/check_term_limits", {"relation": args.relation, "max_years": args.max_years},
            ("subject",), False)


def evaluate(store: Store, condition: Condition,
             fillings: Sequence[Mapping[str, str]]) -> list[bool]:
    """Whether ``condition`` holds for each filling (slot name -> entity id), in order.

    Every slot the condition names must be bound in every filling. Fillings that give the
    condition's slots the same ids are asked once.
    """
    if not fillings:
        return []
    if condition.any_of is not None:
        held = [False] * len(fillings)
        pending = list(range(len(fillings)))
        for child in condition.any_of:
            if not pending:
                break
            for i, ok in zip(pending, evaluate(store, child, [fillings[i] for i in pending])):
                held[i] = ok
            pending = [i for i in pending if not held[i]]
        return held
    name, params, fields, negate = _statement(condition)
    args = condition.args
    slot_of = {f: getattr(args, f) for f in fields}
    keys: dict[tuple, int] = {}
    row_of: list[int] = []
    for filling in fillings:
        ids = tuple(filling[slot_of[f]] if slot_of[f] is not None else None for f in fields)
        row_of.append(keys.setdefault(ids, len(keys)))
    rows = [{"key": k, **dict(zip(fields, ids))} for ids, k in keys.items()]
    holds: dict[int, bool] = {}
    for chunk in chunked(rows, ROWS_PER_CALL):
        for rec in store.read(name, batch={"rows": chunk}, **params):
            holds[rec["key"]] = bool(rec["holds"])
    return [holds[k] != negate for k in row_of]


class PredicateCache:
    """``evaluate`` with memory: each (condition, ids of the slots it reads) is asked once.

    For one planning pass, which only reads the graph, so an answer cannot go stale: "A is
    alive" is asked once per person, not once per person and country of a start-position.
    """

    def __init__(self, store: Store):
        self.store = store
        self._known: dict[tuple, bool] = {}

    def evaluate(self, condition: Condition, fillings: Sequence[Mapping[str, str]]) -> list[bool]:
        slots = condition.slot_names()
        keys = [(id(condition), tuple(f[s] for s in slots)) for f in fillings]
        todo = {k: f for k, f in zip(keys, fillings) if k not in self._known}
        for k, ok in zip(todo, evaluate(self.store, condition, list(todo.values()))):
            self._known[k] = ok
        return [self._known[k] for k in keys]


__all__ = ["Condition", "FactTest", "KINDS", "Predicate", "PredicateCache", "SharedObject",
           "TermLimit", "evaluate"]

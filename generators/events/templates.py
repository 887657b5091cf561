"""Event templates: one declarative YAML file per event type, loaded and validated here.

A template names typed slots (sampled from a domain label, or derived from an earlier slot
through a path of relations), slot constraints from a closed vocabulary of predicates
(``predicates.py``: has_fact, lacks_fact, shares_object, terms_within, any_of), a
natural-language text, and the impacted triplets as graph paths from the slots. Adding an
event type means adding a YAML file; no Python changes.

A template holds no Cypher. Every value it gives reaches the graph only as a parameter of a
named statement under ``cypher/events/``; labels are checked against ``kg.cypher.ALLOWED_LABELS``
and relations against ``relations.yaml`` when the template is parsed, so a user's
``--templates-dir`` is validated against this schema before anything runs.
"""

from __future__ import annotations

import re
import string
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal, Union

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from knowforge.errors import ConfigError, InputError, UnsafeIdentifier, describe_validation_error
from knowforge.kg.cypher import validate_label

from .predicates import RELATION_ID, SLOT_NAME, Predicate

TEMPLATE_VERSION = "1"
HOP = re.compile(r"^\^?(P[0-9]{1,7}|[a-z][a-z0-9_]{1,63})$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PathRef(Strict):
    """Objects reached from slot ``from_`` by following ``path`` (``^P35`` = incoming P35)."""

    from_: str = Field(alias="from")
    path: tuple[str, ...]

    @field_validator("path")
    @classmethod
    def hops(cls, path: tuple[str, ...]) -> tuple[str, ...]:
        if not path:
            raise ValueError("a path needs at least one hop")
        for hop in path:
            if not HOP.match(hop):
                raise ValueError(f"bad hop {hop!r}: a relation id, optionally prefixed by ^")
        return path


class ValueRef(Strict):
    """A literal object; ``date`` is the event's date."""

    value: Literal["date"]


ObjectRef = Union[str, PathRef, ValueRef]  # a slot name, "unknown", a path, or a value


class Slot(Strict):
    label: str | None = None
    derive: PathRef | None = None
    where: tuple[Predicate, ...] = ()

    @model_validator(mode="after")
    def sampled_or_derived(self) -> Slot:
        if self.derive is None and self.label is None and not self.where:
            raise ValueError("a sampled slot needs a label or at least one constraint")
        return self


class Impact(Strict):
    subject: Union[str, PathRef]
    relation: str
    object: ObjectRef
    replace: bool = False        # retract the subject's current facts of this relation first
    optional: bool = False       # skip (instead of rejecting the event) when a path is empty
    needs_background: bool | None = None  # default: computed from the paths and the text
    # Declared only when this predicate over the slots holds (e.g. the winner of a
    # presidential election is head of government only in a presidential republic).
    when: Predicate | None = None


class Retract(Strict):
    subject: Union[str, PathRef]
    relation: str
    object: Union[str, PathRef, None] = None   # None: every current fact of the relation


class EventTemplate(Strict):
    version: str = TEMPLATE_VERSION
    type: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
    split: Literal["train", "test", "custom"] = "custom"
    text: str
    slots: dict[str, Slot]
    impacts: tuple[Impact, ...]
    retracts: tuple[Retract, ...] = ()
    source_path: str | None = None

    @field_validator("version", mode="before")
    @classmethod
    def version_text(cls, v) -> str:
        if str(v) != TEMPLATE_VERSION:
            raise ValueError(f"template version {v!r} is not supported (this knowforge reads "
                             f"version {TEMPLATE_VERSION})")
        return str(v)

    @field_validator("text")
    @classmethod
    def plain_placeholders(cls, text: str) -> str:
        # {A} and {date} only: no attribute access, conversions or format specs
        for _, name, spec, conversion in string.Formatter().parse(text):
            if name is not None and (spec or conversion or not re.fullmatch(r"[A-Za-z0-9]+", name)):
                raise ValueError(f"placeholder {{{name}{'!' + conversion if conversion else ''}"
                                 f"{':' + spec if spec else ''}}} must be a plain slot name or date")
        return text

    def text_slots(self) -> set[str]:
        """Slot names the event text states."""
        return {name for _, name, _, _ in string.Formatter().parse(self.text) if name}

    def slot_order(self) -> list[str]:
        return list(self.slots)


class RelationInfo(Strict):
    label: str
    question: str


def _validate(template: EventTemplate, relations: dict[str, RelationInfo]) -> None:
    """Cross-field checks: slot names, references, labels and relations on allow-lists.

    Messages start with the field (``slots.B.where[0].has_fact.object``) so a user can find it.
    """
    seen: list[str] = []
    for name, slot in template.slots.items():
        at = f"slots.{name}"
        if not SLOT_NAME.match(name):
            raise ValueError(f"{at}: slot name {name!r} must look like A, B, Club1")
        if slot.label is not None:
            try:
                validate_label(slot.label)
            except UnsafeIdentifier as exc:
                raise ValueError(f"{at}.label: {exc}") from exc
        if slot.derive is not None:
            _check_path(slot.derive, seen, relations, f"{at}.derive")
        for i, predicate in enumerate(slot.where):
            _check_predicate(predicate, set(seen) | {name}, relations, f"{at}.where[{i}]",
                             order=template.slot_order())
        seen.append(name)
    known = set(template.slots)
    for name in template.text_slots() - {"date"}:
        if name not in known:
            raise ValueError(f"text: mentions {{{name}}}, which is not a slot")
    for field, specs in (("impacts", template.impacts), ("retracts", template.retracts)):
        for i, impact in enumerate(specs):
            at = f"{field}[{i}]"
            _check_relation(impact.relation, relations, f"{at}.relation")
            _check_ref(impact.subject, known, relations, allow_unknown=False, at=f"{at}.subject")
            if impact.object is not None:
                _check_ref(impact.object, known, relations, allow_unknown=isinstance(impact, Impact),
                           at=f"{at}.object")
            if isinstance(impact, Impact) and impact.when is not None:
                _check_predicate(impact.when, known, relations, f"{at}.when",
                                 order=template.slot_order())


def _check_predicate(predicate: Predicate, bound: set[str], relations, at: str, *,
                     order: list[str]) -> None:
    # A slot constraint may only use slots filled before (or at) its own slot.
    for where, kind, value in predicate.references(at):
        if kind == "relation":
            _check_relation(value, relations, where)
        elif value not in order:
            raise ValueError(f"{where}: {value!r} is not a slot")
        elif value not in bound:
            raise ValueError(f"{where}: slot {value} is used before it is filled (slots are "
                             f"filled in the order {', '.join(order)})")


def _check_relation(relation: str, relations: dict[str, RelationInfo], at: str) -> None:
    if not RELATION_ID.match(relation) or relation not in relations:
        raise ValueError(f"{at}: relation {relation!r} is not in relations.yaml (the allow-list of "
                         "template relations); add it there with a question")


def _check_path(ref: PathRef, known, relations, at: str) -> None:
    if ref.from_ not in known:
        raise ValueError(f"{at}: path starts at {ref.from_!r}, which is not an earlier slot")
    for hop in ref.path:
        _check_relation(hop.lstrip("^"), relations, f"{at}.path")


def _check_ref(ref, known, relations, *, allow_unknown: bool, at: str) -> None:
    if isinstance(ref, PathRef):
        _check_path(ref, known, relations, at)
    elif isinstance(ref, ValueRef):
        return
    elif ref == "unknown":
        if not allow_unknown:
            raise ValueError(f"{at}: only an impact's object can be 'unknown'")
    elif ref not in known:
        raise ValueError(f"{at}: {ref!r} is not a slot")


def _read_yaml(path: Path | resources.abc.Traversable, name: str) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"invalid YAML: {exc}", path=name,
                         line=mark.line + 1 if mark else None) from exc
    if not isinstance(data, dict):
        raise InputError("expected a mapping at the top level", path=name)
    return data


@lru_cache(maxsize=None)
def load_relations() -> dict[str, RelationInfo]:
    """The allow-list of template relations with their question templates (relations.yaml)."""
    path = resources.files("knowforge.generators.events").joinpath("relations.yaml")
    data = _read_yaml(path, "generators/events/relations.yaml")
    return {rid: RelationInfo(**info) for rid, info in data["relations"].items()}


@lru_cache(maxsize=None)
def load_locality_relations(path: str | None = None) -> tuple[tuple[str, ...], int]:
    """The configurable set of common relations for out-of-scope questions, and per-event count."""
    source = Path(path) if path else resources.files("knowforge.generators.events").joinpath(
        "locality_relations.yaml")
    data = _read_yaml(source, str(path or "generators/events/locality_relations.yaml"))
    relations = load_relations()
    ids = tuple(data["relations"])
    for rid in ids:
        if rid not in relations:
            raise ConfigError(f"locality relation {rid!r} has no question in relations.yaml")
    return ids, int(data.get("per_event", 5))


def parse_template(data: dict, name: str) -> EventTemplate:
    """Validate one template against the schema; InputError naming ``name`` and the field."""
    try:
        template = EventTemplate(**data, source_path=name)
        _validate(template, load_relations())
    except ValidationError as exc:
        raise InputError(f"invalid event template: {describe_validation_error(exc)}", path=name) from exc
    except ValueError as exc:
        raise InputError(f"invalid event template: field {exc}", path=name) from exc
    return template


def load_templates(templates_dir: str | Path | None = None) -> dict[str, EventTemplate]:
    """Every ``*.yaml`` template: the bundled ones, plus (overriding by type) ``templates_dir``."""
    templates: dict[str, EventTemplate] = {}
    bundled = resources.files("knowforge.generators.events").joinpath("templates")
    sources = [(p, f"generators/events/templates/{p.name}") for p in bundled.iterdir()
               if p.name.endswith(".yaml")]
    if templates_dir is not None:
        folder = Path(templates_dir)
        if not folder.is_dir():
            raise ConfigError(f"templates directory {folder} does not exist")
        sources += [(p, str(p)) for p in folder.glob("*.yaml")]
    for path, name in sorted(sources, key=lambda s: (s[1].startswith("generators/") is False, s[1])):
        template = parse_template(_read_yaml(path, name), name)
        templates[template.type] = template
    return dict(sorted(templates.items()))

"""Symbolic rules as data: LINK's rule shape, validated with pydantic.

A rule is premise predicates joined by & and one conclusion predicate over typed variables,
exactly the shape of LINK's ``data/rules.json`` (INK-USC/LINK, MIT)::

    {"premise_map": {"is_allergic_to(P, A)": "[P] is allergic to [A]", ...},
     "conclusion_map": {"is_not_able_to_eat(P, B)": "[P] is not able to eat [B]"},
     "variables": {"P": ["P", "Person", true, null], "A": ["A", "Food Allergen", false, null], ...},
     "domain": "food and physical conditions"}

Our rule files add, all optional:

* ``constraint``: the paper's four constraint kinds (temporal, locational, natural_property,
  outcome_effect) and ``centre`` (person or object);
* ``negation_map`` / ``question_map``: the conclusion's minimal-edit negation and question,
  so the entailment probe needs no model to write them;
* ``positive``: the conclusion is positive (Compatibility) or negative (Mutual Exclusivity);
  probe template 9's label depends on it. Inferred from the conclusion's wording when absent;
* ``grounding``: which predicates (and variable datatypes) the graph answers, by the name of
  a pattern in ``predicates.yaml``.

A rule file is YAML or JSON: ``{"rules": {id: rule}}``, ``{"rules": [{id, ...}]}``, or
LINK's own ``{id: rule}``. A bad rule is reported with its file and id and the other rules
of the file still load (``load_rules`` returns both); a file that is not YAML/JSON at all is
one problem for the whole file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from knowforge.errors import ConfigError

RULES_VERSION = "1"
CONSTRAINTS = ("temporal", "locational", "natural_property", "outcome_effect")
PREDICATE = re.compile(r"^\s*([a-z][a-z0-9_]*)\s*\(\s*([A-Z][A-Za-z0-9]*)\s*(?:,\s*([A-Z][A-Za-z0-9]*)\s*)?\)\s*$")
SLOT = re.compile(r"\[([A-Z][A-Za-z0-9]*)\]")
RULE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
# A negative conclusion (Mutual Exclusivity) says what cannot happen.
_NEGATIVE = re.compile(r"\b(not|cannot|can't|never|unable|no longer|isn't|doesn't|won't|couldn't)\b|n't\b",
                       re.IGNORECASE)


@dataclass(frozen=True)
class Predicate:
    """``is_ingredient_in(Z, B)``: a name and its (one or two) variables."""

    text: str
    name: str
    args: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Predicate:
        match = PREDICATE.match(text)
        if not match:
            raise ValueError(f"predicate {text!r} is not name(X) or name(X, Y) (lower-case name, "
                             "capitalised variables)")
        args = tuple(a for a in match.groups()[1:] if a)
        return cls(text=text, name=match.group(1), args=args)


def fill(template: str, values: Mapping[str, str]) -> str:
    """``"[P] is allergic to [A]"`` with values filled in (underscores read as spaces, as LINK does)."""
    return SLOT.sub(lambda m: " ".join(str(values[m.group(1)]).split("_")) if m.group(1) in values
                    else m.group(0), template)


def sentence(text: str) -> str:
    """A statement as a sentence: capital first letter, one final period."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


class Variable(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    datatype: str
    generic: bool = False
    factual: bool = False


class Grounding(BaseModel):
    """What the graph answers: predicate text → pattern, variable → datatype pattern."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    predicates: dict[str, str] = Field(default_factory=dict)
    variables: dict[str, str] = Field(default_factory=dict)


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    domain: str
    constraint: Literal["temporal", "locational", "natural_property", "outcome_effect"] | None = None
    centre: Literal["person", "object"] | None = None
    premise_map: dict[str, str]
    conclusion_map: dict[str, str]
    negation_map: dict[str, str] = Field(default_factory=dict)
    question_map: dict[str, str] = Field(default_factory=dict)
    positive: bool | None = None
    variables: dict[str, Variable]
    grounding: Grounding = Field(default_factory=Grounding)
    description: str | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not RULE_ID.match(value):
            raise ValueError(f"rule id {value!r}: letters, digits, '_', '-', '.' (max 64)")
        return value

    @model_validator(mode="before")
    @classmethod
    def _official_variables(cls, data: Any) -> Any:
        """LINK's list form ``[name, datatype, is_generic, null | "factual"]`` → a Variable."""
        if not isinstance(data, dict) or not isinstance(data.get("variables"), dict):
            return data
        out = {}
        for key, value in data["variables"].items():
            if isinstance(value, (list, tuple)):
                if len(value) != 4:
                    raise ValueError(f"variable {key}: the list form is [name, datatype, is_generic, "
                                     "null | 'factual']")
                name, datatype, generic, node = value
                if node not in (None, "factual"):
                    raise ValueError(f"variable {key}: node type must be null or 'factual', not {node!r}")
                value = {"name": name, "datatype": datatype, "generic": bool(generic), "factual": node == "factual"}
            elif isinstance(value, dict):
                value = {"name": key, **value}
            out[key] = value
        return {**data, "variables": out}

    @model_validator(mode="after")
    def _consistent(self) -> Rule:
        for key, var in self.variables.items():
            if var.name != key:
                raise ValueError(f"variable {key}: its name field says {var.name!r}")
        if len(self.conclusion_map) != 1:
            raise ValueError(f"a rule has exactly one conclusion predicate, not {len(self.conclusion_map)}")
        if not self.premise_map:
            raise ValueError("a rule needs at least one premise predicate")
        generic = [k for k, v in self.variables.items() if v.generic]
        if len(generic) != 1:
            raise ValueError(f"a rule has exactly one generic variable (PersonX, ObjectX), not {generic or 'none'}")
        used: set[str] = set()
        for text, template in {**self.premise_map, **self.conclusion_map}.items():
            pred = Predicate.parse(text)
            for arg in pred.args:
                if arg not in self.variables:
                    raise ValueError(f"{text}: variable {arg} is not declared")
            slots = set(SLOT.findall(template))
            if slots != set(pred.args):
                raise ValueError(f"{text}: template {template!r} must use exactly the slots "
                                 f"{', '.join(f'[{a}]' for a in pred.args)}")
            used.update(pred.args)
        unused = sorted(set(self.variables) - used)
        if unused:
            raise ValueError(f"variables {', '.join(unused)} appear in no predicate")
        if generic[0] not in self.conclusion.args:
            raise ValueError(f"the conclusion must be about the generic variable {generic[0]}")
        for label, mapping in (("negation_map", self.negation_map), ("question_map", self.question_map)):
            for text, template in mapping.items():
                if text not in self.conclusion_map:
                    raise ValueError(f"{label}: {text!r} is not the conclusion predicate")
                if set(SLOT.findall(template)) != set(self.conclusion.args):
                    raise ValueError(f"{label}: template {template!r} must use the conclusion's slots")
        for text in self.grounding.predicates:
            if text not in self.premise_map:
                raise ValueError(f"grounding: {text!r} is not a premise predicate of this rule")
            if generic[0] in Predicate.parse(text).args:
                raise ValueError(f"grounding: {text!r} contains the generic variable; it is the "
                                 "statement's premise, not a fact to look up")
        for key in self.grounding.variables:
            if key not in self.variables or key == generic[0]:
                raise ValueError(f"grounding: {key!r} is not a non-generic variable of this rule")
        return self

    # --- derived views -------------------------------------------------------------------------
    @cached_property
    def premises(self) -> tuple[Predicate, ...]:
        return tuple(Predicate.parse(t) for t in self.premise_map)

    @cached_property
    def conclusion(self) -> Predicate:
        return Predicate.parse(next(iter(self.conclusion_map)))

    @cached_property
    def generic(self) -> str:
        return next(k for k, v in self.variables.items() if v.generic)

    @property
    def factual(self) -> bool:
        return any(v.factual for v in self.variables.values())

    @property
    def is_positive(self) -> bool:
        """Compatibility (a positive conclusion) or Mutual Exclusivity (negative)."""
        if self.positive is not None:
            return self.positive
        return not _NEGATIVE.search(self.conclusion_map[self.conclusion.text])

    def template(self, predicate: Predicate) -> str:
        return self.premise_map.get(predicate.text) or self.conclusion_map[predicate.text]

    def generic_premises(self) -> tuple[Predicate, ...]:
        """The premises that mention the generic variable: what a statement's premise says
        (LINK's "information edges"); the others stay hidden and must be known."""
        return tuple(p for p in self.premises if self.generic in p.args)

    def hidden_premises(self) -> tuple[Predicate, ...]:
        return tuple(p for p in self.premises if self.generic not in p.args)

    def generic_value(self) -> str:
        """``PersonX`` / ``ObjectX``: the value the generic variable keeps (LINK: ``f"{dt}X"``)."""
        words = self.variables[self.generic].datatype.split()
        return "".join(w[:1].upper() + w[1:] for w in words) + "X"

    def negation_template(self) -> str | None:
        return self.negation_map.get(self.conclusion.text)

    def question_template(self) -> str | None:
        return self.question_map.get(self.conclusion.text)


@dataclass(frozen=True)
class RuleProblem:
    """A rule (or a whole file) that did not load."""

    path: str
    rule: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path} (rule {self.rule})" if self.rule else self.path
        return f"{where}: {self.message}"


@dataclass
class RuleSet:
    rules: dict[str, Rule] = field(default_factory=dict)
    problems: list[RuleProblem] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def select(self, ids: Iterable[str] | None) -> list[Rule]:
        if not ids:
            return list(self.rules.values())
        missing = [i for i in ids if i not in self.rules]
        if missing:
            raise ConfigError(f"unknown rule ids: {', '.join(missing)}; loaded: {', '.join(self.rules)}")
        return [self.rules[i] for i in ids]


def bundled_rule_files() -> list[Path]:
    root = Path(str(resources.files("knowforge.generators.link").joinpath("rules")))
    return sorted(p for p in root.iterdir() if p.suffix in (".yaml", ".yml", ".json"))


def _entries(data: Any) -> list[tuple[str | None, Any]]:
    if isinstance(data, dict) and "rules" in data and not {"premise_map", "conclusion_map"} <= set(data):
        body = data["rules"]
        if data.get("version") not in (None, RULES_VERSION, int(RULES_VERSION)):
            raise ValueError(f"rule file version {data.get('version')!r}; this knowforge reads version {RULES_VERSION}")
    else:
        body = data
    if isinstance(body, dict):
        return [(str(k), v) for k, v in body.items()]
    if isinstance(body, list):
        return [((v.get("id") if isinstance(v, dict) else None), v) for v in body]
    raise ValueError("a rule file holds {rules: {id: rule}}, {rules: [rule, ...]} or LINK's {id: rule}")


def _describe(exc: ValidationError) -> str:
    return "; ".join((".".join(str(p) for p in e["loc"]) + ": " if e["loc"] else "") + e["msg"]
                     for e in exc.errors())


def load_rules(paths: Iterable[str | Path] | None = None) -> RuleSet:
    """Rules from ``paths`` (files or folders of *.yaml/*.yml/*.json; default: the bundled set).

    Every rule that validates is loaded; each one that does not becomes a ``RuleProblem`` with
    its file and id. Two rules with one id: the later file's rule is a problem.
    """
    files: list[Path] = []
    for p in (paths or bundled_rule_files()):
        path = Path(p)
        if path.is_dir():
            files.extend(sorted(q for q in path.iterdir() if q.suffix in (".yaml", ".yml", ".json")))
        elif path.is_file():
            files.append(path)
        else:
            raise ConfigError(f"rule file {path} does not exist")
    out = RuleSet(files=[str(f) for f in files])
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
            entries = _entries(data)
        except (OSError, ValueError, yaml.YAMLError) as exc:
            out.problems.append(RuleProblem(str(path), None, f"not a rule file: {exc}"))
            continue
        for rid, body in entries:
            if not isinstance(body, dict):
                out.problems.append(RuleProblem(str(path), rid, "a rule is a mapping"))
                continue
            body = {**body, "id": rid or body.get("id")}
            body.pop("version", None)
            try:
                rule = Rule.model_validate(body)
            except ValidationError as exc:
                out.problems.append(RuleProblem(str(path), rid, _describe(exc)))
                continue
            except ValueError as exc:
                out.problems.append(RuleProblem(str(path), rid, str(exc)))
                continue
            if rule.id in out.rules:
                out.problems.append(RuleProblem(str(path), rule.id, "a rule with this id is already loaded"))
                continue
            out.rules[rule.id] = rule
    return out


__all__ = ["CONSTRAINTS", "Grounding", "Predicate", "Rule", "RuleProblem", "RuleSet", "Variable",
           "bundled_rule_files", "fill", "load_rules", "sentence"]

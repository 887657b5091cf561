"""Every solver, metric, scorer, run export, file scoring and validity check, by name.

The generic ones (``knowforge.eval.generic``: the prompting settings, accuracy, the fuzzy and
exact scorers, ...) come first, then each installed method's ``EvalUnit``, named by the
method's ``evaluation`` reference and loaded on first use. A name declared twice is an error
naming both owners: nothing is overwritten silently. A method whose unit fails to load does not
take the others down; ``load_errors()`` says why.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from knowforge.errors import ConfigError
from knowforge.models.methods import available
from knowforge.eval.unit import (EvalUnit, FileScoringSpec, MetricSpec, RunExportSpec, RunViewSpec, ScorerSpec,
                                 SolverSpec, ValiditySpec)

log = logging.getLogger(__name__)

GENERIC = "knowforge"        # the owner name of the generic components
# Loaded by reference like every method's unit: its solvers compose the engine's modules,
# which look components up here.
GENERIC_UNIT = "knowforge.eval.generic:GENERIC_UNIT"


def load_reference(reference: str, where: str) -> Any:
    """The object a ``"package.module:attr"`` reference names."""
    module, sep, attr = reference.partition(":")
    if not sep or not module or not attr:
        raise ConfigError(f"{where}: {reference!r} is not 'module:attribute'")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{where}: cannot load {reference!r}: {exc}") from exc


def unit_of(method) -> EvalUnit:
    """The evaluation unit a method declares (an empty unit when it declares none)."""
    if method.evaluation is None:
        return EvalUnit()
    unit = load_reference(method.evaluation, f"method {method.name!r} evaluation")
    if not isinstance(unit, EvalUnit):
        raise ConfigError(f"method {method.name!r}: {method.evaluation!r} is not a knowforge.eval.unit.EvalUnit "
                          f"(got {type(unit).__name__})")
    return unit


@dataclass
class Registry:
    solvers: dict[str, SolverSpec] = field(default_factory=dict)
    metrics: dict[str, MetricSpec] = field(default_factory=dict)
    scorers: dict[str, ScorerSpec] = field(default_factory=dict)
    run_exports: dict[str, RunExportSpec] = field(default_factory=dict)
    file_scorings: dict[str, FileScoringSpec] = field(default_factory=dict)
    validity: dict[str, ValiditySpec] = field(default_factory=dict)
    run_views: dict[str, RunViewSpec] = field(default_factory=dict)
    owners: dict[tuple[str, str], str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def add(self, unit: EvalUnit, owner: str) -> None:
        for kind, table, specs in (("solver", self.solvers, unit.solvers), ("metric", self.metrics, unit.metrics),
                                   ("scorer", self.scorers, unit.scorers),
                                   ("run export", self.run_exports, unit.run_exports),
                                   ("file scoring", self.file_scorings, unit.file_scorings),
                                   ("validity check", self.validity, unit.validity),
                                   ("run view", self.run_views, unit.run_views)):
            for spec in specs:
                name = getattr(spec, "name", None) or getattr(spec, "key")
                if name in table:
                    raise ConfigError(f"{kind} {name!r} is declared by both {self.owners[(kind, name)]} and "
                                      f"{owner}; rename one")
                table[name] = spec
                self.owners[(kind, name)] = owner

    def owner(self, kind: str, name: str) -> str | None:
        return self.owners.get((kind, name))


def _build(methods: Iterable) -> Registry:
    registry = Registry()
    registry.add(load_reference(GENERIC_UNIT, "the generic evaluation unit"), GENERIC)
    for method in methods:
        try:
            unit = unit_of(method)
        except ConfigError as exc:
            registry.errors[method.name] = str(exc)
            log.warning("%s", exc)
            continue
        registry.add(unit, f"method {method.name!r}")
    return registry


_BUILT: dict[tuple, Registry] = {}


def registry() -> Registry:
    """The registry of the installed methods (built again when ``knowforge.methods.refresh``
    loaded other method objects)."""
    methods = available()
    key = tuple((name, id(method)) for name, method in methods.items())
    if key not in _BUILT:
        _BUILT.clear()
        _BUILT[key] = _build(methods.values())
    return _BUILT[key]


def refresh() -> None:
    """Forget the registry (tests that change a unit in place)."""
    _BUILT.clear()


def _spec(table: dict, name: str, what: str):
    if name not in table:
        raise ConfigError(f"{what} {name!r}; known: {', '.join(sorted(table)) or 'none'}")
    return table[name]


def solver_spec(name: str) -> SolverSpec:
    return _spec(registry().solvers, name, "unknown solver")


def metric_spec(name: str) -> MetricSpec:
    return _spec(registry().metrics, name, "unknown metric")


def scorer_spec(name: str) -> ScorerSpec:
    return _spec(registry().scorers, name, "unknown scorer")


def run_export_spec(name: str) -> RunExportSpec:
    return _spec(registry().run_exports, name, "unknown run export format")


def run_view_spec(name: str) -> RunViewSpec:
    return _spec(registry().run_views, name, "run view")


def file_scoring_spec(name: str) -> FileScoringSpec:
    return _spec(registry().file_scorings, name, "no file scoring")


def load_errors() -> dict[str, str]:
    return dict(registry().errors)


__all__ = ["GENERIC", "Registry", "file_scoring_spec", "load_errors", "load_reference", "metric_spec", "refresh",
           "registry", "run_export_spec", "scorer_spec", "solver_spec", "unit_of"]

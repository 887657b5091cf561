"""Every solver, metric, scorer, run export, file scoring and validity check, by name.

The generic ones (``knowforge.eval.generic``: the prompting settings, accuracy, the fuzzy and
exact scorers, ...) come first, then each installed method's ``EvalUnit``, named by the
method's ``evaluation`` reference and loaded on first use. Nothing is overwritten silently: a
plug-in whose unit declares a name that is taken (by the generic unit, a built-in method or
another plug-in) is refused whole, named in a warning on stderr, and every other method keeps
working. A method whose unit fails to load or is refused does not take the others down;
``load_errors()`` says why and ``knowforge methods`` prints it.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from knowforge.errors import ConfigError
from knowforge.models.methods import available, is_builtin
from knowforge.eval.unit import (EvalUnit, FileScoringSpec, ListingSpec, MetricSpec, RunExportSpec, RunViewSpec,
                                 ScorerSpec, SolverSpec, ValiditySpec)

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
    listings: dict[str, ListingSpec] = field(default_factory=dict)
    owners: dict[tuple[str, str], str] = field(default_factory=dict)
    # method name -> why its unit is not in the registry (failed to load, or refused on a clash)
    errors: dict[str, str] = field(default_factory=dict)

    def _tables(self, unit: EvalUnit):
        return (("solver", self.solvers, unit.solvers), ("metric", self.metrics, unit.metrics),
                ("scorer", self.scorers, unit.scorers), ("run export", self.run_exports, unit.run_exports),
                ("file scoring", self.file_scorings, unit.file_scorings),
                ("validity check", self.validity, unit.validity), ("run view", self.run_views, unit.run_views),
                ("listing", self.listings, unit.listings))

    def names(self, unit: EvalUnit) -> list[tuple[str, str]]:
        """Every (kind, name) ``unit`` declares, in declaration order."""
        return [(kind, getattr(spec, "name", None) or getattr(spec, "key"))
                for kind, _, specs in self._tables(unit) for spec in specs]

    def clashes(self, unit: EvalUnit, owner: str) -> list[str]:
        """Why ``unit`` cannot join the registry as it is: each name it declares that is taken
        already or that it declares twice (empty: it can)."""
        problems, seen = [], set()
        for kind, name in self.names(unit):
            if (kind, name) in self.owners:
                problems.append(f"{kind} {name!r} is declared by both {self.owners[(kind, name)]} and {owner}")
            elif (kind, name) in seen:
                problems.append(f"{kind} {name!r} is declared by both {owner} and {owner}")
            seen.add((kind, name))
        return problems

    def add(self, unit: EvalUnit, owner: str) -> None:
        """Add every name of ``unit``, or none of them: a ``ConfigError`` names the first clash."""
        problems = self.clashes(unit, owner)
        if problems:
            raise ConfigError(f"{problems[0]}; rename one")
        for kind, table, specs in self._tables(unit):
            for spec in specs:
                name = getattr(spec, "name", None) or getattr(spec, "key")
                table[name] = spec
                self.owners[(kind, name)] = owner

    def owner(self, kind: str, name: str) -> str | None:
        return self.owners.get((kind, name))

    def listing_of(self, method: str) -> ListingSpec | None:
        """The listing the method ``method`` declares (``knowforge results --units``), if any."""
        for name, spec in self.listings.items():
            if self.owners.get(("listing", name)) == f"method {method!r}":
                return spec
        return None


def _owner(method) -> str:
    return f"method {method.name!r}"


def _refuse(registry: Registry, method, problems: Sequence[str]) -> None:
    registry.errors[method.name] = (f"evaluation unit refused: {'; '.join(problems)}; rename the plug-in's "
                                    "names (e.g. prefix them with the method's name)")
    log.warning("method %r: %s", method.name, registry.errors[method.name])


def _build(methods: Iterable) -> Registry:
    """The generic unit, then the built-in methods' units, then the plug-ins'. A plug-in that
    declares a name the generic unit or a built-in declares, or that another plug-in declares
    too, is refused whole (every plug-in in the clash: neither install order nor the alphabet
    picks a winner); the others keep working, and ``errors`` says why."""
    registry = Registry()
    registry.add(load_reference(GENERIC_UNIT, "the generic evaluation unit"), GENERIC)
    loaded = []
    for method in methods:
        try:
            loaded.append((method, unit_of(method)))
        except ConfigError as exc:
            registry.errors[method.name] = str(exc)
            log.warning("%s", exc)
    builtins = [(m, u) for m, u in loaded if is_builtin(m.name)]
    plugins = [(m, u) for m, u in loaded if not is_builtin(m.name)]
    for method, unit in builtins:
        problems = registry.clashes(unit, _owner(method))
        if problems:
            _refuse(registry, method, problems)
        else:
            registry.add(unit, _owner(method))
    declared: dict[tuple[str, str], list[str]] = {}
    for method, unit in plugins:
        for key in dict.fromkeys(registry.names(unit)):
            declared.setdefault(key, []).append(method.name)
    for method, unit in plugins:
        problems = registry.clashes(unit, _owner(method))
        for kind, name in dict.fromkeys(registry.names(unit)):
            problems += [f"{kind} {name!r} is declared by both method {other!r} and {_owner(method)}"
                         for other in declared[(kind, name)] if other != method.name]
        if problems:
            _refuse(registry, method, problems)
        else:
            registry.add(unit, _owner(method))
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
    """Methods whose evaluation unit is not in the registry, with the reason."""
    return dict(registry().errors)


def check_evaluable(method_name: str) -> None:
    """A ``ConfigError`` saying why method ``method_name`` cannot be evaluated, if its unit is
    not in the registry (so its tasks fail with the cause, not with an unknown name)."""
    error = registry().errors.get(method_name)
    if error is not None:
        raise ConfigError(f"method {method_name!r} cannot be evaluated: {error}")


__all__ = ["GENERIC", "Registry", "check_evaluable", "file_scoring_spec", "load_errors", "load_reference", "metric_spec", "refresh",
           "registry", "run_export_spec", "scorer_spec", "solver_spec", "unit_of"]

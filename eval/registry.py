"""Every solver, metric, scorer, run export, file scoring and validity check, by name.

The generic ones (``knowforge.eval.generic``: the prompting settings, accuracy, the fuzzy and
exact scorers, ...) come first, then each installed method's ``EvalUnit``, named by the
method's ``evaluation`` reference and loaded on first use. Nothing is overwritten silently:

* a plug-in name that is taken (by the generic unit or a built-in method) or that another
  plug-in declares too is *namespaced by its owner*: the plug-in ``birthyear`` re-declaring
  ``accuracy`` keeps knowforge's ``accuracy`` as it is and adds ``birthyear:accuracy``. A name
  two plug-ins share is neither's: asked for bare, it is an error naming both qualified names.
  Every plug-in name also answers to its qualified form (``birthyear:year_error``), so a
  method's tasks can name their own components whatever else is installed;
* what cannot be namespaced is refused: a unit declaring one name twice, a name holding ``:``,
  or a built-in clashing with the generic unit or another built-in. A refused unit is named in
  a warning on stderr and every other method keeps working.

``load_errors()`` says why a unit is refused, ``namespaced()`` which names were namespaced;
``knowforge methods`` prints both.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from knowforge.errors import ConfigError
from knowforge.models.methods import available, is_builtin, loaded
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


# each kind's table in Registry (the kinds of Registry._tables)
_TABLE_OF = {"solver": "solvers", "metric": "metrics", "scorer": "scorers", "run export": "run_exports",
             "file scoring": "file_scorings", "validity check": "validity", "run view": "run_views",
             "listing": "listings"}


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
    # method name -> its names registered under "<method>:<name>", each with why
    renamed: dict[str, list[str]] = field(default_factory=dict)
    # (kind, bare name) two or more plug-ins declare -> their qualified names
    ambiguous: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    # (kind, "<method>:<name>") asked for a name registered bare -> that spec under the long name
    qualified: dict[tuple[str, str], Any] = field(default_factory=dict)

    def _tables(self, unit: EvalUnit):       # the kinds, in order, as _TABLE_OF names their tables
        return (("solver", self.solvers, unit.solvers), ("metric", self.metrics, unit.metrics),
                ("scorer", self.scorers, unit.scorers), ("run export", self.run_exports, unit.run_exports),
                ("file scoring", self.file_scorings, unit.file_scorings),
                ("validity check", self.validity, unit.validity), ("run view", self.run_views, unit.run_views),
                ("listing", self.listings, unit.listings))

    def table(self, kind: str) -> dict:
        # a name per kind, not _tables' tuple built again: lookup runs for every scored sample
        return getattr(self, _TABLE_OF[kind])

    def names(self, unit: EvalUnit) -> list[tuple[str, str]]:
        """Every (kind, name) ``unit`` declares, in declaration order."""
        return [(kind, getattr(spec, "name", None) or getattr(spec, "key"))
                for kind, _, specs in self._tables(unit) for spec in specs]

    def conflicts(self, unit: EvalUnit, owner: str) -> list[str]:
        """Why ``unit`` cannot join the registry at all (empty: it can): a name it declares
        twice, or a name holding ``:`` (the owner separator of namespaced names)."""
        problems, seen = [], set()
        for kind, name in self.names(unit):
            if ":" in name:
                problems.append(f"{kind} {name!r} of {owner} holds ':', which separates an owner from a name")
            elif (kind, name) in seen:
                problems.append(f"{kind} {name!r} is declared by both {owner} and {owner}")
            seen.add((kind, name))
        return problems

    def clashes(self, unit: EvalUnit, owner: str) -> list[str]:
        """Each name ``unit`` declares that is taken already, and every conflict."""
        return self.conflicts(unit, owner) + [
            f"{kind} {name!r} is declared by both {self.owners[(kind, name)]} and {owner}"
            for kind, name in dict.fromkeys(self.names(unit)) if (kind, name) in self.owners]

    def add(self, unit: EvalUnit, owner: str, *, namespace: str | None = None,
            qualify: frozenset[tuple[str, str]] = frozenset()) -> None:
        """Add every name of ``unit``, or none of them: a ``ConfigError`` names the first
        conflict. The names in ``qualify`` go in as ``"<namespace>:<name>"``."""
        problems = self.conflicts(unit, owner) if namespace else self.clashes(unit, owner)
        if problems:
            raise ConfigError(f"{problems[0]}; rename one")
        for kind, table, specs in self._tables(unit):
            for spec in specs:
                name = getattr(spec, "name", None) or getattr(spec, "key")
                if (kind, name) in qualify:
                    name = f"{namespace}:{name}"
                    spec = _named(spec, name)
                table[name] = spec
                self.owners[(kind, name)] = owner

    def owner(self, kind: str, name: str) -> str | None:
        return self.owners.get((kind, name))

    def lookup(self, kind: str, name: str):
        """The spec of ``kind`` called ``name`` (bare, or ``"<method>:<name>"``), or None; a
        ``ConfigError`` when the bare name is two plug-ins' and so neither's."""
        table = self.table(kind)
        if name in table:
            return table[name]
        if (kind, name) in self.ambiguous:
            raise ConfigError(f"{kind} {name!r} is declared by more than one plug-in, so it is namespaced: "
                              f"name one of {', '.join(self.ambiguous[(kind, name)])}")
        method, sep, bare = name.partition(":")
        if sep and self.owners.get((kind, bare)) == f"method {method!r}":
            # the same spec under the name asked for: the engine keys its numbers by spec name
            return self.qualified.setdefault((kind, name), _named(table[bare], name))
        return None

    def listing_of(self, method: str) -> ListingSpec | None:
        """The listing the method ``method`` declares (``knowforge results --units``), if any."""
        for name, spec in self.listings.items():
            if self.owners.get(("listing", name)) == f"method {method!r}":
                return spec
        return None


def _named(spec, name: str):
    """``spec`` under ``name``: every spec is keyed by its ``name`` (a validity check by its ``key``)."""
    return dataclasses.replace(spec, **{"name" if hasattr(spec, "name") else "key": name})


def _owner(method) -> str:
    return f"method {method.name!r}"


def _refuse(registry: Registry, method, problems: Sequence[str]) -> None:
    registry.errors[method.name] = (f"evaluation unit refused: {'; '.join(problems)}; rename the plug-in's "
                                    "names (e.g. prefix them with the method's name)")
    log.warning("method %r: %s", method.name, registry.errors[method.name])


def _build(methods: Iterable) -> Registry:
    """The generic unit, then the built-in methods' units, then the plug-ins'. A plug-in name
    the generic unit or a built-in declares, or that another plug-in declares too, goes in as
    ``"<method>:<name>"`` (every plug-in in the clash: neither install order nor the alphabet
    picks a winner for the bare name); a unit with a conflict that cannot be namespaced is
    refused whole, the others keep working, and ``errors`` says why."""
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
        problems = registry.conflicts(unit, _owner(method))
        if problems:
            _refuse(registry, method, problems)
            continue
        qualify, notes = set(), []
        for kind, name in dict.fromkeys(registry.names(unit)):
            others = [f"method {m!r}" for m in declared[(kind, name)] if m != method.name]
            if (kind, name) in registry.owners:
                others.insert(0, registry.owners[(kind, name)])
            if others:
                qualify.add((kind, name))
                notes.append(f"{kind} {name!r} is {method.name}:{name} ({' and '.join(others)} "
                             f"{'declare' if len(others) > 1 else 'declares'} {name!r} too)")
        registry.add(unit, _owner(method), namespace=method.name, qualify=frozenset(qualify))
        if notes:
            registry.renamed[method.name] = notes
            log.warning("method %r: names namespaced: %s", method.name, "; ".join(notes))
    for (kind, name), owners in declared.items():
        if len(owners) > 1 and (kind, name) not in registry.owners:
            registry.ambiguous[(kind, name)] = sorted(f"{m}:{name}" for m in owners)
    return registry


_BUILT: dict[tuple, Registry] = {}
_CURRENT: list[tuple[object, Registry]] = []    # (the loaded methods it was built from, the registry)


def registry() -> Registry:
    """The registry of the installed methods (built again when ``knowforge.methods.refresh``
    loaded other method objects)."""
    current = loaded()
    if _CURRENT and _CURRENT[0][0] is current:     # the usual case, once per scored sample: no key built
        return _CURRENT[0][1]
    methods = available()
    key = tuple((name, id(method)) for name, method in methods.items())
    if key not in _BUILT:
        _BUILT.clear()
        _BUILT[key] = _build(methods.values())
    _CURRENT[:] = [(current, _BUILT[key])]
    return _BUILT[key]


def refresh() -> None:
    """Forget the registry (tests that change a unit in place)."""
    _BUILT.clear()
    _CURRENT.clear()


def _spec(kind: str, name: str, what: str):
    reg = registry()
    spec = reg.lookup(kind, name)
    if spec is None:
        raise ConfigError(f"{what} {name!r}; known: {', '.join(sorted(reg.table(kind))) or 'none'}")
    return spec


def solver_spec(name: str) -> SolverSpec:
    return _spec("solver", name, "unknown solver")


def metric_spec(name: str) -> MetricSpec:
    return _spec("metric", name, "unknown metric")


def scorer_spec(name: str) -> ScorerSpec:
    return _spec("scorer", name, "unknown scorer")


def run_export_spec(name: str) -> RunExportSpec:
    return _spec("run export", name, "unknown run export format")


def run_view_spec(name: str) -> RunViewSpec:
    return _spec("run view", name, "run view")


def file_scoring_spec(name: str) -> FileScoringSpec:
    return _spec("file scoring", name, "no file scoring")


def load_errors() -> dict[str, str]:
    """Methods whose evaluation unit is not in the registry, with the reason."""
    return dict(registry().errors)


def namespaced() -> dict[str, list[str]]:
    """Methods some of whose names are registered as ``"<method>:<name>"``, with why."""
    return {m: list(notes) for m, notes in registry().renamed.items()}


def check_evaluable(method_name: str) -> None:
    """A ``ConfigError`` saying why method ``method_name`` cannot be evaluated, if its unit is
    not in the registry (so its tasks fail with the cause, not with an unknown name)."""
    error = registry().errors.get(method_name)
    if error is not None:
        raise ConfigError(f"method {method_name!r} cannot be evaluated: {error}")


__all__ = ["GENERIC", "Registry", "check_evaluable", "file_scoring_spec", "load_errors", "load_reference", "metric_spec",
           "namespaced", "refresh",
           "registry", "run_export_spec", "scorer_spec", "solver_spec", "unit_of"]

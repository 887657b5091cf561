"""The one registry of benchmark methods, open to other packages.

It sits in ``models/`` beside the method contract so that both sides of a method can reach it:
the evaluation registry (``knowforge.eval.registry``) finds every method's evaluation unit here.
``knowforge.methods`` is the same module for the workflow and the CLI.

A method is published as an entry point of the ``knowforge.methods`` group whose object is a
``knowforge.models.method.Method``. knowforge's own five are declared in its pyproject.toml
like any plug-in's::

    [project.entry-points."knowforge.methods"]
    knowgen = "knowforge.generators.knowgen.method:METHOD"

A method that fails to load does not take the others down: ``load_errors()`` says why, and
``knowforge methods`` prints it.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from importlib.metadata import entry_points

from knowforge.errors import ConfigError, KnowforgeError
from knowforge.kg.cypher import GraphSide, list_statements, load_cypher, register_package, unregister_package
from .control_data import ControlPractice
from .method import Method, check_method

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "knowforge.methods"


BUILTIN_DISTRIBUTION = "knowforge"


@lru_cache(maxsize=1)
def _load() -> tuple[dict[str, Method], dict[str, str], dict[str, str]]:
    methods: dict[str, Method] = {}
    errors: dict[str, str] = {}
    origins: dict[str, str] = {}
    owners: dict[str, str] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        where = f"entry point {ep.name!r} ({ep.value})"
        if ep.name in methods and origins[ep.name] == ep.value:
            continue   # the same distribution seen twice on sys.path
        try:
            method = check_method(ep.load(), where)
        except Exception as exc:  # a broken plug-in must not break every command
            errors[ep.name] = f"{type(exc).__name__}: {exc}"
            log.warning("method %s failed to load: %s", where, exc)
            continue
        if method.name != ep.name:
            errors[ep.name] = f"{where} names its method {method.name!r}; the entry point must use the same name"
            continue
        if ep.name in methods:
            errors[ep.name] = (f"two entry points define method {ep.name!r}: {origins[ep.name]} and "
                               f"{ep.value}; uninstall one")
            continue
        try:
            _register_graph_side(method)
        except KnowforgeError as exc:
            errors[ep.name] = f"{where}: its graph side is refused: {exc}"
            log.warning("method %s: its graph side is refused: %s", where, exc)
            continue
        methods[ep.name] = method
        origins[ep.name] = ep.value
        owners[ep.name] = ep.dist.name if ep.dist is not None else "?"
    return dict(sorted(methods.items())), errors, owners


_REGISTERED: list[str] = []     # methods whose graph side kg.cypher holds (forgotten on refresh)


def _register_graph_side(method: Method) -> None:
    """Hand a method's Cypher package, labels and relationship types to ``kg.cypher``, and load
    every statement it ships now, so a statement that fails the static check refuses the method
    at load, named, rather than in the middle of a run."""
    if method.cypher is None and not method.labels and not method.relationship_types:
        return
    side = GraphSide(owner=method.name, package=method.cypher, labels=frozenset(method.labels),
                     relationship_types=frozenset(method.relationship_types))
    register_package(side)
    try:
        for name in list_statements():
            if name.startswith(f"{method.name}/") and method.cypher is not None:
                load_cypher(name)
    except KnowforgeError:
        unregister_package(method.name)
        raise
    except (ImportError, TypeError) as exc:      # the package named is not there
        unregister_package(method.name)
        raise ConfigError(f"cannot read Cypher package {method.cypher!r}: {exc}") from exc
    _REGISTERED.append(method.name)


def available() -> dict[str, Method]:
    """Every method that loaded, by name."""
    return dict(_load()[0])


def loaded() -> object:
    """The same object for as long as the loaded methods stay the same (until ``refresh``): a
    cheap check for caches built from them (``eval.registry``, asked once per scored sample)."""
    return _load()


def load_errors() -> dict[str, str]:
    """Methods whose entry point failed to load, with the reason."""
    return dict(_load()[1])


def distribution(name: str) -> str | None:
    """The distribution (pip package) that published method ``name``; None if none did."""
    return _load()[2].get(name)


def is_builtin(name: str) -> bool:
    """Whether method ``name`` is one of knowforge's own (published by knowforge's pyproject):
    on a name clash the built-in keeps its names and the plug-in is refused."""
    return distribution(name) == BUILTIN_DISTRIBUTION


def control_practices() -> dict[str, ControlPractice]:
    """The control-model practice each installed method declares, by method name."""
    return {name: m.control_practice for name, m in sorted(available().items()) if m.control_practice is not None}


def plugin_practices() -> list[str]:
    """The installed methods outside knowforge that declare a control-model practice: a control
    model's id names them, since they change what it is taught (knowforge's own are part of the
    version, as the rest of the training code is)."""
    return sorted(name for name in control_practices() if not is_builtin(name))


def get_method(name: str) -> Method:
    methods, errors, _ = _load()
    if name in methods:
        return methods[name]
    if name in errors:
        raise ConfigError(f"method {name!r} failed to load: {errors[name]}")
    known = ", ".join(methods) or "none"
    raise ConfigError(f"unknown method {name!r}; installed methods: {known} (knowforge methods lists them)")


def split_benchmark(benchmark: str) -> tuple[Method, str]:
    """``"knowgen:b1"`` → (the knowgen method, ``"b1"``)."""
    prefix, sep, name = benchmark.partition(":")
    if not sep or not name:
        raise ConfigError(f"{benchmark!r} is not METHOD:NAME (e.g. knowgen:demo); methods: "
                          f"{', '.join(available())}")
    return get_method(prefix), name


def refresh() -> None:
    """Forget loaded methods (after installing a plug-in in the same process; tests)."""
    _load.cache_clear()
    while _REGISTERED:
        unregister_package(_REGISTERED.pop())

"""Load named Cypher statements from ``cypher/`` and validate dynamic labels.

Statements are package data (``knowforge.cypher``); a name such as ``"store/upsert_facts"``
maps to ``cypher/store/upsert_facts.cypher``. A method from another package ships its own
statements: ``register_package(namespace, package)`` makes ``"<namespace>/<name>"`` resolve to
``<name>.cypher`` in that package, through the same loader, and every such statement passes
``check_statement`` when it is loaded (one statement, parameters only, no dynamic relationship
type, only labels and relationship types that knowforge writes or that its method declared). A label chosen at run time (an entity's domain
labels, an event slot's label) reaches Neo4j's dynamic-label syntax ``$(...)`` only after
``validate_label`` accepted it from the allow-list below. Relationship types are never
dynamic: every statement names its types (``tests/test_store.py`` checks both).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from knowforge.errors import CypherNotFound, UnsafeIdentifier

# Node labels knowforge may set dynamically (domain labels of entities, layers).
ALLOWED_LABELS = frozenset({
    "Entity", "Artificial", "Stub",
    # general domain (Wikidata)
    "Person", "Country", "City", "Club", "Company", "Organization", "Position", "League",
    "Building", "University", "Item",
    # other domains
    "Taxon", "Concept", "MathConcept", "CommonsenseConcept", "Term", "LegalProvision",
    # the lexical graph (WordNet)
    "Lemma", "Synset",
    "Class",
})

_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_NAME = re.compile(r"^[a-z0-9_]+(/[a-z0-9_]+)*$")


@dataclass(frozen=True)
class GraphSide:
    """What one method outside knowforge adds to the graph's vocabulary: its statements'
    package, and the node labels and relationship types it writes."""

    owner: str                                # the method's name, the namespace of its statements
    package: str | None = None                # an importable package holding its .cypher files
    labels: frozenset[str] = frozenset()
    relationship_types: frozenset[str] = frozenset()


_SIDES: dict[str, GraphSide] = {}


def register_package(side: GraphSide) -> None:
    """Add a method's statements, labels and relationship types; a ``ConfigError`` (nothing
    added) when its namespace is one of knowforge's statement folders or another method's, or
    when a label or type is not an identifier."""
    from knowforge.errors import ConfigError

    if not _NAME.match(side.owner) or "/" in side.owner:
        raise ConfigError(f"Cypher namespace {side.owner!r} must be a lower-case identifier")
    if side.package is not None and resources.files("knowforge.cypher").joinpath(side.owner).is_dir():
        raise ConfigError(f"Cypher namespace {side.owner!r} is a folder of knowforge's own statements; "
                          "a method outside knowforge needs another name")
    if side.owner in _SIDES and _SIDES[side.owner] != side:
        raise ConfigError(f"Cypher namespace {side.owner!r} is registered twice")
    for what, names in (("label", side.labels), ("relationship type", side.relationship_types)):
        for name in names:
            if not isinstance(name, str) or not _IDENT.match(name):
                raise ConfigError(f"method {side.owner!r}: {what} {name!r} is not an identifier")
    _SIDES[side.owner] = side
    load_cypher.cache_clear()
    _known_names.cache_clear()


def unregister_package(owner: str) -> None:
    """Forget a method's graph side (the method registry is refreshed; tests)."""
    if _SIDES.pop(owner, None) is not None:
        load_cypher.cache_clear()
        _known_names.cache_clear()


def allowed_labels() -> frozenset[str]:
    """The labels that may be set at run time: knowforge's and those the installed methods declare."""
    return ALLOWED_LABELS.union(*(side.labels for side in _SIDES.values()))


def validate_label(label: str) -> str:
    """Return ``label`` if it is an allowed node label, else raise UnsafeIdentifier."""
    allowed = allowed_labels()
    if not isinstance(label, str) or not _IDENT.match(label) or label not in allowed:
        raise UnsafeIdentifier(
            f"label {label!r} is not allowed; allowed labels: {', '.join(sorted(allowed))}")
    return label


def validate_relationship_type(name: str) -> str:
    """Return ``name`` if knowforge's statements or an installed method's declaration name this
    relationship type, else raise UnsafeIdentifier."""
    known = _known_names()[1].union(*(side.relationship_types for side in _SIDES.values()))
    if not isinstance(name, str) or not _IDENT.match(name) or name not in known:
        raise UnsafeIdentifier(f"relationship type {name!r} is not allowed; declare it in the method's "
                               "relationship_types")
    return name


def validate_labels(labels) -> list[str]:
    return [validate_label(label) for label in labels]


@lru_cache(maxsize=None)
def load_cypher(name: str) -> str:
    """Return the text of ``cypher/<name>.cypher``, or of a registered method's statement (cached)."""
    if not _NAME.match(name):
        raise CypherNotFound(f"invalid Cypher statement name {name!r}")
    namespace, _, rest = name.partition("/")
    side = _SIDES.get(namespace)
    if side is not None and side.package is not None and rest:
        path = resources.files(side.package).joinpath(*f"{rest}.cypher".split("/"))
        if not path.is_file():
            raise CypherNotFound(f"no Cypher statement named {name!r} (expected {rest}.cypher in package "
                                 f"{side.package})")
        text = path.read_text(encoding="utf-8")
        check_statement(name, text, side)
        return text
    path = resources.files("knowforge.cypher").joinpath(*f"{name}.cypher".split("/"))
    if not path.is_file():
        raise CypherNotFound(f"no Cypher statement named {name!r} (expected cypher/{name}.cypher)")
    return path.read_text(encoding="utf-8")


# A node pattern's labels "(n:A:B" / "(:A&B", a relationship pattern's types "[r:T|U" (string
# literals and comments are removed first). Label predicates in WHERE ("n:A") are not patterns
# and are not read; a statement can only write through patterns.
_NODE_LABELS = re.compile(r"\(\s*`?\w*`?\s*((?::\s*`?\w+`?\s*(?:[&|]\s*`?\w+`?\s*)*)+)")
_REL_TYPES = re.compile(r"\[\s*`?\w*`?\s*:\s*(`?\w+`?(?:\s*\|\s*:?`?\w+`?)*)")
_STRINGS = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def statement_code(text: str) -> str:
    """The statement without comments and string literals."""
    lines = [line.split("//", 1)[0] for line in text.splitlines()]
    return _STRINGS.sub("''", "\n".join(lines))


def pattern_names(text: str) -> tuple[set[str], set[str]]:
    """The node labels and relationship types a statement's patterns name."""
    code = statement_code(text)
    labels = {name.strip("` ") for found in _NODE_LABELS.findall(code) for name in re.split(r"[:&|]", found)
              if name.strip("` ")}
    types = {name.strip("` :") for found in _REL_TYPES.findall(code) for name in found.split("|")
             if name.strip("` :")}
    return labels, types


@lru_cache(maxsize=1)
def _known_names() -> tuple[frozenset[str], frozenset[str]]:
    """The labels and relationship types knowforge's own statements name."""
    labels, types = set(ALLOWED_LABELS), set()
    for name in _own_statements():
        found = pattern_names(load_cypher(name))
        labels |= found[0]
        types |= found[1]
    return frozenset(labels), frozenset(types)


def check_statement(name: str, text: str, side: GraphSide) -> None:
    """The static check of a method's statement: a ``CypherNotFound`` naming what is wrong.

    One statement; values only as ``$parameters`` (no dynamic label or relationship type: a
    method's labels are fixed in its files and declared); every label and relationship type its
    patterns name is knowforge's or declared by the method, so the allow-list covers what it writes.
    """
    code = statement_code(text)
    problems = []
    if split_statements(text) != [text.strip()] and len(split_statements(text)) != 1:
        problems.append("holds more than one statement")
    if "$(" in code or re.search(r"\$(any|all)\(", code):
        problems.append("sets a label or relationship type from a parameter; name it in the file and declare it")
    labels, types = pattern_names(text)
    known_labels, known_types = _known_names()
    unknown = sorted(labels - known_labels - side.labels)
    if unknown:
        problems.append(f"names labels its method does not declare: {', '.join(unknown)} (Method.labels)")
    unknown = sorted(types - known_types - side.relationship_types)
    if unknown:
        problems.append(f"names relationship types its method does not declare: {', '.join(unknown)} "
                        "(Method.relationship_types)")
    if problems:
        raise CypherNotFound(f"Cypher statement {name!r} is refused: {'; '.join(problems)}")


def split_statements(text: str) -> list[str]:
    """Split a multi-statement file (only ``schema.cypher``) on ``;`` at line ends.

    Comment lines (``//``) are dropped first so a semicolon inside a comment cannot split.
    """
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith("//")]
    parts = re.split(r";\s*(?:\n|$)", "\n".join(lines))
    return [p.strip() for p in parts if p.strip()]


def list_statements() -> list[str]:
    """Every statement name: under ``cypher/`` and in each registered method's package (the
    EXPLAIN-everything test runs them all)."""
    names = list(_own_statements())
    for side in _SIDES.values():
        if side.package is not None:
            names += [f"{side.owner}/{n}" for n in _walk(resources.files(side.package))]
    return sorted(names)


@lru_cache(maxsize=1)
def _own_statements() -> tuple[str, ...]:
    return tuple(_walk(resources.files("knowforge.cypher")))


def _walk(root) -> list[str]:
    names: list[str] = []

    def walk(node, prefix: str) -> None:
        for child in node.iterdir():
            if child.is_dir():
                walk(child, f"{prefix}{child.name}/")
            elif child.name.endswith(".cypher"):
                names.append(prefix + child.name[: -len(".cypher")])

    walk(root, "")
    return sorted(names)

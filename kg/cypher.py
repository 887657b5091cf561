"""Load named Cypher statements from ``cypher/`` and validate dynamic labels.

Statements are package data (``knowforge.cypher``); a name such as ``"store/upsert_facts"``
maps to ``cypher/store/upsert_facts.cypher``. A label chosen at run time (an entity's domain
labels, an event slot's label) reaches Neo4j's dynamic-label syntax ``$(...)`` only after
``validate_label`` accepted it from the allow-list below. Relationship types are never
dynamic: every statement names its types (``tests/test_store.py`` checks both).
"""

from __future__ import annotations

import re
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


def validate_label(label: str) -> str:
    """Return ``label`` if it is an allowed node label, else raise UnsafeIdentifier."""
    if not isinstance(label, str) or not _IDENT.match(label) or label not in ALLOWED_LABELS:
        raise UnsafeIdentifier(
            f"label {label!r} is not allowed; allowed labels: {', '.join(sorted(ALLOWED_LABELS))}")
    return label


def validate_labels(labels) -> list[str]:
    return [validate_label(label) for label in labels]


@lru_cache(maxsize=None)
def load_cypher(name: str) -> str:
    """Return the text of ``cypher/<name>.cypher`` (cached)."""
    if not _NAME.match(name):
        raise CypherNotFound(f"invalid Cypher statement name {name!r}")
    path = resources.files("knowforge.cypher").joinpath(*f"{name}.cypher".split("/"))
    if not path.is_file():
        raise CypherNotFound(f"no Cypher statement named {name!r} (expected cypher/{name}.cypher)")
    return path.read_text(encoding="utf-8")


def split_statements(text: str) -> list[str]:
    """Split a multi-statement file (only ``schema.cypher``) on ``;`` at line ends.

    Comment lines (``//``) are dropped first so a semicolon inside a comment cannot split.
    """
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith("//")]
    parts = re.split(r";\s*(?:\n|$)", "\n".join(lines))
    return [p.strip() for p in parts if p.strip()]


def list_statements() -> list[str]:
    """Every statement name under ``cypher/`` (used by the EXPLAIN-everything test)."""
    root = resources.files("knowforge.cypher")
    names: list[str] = []

    def walk(node, prefix: str) -> None:
        for child in node.iterdir():
            if child.is_dir():
                walk(child, f"{prefix}{child.name}/")
            elif child.name.endswith(".cypher"):
                names.append(prefix + child.name[: -len(".cypher")])

    walk(root, "")
    return sorted(names)

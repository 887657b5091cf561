"""A digest of a whole graph: every node (id, labels, properties) and every relationship
(start id, type, end id, properties), in a canonical form, hashed.

Two loads of the same input by different paths (the UNWIND writer, ``neo4j-admin database
import``) must give the same digest. ``graph_lines`` yields the canonical lines so that a
test can show the first difference instead of two hashes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

from knowforge.kg.store import Store


def _canonical(value):
    if isinstance(value, float):
        return {"float": repr(value)}  # 1.0 and 1 are different property values
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in sorted(value.items())}
    return value


def graph_lines(store: Store) -> Iterator[str]:
    """Canonical JSON lines: nodes in id order, then relationships in (start, type, end) order."""
    for row in store.stream("stats/graph_nodes"):
        yield json.dumps(["node", row["id"], sorted(row["labels"]), _canonical(row["props"])],
                         ensure_ascii=False, separators=(",", ":"))
    for row in store.stream("stats/graph_relationships"):
        yield json.dumps(["rel", row["start"], row["type"], row["end"], _canonical(row["props"])],
                         ensure_ascii=False, separators=(",", ":"))


def graph_digest(store: Store) -> str:
    """SHA-256 of ``graph_lines``."""
    h = hashlib.sha256()
    for line in graph_lines(store):
        h.update(line.encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()

"""The Neo4j driver, imported without pandas and pyarrow.

``import neo4j`` imports pandas and pyarrow whenever they are installed (``neo4j._optional_deps``),
for DataFrame results and pandas-typed query parameters. knowforge uses neither, yet with the
``datasets`` dependency installed both are always there, and they were about two thirds of the
driver's import: about 1 CPU second of every graph command's start-up (benchmarks/RESULTS.md,
"CLI start-up"). Every module of knowforge that needs the driver imports it from here.

The driver is imported with the two names blocked and the block lifted right after, so a later
``import pandas`` (``datasets``, Spark) works as always; ``Result.to_df`` imports pandas itself
and still works. Only pandas and pyarrow values passed as query parameters are refused by the
driver, as when they are not installed. When either was imported before the driver, nothing is
blocked and the driver sees it, as it would anyway.
"""

from __future__ import annotations

import sys

_SKIPPED = ("pandas", "pyarrow")


def _import_driver():
    if "neo4j" in sys.modules:
        import neo4j

        return neo4j
    blocked = [name for name in _SKIPPED if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None        # `import name` raises ImportError, which the driver expects
    try:
        import neo4j
    finally:
        for name in blocked:
            if sys.modules.get(name, ...) is None:
                del sys.modules[name]
    return neo4j


neo4j = _import_driver()

__all__ = ["neo4j"]

"""knowforge: benchmarks of new, changing and long-tail knowledge, built from one Neo4j graph.

The importable layers live in top-level folders of the repository and are installed as
``knowforge.kg``, ``knowforge.generators``, ``knowforge.eval`` and ``knowforge.cypher``.
"""

__version__ = "0.1.0"

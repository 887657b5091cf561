"""Every Cypher statement knowforge runs, one statement per ``.cypher`` file.

Python loads them by name with :func:`knowforge.kg.cypher.load_cypher`; nothing builds
Cypher by concatenating strings.
"""

"""Bulk paths past the UNWIND writer: CSV files in the layout of ``neo4j-admin database
import`` (``layout.py``), running that import against the managed server
(``admin_import.py``), and a digest of a whole graph to compare two loads (``digest.py``)."""

"""pytest plugin for benchmarks/plan_counts.py: the test session server's query statistics.

At the session's start it asks the server to collect every query's invocations
(``db.stats.collect('QUERIES')``: compile and execution time of each, the last 100 per query
and plan), and at its end writes what was collected (``db.stats.retrieve``) to
``$PLAN_COUNTS_OUT-<xdist worker or "solo">.json``.
"""

from __future__ import annotations

import json
import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _collect_query_stats(session_store):
    with session_store.driver.session(database=session_store.database) as session:
        session.run("CALL db.stats.clear('QUERIES')").consume()
        session.run("CALL db.stats.collect('QUERIES', {durationSeconds: 86400})").consume()
    yield
    with session_store.driver.session(database=session_store.database) as session:
        rows = session.run("CALL db.stats.retrieve('QUERIES') YIELD data RETURN data").data()
    out = f"{os.environ['PLAN_COUNTS_OUT']}-{os.environ.get('PYTEST_XDIST_WORKER', 'solo')}.json"
    with open(out, "w", encoding="utf-8") as fh:
        json.dump([row["data"] for row in rows], fh, default=str)

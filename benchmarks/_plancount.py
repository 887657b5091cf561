"""pytest plugin for benchmarks/plan_counts.py: the test session server's query statistics.

At the session's start it asks the server to collect every query's invocations
(``db.stats.collect('QUERIES')``: compile and execution time of each, the last 100 per query
and plan), and at its end writes those that started during the session (the collector also
hands over queries it saw before) to ``$PLAN_COUNTS_OUT-<xdist worker or "solo">.json``.
"""

from __future__ import annotations

import json
import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _collect_query_stats(request, session_store):
    with session_store.driver.session(database=session_store.database) as session:
        session.run("CALL db.stats.collect('QUERIES', {durationSeconds: 86400})").consume()
        since = session.run("RETURN datetime.realtime().epochMillis AS t").single()["t"]
    yield
    with session_store.driver.session(database=session_store.database) as session:
        rows = session.run("CALL db.stats.retrieve('QUERIES') YIELD data RETURN data").data()
    kept = []
    for row in rows:
        data = row["data"]
        data["invocations"] = [i for i in data["invocations"] if i["startTimestampMillis"] >= since]
        if data["invocations"]:
            kept.append(data)
    # a pytest run inside an xdist worker's test inherits PYTEST_XDIST_WORKER: ask xdist itself
    worker = getattr(request.config, "workerinput", {}).get("workerid", "solo")
    with open(f"{os.environ['PLAN_COUNTS_OUT']}-{worker}.json", "w", encoding="utf-8") as fh:
        json.dump(kept, fh, default=str)

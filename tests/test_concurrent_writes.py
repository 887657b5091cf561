"""Two loads and one evaluation at once on one graph (issue 36, item 6) give the graph the
serial run gives: the same fingerprint (counts and a hash of every node and relationship), up
to what differs between any two runs of an evaluation (its run id, times and durations)."""

from __future__ import annotations

import json
import re
import threading

from conftest import wipe
from scripted_openai import ScriptedCompletions, serving
from test_release_hostile import Fingerprint, fingerprint

from knowforge import workflow
from knowforge.eval.types import EvalOptions
from knowforge.kg.loaders.registry import load_source
from knowforge.kg.loaders.samples import samples_dir

# properties that differ between two runs of one evaluation whatever the graph holds
VOLATILE = re.compile(r"(_at|seconds|duration|elapsed|time|timing|git|version|host|out_dir|report|path|dir)$|^run_id$")


class Echo(ScriptedCompletions):
    calls: list[str] = []

    def reply(self, prompt: str) -> str:
        return "Paris" if "France" in prompt else "Rome"


def canonical(store) -> Fingerprint:
    """``fingerprint`` after run ids become ``<run>`` and volatile properties are left out."""
    runs = [r["id"] for r in store.user_query("MATCH (r:Run) RETURN r.id AS id")]

    def clean(value):
        if isinstance(value, str):
            for run in runs:
                value = value.replace(run, "<run>")
        return value

    with store.driver.session(database=store.database) as session:
        for row in session.run("MATCH (n) RETURN elementId(n) AS id, properties(n) AS p").data():
            kept = {k: clean(v) for k, v in row["p"].items() if not VOLATILE.search(k)}
            if kept != row["p"]:
                session.run("MATCH (n) WHERE elementId(n) = $id SET n = $p", id=row["id"], p=kept).consume()
        for row in session.run("MATCH ()-[r]->() RETURN elementId(r) AS id, properties(r) AS p").data():
            kept = {k: clean(v) for k, v in row["p"].items() if not VOLATILE.search(k)}
            if kept != row["p"]:
                session.run("MATCH ()-[r]->() WHERE elementId(r) = $id SET r = $p", id=row["id"], p=kept).consume()
    return fingerprint(store)


def test_two_loads_and_an_eval_at_once_give_the_serial_graph(store, tmp_path):
    items = tmp_path / "capitals.jsonl"
    items.write_text("".join(json.dumps({
        "id": f"file:capitals:{i}", "benchmark": "file:capitals", "task": "file/capitals", "form": "generation",
        "question": f"What is the capital of {'France' if i % 2 else 'Italy'} ({i})?",
        "answers": ["Paris" if i % 2 else "Rome"]}) + "\n" for i in range(24)), encoding="utf-8")
    with serving(Echo) as url:
        options = EvalOptions(backend="openai", model="echo", base_url=url, cache=False, out_dir=tmp_path / "runs",
                              concurrency=8)
        steps = [lambda: load_source(store, "taxonomy", [samples_dir() / "taxonomy"]),
                 lambda: load_source(store, "mathkg", [samples_dir() / "mathkg"]),
                 lambda: workflow.evaluate_file(store, items, options)]
        for step in steps:
            step()
        serial = canonical(store)
        wipe(store)
        failures: list[BaseException] = []

        def run(step):
            try:
                step()
            except BaseException as exc:  # noqa: BLE001 (reported below)
                failures.append(exc)

        threads = [threading.Thread(target=run, args=(step,)) for step in steps]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not failures, failures
    together = canonical(store)
    assert serial.nodes > 100 and together == serial, serial.difference(together)

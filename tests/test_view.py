"""`knowforge view` over HTTP, against a real Neo4j holding one run (or more) of every method.

The viewer is served by uvicorn on 127.0.0.1 in the test process and asked with plain HTTP; the
numbers it shows are checked against the answers in the graph; it writes nothing.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import markupsafe
import pytest
from click.testing import CliRunner

from browser import Tab, launch_chromium
from conftest import wipe
from knowforge import methods
from knowforge.cli.main import cli
from knowforge.eval.stats import mean_stderr, normal_ci
from knowforge.kg.cypher import load_cypher
from knowforge.models.method import Method
from knowforge.models.view import Mark, MethodView, ViewParam, check_view
from knowforge.view.app import build_app
from knowforge.view.graphs import declared_views, graph_elements
from knowforge.view.numbers import Estimate, pooled
from knowforge.view.samples import SampleFilters, samples_page
from knowforge.view.server import bind
from view_graph import build_view_graph

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("chrono", "events", "knowgen", "link", "newterm")


@pytest.fixture(scope="module")
def view_graph(session_store, neo4j_server, tmp_path_factory):
    """The graph of tests/view_graph.py, built once for this module (no test here wipes it)."""
    _, settings = neo4j_server
    tmp = tmp_path_factory.mktemp("view-graph")
    with pytest.MonkeyPatch.context() as env:
        for key, value in (("NEO4J_URI", settings.uri), ("NEO4J_USER", settings.user),
                           ("NEO4J_PASSWORD", settings.password), ("OPENAI_API_KEY", "test"),
                           ("KNOWFORGE_CACHE_DIR", str(tmp / "kf-cache"))):
            env.setenv(key, value)
        wipe(session_store)
        yield build_view_graph(session_store, tmp)


@contextlib.contextmanager
def serving_viewer(store, **options):
    """The viewer on a free port of 127.0.0.1 in a thread; yields (base URL, socket)."""
    import uvicorn

    sock = bind(0)
    server = uvicorn.Server(uvicorn.Config(build_app(store, **options), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the viewer did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", sock
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@pytest.fixture(scope="module")
def viewer(view_graph, session_store):
    with serving_viewer(session_store) as (base, _):
        yield base


def fetch(base: str, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(base + path, timeout=120) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


def links(body: str) -> list[str]:
    """The pages and plots a page points at (not its stylesheet and scripts)."""
    found = re.findall(r'href="(/[^"]*)"', body) + re.findall(r'<img src="(/[^"]*)"', body)
    return [html.unescape(h) for h in found if not h.startswith("/static")]


def esc(text: str) -> str:
    """``text`` as the pages escape it (Jinja's autoescape)."""
    return str(markupsafe.escape(text))


def q(value: str) -> str:
    return urllib.parse.quote(value, safe="")


# --- every page answers ---------------------------------------------------------------------------------
def page_kind(path: str) -> str:
    """What a crawl counts a page as: run pages per run (and filtered sample lists apart from the
    plain one), method views per method, everything else by its first segment."""
    route, _, query = path.partition("?")
    parts = route.strip("/").split("/")
    if parts[0] == "runs" and len(parts) > 2:
        return f"{parts[2]}{'?' if query and parts[2] == 'samples' else ''}:{parts[1]}"
    if parts[0] == "view":
        return "/".join(parts[:2])
    return parts[0] or "runs-index"


# an accuracy as the estimate macro prints it: an unsigned number, then its interval
ACCURACY_CI = re.compile(r'<span class="num">\d[\d.]*</span> <span class="ci">\[(-?[\d.]+), (-?[\d.]+)\]</span>')
LIMITS = {"sample": 3, "samples?": 3, "plots": 2, "view": 3, "entity": 6, "compare": 3}


def test_every_page_answers_200(view_graph, viewer, session_store):
    """Follow the links from the runs page (a few of each kind, every run's pages): all answer
    200, and every method's view is reached from a sample page of its run."""
    counts = "MATCH (n) RETURN count(n) AS nodes, COUNT { ()-->() } AS edges"
    before = session_store.user_query(counts)
    queue = ["/", "/views"]
    seen, per_kind, failed, raw, out_of_range, checked = set(), Counter(), [], [], [], 0
    while queue:
        path = queue.pop(0)
        kind = page_kind(path)
        if path in seen or per_kind[kind] >= LIMITS.get(kind.split(":")[0].split("/")[0], 50):
            continue
        seen.add(path)
        per_kind[kind] += 1
        status, body = fetch(viewer, path)
        if status != 200:
            failed.append((status, path, body[:300]))
        elif not path.endswith((".png", ".svg")):
            queue += links(body)
            # what a report holds is drawn, never shown as its source: no Markdown table, no dict repr
            text = html.unescape(body)
            if "|---|" in text or "{'" in text:
                raw.append(path)
            # an accuracy (unsigned; a difference is printed with its sign) never has a bound
            # outside [0, 100], the per-sample normal interval's "[-7.4, 22.8]" of a small run
            for low, high in ACCURACY_CI.findall(body):
                checked += 1
                if not 0.0 <= float(low) <= float(high) <= 100.0:
                    out_of_range.append((path, low, high))
    assert failed == []
    assert raw == [], f"pages showing Markdown table source or a Python dict: {raw}"
    assert out_of_range == [], f"accuracy intervals outside [0, 100]: {out_of_range}"
    assert checked >= 10, checked              # the pattern still finds the pages' accuracies
    for method in METHODS:
        assert per_kind[f"view/{method}"] >= 1, f"no page of {method}'s view was reached from its samples"
        for run in view_graph.runs[method]:
            for page in (f"/runs/{run}", f"/runs/{run}/samples"):
                assert page in seen, page
            assert per_kind[f"sample:{run}"] >= 1
    kinds = {k.split(":")[0] for k in per_kind}
    assert {"runs-index", "views", "entity", "plots", "compare", "samples?"} <= kinds, kinds
    assert session_store.user_query(counts) == before        # read-only: the crawl changed nothing


def test_each_method_view_draws_its_marks(view_graph, viewer):
    for method, key in view_graph.keys.items():
        declared = next(d for d in declared_views().views if d.method == method)
        params = "&run=" + view_graph.runs[method][-1] if declared.view.param("run") else ""
        status, body = fetch(viewer, f"{declared.path}?key={q(key)}{params}")
        assert status == 200, (method, body[:500])
        elements = re.search(r'<script type="application/json" id="graph-elements">(.*?)</script>', body, re.S)
        drawn = json.loads(elements.group(1))
        kinds = {e["data"]["kind"] for e in drawn}
        nodes = [e for e in drawn if e["group"] == "nodes"]
        assert nodes, method
        declared_kinds = {m.kind for m in declared.view.node_marks + declared.view.edge_marks}
        assert kinds <= declared_kinds, (method, kinds - declared_kinds)    # every kind has a legend entry
        for mark in declared.view.node_marks:
            assert esc(mark.label) in body                             # the legend
        expected = {"knowgen": {"artificial", "parent", "heredity"}, "events": {"event", "asserted", "retracted",
                    "candidate"}, "link": {"conclusion", "graph", "assumption"},
                    "chrono": {"subject", "gold", "said", "next"}, "newterm": {"term", "meaning", "synonym", "kept"}}
        assert expected[method] <= kinds, (method, kinds)


def test_hops_change_the_ripple_and_bad_parameters_say_which(view_graph, viewer):
    key = q(view_graph.keys["events"])
    sizes = []
    for hops in (1, 2):
        status, body = fetch(viewer, f"/view/events/ripple?key={key}&hops={hops}")
        assert status == 200
        sizes.append(int(re.search(r'data-nodes="(\d+)"', body).group(1)))
    assert sizes[0] < sizes[1]
    status, body = fetch(viewer, f"/view/events/ripple?key={key}&hops=9")
    assert status == 400 and "hops=9 is outside 1..3" in body
    status, body = fetch(viewer, f"/view/events/ripple?key={key}&hops=two")
    assert status == 400 and "hops=&#39;two&#39; is not a whole number" in body
    status, body = fetch(viewer, "/view/events/ripple?key=ev%3Anope")
    assert status == 404 and "found no event &#39;ev:nope&#39;" in body
    status, body = fetch(viewer, f"/view/chrono/timeline?key={q(view_graph.keys['chrono'])}&run=run-nope")
    assert status == 404 and "run-nope" in body
    status, body = fetch(viewer, "/view/nomethod/none?key=x")
    assert status == 404 and "no view nomethod/none" in body


def _drawn(body: str) -> list[dict]:
    return json.loads(re.search(r'<script type="application/json" id="graph-elements">(.*?)</script>', body,
                                re.S).group(1))


def test_the_ripple_view_draws_what_knowforge_ripple_walks_in_columns(view_graph, viewer, session_store):
    """The ripple view's facts are those of ``knowforge ripple EVENT --hops K`` (the same function,
    kg/ripple.py), each once; its layout is placed, not forced: the event, then the slots, then
    the other entities of the edits, then one column per hop, no two nodes in one place."""
    from knowforge.generators.events.view import COLUMN
    from knowforge.kg.relations import labelled
    from knowforge.kg.ripple import ripple_event

    key = view_graph.keys["events"]
    for hops in (1, 2):
        status, body = fetch(viewer, f"/view/events/ripple?key={q(key)}&hops={hops}")
        assert status == 200
        drawn = _drawn(body)
        report = ripple_event(session_store, key, hops)
        facts = [f for _, f in report.edited] + [r.fact for r in report.facts]
        expected = {(f.subject_id, f.object_id or f"value:{f.fact_id}", labelled(f.relation, f.relation_label))
                    for f in facts}
        edges = [e["data"] for e in drawn if e["group"] == "edges" and e["data"]["kind"] != "slot"]
        assert {(e["source"], e["target"], e["label"]) for e in edges} == expected
        assert len(edges) == len(facts)                          # each fact once
        kinds = Counter(e["kind"] for e in edges)
        assert kinds["candidate"] == len(report.candidates) and kinds["declared"] == len(report.declared)
        nodes = {e["data"]["id"]: e for e in drawn if e["group"] == "nodes"}
        assert all("position" in n for n in nodes.values())
        places = [(n["position"]["x"], n["position"]["y"]) for n in nodes.values()]
        assert len(set(places)) == len(places)
        assert nodes[f"event:{key}"]["position"]["x"] == 0
        slots = [n for n in nodes.values() if n["data"]["kind"] == "slot"]
        assert slots and all(n["position"]["x"] == COLUMN for n in slots)
        walked = {f.fact.subject_id for f in report.facts} | {f.fact.object_id for f in report.facts if f.fact.object_id}
        others = [n for i, n in nodes.items() if i in walked and n["data"]["kind"] not in ("slot", "event")]
        assert others and all(n["position"]["x"] >= 2 * COLUMN for n in others)     # candidates apart from slots
    # the same event draws the same picture
    assert _drawn(fetch(viewer, f"/view/events/ripple?key={q(key)}&hops=2")[1]) == drawn


def test_views_page_offers_the_ids_that_exist(view_graph, viewer, session_store):
    status, body = fetch(viewer, "/views")
    assert status == 200
    for declared in declared_views().views:
        name = f"{declared.method}-{declared.view.name}"
        assert f'list="{name}-key"' in body, name
        offered = re.search(rf'<datalist id="{name}-key"[^>]*>(.*?)</datalist>', body, re.S).group(1)
        ids = [html.unescape(v) for v in re.findall(r'<option value="([^"]*)"', offered)]
        assert view_graph.keys[declared.method] in ids and ids == sorted(ids), name
        for key in ids[:2]:                                  # every offered id opens its view
            assert fetch(viewer, f"{declared.path}?key={q(key)}")[0] == 200, (name, key)
        if declared.view.param("run"):
            runs = re.search(rf'<datalist id="{name}-run"[^>]*>(.*?)</datalist>', body, re.S).group(1)
            assert set(view_graph.runs[declared.method]) <= {html.unescape(v) for v in
                                                             re.findall(r'<option value="([^"]*)"', runs)}
    events = session_store.user_query("MATCH (e:Event) RETURN count(e) AS n")[0]["n"]
    assert f'<datalist id="events-ripple-key" data-offered="{events}">' in body


def test_the_timeline_says_how_many_answers_it_does_not_list(view_graph, viewer, session_store):
    run = view_graph.runs["chrono"][0]
    key = view_graph.keys["chrono"]
    status, body = fetch(viewer, f"/view/chrono/timeline?key={q(key)}&run={run}")
    assert status == 200
    samples = session_store.user_query(
        "MATCH (q:Question)-[:PART_OF]->(:ChronoRecord {id: $key}) MATCH (:Run {id: $run})-[:GAVE]->(a)-[:ANSWERS]->(q) "
        "RETURN q.id AS q, count(a) AS n ORDER BY q LIMIT 1", {"key": key, "run": run})[0]["n"]
    assert samples > 5, "the ChroKnow run asks each question more than five times"
    assert f"… and {samples - 5} more" in html.unescape(body)
    # the id the validity report prints for a record (its benchmark, then the record's own id) is
    # the id this form takes
    [row] = session_store.user_query("MATCH (q:Question)-[:PART_OF]->(:ChronoRecord {id: $key}) "
                                     "RETURN q.benchmark AS b, q.metadata_json AS m LIMIT 1", {"key": key})
    assert f"{row['b']}:{json.loads(row['m'])['record_id']}" == key


def test_bad_run_id_gives_a_404_page_naming_it(viewer):
    for path in ("/runs/run-nope", "/runs/run-nope/numbers", "/runs/run-nope/samples", "/runs/run-nope/sample?q=x&i=0",
                 "/runs/run-nope/plots/accuracy_by_task.svg", "/compare?run=run-nope&run=run-other"):
        status, body = fetch(viewer, path)
        assert status == 404, path
        assert "run &#39;run-nope&#39;" in body and "<h1>404" in body, path
    status, body = fetch(viewer, "/no/such/page")
    assert status == 404 and "no page at /no/such/page" in body
    status, body = fetch(viewer, "/entity?id=Qnope")
    assert status == 404 and "no entity &#39;Qnope&#39;" in body


# --- a run's numbers ---------------------------------------------------------------------------------
def test_runs_page_shows_every_run_with_its_interval_and_filters(view_graph, viewer, session_store):
    status, body = fetch(viewer, "/")
    assert status == 200
    for run in (r for rs in view_graph.runs.values() for r in rs):
        assert f'href="/runs/{run}"' in body
    run = view_graph.runs["knowgen"][0]
    scores = [r["s"] for r in session_store.user_query(
        "MATCH (:Run {id: $id})-[:GAVE]->(a:Answer) RETURN a.score AS s", {"id": run})]
    row = re.search(rf'value="{run}".*?</tr>', body, re.S).group(0)
    assert f"{100 * statistics.fmean(scores):.1f}" in row
    # a KnowGen run's samples are clustered by entity: a per-sample interval would understate its
    # uncertainty, so the table shows none (its page shows the report's cluster interval)
    [record] = session_store.user_query("MATCH (r:Run {id: $id}) RETURN r.cluster_key AS key", {"id": run})
    assert record["key"] and 'class="ci"' not in row
    for column in ("model", "benchmark", "method", "solver", "scoring", "items", "date", "accuracy"):
        assert f">{column}" in body
    status, body = fetch(viewer, "/?benchmark=knowgen%3Av")
    assert body.count('class="run-link"') == len(view_graph.runs["knowgen"])
    status, body = fetch(viewer, "/?model=nobody")
    assert status == 200 and 'class="run-link"' not in body and "No runs match these filters" in body


def test_run_page_tasks_slices_report_and_plots(view_graph, viewer, session_store):
    run = view_graph.runs["chrono"][0]
    status, body = fetch(viewer, f"/runs/{run}")
    assert status == 200
    rows = session_store.user_query(
        "MATCH (:Run {id: $id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question) RETURN q.task AS task, "
        "a.score AS score, q.slice_year AS year", {"id": run})
    for task in {r["task"] for r in rows}:
        scores = [r["score"] for r in rows if r["task"] == task]
        assert f">{task}</a>" in body
        assert f"{100 * statistics.fmean(scores):.1f}" in body
    assert "<h2>By year</h2>" in body                                         # a slice table
    years = {r["year"] for r in rows}
    assert all(f"slice=year&amp;value={y}" in body for y in years)
    assert "Chronological categories" in body and "(from the run's report)" in body   # the report's tables
    # ChroKnow's samples are clustered by record: the headline and task intervals are the report's
    # cluster intervals, never the per-sample ones of the graph's moments
    [record] = session_store.user_query("MATCH (r:Run {id: $id}) RETURN r.report_dir AS dir", {"id": run})
    report = json.loads((Path(record["dir"]) / "report.json").read_text())
    headline = re.search(r'<p class="headline" id="headline">.*?</p>', body, re.S).group(0)
    shown = [report["overall"].get("ci")] + [e.get("ci") for e in report["by_task"].values()]
    for ci in filter(None, shown):
        low, high = (min(max(v, 0.0), 1.0) for v in ci)
        assert f"[{100 * low:.1f}, {100 * high:.1f}]" in body.replace("-0.0", "0.0")
    if not report["overall"].get("ci"):           # too few records for one: none, rather than a per-sample one
        assert 'class="ci"' not in headline
    assert "over record_id units" in body or "over record units" in body
    scores = [r["score"] for r in rows]
    per_sample = normal_ci(statistics.fmean(scores), mean_stderr(scores))
    assert f"[{100 * per_sample[0]:.1f}, {100 * per_sample[1]:.1f}]" not in headline
    plots = re.findall(rf'src="/runs/{run}/plots/([^"]+\.svg)"', body)
    assert "accuracy_by_task.svg" in plots
    with urllib.request.urlopen(f"{viewer}/runs/{run}/plots/accuracy_by_task.svg") as response:
        assert response.headers["content-type"].startswith("image/svg+xml")
        assert ET.fromstring(response.read()).tag == "{http://www.w3.org/2000/svg}svg"
    status, _ = fetch(viewer, f"/runs/{run}/plots/..%2F..%2Freport.json")
    assert status == 404


def test_a_large_run_opens_at_once_and_its_page_fetches_the_numbers(view_graph, session_store):
    """Past ``inline_answers`` a run page carries no numbers but where to fetch them; they are
    the same numbers the small-run page shows."""
    run = view_graph.runs["chrono"][0]
    with serving_viewer(session_store) as (base, _):
        _, inline = fetch(base, f"/runs/{run}")
    with serving_viewer(session_store, inline_answers=0) as (base, _):
        status, page = fetch(base, f"/runs/{run}")
        assert status == 200 and f'data-numbers="/runs/{run}/numbers?fragment=1"' in page
        assert "<h2>By task</h2>" not in page and "/static/numbers.js" in page
        status, fragment = fetch(base, f"/runs/{run}/numbers?fragment=1")
        assert status == 200 and "<html" not in fragment
        status, alone = fetch(base, f"/runs/{run}/numbers")
        assert status == 200 and "<html" in alone
    numbers = re.search(r'<div class="numbers" id="numbers" data-loaded="1">.*?</div>\s*$', fragment, re.S).group(0)
    assert numbers in inline and numbers in alone and "<h2>By task</h2>" in numbers


def test_estimates_from_moments_equal_mean_stderr():
    """The viewer's intervals come from (n, mean, sample sd) in Cypher; they equal lm-eval's
    formula on the scores themselves, also when groups are pooled."""
    groups = [[1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.5, 1.0, 0.25, 0.0, 1.0]]
    for values in groups + [sum(groups, [])]:
        direct = Estimate.from_values(values)
        moments = Estimate.from_moments(len(values), statistics.fmean(values), statistics.stdev(values))
        assert moments.stderr == pytest.approx(mean_stderr(values)) == pytest.approx(direct.stderr)
        assert (moments.low, moments.high) == pytest.approx(normal_ci(direct.mean, direct.stderr))
    n, mean, sd = pooled([(len(v), statistics.fmean(v), statistics.stdev(v)) for v in groups])
    everything = sum(groups, [])
    assert (n, mean, sd) == (len(everything), pytest.approx(statistics.fmean(everything)),
                             pytest.approx(statistics.stdev(everything)))
    one = Estimate.from_moments(1, 1.0, 0.0)
    assert one.stderr is None and one.low is None               # undefined below two values, as mean_stderr


def test_report_sections_are_drawn_as_tables_headings_and_text():
    """A report section's Markdown becomes tables (header and rows, the separator dropped),
    headings and paragraphs; rows keep their columns' order; balanced accuracy is in % with
    its clipped interval and method, not a dict."""
    from knowforge.view.runs import balanced_accuracy_rows, markdown_blocks, section_blocks

    blocks = markdown_blocks("## Spans\n\nHow far each span moved.\n\n| span | moved | of |\n|---|---:|---|\n"
                             "| previous | 12 | 40 |\n| total | 9 | 40 |\n```\nx\n```")
    assert [b.kind for b in blocks] == ["heading", "text", "table", "text"]
    table = blocks[2]
    assert table.columns == ("span", "moved", "of") and table.rows[1] == {"span": "total", "moved": "9", "of": "40"}
    [rows] = section_blocks([{"task": "t", "z": 1, "a": 2}])
    assert rows.columns == ("task", "z", "a")
    assert [b.kind for b in section_blocks({"rows": [{"a": 1}], "note": "why"})] == ["table", "text"]
    assert section_blocks({"x": {"y": 1}})[0].kind == "json"
    [row] = balanced_accuracy_rows({"link/probe": {"value": 0.48, "ci": [-0.01, 0.6], "ci_method": "bootstrap",
                                                   "units": 12}})
    assert row == {"task": "link/probe", "balanced accuracy %": "48.0", "95% interval": "[0.0, 60.0]",
                   "interval": "bootstrap over 12 units"}
    from knowforge.view.app import cell
    assert cell({"value": 0.5, "ci": [0.4, 0.6]}) == "0.5 [0.4, 0.6]" and "{" not in cell({"a": {"b": 1}})


def test_compare_shows_task_metrics_as_the_run_pages_do():
    """A task metric on the compare page: a share in % with the run's own interval (clipped to a
    share's range), a number of another scale with its unit, the difference in points; a task
    the run has no items of gives no row; a run recorded before intervals shows the value alone."""
    from knowforge.view.compare import task_metrics

    values = [{"task": "e/fact", "metric": "edit_reliability.question_level", "value": 0.25, "ci": [0.1, 0.4],
               "ci_method": "bootstrap", "unit": "event_id", "units": 12},
              {"task": "e/fact", "metric": "gap", "value": -0.2, "ci": [-1.3, 0.1]},
              {"task": "e/fact", "metric": "tendency_level", "value": 2.13, "ci": [1.9, 2.4], "scale": "years"},
              {"task": "e/empty", "metric": "accuracy", "value": 0.0, "ci": None}]
    run = {"task_metric_values": json.dumps(values), "task_sizes": json.dumps({"e/fact": 8, "e/empty": 0})}
    shown = task_metrics(run, None)
    assert set(shown) == {("e/fact", "edit_reliability.question_level"), ("e/fact", "gap"),
                          ("e/fact", "tendency_level")}
    share = shown[("e/fact", "edit_reliability.question_level")]
    assert share.text() == "25.0 [10.0, 40.0]" and share.method == "bootstrap over 12 event_id units"
    assert shown[("e/fact", "gap")].text() == "-20.0 [-100.0, 10.0]"
    assert shown[("e/fact", "tendency_level")].text() == "2.13 [1.9, 2.4] years"
    assert share.minus(shown[("e/fact", "gap")]) == "+45.0"
    old = task_metrics({}, {"extra": {"Task metrics": [{"task": "t", "metric": "accuracy", "value": 0.5,
                                                         "ci": [0.2, 0.8]}]}})
    assert old[("t", "accuracy")].text() == "50.0"


def test_report_tables_keep_the_runs_own_tasks_and_explain_their_columns():
    """A table row of a task the run has no items of is left out (``task_sizes`` 0); a method's
    section shows its own legend, an engine section the report's."""
    from knowforge.view.runs import report_tables

    report = {"run": {"seed": 0, "metric_bootstrap": 100},
              "extra": {"Task metrics": [{"task": "chrono/generation", "metric": "accuracy", "value": "50.0 ± 5.0"},
                                         {"task": "chrono/mcqa", "metric": "accuracy", "value": "null"},
                                         {"task": "chrono/tf", "metric": "accuracy", "value": "[]"}],
                        "Ripple in the model": {"rows": [{"probes": "all", "moved": 3}], "legend": "moved: it moved"}}}
    run = {"task_sizes": json.dumps({"chrono/generation": 4, "chrono/mcqa": 0, "chrono/tf": 0})}
    tables = report_tables(report, run)
    [metrics, legend] = tables["Task metrics"]
    assert [r["task"] for r in metrics.rows] == ["chrono/generation"]
    assert legend.kind == "text" and legend.text.startswith("task: the eval's task")
    assert [b.kind for b in tables["Ripple in the model"]] == ["table", "text"]
    assert tables["Ripple in the model"][1].text == "moved: it moved"
    # a report of a run whose sizes are unknown keeps every row
    assert len(report_tables(report, {})["Task metrics"][0].rows) == 3


def test_clustered_runs_show_the_reports_cluster_intervals_or_none():
    """A run whose samples are clustered takes its report's interval per group (clipped to
    [0, 1]) and shows none where the report has none or is gone; a run of independent samples
    keeps the per-sample interval, clipped."""
    from knowforge.view.numbers import GroupRow, RunStats, with_run_intervals

    def stats(mean=0.1):
        e = Estimate.from_moments(40, mean, 0.3)
        return RunStats(overall=e, tasks=[GroupRow("t/a", e, 0, items=10)],
                        slices={"year": [GroupRow(2020, e, 0), GroupRow(2021, e, 0)]}, wide_slices={}, items=10,
                        errors=0, parse_failures=0)

    report = {"overall": {"accuracy": 0.1, "ci": [-0.05, 0.3], "stderr": 0.09, "ci_method": "analytic"},
              "by_task": {"t/a": {"accuracy": 0.1, "ci": [0.0, 0.31]}},
              "slices": {"year": {"2020": {"accuracy": 0.1, "ci": [0.02, 0.2]}}}}
    run = {"cluster_key": "record_id", "n": 1}
    shown = with_run_intervals(stats(), run, report)
    assert (shown.overall.low, shown.overall.high) == (0.0, 0.3)             # clipped at 0
    assert (shown.tasks[0].accuracy.low, shown.tasks[0].accuracy.high) == (0.0, 0.31)
    year = {r.value: r.accuracy for r in shown.slices["year"]}
    assert (year[2020].low, year[2020].high) == (0.02, 0.2) and year[2021].low is None
    assert "over record_id units" in shown.interval_note
    # a report entry of another number (a resumed run) gives no interval rather than a wrong one
    assert with_run_intervals(stats(mean=0.2), run, report).overall.low is None
    gone = with_run_intervals(stats(), run, None)
    assert gone.overall.low is None and gone.tasks[0].accuracy.low is None and "not at hand" in gone.interval_note
    # several samples of one item cluster too
    assert with_run_intervals(stats(), {"n": 3}, None).overall.low is None
    alone = with_run_intervals(stats(mean=0.02), {"n": 1}, None)
    assert alone.overall.low == 0.0 and alone.overall.high > 0.02       # per sample, clipped at 0


# --- samples -----------------------------------------------------------------------------------------------
def sample_rows(body: str) -> list[str]:
    return re.findall(r'<tr class="row-[a-z]+">.*?</tr>', body, re.S)


def test_samples_filters_and_pages(view_graph, viewer, session_store):
    run = view_graph.runs["knowgen"][0]
    answers = session_store.user_query(
        "MATCH (:Run {id: $id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question) RETURN a.score AS score, "
        "a.parsed AS parsed, a.error AS error, q.task AS task", {"id": run})
    status, body = fetch(viewer, f"/runs/{run}/samples")
    assert status == 200 and len(sample_rows(body)) == len(answers)
    right = sum(1 for a in answers if a["score"] >= 1)
    status, body = fetch(viewer, f"/runs/{run}/samples?outcome=right")
    assert len(sample_rows(body)) == right and all('class="row-right"' in r for r in sample_rows(body))
    status, body = fetch(viewer, f"/runs/{run}/samples?outcome=wrong")
    assert len(sample_rows(body)) == len(answers) - right
    unparsed = sum(1 for a in answers if a["parsed"] is None and a["error"] is None)
    assert unparsed > 0, "the scripted answers leave some answers unparsed"
    status, body = fetch(viewer, f"/runs/{run}/samples?failed=parse")
    assert len(sample_rows(body)) == unparsed and body.count("nothing parsed") >= unparsed
    status, body = fetch(viewer, f"/runs/{run}/samples?failed=error")
    assert sample_rows(body) == [] and "No sample matches" in body
    task = answers[0]["task"]
    status, body = fetch(viewer, f"/runs/{run}/samples?task={q(task)}")
    assert len(sample_rows(body)) == sum(1 for a in answers if a["task"] == task)
    chrono = view_graph.runs["chrono"][0]
    status, body = fetch(viewer, f"/runs/{chrono}/samples?slice=year&value=2015")
    rows = sample_rows(body)
    assert rows and all("2015" in r for r in rows)
    status, body = fetch(viewer, f"/runs/{run}/samples?outcome=maybe")
    assert status == 400 and "outcome &#39;maybe&#39; is not one of right, wrong" in body
    status, body = fetch(viewer, f"/runs/{run}/samples?slice=year")
    assert status == 400 and "needs a value" in body
    # pages: in answer-id order, disjoint, together everything
    page_size = 5
    first = samples_page(session_store, chrono, SampleFilters(), page=1, page_size=page_size)
    second = samples_page(session_store, chrono, SampleFilters(), page=2, page_size=page_size)
    assert first.has_next and len(first.rows) == page_size
    ids = [r["id"] for r in first.rows + second.rows]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    total = session_store.user_query("MATCH (:Run {id: $id})-[:GAVE]->(a) RETURN count(a) AS n", {"id": chrono})[0]["n"]
    status, body = fetch(viewer, f"/runs/{chrono}/samples?page=2")
    assert status == 200 and ('rel="prev"' in body) and (('rel="next"' in body) == (total > 100))


def test_a_sample_shows_prompt_answer_gold_score_explanation_rule_and_facts(view_graph, viewer, session_store):
    run = view_graph.runs["link"][0]
    row = session_store.user_query(
        "MATCH (:Run {id: $id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question)-[:TESTS]->(f:Fact {op: 'conclusion'}) "
        "RETURN q.id AS qid, a.sample_index AS i, a.prompt AS prompt, a.raw AS raw, a.explanation AS explanation, "
        "q.answers AS gold, f.id AS fact ORDER BY qid LIMIT 1", {"id": run})[0]
    assert row["prompt"] and row["explanation"]                    # the answer write keeps them
    status, body = fetch(viewer, f"/runs/{run}/sample?q={q(row['qid'])}&i={row['i']}")
    assert status == 200
    assert esc(row["prompt"].splitlines()[0]) in body and 'id="prompt"' in body
    assert f'<pre id="raw">{esc(row["raw"])}</pre>' in body
    assert esc(row["explanation"]) in body
    assert all(esc(g) in body for g in row["gold"])
    assert 'id="rule"' in body
    # the task scores LINK's boolean questions with its own scorer: the page names the one used
    rule = session_store.user_query("MATCH (a:Answer {id: $id}) RETURN a.rule AS rule",
                                    {"id": f"{run}:{row['qid']}:{row['i']}"})[0]["rule"]
    scorer, _, mode = rule.partition(":")
    assert scorer == "link-probe" and f'<dt>scorer</dt><dd>{scorer} · rule <code id="rule">{mode}</code>' in body
    assert 'href="/entity?id=' in body                                   # facts link to their entities
    assert f'/view/link/statement?key={q(row["fact"])}' in body            # and the statement's view
    status, body = fetch(viewer, f"/runs/{run}/sample?q={q(row['qid'])}&i=7")
    assert status == 404 and "has no sample 7" in body


def test_compare_runs_of_one_benchmark(view_graph, viewer, session_store):
    base, gold = view_graph.runs["newterm"][:2]
    status, body = fetch(viewer, f"/compare?run={base}&run={gold}")
    assert status == 200
    scores = {}
    for run in (base, gold):
        for r in session_store.user_query("MATCH (:Run {id: $id})-[:GAVE]->(a)-[:ANSWERS]->(q) "
                                          "RETURN q.id AS q, avg(a.score) AS s", {"id": run}):
            scores.setdefault(r["q"], {})[run] = r["s"]
    differ = [k for k, v in scores.items() if len(v) == 2 and v[base] != v[gold]]
    assert differ, "Base and Gold disagree somewhere (the scripted model answers Gold right)"
    assert f"{len(differ)} of the {len(scores)} items every run answered got different scores" in body
    diffs = [v[gold] - v[base] for v in scores.values()]
    assert f"{100 * statistics.fmean(diffs):+.1f}" in body
    assert 'id="metric-deltas"' in body and "newterm_base" in body     # the reports' task metrics
    # side by side, as the engine recorded them on each run, as the run pages show them: a share in
    # % with the run's own interval (the eval's cluster bootstrap), and the difference in points
    recorded = [{(r["task"], r["metric"]): r for r in json.loads(session_store.user_query(
        "MATCH (r:Run {id: $id}) RETURN r.task_metric_values AS v", {"id": run})[0]["v"])} for run in (base, gold)]
    table = re.search(r'<table class="sortable" id="metric-deltas">.*?</table>', body, re.S).group(0)
    shown = {}
    for row in re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td>\n(.*?)</tr>", table, re.S):
        shown[(html.unescape(row[0]), html.unescape(row[1]))] = [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in
                                                                 re.findall(r"<td[^>]*>(.*?)</td>", row[2])]
    key = ("newterm/COMA", "newterm_score")          # each run's own setting: Base 0, Gold 1 here
    b, g = recorded[0][key], recorded[1][key]
    cells = shown[key]
    assert cells[0].startswith(f"{100 * b['value']:.1f}") and cells[1].startswith(f"{100 * g['value']:.1f}")
    assert cells[2] == f"{100 * g['value'] - 100 * b['value']:+.1f}"
    # (four items of a term or two: the engine records an interval only where it has two units)
    with_ci = [(k, r) for k, r in recorded[0].items() if r.get("ci") and isinstance(r.get("value"), float)
               and -1 <= r["value"] <= 1]
    for k, r in with_ci:
        low, high = (min(max(v, -1.0), 1.0) for v in r["ci"])
        assert shown[k][0] == f"{100 * r['value']:.1f} [{100 * low:.1f}, {100 * high:.1f}]", (k, shown[k])
    assert not [c for cells in shown.values() for c in cells if re.match(r"^-?0\.\d{2,}", c)]   # no raw fractions
    sizes = []
    for run in (base, gold):
        recorded_sizes = session_store.user_query("MATCH (r:Run {id: $id}) RETURN r.task_sizes AS v", {"id": run})[0]["v"]
        sizes.append(json.loads(recorded_sizes) if isinstance(recorded_sizes, str) else recorded_sizes or {})
    empty = {t for t, n in sizes[0].items() if not n} & {t for t, n in sizes[1].items() if not n}
    assert not empty & {t for t, _ in shown}                  # no row for a task neither run has items of
    status, body = fetch(viewer, f"/compare?run={base}&run={view_graph.runs['knowgen'][0]}")
    assert status == 400 and "different benchmarks" in body and base in body
    status, body = fetch(viewer, f"/compare?run={base}")
    assert status == 400 and "two or more runs" in body


def test_entity_page_links_facts_questions_and_views(view_graph, viewer, session_store):
    parent = session_store.user_query("MATCH (:Artificial {id: $id})-[:DERIVED_FROM {op: 'parent'}]->(p) "
                                      "RETURN p.id AS id", {"id": view_graph.keys["knowgen"]})[0]["id"]
    status, body = fetch(viewer, f"/entity?id={q(parent)}")
    assert status == 200
    assert f"/view/knowgen/entity?key={q(view_graph.keys['knowgen'])}" in body   # its artificial offspring
    status, body = fetch(viewer, f"/entity?id={q(view_graph.keys['knowgen'])}")
    assert status == 200 and "Questions about it" in body and "heredity" in body


# --- the declarations ------------------------------------------------------------------------------------
def test_every_builtin_method_declares_a_well_formed_view():
    registry = declared_views()
    assert registry.problems == ()
    assert sorted(d.method for d in registry.views) == sorted(METHODS)
    assert {d.view.key for d in registry.views} == {"entity", "event", "statement", "record", "term"}


def test_check_view_names_what_is_wrong():
    bad = MethodView(name="Bad View", title="t", description="d", key="entity", graph="view/nope",
                     keys="view/knowgen_entity_keys", node_marks=(Mark("x", "red", "x", "blob"),),
                     edge_marks=(Mark("y", "#123456", "y", "wavy"),), layout="spiral",
                     params=(ViewParam("limit", "reserved"),))
    problems = " | ".join(check_view(bad, "method m, view v"))
    for text in ("view name 'Bad View'", "layout 'spiral'", "colour 'red'", "shape 'blob'", "line style 'wavy'",
                 "parameter name 'limit'", "no Cypher statement named 'view/nope'"):
        assert text in problems, text


def test_a_plugin_method_gets_its_view_with_no_viewer_change(view_graph, session_store, tmp_path, monkeypatch):
    """A method from another package declares a view; /views lists it and it draws, through the
    same entry points knowforge's own methods use."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "kf_viewplug.py").write_text(
        "from knowforge.models.method import Method, MethodParams\n"
        "from knowforge.models.view import Mark, MethodView, ViewTable\n"
        "VIEW = MethodView(name='offspring', title='Plug-in offspring view', description='d', key='entity',\n"
        "    graph='view/knowgen_entity', keys='view/knowgen_entity_keys',\n"
        "    node_marks=(Mark('artificial', '#000000', 'plug-in artificial'),),\n"
        "    tables=(ViewTable('Plug-in questions', 'view/knowgen_entity_questions'),))\n"
        "METHOD = Method(name='viewplug', title='View plug-in', description='d', params=MethodParams,\n"
        "    generate=lambda *a: None, items=lambda *a: [], tasks=(), views=(VIEW,))\n")
    dist = site / "kf_viewplug-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kf-viewplug\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[knowforge.methods]\nviewplug = kf_viewplug:METHOD\n")
    monkeypatch.syspath_prepend(str(site))
    methods.refresh()
    try:
        assert isinstance(methods.available()["viewplug"], Method)
        with serving_viewer(session_store) as (base, _):
            status, body = fetch(base, "/views")
            assert status == 200 and "Plug-in offspring view" in body
            status, body = fetch(base, f"/view/viewplug/offspring?key={q(view_graph.keys['knowgen'])}")
            assert status == 200 and "plug-in artificial" in body and "Plug-in questions" in body
    finally:
        methods.refresh()


def test_view_statements_only_read():
    """Every statement the viewer runs lives in cypher/view/ and has no writing clause; the
    viewer's code calls only the store's read."""
    writing = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|DETACH|FOREACH|LOAD\s+CSV)\b", re.I)
    for path in sorted((ROOT / "cypher" / "view").glob("*.cypher")):
        code = "\n".join(line.split("//")[0] for line in path.read_text().splitlines())
        assert not writing.search(code), path.name
    source = "\n".join(p.read_text() for p in (ROOT / "knowforge" / "view").glob("*.py"))
    assert re.findall(r"store\.(\w+)\(", source) and set(re.findall(r"store\.(\w+)\(", source)) == {"read"}
    for name in re.findall(r'"(view/[a-z_]+)"', source):
        assert load_cypher(name)
    for declared in declared_views().views:
        assert all(s.startswith("view/") for s in declared.view.statements)


# --- serving --------------------------------------------------------------------------------------------
def _outside_address() -> str | None:
    """An address of this machine other than loopback, if it has one (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_binds_127_0_0_1_only_and_takes_a_free_port_when_asked_one_is_taken(view_graph, session_store):
    with serving_viewer(session_store) as (base, sock):
        host, port = sock.getsockname()
        assert host == "127.0.0.1"
        assert fetch(base, "/")[0] == 200
        outside = _outside_address()
        if outside is not None:           # the same port on another interface refuses
            with pytest.raises(OSError):
                socket.create_connection((outside, port), timeout=3).close()
        taken = bind(port)                # asked for a taken port: another, still on 127.0.0.1
        try:
            assert taken.getsockname()[0] == "127.0.0.1" and taken.getsockname()[1] != port
        finally:
            taken.close()


def test_the_view_command_serves_says_where_and_opens_a_browser(view_graph, neo4j_server, tmp_path):
    _, settings = neo4j_server
    opener = tmp_path / "browser.sh"        # $BROWSER is what Python's webbrowser runs with the URL
    opener.write_text(f'#!/bin/sh\necho "$1" > {tmp_path / "opened"}\n')
    opener.chmod(0o755)
    env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
           "NEO4J_PASSWORD": settings.password, "BROWSER": str(opener)}
    with socket.socket() as blocker:         # the asked port is taken: a free one is used
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        taken = blocker.getsockname()[1]
        process = subprocess.Popen([str(Path(sys.executable).parent / "knowforge"), "view", "--port", str(taken),
                                    "--open"],
                                   env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        try:
            line = ""
            deadline = time.monotonic() + 120
            while "http://" not in line:
                assert time.monotonic() < deadline and process.poll() is None, line
                line = process.stderr.readline()
            url = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            assert url and int(url.group(1)) != taken
            status, body = fetch(url.group(0).rstrip("/"), "/")
            assert status == 200 and view_graph.runs["link"][0] in body
            deadline = time.monotonic() + 30
            while not (tmp_path / "opened").exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert (tmp_path / "opened").read_text().strip() == url.group(0)
        finally:
            process.terminate()
            process.wait(timeout=30)
    result = CliRunner().invoke(cli, ["view", "--help"])
    assert result.exit_code == 0 and "--port" in result.output and "--open" in result.output


def test_first_page_benchmark_runs_in_smoke_mode(view_graph, neo4j_server):
    """benchmarks/view_first_page.py end to end on 500 samples (its figures are not asserted)."""
    _, settings = neo4j_server
    env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
           "NEO4J_PASSWORD": settings.password}
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "view_first_page.py"), "--graph", "env",
                             "--samples", "500", "--repeat", "1"], env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "the samples page shows 50 rows" in result.stdout
    for label in ("baseline: view/read_run", "run page /runs/<id>", "its numbers /runs/<id>/numbers",
                  "first samples page"):
        assert label in result.stdout


def test_graph_elements_keep_known_ends_and_first_nodes():
    nodes = [{"id": "a", "label": "A", "kind": "artificial"}, {"id": "a", "label": "again", "kind": "entity"},
             {"id": "b", "label": None, "kind": "value", "x": 3, "y": 4}, None]
    edges = [{"source": "a", "target": "b", "label": "r", "kind": "heredity"},
             {"source": "a", "target": "missing", "label": "r", "kind": "heredity"}]
    out_nodes, out_edges, left_out = graph_elements(nodes, edges)
    assert [n["data"]["kind"] for n in out_nodes] == ["artificial", "value"]
    assert out_nodes[1]["data"]["label"] == "b" and out_nodes[1]["position"] == {"x": 3.0, "y": 4.0}
    assert len(out_edges) == 1 and left_out == 1


# --- in a real browser (tests/browser.py) ---------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():
    """Skips, saying why, where chromium or playwright is missing; asked for before the graph,
    so a skip builds nothing."""
    with launch_chromium() as chromium:
        yield chromium


def test_in_a_browser_runs_run_sample_and_entity_view(browser, view_graph, viewer, session_store, tmp_path):
    tab = Tab(browser, tmp_path)
    page = tab.page
    run = view_graph.runs["knowgen"][0]
    page.goto(viewer + "/")
    page.wait_for_load_state("networkidle")
    tab.shot("runs")
    # the table sorts by a column: accuracy ascending, then descending
    header = page.locator("#runs th", has_text="accuracy")
    header.click()
    values = [float(v) for v in page.locator("#runs tbody td:last-child").evaluate_all(
        "cells => cells.map(c => c.getAttribute('data-sort'))")]
    assert values == sorted(values)
    header.click()
    values = [float(v) for v in page.locator("#runs tbody td:last-child").evaluate_all(
        "cells => cells.map(c => c.getAttribute('data-sort'))")]
    assert values == sorted(values, reverse=True)

    page.click(f'a.run-link[href="/runs/{run}"]')
    page.wait_for_load_state("networkidle")
    assert run in page.inner_text("h1") and "Accuracy" in page.inner_text("#headline")
    tab.shot("run")
    page.click("#samples-link")
    page.wait_for_load_state("networkidle")
    assert page.locator("a.sample-link").count() > 0
    tab.shot("samples")
    first = page.locator("a.sample-link").first
    question_id = first.inner_text().strip()
    first.click()
    page.wait_for_load_state("networkidle")
    stored = session_store.user_query(
        "MATCH (:Run {id: $run})-[:GAVE]->(a:Answer)-[:ANSWERS]->(:Question {id: $q}) "
        "RETURN a.prompt AS prompt, a.raw AS raw ORDER BY a.sample_index LIMIT 1", {"run": run, "q": question_id})[0]
    assert page.locator("#prompt").is_visible() and page.inner_text("#prompt").strip() == stored["prompt"].strip()
    assert page.inner_text("#raw").strip() == stored["raw"].strip()
    assert page.inner_text("#gold").strip()
    tab.shot("sample")

    page.click('a[href^="/view/knowgen/entity"]')
    page.wait_for_load_state("networkidle")
    drawn = tab.graph_nodes()
    listed = json.loads(page.inner_text("#graph-elements"))
    assert drawn == sum(1 for e in listed if e["group"] == "nodes") > 1
    assert page.evaluate("window.kfGraph.edges().length") > 0
    tab.shot("view-knowgen")
    # a node with an entity opens its page
    page.evaluate("window.kfGraph.nodes('[kind = \"parent\"]').emit('tap')")
    page.wait_for_url("**/entity?id=*")
    page.wait_for_load_state("networkidle")
    assert page.locator("#entity-facts").count() == 1
    tab.shot("entity")
    assert tab.problems == []


def test_in_a_browser_every_method_view_and_compare_draw(browser, view_graph, viewer, tmp_path):
    tab = Tab(browser, tmp_path)
    for declared in declared_views().views:
        run = view_graph.runs[declared.method][-1]
        params = f"&run={run}" if declared.view.param("run") else ""
        tab.page.goto(f"{viewer}{declared.path}?key={q(view_graph.keys[declared.method])}{params}")
        tab.page.wait_for_load_state("networkidle")
        assert tab.graph_nodes() > 1, declared.method
        tab.shot(f"view-{declared.method}")
    base, gold = view_graph.runs["newterm"][:2]
    tab.page.goto(f"{viewer}/compare?run={base}&run={gold}")
    tab.page.wait_for_load_state("networkidle")
    assert tab.page.locator("#deltas tbody tr").count() >= 2
    tab.shot("compare")
    assert tab.problems == []
    # the 404 page names the run (its own 404 response is the only failure recorded)
    tab.page.goto(f"{viewer}/runs/run-nope")
    assert "run-nope" in tab.page.inner_text("#error-message")
    tab.shot("not-found")
    assert len(tab.problems) >= 1 and all("404" in p for p in tab.problems)


def test_in_a_browser_a_large_run_page_fills_in_its_numbers(browser, view_graph, session_store, tmp_path):
    run = view_graph.runs["chrono"][0]
    with serving_viewer(session_store, inline_answers=0) as (base, _):
        tab = Tab(browser, tmp_path)
        tab.page.goto(f"{base}/runs/{run}")
        tab.page.wait_for_selector("#numbers[data-loaded] #tasks", timeout=60_000)
        assert "Accuracy" in tab.page.inner_text("#headline")
        header = tab.page.locator("#tasks th", has_text="task")       # the fetched tables sort too
        header.first.click()
        assert tab.page.locator("#tasks th[aria-sort]").count() == 1
        tab.shot("run-large")
        assert tab.problems == []

"""The method seam: a method from another package plugs in through the ``knowforge.methods``
entry-point group and runs generate → export → eval through the CLI, with nothing in knowforge
naming it; the built-in methods satisfy the contract; tasks are data."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from scripted_openai import ScriptedCompletions, serving

from knowforge import methods
from knowforge.cli.main import cli
from knowforge.models.method import check_method
from knowforge.models.task import Component, Task

PLUGIN = Path(__file__).parent / "plugins" / "kf_tiny"


@pytest.fixture
def tiny_plugin(tmp_path, monkeypatch):
    """Install tests/plugins/kf_tiny/ (graph side + evaluation side) as a distribution with one
    entry point, the way pip would (a package and a .dist-info with entry_points.txt on sys.path)."""
    site = tmp_path / "site"
    site.mkdir()
    shutil.copytree(PLUGIN, site / PLUGIN.name)
    dist = site / "kf_tiny-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kf-tiny\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[knowforge.methods]\ntiny = kf_tiny.method:METHOD\n")
    monkeypatch.syspath_prepend(str(site))
    methods.refresh()
    yield
    methods.refresh()


def test_builtin_methods_satisfy_the_contract():
    found = methods.available()
    assert {"knowgen", "chrono", "events"} <= set(found)
    assert methods.load_errors() == {}
    for name, method in found.items():
        assert check_method(method, name) is method
        for task in method.tasks:
            # a task is data: YAML out, the same task back
            assert Task.from_yaml(task.to_yaml()) == task


def test_methods_command_lists_methods_tasks_and_formats():
    result = CliRunner().invoke(cli, ["methods"], catch_exceptions=False)
    assert result.exit_code == 0
    for text in ("knowgen:", "task knowgen/KA", "chrono:", "task chrono/generation", "events:",
                 "task events/locality", "formats: alcuna, jsonl, hf, lm-eval"):
        assert text in result.output, text
    task = CliRunner().invoke(cli, ["methods", "--task", "knowgen/KA"], catch_exceptions=False).output
    assert yaml.safe_load(task)["solver"] == {"name": "zero-shot", "args": {}}
    solvers = CliRunner().invoke(cli, ["methods", "--solvers"], catch_exceptions=False).output
    assert "[setting=required, compare=None]" in solvers and "Undefined" not in solvers
    assert "[shot_sets=5, samples=1, max_tokens=None, chunk_size=1024, span=total]" in solvers
    assert "[method 'events']" in solvers and "helm" in solvers and "(official)" in solvers
    described = json.loads(CliRunner().invoke(cli, ["methods", "events", "--json"]).output)
    assert described[0]["formats"].keys() >= {"elken", "jsonl", "hf", "lm-eval"}


@pytest.mark.hf
def test_a_plugin_method_runs_generate_export_eval_through_the_cli(tiny_plugin, store, graph_env,
                                                                     tiny_model_dir, tmp_path):
    runner = CliRunner()
    listed = runner.invoke(cli, ["methods"], catch_exceptions=False).output
    assert "tiny: Tiny sums" in listed and "task tiny/add" in listed
    help_text = runner.invoke(cli, ["generate", "tiny", "--help"]).output
    assert "--size INTEGER" in help_text and "Questions to make." in help_text

    result = runner.invoke(cli, ["generate", "tiny", "--name", "t1", "--size", "6", "--seed", "3", "--silent"],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1] == "tiny:t1"
    stored = store.user_query("MATCH (q:Question)-[:IN_BENCHMARK]->(:Benchmark {id:'tiny:t1'}) "
                              "RETURN count(q) AS n, collect(DISTINCT q.slice_kind) AS kinds")[0]
    assert stored["n"] == 6 and sorted(stored["kinds"]) == ["check", "sum"]

    bad = runner.invoke(cli, ["generate", "tiny", "--name", "t2", "--size", "0", "--silent"])
    assert bad.exit_code != 0 and "--size" in bad.output

    out = tmp_path / "sums"
    result = runner.invoke(cli, ["export", "tiny", "--name", "t1", "--format", "sums", "--out", str(out)],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert len(json.loads((out / "sums.json").read_text())) == 6
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["method"] == "tiny" and manifest["seed"] == 3 and manifest["params"]["size"] == 6
    assert manifest["files"].keys() == {"sums.json"} and len(manifest["source_graph_sha256"]) == 64

    result = runner.invoke(cli, ["export", "tiny", "--name", "tiny:t1", "--format", "jsonl",
                                 "--out", str(tmp_path / "t1.jsonl")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert len((tmp_path / "t1.jsonl").read_text().splitlines()) == 6

    result = runner.invoke(cli, ["eval", "--benchmark", "tiny:t1", "--backend", "hf", "--model", str(tiny_model_dir),
                                 "--max-tokens", "4", "--out", str(tmp_path / "runs"),
                                 "--cache-dir", str(tmp_path / "cache"), "--silent"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "runs" / "tiny-t1" / "summary.json").read_text())
    run = summary["runs"]["zero-shot"]
    assert run["tasks"] == ["tiny/add"] and run["samples"] == 6
    assert set(run["by"]["kind"]) == {"check", "sum"}
    assert run["metrics"]["tiny/add"]["balanced_accuracy"] is not None
    answers = store.user_query("MATCH (:Run {id:$id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(:Question)-[:IN_BENCHMARK]->"
                               "(:Benchmark {id:'tiny:t1'}) RETURN count(a) AS n", {"id": run["run_id"]})[0]["n"]
    assert answers == 6

    # the plug-in's own solver (with its -S argument) and metric, declared by its evaluation unit
    result = runner.invoke(cli, ["eval", "--benchmark", "tiny:t1", "--backend", "hf", "--model", str(tiny_model_dir),
                                 "--solver", "tiny-hint", "-S", "hint=Sum:", "--max-tokens", "4", "--log-samples",
                                 "--out", str(tmp_path / "runs2"), "--cache-dir", str(tmp_path / "cache"), "--silent"],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    hinted = json.loads((tmp_path / "runs2" / "tiny-t1" / "summary.json").read_text())["runs"]["tiny-hint(hint=Sum:)"]
    assert hinted["samples"] == 6
    logged = [json.loads(line) for p in (tmp_path / "runs2").rglob("samples*.jsonl") for line in p.open()]
    assert len(logged) == 6 and all("Sum:" in (s.get("prompt") or "") for s in logged), logged[:1]
    sum_rows = [s for s in logged if s["item_id"] in sum_ids(store)]
    expected = sum(float(s["score"]) for s in sum_rows) / len(sum_rows)
    assert hinted["metrics"]["tiny/add"]["tiny_sum_accuracy"] == pytest.approx(expected)
    bad = runner.invoke(cli, ["eval", "--benchmark", "tiny:t1", "--backend", "hf", "--model", str(tiny_model_dir),
                              "--solver", "tiny-hint", "-S", "hunt=x", "--silent"])
    assert bad.exit_code != 0 and "hunt" in bad.output

    # its scorer's official mode, reached by --scoring official, recorded on every sample
    control = _control_model(store, tiny_model_dir, tmp_path)
    result = runner.invoke(cli, ["eval", "--benchmark", "tiny:t1", "--backend", "hf", "--model", str(control),
                                 "--max-tokens", "4", "--scoring", "official", "--out", str(tmp_path / "runs3"),
                                 "--cache-dir", str(tmp_path / "cache"), "--silent"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    official = json.loads((tmp_path / "runs3" / "tiny-t1" / "summary.json").read_text())["runs"]["zero-shot"]
    rules = store.user_query("MATCH (:Run {id:$id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question) "
                             "RETURN q.slice_kind AS kind, collect(DISTINCT a.rule) AS rules ORDER BY kind",
                             {"id": official["run_id"]})
    assert {r["kind"]: r["rules"] for r in rules} == {"check": ["boolean:knowforge"], "sum": ["tiny-sum:official"]}

    # its official answer file, from the recorded run
    result = runner.invoke(cli, ["export", "run", official["run_id"], "--format", "tiny-answers",
                                 "--out", str(tmp_path / "answers")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert len(json.loads((tmp_path / "answers" / "answers.json").read_text())) == 6

    # its validity check, in the control model's validity report
    result = runner.invoke(cli, ["report", official["run_id"], "--validity", "--out", str(tmp_path / "validity")],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    validity = json.loads((tmp_path / "validity" / "validity.json").read_text())
    assert validity["sections"]["tiny"]["data"]["runs"][0]["run"] == official["run_id"]
    assert "Tiny: the sums are only a test" in validity["flags"]
    assert "## Tiny: sums vs checks" in (tmp_path / "validity" / "validity.md").read_text()


def _control_model(store, model_dir, tmp_path) -> Path:
    """A copy of the tiny model recorded as a control model (a card and a Model node), so its
    runs get a validity report."""
    from knowforge.models.control import ControlCard, ControlConfig, record_model

    copy = tmp_path / "control-model"
    shutil.copytree(model_dir, copy)
    config = ControlConfig(cutoff=2020)
    card = ControlCard(model_id="control-tiny", cutoff=2020, seed=0, config_hash=config.config_hash(),
                       facts_hash="x", config=config, counts={})
    record_model(store, card, [])
    (copy / "control.json").write_text(card.model_dump_json())
    return copy


def sum_ids(store) -> set[str]:
    rows = store.user_query("MATCH (q:Question)-[:IN_BENCHMARK]->(:Benchmark {id:'tiny:t1'}) "
                            "WHERE q.slice_kind = 'sum' RETURN q.id AS id")
    return {r["id"] for r in rows}


def test_a_broken_plugin_does_not_break_the_others(tmp_path, monkeypatch):
    site = tmp_path / "site"
    dist = site / "kf_broken-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kf-broken\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[knowforge.methods]\nbroken = kf_no_such_module:METHOD\n")
    monkeypatch.syspath_prepend(str(site))
    methods.refresh()
    try:
        assert "knowgen" in methods.available()
        assert "broken" in methods.load_errors()
        result = CliRunner().invoke(cli, ["methods"])
        assert result.exit_code == 0 and "broken: failed to load" in result.output
        with pytest.raises(Exception, match="failed to load"):
            methods.get_method("broken")
    finally:
        methods.refresh()


@pytest.mark.parametrize("task,message", [
    (Task(name="x/a", solver=Component(name="zero-shot"), metrics=("accuracy", "acuracy")),
     "task x/a: unknown metric 'acuracy'"),
    (Task(name="x/b", solver=Component(name="zero-shot"), scorer=Component(name="fuzzzy")),
     "unknown scorer 'fuzzzy'"),
    (Task(name="x/c", solver=Component(name="zero-shot"), scorer=Component(name="exact", args={"k": 1})),
     "scorers take no arguments"),
    (Task(name="x/d", solver=Component(name="zero-shoot")), "unknown solver 'zero-shoot'"),
    (Task(name="x/e", solver=Component(name="zero-shot"), metrics=("newterm_gap",)),
     "metric 'newterm_gap' reads the solver detail 'newterm-answers', which solver 'zero-shot' does not provide"),
])
def test_a_task_naming_an_unknown_component_fails_before_the_model_is_made(task, message, tmp_path):
    """A task's names resolve in eval's registries up front: the error comes before any backend
    exists (the model directory named here does not exist, so making one would fail otherwise)."""
    from knowforge.errors import ConfigError
    from knowforge.eval.tasks import run_tasks
    from knowforge.eval.types import EvalOptions
    from knowforge.models.types import BenchmarkItem

    items = [BenchmarkItem(id="x:1", benchmark="x:t", task=task.name, form="generation", question="1+1?",
                           answers=["2"], scorer="exact")]
    options = EvalOptions(model=str(tmp_path / "no-such-model"), out_dir=tmp_path)
    ok = Task(name="x/ok", solver=Component(name="zero-shot"))
    with pytest.raises(ConfigError, match=message):
        run_tasks(None, "x:t", items, [ok, task], options)


def _plugin_source(method: str, metrics: tuple[str, ...]) -> str:
    """A minimal plug-in method whose evaluation unit declares ``metrics``."""
    specs = ", ".join(f"MetricSpec({m!r}, lambda data: 0.0)" for m in metrics)
    return f'''
from knowforge.eval.unit import EvalUnit, MetricSpec
from knowforge.models.method import Method, MethodParams
from knowforge.models.task import Component, Task


class Params(MethodParams):
    pass


METHOD = Method(name={method!r}, title={method!r}, description="a clash test", params=Params,
                generate=lambda store, params, backend=None, progress=None: None, items=lambda store, name: [],
                tasks=(Task(name="{method}/all", solver=Component(name="zero-shot"), metrics={metrics!r}),),
                evaluation="kf_{method}:UNIT")
UNIT = EvalUnit(metrics=({specs},))
'''


@pytest.fixture
def clashing_plugins(tmp_path, monkeypatch):
    """Three plug-ins as pip would install them: ``birthyear`` re-declares the built-in metric
    ``accuracy`` and shares ``year_error`` with ``deathyear``; ``fine`` clashes with nobody."""
    site = tmp_path / "site"
    for method, metrics in (("birthyear", ("accuracy", "year_error")), ("deathyear", ("year_error",)),
                            ("fine", ("fine_metric",))):
        (site / f"kf_{method}").mkdir(parents=True)
        (site / f"kf_{method}" / "__init__.py").write_text(_plugin_source(method, metrics))
        dist = site / f"kf_{method}-0.1.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: kf-{method}\nVersion: 0.1\n")
        (dist / "entry_points.txt").write_text(f"[knowforge.methods]\n{method} = kf_{method}:METHOD\n")
    monkeypatch.syspath_prepend(str(site))
    methods.refresh()
    yield
    methods.refresh()


class _Coach(ScriptedCompletions):
    calls: list[str] = []

    def reply(self, prompt: str) -> str:
        return "Coach"


def test_clashing_plugins_are_refused_and_every_other_method_still_evaluates(clashing_plugins, graph_env, store,
                                                                            tmp_path):
    from knowforge.errors import ConfigError
    from knowforge.eval.registry import load_errors, registry
    from knowforge.eval.tasks import check_tasks
    from knowforge.models.items_io import write_items
    from knowforge.models.types import BenchmarkItem

    errors = load_errors()
    assert set(errors) == {"birthyear", "deathyear"}, errors
    assert "metric 'accuracy' is declared by both knowforge and method 'birthyear'" in errors["birthyear"]
    assert "metric 'year_error' is declared by both method 'deathyear' and method 'birthyear'" in errors["birthyear"]
    assert "metric 'year_error' is declared by both method 'birthyear' and method 'deathyear'" in errors["deathyear"]
    assert registry().owner("metric", "accuracy") == "knowforge"
    assert registry().owner("metric", "fine_metric") == "method 'fine'"
    assert "year_error" not in registry().metrics
    # the built-ins' tasks and the plug-in that clashes with nobody resolve; a refused one says why
    for name, method in methods.available().items():
        if name in errors:
            with pytest.raises(ConfigError, match=f"method '{name}' cannot be evaluated: evaluation unit refused"):
                check_tasks(method.tasks)
        else:
            check_tasks(method.tasks)

    runner = CliRunner()
    listed = runner.invoke(cli, ["methods"])
    assert listed.exit_code == 0
    assert "birthyear: cannot be evaluated: evaluation unit refused" in listed.stderr
    assert "deathyear: cannot be evaluated" in listed.stderr and "fine: cannot" not in listed.stderr
    helped = runner.invoke(cli, ["score", "--help"])
    assert helped.exit_code == 0 and "elken" in helped.output, helped.output

    # an evaluation through the engine scores with the built-in accuracy
    bench = tmp_path / "bench.jsonl"
    write_items(bench, [BenchmarkItem(id="clash:q0", benchmark="clash", task="clash/g", form="generation",
                                      question="Who?", answers=["Coach"])])
    with serving(_Coach) as url:
        result = runner.invoke(cli, ["eval", "--benchmark", str(bench), "--backend", "openai", "--model", "m",
                                     "--base-url", url, "--no-cache", "--out", str(tmp_path / "runs"), "--silent"])
    assert result.exit_code == 0, result.output
    summary = json.loads(next((tmp_path / "runs").rglob("summary.json")).read_text())
    [run] = summary["runs"].values()
    [metrics] = run["metrics"].values()
    assert metrics["accuracy"] == 1.0


def test_a_plugin_owns_its_graph_side(tiny_plugin, store, graph_env):
    """kf_tiny ships its own Cypher package, label, relationship type and view: its statements
    load as "tiny/<name>" and pass EXPLAIN, its label joins the allow-list while it is installed,
    generate writes its label through its own statement, and the viewer draws its view."""
    from knowforge.errors import UnsafeIdentifier
    from knowforge.kg.cypher import list_statements, load_cypher, validate_label
    from knowforge.view.graphs import declared_keys, declared_views, draw_view

    assert "tiny" in methods.available(), methods.load_errors()
    names = [n for n in list_statements() if n.startswith("tiny/")]
    assert names == ["tiny/count_sums", "tiny/view_sum", "tiny/view_sum_keys", "tiny/view_sum_numbers",
                     "tiny/write_sums"]
    for name in names:
        try:
            store.driver.execute_query("EXPLAIN " + load_cypher(name), database_=store.database)
        except Exception as exc:  # parameters are unknown at EXPLAIN time; syntax is not
            assert "ParameterMissing" in str(exc) or "Expected parameter" in str(exc), (name, exc)
    assert validate_label("TinySum") == "TinySum"

    result = CliRunner().invoke(cli, ["generate", "tiny", "--name", "g1", "--size", "4", "--seed", "1", "--silent"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    sums = store.read("tiny/count_sums", benchmark="tiny:g1")
    questions = {r["id"]: r for r in store.user_query(
        "MATCH (q:Question)-[:IN_BENCHMARK]->(:Benchmark {id:'tiny:g1'}) WHERE q.form = 'generation' "
        "RETURN q.id AS id, q.text AS question")}
    assert sorted(s["question"] for s in sums) == sorted(questions) and len(sums) == 2
    for s in sums:
        assert questions[s["question"]]["question"] == f"What is {s['a']} + {s['b']}?"

    registry = declared_views()
    assert registry.problems == ()
    view = registry.find("tiny", "sum")
    [key] = declared_keys(store, view, question_id=sums[0]["question"], entity_id=None)
    assert key["key"] == sums[0]["id"]
    drawing = draw_view(store, view, sums[0]["id"], {})
    assert (drawing.nodes, drawing.edges) == (2, 1)
    assert drawing.tables[0].rows == [[sums[0]["a"], sums[0]["b"], sums[0]["a"] + sums[0]["b"]]]
    table = draw_view(store, registry.find("tiny", "numbers"), sums[0]["id"], {})     # drawing="table"
    assert (table.nodes, table.elements) == (0, []) and table.tables[0].rows == drawing.tables[0].rows
    from knowforge.view.app import build_app
    from starlette.testclient import TestClient

    client = TestClient(build_app(store, views=registry), base_url="http://127.0.0.1")   # the Host the guard takes
    page = client.get("/view/tiny/numbers", params={"key": sums[0]["id"]})
    assert page.status_code == 200 and "Its numbers" in page.text and 'id="graph"' not in page.text, page.text
    page = client.get("/view/tiny/sum", params={"key": sums[0]["id"]})
    assert page.status_code == 200 and 'id="graph"' in page.text, page.text
    methods.refresh()
    with pytest.raises(UnsafeIdentifier):
        validate_label("TinySum")     # gone with the method that declared it


@pytest.mark.parametrize("method,statement,message", [
    ("sneaky_label", "MERGE (x:Sneaky {id: $id})", "names labels its method does not declare: Sneaky"),
    ("sneaky_type", "MATCH (a:Entity {id: $a}), (b:Entity {id: $b}) MERGE (a)-[:KNOWS]->(b)",
     "names relationship types its method does not declare: KNOWS"),
    ("sneaky_dynamic", "MERGE (x:$($label) {id: $id})", "sets a label or relationship type from a parameter"),
    ("sneaky_two", "MATCH (x:Entity) RETURN x.id AS id;\nMATCH (x:Fact) DETACH DELETE x", "more than one statement"),
    ("temporal", "MATCH (x:Entity) RETURN x.id AS id", "is a folder of knowforge's own statements"),
])
def test_a_plugin_statement_that_fails_the_static_check_refuses_its_method(tmp_path, monkeypatch, method,
                                                                            statement, message):
    # each case its own module name: Python keeps an imported kf_<method> for the session
    site = tmp_path / "site"
    package = site / f"kf_{method}"
    (package / "cypher").mkdir(parents=True)
    (package / "cypher" / "__init__.py").write_text("")
    (package / "cypher" / "bad.cypher").write_text(statement + "\n")
    (package / "__init__.py").write_text(
        _plugin_source(method, ("unused_metric",)).replace('evaluation="kf_', 'cypher="kf_{m}.cypher", '
                                                           'evaluation="kf_'.replace("{m}", method)))
    dist = site / f"kf_{method}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: kf-{method}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[knowforge.methods]\n{method} = kf_{method}:METHOD\n")
    monkeypatch.syspath_prepend(str(site))
    methods.refresh()
    try:
        assert method not in methods.available()
        assert message in methods.load_errors()[method], methods.load_errors()
        assert "knowgen" in methods.available()
    finally:
        methods.refresh()


def test_the_test_plugin_imports_only_the_public_api():
    """kf_tiny is written as an outside author would write a method: from knowforge.api alone,
    whose every class and function says what it is."""
    import ast
    import inspect

    import knowforge.api as api

    for path in sorted(PLUGIN.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("knowforge"):
                assert node.module == "knowforge.api", f"{path.name}: from {node.module} import ..."
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("knowforge") for a in node.names), path.name
    for name in api.__all__:
        value = getattr(api, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert (value.__doc__ or "").strip(), name


def test_a_view_declares_its_key_and_drawing():
    """A view's key is any word its method chooses; its drawing is graph, timeline (placed at
    the statement's x, y) or table (no graph statement)."""
    from knowforge.models.view import MethodView, ViewTable, check_view

    base = {"title": "t", "description": "d", "keys": "view/knowgen_entity_keys", "node_marks": ()}
    assert check_view(MethodView(name="ok", key="person", graph="view/knowgen_entity", **base), "w") == []
    problems = " | ".join(check_view(MethodView(name="t1", key="Person!", graph="view/knowgen_entity",
                                                drawing="timeline", **base), "w"))
    assert "key 'Person!'" in problems and "layout must be 'preset'" in problems
    [problem] = check_view(MethodView(name="t2", key="x", graph="view/knowgen_entity", drawing="table",
                                      tables=(ViewTable("rows", "view/knowgen_entity_questions"),), **base), "w")
    assert "a table view has no graph statement" in problem

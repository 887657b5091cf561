"""The method seam: a method from another package plugs in through the ``knowforge.methods``
entry-point group and runs generate → export → eval through the CLI, with nothing in knowforge
naming it; the built-in methods satisfy the contract; tasks are data."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from plugin_site import PLUGIN, install_birthyear
from scripted_openai import ScriptedCompletions, serving

from knowforge import methods
from knowforge.cli.main import cli
from knowforge.models.method import check_method
from knowforge.models.task import Component, Task

SAMPLE = Path(__file__).resolve().parents[1] / "kg" / "samples" / "wikidata" / "entities.json"


@pytest.fixture
def birthyear_plugin(tmp_path, monkeypatch):
    """Install tests/plugins/kf_birthyear/ (graph side + evaluation side + its Cypher) as a
    distribution with one entry point, the way pip would (a package and a .dist-info with
    entry_points.txt on sys.path)."""
    yield install_birthyear(tmp_path / "site", monkeypatch)
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


class _Knower(ScriptedCompletions):
    """A model that knows the birth years in ``years`` (name -> year): the year questions of the
    people in ``bare`` it answers with the bare year, of those in ``worded`` with a sentence
    holding it (right by our rule, wrong by the exact official one), of the others with the
    year + 2; a yes/no question always right."""

    calls: list[str] = []
    years: dict[str, int] = {}
    bare: set[str] = set()
    worded: set[str] = set()

    def reply(self, prompt: str) -> str:
        asked = re.findall(r"In what year was (.+) born\?|Was (.+) born in (-?\d+)\?", prompt)[-1]
        if asked[0]:
            year = self.years[asked[0]]
            if asked[0] in self.bare:
                return str(year)
            return f"Born in {year}." if asked[0] in self.worded else str(year + 2)
        return "yes" if self.years[asked[1]] == int(asked[2]) else "no"


def _explains(store, statement: str) -> None:
    from knowforge.kg.cypher import load_cypher

    try:
        store.driver.execute_query("EXPLAIN " + load_cypher(statement), database_=store.database)
    except Exception as exc:  # parameters are unknown at EXPLAIN time; syntax is not
        assert "ParameterMissing" in str(exc) or "Expected parameter" in str(exc), (statement, exc)


def test_a_plugin_method_reads_the_graph_and_runs_through_the_cli(birthyear_plugin, store, graph_env, tmp_path):
    """kf_birthyear reads the Wikidata sample's dates of birth through its own named Cypher,
    writes its own label, and runs generate, export, eval, report (with --validity), export run
    and score through the CLI; ``knowforge view`` draws its view in headless chromium."""
    from knowforge.kg.cypher import list_statements, validate_label

    runner = CliRunner()
    loaded = runner.invoke(cli, ["load", "wikidata", str(SAMPLE), "--silent"], catch_exceptions=False)
    assert loaded.exit_code == 0, loaded.output

    # its graph side: its statements load as "birthyear/<name>" and pass EXPLAIN; its label joins
    # the allow-list while it is installed; its "accuracy" is namespaced, knowforge's kept
    assert "birthyear" in methods.available(), methods.load_errors()
    names = [n for n in list_statements() if n.startswith("birthyear/")]
    assert names == ["birthyear/read_people", "birthyear/read_probes", "birthyear/view_person",
                     "birthyear/view_person_keys", "birthyear/view_person_questions", "birthyear/write_probes"]
    for name in names:
        _explains(store, name)
    assert validate_label("BirthYearProbe") == "BirthYearProbe"
    listed = runner.invoke(cli, ["methods"], catch_exceptions=False)
    assert "birthyear: Birth years" in listed.stdout and "task birthyear/year" in listed.stdout
    assert ("birthyear: namespaced: metric 'accuracy' is birthyear:accuracy (knowforge declares 'accuracy' too)"
            in listed.stderr), listed.stderr

    result = runner.invoke(cli, ["generate", "birthyear", "--name", "b1", "--size", "6", "--seed", "3", "--silent"],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1] == "birthyear:b1"
    probes = store.read("birthyear/read_probes", benchmark="birthyear:b1")
    assert len(probes) == 6 and len({p["person"] for p in probes}) == 6
    born = {r["id"]: r["value"] for r in store.user_query(
        "MATCH (e:Entity)-[:HAS_FACT]->(f:Fact {relation: 'P569'}) WHERE e.id IN $ids RETURN e.id AS id, "
        "f.value AS value", {"ids": [p["person"] for p in probes]})}
    for p in probes:       # each question asks about its person, with the year of the graph's fact
        assert p["name"] in p["text"] and int(re.match(r"\+?(-?\d+)", born[p["person"]]).group(1)) == p["year"], p

    out = tmp_path / "years"
    result = runner.invoke(cli, ["export", "birthyear", "--name", "b1", "--format", "years", "--out", str(out)],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    exported = json.loads((out / "years.json").read_text())
    assert sorted(e["id"] for e in exported) == sorted(p["question"] for p in probes)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["method"] == "birthyear" and manifest["seed"] == 3 and manifest["params"]["size"] == 6

    # eval: the scripted model knows every year; of the three year questions it answers one
    # bare, one in a sentence, one two years off
    years = sorted((p for p in probes if p["text"].startswith("In what year")), key=lambda p: p["question"])
    assert len(years) == 3
    _Knower.years = {p["name"]: p["year"] for p in probes}
    _Knower.bare, _Knower.worded = {years[0]["name"]}, {years[1]["name"]}
    control = _control_model(store, tmp_path)
    with serving(_Knower) as url:
        result = runner.invoke(cli, ["eval", "--benchmark", "birthyear:b1", "--backend", "openai", "--model",
                                     str(control), "--base-url", url, "--no-cache", "--out", str(tmp_path / "runs"),
                                     "--silent"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "runs" / "birthyear-b1" / "summary.json").read_text())
    run = summary["runs"]["zero-shot"]
    metrics = run["metrics"]["birthyear/year"]
    assert metrics["accuracy"] == pytest.approx(5 / 6)            # knowforge's: every item
    assert metrics["birthyear:accuracy"] == pytest.approx(2 / 3)  # the plug-in's: the year questions
    assert metrics["birthyear:year_error"] == pytest.approx(2 / 3)

    result = runner.invoke(cli, ["report", run["run_id"], "--out", str(tmp_path / "report")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    from knowforge.eval.records import Report

    Report.model_validate(report)
    assert "birthyear:year_error" in (tmp_path / "report" / "report.md").read_text()

    result = runner.invoke(cli, ["report", run["run_id"], "--validity", "--out", str(tmp_path / "validity")],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    validity = json.loads((tmp_path / "validity" / "validity.json").read_text())
    [section] = validity["sections"]["birthyear"]["data"]["runs"]
    assert section == {"run": run["run_id"], "boolean": 1.0, "generation": pytest.approx(2 / 3)}
    assert "## Birth years: years vs checks" in (tmp_path / "validity" / "validity.md").read_text()

    result = runner.invoke(cli, ["export", "run", run["run_id"], "--format", "birthyear-answers",
                                 "--out", str(tmp_path / "answers")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    answers = tmp_path / "answers" / "answers.json"
    assert len(json.loads(answers.read_text())) == 6
    scored = {mode: json.loads(runner.invoke(cli, ["score", "birthyear", str(answers), "--scoring", mode, "--json"],
                                             catch_exceptions=False).stdout)
              for mode in ("official", "knowforge")}
    assert [(r["answers"], r["right"]) for r in scored["official"]] == [(6, 4)]      # the sentence is wrong
    assert [(r["answers"], r["right"]) for r in scored["knowforge"]] == [(6, 5)]

    _draws_its_view(graph_env, birthyear_plugin, years[0], tmp_path)
    methods.refresh()


def _draws_its_view(settings, site: Path, probe: dict, tmp_path: Path) -> None:
    """``knowforge view`` (a process of its own) in headless chromium: the sample page of a
    question links to the plug-in's view of its person, which draws the person, the fact the
    question was read from and the question, beside its table."""
    import os
    import subprocess
    import sys

    from browser import Tab, launch_chromium, served_url

    # the viewer process finds the plug-in where pip would have put it: on its path
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
           "NEO4J_PASSWORD": settings.password, "PYTHONPATH": path}
    process = subprocess.Popen([str(Path(sys.executable).parent / "knowforge"), "view", "--port", "0"],
                               env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        base = served_url(process)
        with launch_chromium() as chromium:
            tab = Tab(chromium, tmp_path)
            tab.page.goto(f"{base}/view/birthyear/person?key={probe['person']}")
            tab.page.wait_for_load_state("networkidle")
            try:
                drawn = tab.graph_nodes()
            except Exception as exc:        # say what the page showed and what failed in it
                raise AssertionError(f"{exc}\n{tab.problems}\n{tab.page.content()[:3000]}") from exc
            assert drawn == 3
            kinds = tab.page.evaluate("window.kfGraph.nodes().map(n => n.data('kind')).sort()")
            assert kinds == ["fact", "person", "question"]
            assert tab.page.evaluate("window.kfGraph.edges().length") == 2
            assert probe["text"] in tab.page.inner_text("body") and str(probe["year"]) in tab.page.inner_text("body")
            tab.shot("view-birthyear")
            assert tab.problems == []
    finally:
        process.terminate()
        process.wait(timeout=30)


def _control_model(store, tmp_path) -> Path:
    """A folder holding only a control card, recorded with a Model node: a model name the
    scripted server answers for, whose runs get a validity report."""
    from knowforge.models.control import ControlCard, ControlConfig, record_model

    folder = tmp_path / "control-model"
    folder.mkdir()
    config = ControlConfig(cutoff=2020)
    card = ControlCard(model_id="control-birthyear", cutoff=2020, seed=0, config_hash=config.config_hash(),
                       facts_hash="x", config=config, counts={})
    record_model(store, card, [])
    (folder / "control.json").write_text(card.model_dump_json())
    return folder


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
    specs = ", ".join(f"MetricSpec({m!r}, lambda data: 0.0, scale='share')" for m in metrics)
    qualified = tuple(dict.fromkeys(f"{method}:{m}" for m in metrics))    # its tasks name its own
    return f'''
from knowforge.eval.unit import EvalUnit, MetricSpec
from knowforge.models.method import Method, MethodParams
from knowforge.models.task import Component, Task


class Params(MethodParams):
    pass


METHOD = Method(name={method!r}, title={method!r}, description="a clash test", params=Params,
                generate=lambda store, params, backend=None, progress=None: None, items=lambda store, name: [],
                tasks=(Task(name="{method}/all", solver=Component(name="zero-shot"), metrics={qualified!r}),),
                evaluation="kf_{method}:UNIT")
UNIT = EvalUnit(metrics=({specs},))
'''


@pytest.fixture
def clashing_plugins(tmp_path, monkeypatch):
    """Four plug-ins as pip would install them: ``lifeyear`` re-declares the built-in metric
    ``accuracy`` and shares ``year_error`` with ``deathyear``; ``twice`` declares one name twice
    (which no namespace resolves); ``fine`` clashes with nobody."""
    site = tmp_path / "site"
    for method, metrics in (("lifeyear", ("accuracy", "year_error")), ("deathyear", ("year_error",)),
                            ("twice", ("twice_metric", "twice_metric")), ("fine", ("fine_metric",))):
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


def test_clashing_plugin_names_are_namespaced_and_every_method_still_evaluates(clashing_plugins, graph_env, store,
                                                                               tmp_path):
    from knowforge.errors import ConfigError
    from knowforge.eval.registry import load_errors, metric_spec, namespaced, registry
    from knowforge.eval.tasks import check_tasks
    from knowforge.models.items_io import write_items
    from knowforge.models.types import BenchmarkItem

    # a clash is namespaced by owner; only what no namespace resolves is refused
    errors = load_errors()
    assert set(errors) == {"twice"}, errors
    assert "metric 'twice_metric' is declared by both method 'twice' and method 'twice'" in errors["twice"]
    notes = namespaced()
    assert set(notes) == {"lifeyear", "deathyear"}, notes
    assert notes["lifeyear"] == [
        "metric 'accuracy' is lifeyear:accuracy (knowforge declares 'accuracy' too)",
        "metric 'year_error' is lifeyear:year_error (method 'deathyear' declares 'year_error' too)"]
    assert notes["deathyear"] == [
        "metric 'year_error' is deathyear:year_error (method 'lifeyear' declares 'year_error' too)"]
    reg = registry()
    assert reg.owner("metric", "accuracy") == "knowforge" and reg.owner("metric", "fine_metric") == "method 'fine'"
    assert reg.owner("metric", "lifeyear:accuracy") == "method 'lifeyear'"
    assert metric_spec("accuracy") is not metric_spec("lifeyear:accuracy")
    assert metric_spec("lifeyear:year_error") is not metric_spec("deathyear:year_error")
    assert metric_spec("fine:fine_metric").compute is metric_spec("fine_metric").compute   # the qualified form works
    assert metric_spec("fine:fine_metric").name == "fine:fine_metric"       # named as asked: numbers keyed by it
    assert metric_spec("lifeyear:accuracy").name == "lifeyear:accuracy"
    with pytest.raises(ConfigError, match="name one of deathyear:year_error, lifeyear:year_error"):
        metric_spec("year_error")                                           # two plug-ins': neither's
    with pytest.raises(ConfigError, match="unknown metric 'fine:accuracy'"):
        metric_spec("fine:accuracy")                                        # fine declares no accuracy
    # every method's tasks resolve but the refused one's, which says why
    for name, method in methods.available().items():
        if name in errors:
            with pytest.raises(ConfigError, match=f"method '{name}' cannot be evaluated: evaluation unit refused"):
                check_tasks(method.tasks)
        else:
            check_tasks(method.tasks)

    runner = CliRunner()
    listed = runner.invoke(cli, ["methods"])
    assert listed.exit_code == 0
    assert "twice: cannot be evaluated: evaluation unit refused" in listed.stderr
    assert "lifeyear: namespaced: metric 'accuracy' is lifeyear:accuracy" in listed.stderr
    assert "deathyear: namespaced: metric 'year_error'" in listed.stderr and "fine: " not in listed.stderr
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
    """kf_birthyear is written as an outside author would write a method: from knowforge.api alone,
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


def test_the_tutorial_shows_the_test_plugin_word_for_word():
    """docs/tutorial.md builds kf_birthyear step by step: every excerpt it marks with the file it
    comes from is in that file as shown, so the tutorial cannot drift from the code its
    commands run (tests/test_doc_examples.py installs that code)."""
    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "tutorial.md").read_text(encoding="utf-8")
    excerpts = re.findall(r"<!-- from (\S+) -->\n```\w*\n(.*?)^```", text, re.S | re.M)
    assert len(excerpts) >= 10
    for path, excerpt in excerpts:
        assert path.startswith("tests/plugins/kf_birthyear/"), path
        assert excerpt in (root / path).read_text(encoding="utf-8"), f"{path}: the tutorial's excerpt is not in it"


def test_a_plugins_control_practice_joins_the_control_models_training(birthyear_plugin):
    """Issue 35 item 6: a method declares how the control model practises its prompts. The
    plug-in's practice renders its question from the taught birth years; the built-ins' examples
    stay exactly as they were (it draws after them); the model's id names the plug-in."""
    from knowforge.api import EOS
    from knowforge.models.control import ControlConfig, model_id
    from knowforge.models.control_data import DataConfig, SourceFact, epoch_examples, split_facts
    from knowforge.models.methods import control_practices, plugin_practices

    facts = [SourceFact(id=f"b{i}", subject_id=f"Q{i}", subject=f"Person {i}", relation="P569",
                        label="date of birth", kind="attribute", object=f"{1900 + i}-05-0{1 + i % 9}")
             for i in range(40)]
    split = split_facts(facts, cutoff=2020, holdout=0.2, seed=0)
    practices = control_practices()
    assert {"chrono", "events", "birthyear"} <= set(practices) and plugin_practices() == ["birthyear"]
    config = DataConfig(cutoff=2020, practice={"birthyear": {"share": 1.0}})
    with_plugin = epoch_examples(facts, split, config, epoch=0, practices=practices)
    builtins = {k: v for k, v in practices.items() if k != "birthyear"}
    without = epoch_examples(facts, split, config, epoch=0, practices=builtins)
    own = [e for e in with_plugin if e.kind == "birthyear"]
    assert [e for e in with_plugin if e.kind != "birthyear"] == without
    taught = {f.id for f in facts if split[f.id] == "trained"}
    assert {e.fact_ids[0] for e in own} == taught and 0 < len(taught) < len(facts)
    for e in own:
        i = int(e.fact_ids[0][1:])
        assert e.text == f"Question: In what year was Person {i} born?\nAnswer: {1900 + i}{EOS}"
        assert e.text[e.spans[0][0]:e.spans[0][1]] == f" {1900 + i}{EOS}"          # the answer carries the loss
    assert model_id(ControlConfig(cutoff=2020), "g", plugin_practices()) != model_id(ControlConfig(cutoff=2020), "g")

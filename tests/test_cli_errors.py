"""A CLI that explains itself: one line for each mistake a user can make, naming the cause
and the next step; `knowforge query` recipes, warnings and JSON. Against the session's real
Neo4j and a scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import click
import neo4j
import pytest
from click.testing import CliRunner
from scripted_openai import ScriptedCompletions, serving

from knowforge.cli.error_messages import describe_error
from knowforge.cli.main import cli
from knowforge.errors import ConfigError
from knowforge.models.backends import local_model_dir, make_backend
from knowforge.models.cache import ResponseCache
from knowforge.models.config import BackendConfig
from knowforge.models.items_io import write_items
from knowforge.models.types import BenchmarkItem, GenerationRequest

ROOT = Path(__file__).resolve().parents[1]


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def one_line_error(result) -> str:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.strip().splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ")
    return lines[0]


# ---- knowforge query -----------------------------------------------------------------------


def test_a_syntax_error_is_one_line_with_the_servers_message(graph_env, store):
    line = one_line_error(invoke("query", "MATCH (n RETURN n"))
    # the position is the user's: "RETURN" starts in column 10 of what they typed
    assert line == ("Error: Cypher error: Invalid input 'RETURN': expected a graph pattern, a parameter, "
                    "')', ':', 'IS', 'WHERE' or '{' (line 1, column 10 (offset: 9))")
    type_error = one_line_error(invoke("query", "RETURN toInteger([1]) AS x"))
    assert "Invalid input for function 'toInteger()'" in type_error


def test_a_missing_parameter_is_one_line_naming_it(graph_env, store):
    line = one_line_error(invoke("query", "MATCH (e:Entity {id: $id}) RETURN e.name"))
    assert line == "Error: the query needs parameter(s) id: pass -p id=VALUE"
    assert invoke("query", "MATCH (e:Entity {id: $id}) RETURN e.name", "-p", "id=Q1").exit_code == 0


def test_unknown_labels_and_properties_are_warned_about(graph_env, store):
    store.user_query("CREATE (:Entity {id: 'W1', name: 'w'})", write=True)
    result = invoke("query", "MATCH (n:Entty) RETURN n.nmae")
    assert result.exit_code == 0 and "(no rows)" in result.stdout
    assert "warning: label does not exist. The label `Entty` does not exist" in result.stderr
    assert "The property `nmae` does not exist" in result.stderr
    assert "(line 1, column 10)" in result.stderr      # in the user's text
    clean = invoke("query", "MATCH (n:Entity) RETURN n.name AS name")
    assert clean.exit_code == 0 and "warning" not in clean.stderr


def test_query_file_runs_a_recipe(graph_env, store, tmp_path):
    store.user_query("CREATE (:Entity {id: 'R1', name: 'Recipe'})", write=True)
    recipe = tmp_path / "by_name.cypher"
    recipe.write_text("// the entity of a name\n// Parameters: $name\nMATCH (e:Entity {name: $name})\n"
                      "RETURN e.id AS id;\n")
    result = invoke("query", "--file", str(recipe), "-p", "name=Recipe", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [{"id": "R1"}]
    missing = one_line_error(invoke("query", "-f", str(recipe)))
    assert "needs parameter(s) name: pass -p name=VALUE" in missing
    two = tmp_path / "two.cypher"
    two.write_text("RETURN 1;\nRETURN 2;\n")
    assert "holds 2 statements" in one_line_error(invoke("query", "--file", str(two)))
    both = one_line_error(invoke("query", "RETURN 1", "--file", str(recipe)))
    assert "CYPHER or with --file" in both
    # a recipe shipped in cypher/queries/ runs as documented (its parameters given)
    shipped = ROOT / "cypher" / "queries" / "knowgen_list_artificial_entities.cypher"
    listed = invoke("query", "--file", str(shipped), "-p", "class=Camelidae", "-p", "batch=null")
    assert listed.exit_code == 0 and "(no rows)" in listed.stdout, listed.output


def test_json_output_is_always_valid_json(graph_env, store):
    result = invoke("query", "RETURN 0.0/0.0 AS nan, 1.0/0.0 AS inf, [1.5, -1.0/0.0] AS list, "
                             "{x: 0.0/0.0} AS map", "--format", "json")
    assert result.exit_code == 0, result.output

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    rows = json.loads(result.stdout, parse_constant=refuse)
    assert rows == [{"nan": None, "inf": None, "list": [1.5, None], "map": {"x": None}}]
    table = invoke("query", "RETURN 0.0/0.0 AS nan")
    assert table.exit_code == 0 and "NaN" in table.stdout   # a table shows what is stored


# ---- the response cache ----------------------------------------------------------------------


def test_a_damaged_cache_file_is_one_line_naming_it(tmp_path):
    cache_dir = tmp_path / "cache"
    cache = ResponseCache(cache_dir)
    from knowforge.models.backends import cached
    from test_cache import CountingBackend

    cached(CountingBackend(), cache).generate([GenerationRequest(prompt=f"p{i}" * 200) for i in range(200)])
    cache.close()
    path = cache_dir / "responses.sqlite"
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])   # truncated
    with pytest.raises(ConfigError, match=r"the response cache .*responses.sqlite cannot be used .*move it "
                                          r"aside .*--no-cache"):
        cached(CountingBackend(), ResponseCache(cache_dir)).generate(
            [GenerationRequest(prompt=f"p{i}" * 200) for i in range(200)])
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(ConfigError, match="cannot be used .file is not a database."):
        len(ResponseCache(cache_dir))


class Echo(ScriptedCompletions):
    calls: list[str] = []

    def reply(self, prompt: str) -> str:
        return "Coach"


def test_eval_with_a_damaged_cache_says_which_file_and_what_to_do(graph_env, store, tmp_path):
    bench = tmp_path / "bench.jsonl"
    write_items(bench, [BenchmarkItem(id="q0", benchmark="c", task="c/g", form="generation",
                                      question="Who?", answers=["Coach"])])
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "responses.sqlite").write_bytes(b"garbage" * 1000)
    with serving(Echo) as url:
        result = invoke("eval", "--benchmark", str(bench), "--backend", "openai", "--model", "m",
                        "--base-url", url, "--cache-dir", str(tmp_path / "cache"), "--out",
                        str(tmp_path / "runs"), "--silent")
        line = one_line_error(result)
        assert str(tmp_path / "cache" / "responses.sqlite") in line and "--no-cache" in line
        fine = invoke("eval", "--benchmark", str(bench), "--backend", "openai", "--model", "m",
                      "--base-url", url, "--no-cache", "--out", str(tmp_path / "runs"), "--silent")
    assert fine.exit_code == 0, fine.output


# ---- backends --------------------------------------------------------------------------------


def test_openai_without_a_server_is_an_error_not_api_openai_com(graph_env, store, tmp_path, monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match="needs a server: --base-url"):
        make_backend(BackendConfig(backend="openai", model="m", cache=False))
    bench = tmp_path / "bench.jsonl"
    write_items(bench, [BenchmarkItem(id="q0", benchmark="c", task="c/g", form="generation",
                                      question="Who?", answers=["Coach"])])
    line = one_line_error(invoke("eval", "--benchmark", str(bench), "--backend", "openai", "--model", "m",
                                 "--no-cache", "--out", str(tmp_path / "runs"), "--silent"))
    assert "--base-url" in line and "OPENAI_API_KEY" in line
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")   # says where to go
    assert make_backend(BackendConfig(backend="openai", model="m", cache=False)).base_url.endswith("/v1")
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")                        # api.openai.com, on purpose
    assert make_backend(BackendConfig(backend="openai", model="m", cache=False)).base_url is None


def test_a_model_path_that_is_no_model_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "empty").mkdir()
    (tmp_path / "weights.bin").write_bytes(b"x")
    for model, said in [("./nope", "does not exist"), (str(tmp_path / "nope"), "does not exist"),
                        ("models/tiny", "does not exist"), ("a/b/c", "does not exist"),
                        ("weights.bin/", "is a file"), ("models/empty", "has no config.json")]:
        for backend in ("hf", "vllm"):
            with pytest.raises(ConfigError, match=f"--model {model}: .*{said}"):
                make_backend(BackendConfig(backend=backend, model=model, cache=False))
    assert local_model_dir("Qwen/Qwen2.5-7B-Instruct") is None     # a Hub id is left to the Hub
    assert local_model_dir("gpt2") is None


@pytest.mark.hf
def test_a_local_model_folder_loads_offline(tiny_model_dir):
    backend = make_backend(BackendConfig(backend="hf", model=str(tiny_model_dir), cache=False, device="cpu"))
    assert backend.revision.startswith("sha256:")
    assert backend.generate([GenerationRequest(prompt="Hi", max_tokens=2)])[0].texts


# ---- the words of driver errors ---------------------------------------------------------------


def context_of(*names: str, **params) -> click.Context:
    ctx = click.Context(cli, info_name="knowforge")
    for name in names:
        ctx = click.Context(click.Command(name), parent=ctx, info_name=name)
    ctx.params = params
    return ctx


def test_a_stopped_server_message_says_what_a_rerun_does(monkeypatch):
    monkeypatch.delenv("NEO4J_URI", raising=False)
    gone = neo4j.exceptions.ServiceUnavailable("Couldn't connect")
    assert describe_error(gone, context_of("load")).endswith("the load resumes idempotently "
                                                              "(what was written is merged, never doubled)")
    assert "in the response cache" in describe_error(gone, context_of("eval", no_cache=False))
    assert "were not kept" in describe_error(gone, context_of("eval", no_cache=True))
    assert "`knowforge generate knowgen --drop NAME`" in describe_error(gone, context_of("generate", "knowgen"))
    assert describe_error(gone, context_of("stats")).startswith(
        "the Neo4j server stopped or cannot be reached: run `knowforge neo4j start`")
    monkeypatch.setenv("NEO4J_URI", "bolt://neo4j:TopSecret@db.example:7687")
    remote = describe_error(neo4j.exceptions.SessionExpired("gone"), context_of("stats"))
    assert "bolt://db.example:7687" in remote and "TopSecret" not in remote
    assert describe_error(ValueError("a bug"), context_of("stats")) is None   # bugs keep their traceback


def test_the_drivers_retry_time_is_bounded_and_configurable(monkeypatch):
    from knowforge.kg.connection import DEFAULT_RETRY_SECONDS, driver_options, retry_seconds

    monkeypatch.delenv("KNOWFORGE_NEO4J_RETRY_SECONDS", raising=False)
    assert driver_options() == {"max_transaction_retry_time": DEFAULT_RETRY_SECONDS} and DEFAULT_RETRY_SECONDS < 30
    monkeypatch.setenv("KNOWFORGE_NEO4J_RETRY_SECONDS", "2.5")
    assert retry_seconds() == 2.5
    for bad in ("soon", "-1"):
        monkeypatch.setenv("KNOWFORGE_NEO4J_RETRY_SECONDS", bad)
        with pytest.raises(ConfigError, match="KNOWFORGE_NEO4J_RETRY_SECONDS must be"):
            retry_seconds()


@pytest.mark.parametrize("limit", ["-1", "0"])
def test_a_limit_below_one_is_refused_before_anything_starts(limit, tmp_path):
    # it once evaluated 30 of 31 items (-1) or said the benchmark had no items (0)
    result = CliRunner().invoke(cli, ["eval", "--benchmark", "knowgen:any", "--model", str(tmp_path / "m"),
                                      "--limit", limit])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"Invalid value for '--limit': {limit} is not in the range x>=1" in result.output

"""The security holes of issue 28, each proved closed against the real managed Neo4j the tests
start and a scripted OpenAI-compatible server on 127.0.0.1:

- LOAD CSV reads neither files outside HOME/import nor any URL (through the bare driver, as
  Neo4j Browser would send it), and `knowforge query` refuses it with the real reason;
- credentials in URLs (--base-url, NEO4J_URI) and API keys reach no output;
- a reply without text is an error for its request and is never cached.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import neo4j
import pytest
from click.testing import CliRunner
from scripted_openai import ScriptedCompletions, serving

from knowforge.cli.main import cli
from knowforge.models.cache import ResponseCache
from knowforge.models.items_io import write_items
from knowforge.models.types import BenchmarkItem
from knowforge.models.urls import redact_url


def invoke(*args: str, env: dict | None = None):
    return CliRunner().invoke(cli, list(args), env=env)


class RecordingHTTP(BaseHTTPRequestHandler):
    """Answers any GET with a CSV and records the path: a fetch by Neo4j would show here."""

    requests: list[str] = []

    def do_GET(self):  # noqa: N802 (http.server API)
        type(self).requests.append(self.path)
        body = b"name,secret\nalice,42\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/csv")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        return


@pytest.fixture
def csv_site():
    RecordingHTTP.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), RecordingHTTP)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def managed(neo4j_server):
    server, settings = neo4j_server
    if server is None:
        pytest.skip("the LOAD CSV confinement is the managed server's configuration")
    return server, settings


def driver_error(settings, text: str) -> neo4j.exceptions.Neo4jError:
    """The error the bare driver (no knowforge check in between) gets for ``text``."""
    with neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password)) as driver:
        with pytest.raises(neo4j.exceptions.ClientError) as info:
            driver.execute_query(text)
    return info.value


def test_load_csv_reads_no_file_outside_import_and_fetches_no_url(neo4j_server, csv_site):
    server, settings = managed(neo4j_server)
    for url in ("file:///etc/passwd", "file:///../password", "file:///../conf/neo4j.conf"):
        error = driver_error(settings, f"LOAD CSV FROM '{url}' AS row RETURN row")
        assert error.code == "Neo.ClientError.Statement.ExternalResourceFailed", url
        assert settings.password not in str(error)
    for url in (f"{csv_site}/x.csv", csv_site.replace("127.0.0.1", "localhost") + "/y.csv"):
        error = driver_error(settings, f"LOAD CSV FROM '{url}' AS row RETURN row")
        assert "is blocked" in error.message, url
    assert RecordingHTTP.requests == [], "Neo4j fetched a URL"
    # the confinement is a folder, not a broken LOAD CSV: HOME/import is readable
    (server.import_dir / "ok.csv").write_text("a,b\n")
    with neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password)) as driver:
        rows, _, _ = driver.execute_query("LOAD CSV FROM 'file:///ok.csv' AS row RETURN row")
    assert [r["row"] for r in rows] == [["a", "b"]]
    conf = (server.conf_dir / "neo4j.conf").read_text()
    assert f"server.directories.import={server.import_dir}" in conf


def test_query_refuses_load_csv_and_admin_procedures_with_the_reason(graph_env, store, csv_site):
    cases = {
        "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row": "LOAD CSV reads files or URLs",
        f"CALL () {{ LOAD CSV FROM '{csv_site}/z.csv' AS r RETURN r }} RETURN r": "LOAD CSV reads files or URLs",
        "CALL dbms.listConfig() YIELD name RETURN name": "`dbms.listConfig` is an administration procedure",
        "SHOW USERS": "administration command",
        "TERMINATE TRANSACTIONS 'neo4j-transaction-1'": "TERMINATE TRANSACTIONS is an administration command",
        "CALL db.createLabel('X')": "`db.createLabel` is not one of the read-only procedures",
        "CREATE (:Tmp)": "writes to the graph",
        "CREATE INDEX tmp_x IF NOT EXISTS FOR (n:Tmp) ON (n.x)": "changes the schema",
    }
    for text, reason in cases.items():
        result = invoke("query", text)
        assert result.exit_code == 1, text
        assert reason in result.output and "Traceback" not in result.output, (text, result.output)
        assert "writes to the graph" not in result.output or reason == "writes to the graph", text
    assert RecordingHTTP.requests == []
    allowed = invoke("query", "CALL db.labels() YIELD label RETURN count(label) AS n", "--format", "json")
    assert allowed.exit_code == 0 and json.loads(allowed.stdout)[0]["n"] >= 0
    unsafe = invoke("query", "CALL dbms.listConfig() YIELD name RETURN name LIMIT 1", "--unsafe")
    assert unsafe.exit_code == 0, unsafe.output
    written = invoke("query", "CALL db.createLabel('KnowforgeTmp')", "--write")
    assert written.exit_code == 0, written.output


def test_unsafe_load_csv_is_still_confined_by_the_managed_server(neo4j_server, graph_env, store, csv_site):
    managed(neo4j_server)
    for url in ("file:///etc/passwd", f"{csv_site}/x.csv"):
        result = invoke("query", f"LOAD CSV FROM '{url}' AS row RETURN row", "--unsafe")
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert "root:" not in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert RecordingHTTP.requests == []


def test_redact_url():
    assert redact_url("http://user:pass@host:8000/v1") == "http://user:***@host:8000/v1"
    assert redact_url("http://sk-token@host/v1") == "http://***@host/v1"
    assert redact_url("bolt://neo4j:p%40ss@127.0.0.1:7687") == "bolt://neo4j:***@127.0.0.1:7687"
    assert redact_url("http://127.0.0.1:8000/v1?x=a@b") == "http://127.0.0.1:8000/v1?x=a@b"
    assert redact_url("http://u:p@[::1/v1") == "http://***@[::1/v1"   # urlsplit refuses it
    assert redact_url(None) is None and redact_url("") == ""


def test_neo4j_uri_with_a_password_connects_and_never_echoes_it(graph_env, store, monkeypatch):
    settings = graph_env
    host = settings.uri.split("://", 1)[1]
    monkeypatch.delenv("NEO4J_PASSWORD")
    monkeypatch.setenv("NEO4J_URI", f"bolt://neo4j:{settings.password}@{host}")
    assert invoke("stats", "--json").exit_code == 0   # the userinfo is the credential
    monkeypatch.setenv("NEO4J_URI", f"bolt://neo4j:WrongSecret123@{host}")
    wrong = invoke("stats")
    assert wrong.exit_code == 1 and "refused the credentials" in wrong.output
    assert "WrongSecret123" not in wrong.output and len(wrong.output.strip().splitlines()) == 1
    monkeypatch.setenv("NEO4J_URI", "bolt://neo4j:WrongSecret123@127.0.0.1:notaport")
    bad = invoke("stats")
    assert bad.exit_code == 1 and "NEO4J_URI" in bad.output and "Traceback" not in bad.output
    assert "WrongSecret123" not in bad.output and len(bad.output.strip().splitlines()) == 1
    verbose = invoke("-v", "stats")
    assert "WrongSecret123" not in verbose.output


# ---- replies without text ---------------------------------------------------------------


def tiny_benchmark(path: Path, n: int = 3) -> Path:
    write_items(path, [BenchmarkItem(id=f"q{i}", benchmark="sec", task="sec/generation", form="generation",
                                     question=f"Who leads club {i}?", answers=[f"Coach {i}"])
                       for i in range(n)])
    return path


class NullText(ScriptedCompletions):
    calls: list[str] = []

    def reply(self, prompt: str) -> str | None:
        return None


class Healthy(ScriptedCompletions):
    calls: list[str] = []

    def reply(self, prompt: str) -> str:
        return "Coach " + prompt.split("club ")[1].split("?")[0]


def eval_args(bench: Path, url: str, tmp_path: Path) -> list[str]:
    return ["eval", "--benchmark", str(bench), "--backend", "openai", "--model", "scripted",
            "--base-url", url, "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "runs"),
            "--silent", "--timeout", "5"]


def test_a_reply_without_text_is_an_error_and_never_cached(graph_env, store, tmp_path):
    bench = tiny_benchmark(tmp_path / "bench.jsonl")
    NullText.calls, Healthy.calls = [], []
    with serving(NullText) as url:
        first = invoke(*eval_args(bench, url, tmp_path))
    assert first.exit_code == 0, first.output
    run1 = first.stdout.strip().splitlines()[-1]
    report = json.loads((tmp_path / "runs" / run1 / "report.json").read_text())
    assert report["overall"]["errors"] == 3 and report["overall"]["accuracy"] == 0
    assert len(NullText.calls) == 3 * 5, "each request is asked again (max_retries 4) before it fails"
    assert len(ResponseCache(tmp_path / "cache")) == 0, "a non-answer was cached"
    answers = store.user_query("MATCH (:Run {id: $id})-[:GAVE]->(a:Answer) RETURN a.error AS error", {"id": run1})
    assert answers and all("without text" in (a["error"] or "") for a in answers)

    with serving(Healthy) as url:
        second = invoke(*eval_args(bench, url, tmp_path))
    assert second.exit_code == 0, second.output
    run2 = second.stdout.strip().splitlines()[-1]
    assert len(Healthy.calls) == 3, "the rerun asks every request again"
    report = json.loads((tmp_path / "runs" / run2 / "report.json").read_text())
    assert report["overall"]["errors"] == 0 and report["overall"]["accuracy"] == 1.0
    assert len(ResponseCache(tmp_path / "cache")) == 3


# ---- no secret in any output -------------------------------------------------------------


def test_no_planted_secret_reaches_any_output(graph_env, store, tmp_path, monkeypatch, caplog):
    """A small real flow with secrets in every place a user puts them: the Neo4j password (in
    NEO4J_URI's userinfo too), credentials in --base-url, an API key. Every output is searched:
    stdout and stderr, log records, report folders, the response cache, the whole graph."""
    import logging

    caplog.set_level(logging.DEBUG)
    url_secret, key_secret = "UrlSecret9f3c", "sk-KeySecret51d7"
    secrets = [url_secret, key_secret, graph_env.password]
    host = graph_env.uri.split("://", 1)[1]
    monkeypatch.setenv("NEO4J_URI", f"bolt://neo4j:{graph_env.password}@{host}")
    monkeypatch.delenv("NEO4J_PASSWORD")
    monkeypatch.setenv("OPENAI_API_KEY", key_secret)
    bench = tiny_benchmark(tmp_path / "bench.jsonl")
    outputs: list[str] = []
    Healthy.calls = []
    with serving(Healthy) as url:
        secret_url = url.replace("http://", f"http://user:{url_secret}@")
        for args in (["-vv", *eval_args(bench, secret_url, tmp_path), "--log-samples"],
                     ["-vv", *eval_args(bench, secret_url, tmp_path)]):
            result = invoke(*args)
            assert result.exit_code == 0, result.output
            outputs += [result.stdout, result.stderr]
        run_id = result.stdout.strip().splitlines()[-1]
    assert Healthy.calls, "the flow asked the model"
    report = invoke("report", run_id, "--out", str(tmp_path / "report"))
    listed = invoke("results", "--list", "--format", "json")
    graph = invoke("query", "MATCH (n) RETURN labels(n) AS labels, properties(n) AS props", "--format", "json")
    relationships = invoke("query", "MATCH ()-[r]->() RETURN properties(r) AS props", "--format", "json")
    for result in (report, listed, graph, relationships):
        assert result.exit_code == 0, result.output
        outputs += [result.stdout, result.stderr]
    stored = json.loads(graph.stdout)
    assert any(row["props"].get("base_url") == redact_url(secret_url) for row in stored), \
        "the run keeps its server URL, redacted"
    outputs.append(caplog.text)
    files = [p for d in (tmp_path / "runs", tmp_path / "report", tmp_path / "cache") for p in d.rglob("*")
             if p.is_file()]
    assert any(p.name == "report.json" for p in files) and any("responses.sqlite" in p.name for p in files)
    for path in files:
        outputs.append(path.read_bytes().decode("utf-8", errors="replace"))
    for secret in secrets:
        leaks = [text[max(0, text.find(secret) - 80):text.find(secret) + 40] for text in outputs if secret in text]
        assert not leaks, f"secret found: {leaks[:2]}"

"""The managed server's process, on a private server in a temporary home (never the session
server the other tests use, which nothing here stops or kills):

- a PID in the state file that belongs to another process is neither reused nor signalled;
- the generated password never appears on a command line (the admin tool reads it from a file);
- a server killed under a long command makes it fail with one line that says what to do;
- a restart after a crash keeps the Bolt and HTTP ports.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import neo4j
import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.kg.connection import GraphSettings, open_store
from knowforge.kg.neo4j_server import ManagedNeo4j, _pid_alive, free_port

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from make_wikidata_dump import write_dump  # noqa: E402


@pytest.fixture
def stranger():
    """A process that is not Neo4j (what a PID in a stale state file may belong to)."""
    proc = subprocess.Popen(["sleep", "600"])
    yield proc
    proc.kill()
    proc.wait()


def plant_state(server: ManagedNeo4j, pid: int) -> None:
    server.run_dir.mkdir(parents=True, exist_ok=True)
    server.state_file.write_text(json.dumps({"pid": pid, "bolt_port": 7, "uri": "bolt://127.0.0.1:7",
                                             "http_port": 8, "version": "5.26.30"}))


def test_a_reused_pid_is_not_this_server_and_is_never_signalled(tmp_path, stranger):
    server = ManagedNeo4j(home=tmp_path / "home")
    plant_state(server, stranger.pid)
    assert _pid_alive(stranger.pid)
    assert not server.status().running and server.status().pid is None
    runner = CliRunner()
    status = runner.invoke(cli, ["neo4j", "status", "--home", str(server.home)])
    assert status.exit_code == 0 and status.output.startswith("not running"), status.output
    stop = runner.invoke(cli, ["neo4j", "stop", "--home", str(server.home)])
    assert stop.exit_code == 0 and stop.output.strip() == "not running"
    time.sleep(0.2)
    assert stranger.poll() is None, "neo4j stop signalled a process that is not Neo4j"
    assert not server.state_file.exists()


# ---- a private server ----------------------------------------------------------------------


def recording_java(tmp_path: Path) -> tuple[Path, Path]:
    """A JAVA_HOME whose bin/java writes its arguments to a log, then becomes the real java."""
    real = shutil.which("java")
    if real is None:
        pytest.skip("no java on PATH")
    real = os.path.realpath(real)
    home = tmp_path / "java-home"
    (home / "bin").mkdir(parents=True)
    log = tmp_path / "java-argv.log"
    java = home / "bin" / "java"
    java.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    java.chmod(java.stat().st_mode | stat.S_IXUSR)
    return home, log


@pytest.fixture(scope="module")
def private_server(tmp_path_factory, neo4j_server):
    """A managed server of its own home, first started over a stale state file whose PID is
    a `sleep`, with a java that records every command line it is given."""
    session_server, _ = neo4j_server
    if session_server is None:
        pytest.skip("needs the managed server's jars")
    tmp = tmp_path_factory.mktemp("private-neo4j")
    java_home, argv_log = recording_java(tmp)
    server = ManagedNeo4j(home=tmp / "home", cache_dir=session_server.cache_dir)
    stranger = subprocess.Popen(["sleep", "600"])
    plant_state(server, stranger.pid)
    # As if it had run before on two free ports: other test sessions on this machine race for
    # the defaults (7687, 7474), and a restart must find its own ports free.
    server._write_config(free_port(), free_port())
    saved = os.environ.get("JAVA_HOME")
    os.environ["JAVA_HOME"] = str(java_home)
    try:
        first = server.start(timeout=240)
        yield server, first, argv_log, stranger
    finally:
        if saved is None:
            os.environ.pop("JAVA_HOME", None)
        else:
            os.environ["JAVA_HOME"] = saved
        server.stop(timeout=60)
        stranger.kill()
        stranger.wait()


def test_start_over_a_reused_pid_starts_afresh_and_keeps_the_password_off_argv(private_server):
    server, first, argv_log, stranger = private_server
    assert first.reused is False and first.pid != stranger.pid
    assert first.bolt_port == server.bolt_port() not in (7687, 7474), "the ports of the last start"
    assert stranger.poll() is None, "the stale PID's process was signalled"
    password = server.password()
    command_lines = argv_log.read_text().splitlines()
    assert any("set-initial-password" in line for line in command_lines), command_lines
    assert not [line for line in command_lines if password in line], "the password was on a command line"
    assert not (server.run_dir / "initial-password.args").exists()
    with open_store(GraphSettings(first.uri, "neo4j", password)) as store:   # the password took
        assert store.user_query("RETURN 1 AS one") == [{"one": 1}]


def knowforge(*args: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env["KNOWFORGE_BATCH_SIZE"] = "50"      # many small batches: the load is still writing when killed
    # a killed server's error comes after the driver's retries: the same path for 2 s, not 10
    env["KNOWFORGE_NEO4J_RETRY_SECONDS"] = "2"
    return subprocess.Popen([sys.executable, "-c", "from knowforge.cli.main import cli; cli()", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)


def node_count(uri: str, password: str) -> int:
    try:
        with neo4j.GraphDatabase.driver(uri, auth=("neo4j", password), connection_timeout=5) as driver:
            return driver.execute_query("MATCH (n) RETURN count(n) AS n").records[0]["n"]
    except neo4j.exceptions.DriverError:
        return 0


def test_a_killed_server_fails_the_load_in_one_line_and_restarts_on_its_ports(private_server, tmp_path):
    server, first, _, _ = private_server
    dump = write_dump(tmp_path / "dump.json", 1500, seed=3)
    load = knowforge("load", "wikidata", str(dump), "--home", str(server.home), "--silent")
    try:
        while node_count(first.uri, server.password()) == 0:
            assert load.poll() is None, load.communicate()
            time.sleep(0.3)
        os.kill(server.status().pid, signal.SIGKILL)   # the private server only
        out, err = load.communicate(timeout=300)
    finally:
        if load.poll() is None:
            load.kill()
            load.wait()
    assert load.returncode == 1, (out, err)
    assert "Traceback" not in err and "ERROR neo4j" not in err, err
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert lines[-1] == ("Error: the Neo4j server stopped or cannot be reached: run `knowforge neo4j "
                         "start`, then re-run; the load resumes idempotently (what was written is "
                         "merged, never doubled)"), err

    verbose = knowforge("-v", "query", "RETURN 1", "--home", str(server.home))
    # the state file still names the dead PID: nothing runs, so the command starts the server
    # again (auto-start) on the ports it had
    out, err = verbose.communicate(timeout=300)
    assert verbose.returncode == 0, err
    again = server.status()
    assert again.running and again.pid != first.pid
    assert again.bolt_port == first.bolt_port and again.browser_url == first.browser_url


def test_verbose_shows_the_traceback_of_a_one_line_error(private_server):
    server, _, _, _ = private_server
    quiet = knowforge("query", "MATCH (n RETURN n", "--home", str(server.home))
    out, err = quiet.communicate(timeout=300)
    assert quiet.returncode == 1 and err.strip().splitlines() == [
        "Error: Cypher error: Invalid input 'RETURN': expected a graph pattern, a parameter, ')', ':', "
        "'IS', 'WHERE' or '{' (line 1, column 10 (offset: 9))"], err
    verbose = knowforge("-v", "query", "MATCH (n RETURN n", "--home", str(server.home))
    out, err = verbose.communicate(timeout=300)
    assert verbose.returncode == 1 and "Traceback" in err and "CypherSyntaxError" in err
    assert err.strip().splitlines()[-1].startswith("Error: Cypher error: Invalid input 'RETURN'")


def test_eval_that_cannot_write_its_run_says_the_answers_are_cached(private_server, tmp_path):
    """The server dies while the model answers: writing the run fails with one line saying
    that the answers are cached, and the re-run (the server started again) asks nothing."""
    from scripted_openai import ScriptedCompletions, serving

    from knowforge.models.items_io import write_items
    from knowforge.models.types import BenchmarkItem

    server, _, _, _ = private_server
    write_items(tmp_path / "bench.jsonl", [
        BenchmarkItem(id=f"q{i}", benchmark="kill", task="kill/generation", form="generation",
                      question=f"Who leads club {i}?", answers=[f"Coach {i}"]) for i in range(4)])

    class KillsNeo4j(ScriptedCompletions):
        calls: list[str] = []

        def reply(self, prompt: str) -> str:
            if len(type(self).calls) == 4:   # the last answer: the graph is gone before the write
                os.kill(server.status().pid, signal.SIGKILL)
                while server.status().running:
                    time.sleep(0.1)
            return "Coach"

    def run_eval(url: str) -> subprocess.Popen:
        return knowforge("eval", "--benchmark", str(tmp_path / "bench.jsonl"), "--backend", "openai",
                         "--model", "scripted", "--base-url", url, "--concurrency", "1",
                         "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "runs"),
                         "--silent", "--home", str(server.home))

    with serving(KillsNeo4j) as url:
        first = run_eval(url)
        out, err = first.communicate(timeout=600)
        assert first.returncode == 1 and len(KillsNeo4j.calls) == 4, err
        assert "Traceback" not in err
        assert err.strip().splitlines()[-1] == (
            "Error: the Neo4j server stopped or cannot be reached: run `knowforge neo4j start`, then "
            "re-run; the answers received so far are in the response cache, so the same command "
            "resumes and asks the model only for the rest"), err
        again = run_eval(url)     # starts the server again (auto-start), on the same home
        out, err = again.communicate(timeout=600)
        assert again.returncode == 0, err
        assert len(KillsNeo4j.calls) == 4, "the re-run asked the model again"
        assert "4 hits, 0 misses" in err, err

"""The managed server: start, reuse, stop, port conflicts, auth — against the real Neo4j."""

from __future__ import annotations

import json
import socket
import stat

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.errors import ConfigError, GraphUnavailable, Neo4jServerError
from knowforge.kg.connection import GraphSettings, open_store
from knowforge.kg import neo4j_server as neo4j_server_module
from knowforge.kg.neo4j_cds import extra_jvm_options
from knowforge.kg.neo4j_server import ManagedNeo4j, free_port, machine_memory, memory_defaults, server_memory


def test_session_server_answers_and_password_is_private(neo4j_server):
    server, settings = neo4j_server
    if server is None:
        pytest.skip("tests run against an external server")
    mode = stat.S_IMODE(server.password_file.stat().st_mode)
    assert mode == 0o600
    st = server.status()
    assert st.running and st.uri == settings.uri
    with open_store(settings) as store:
        assert store.read("stats/label_counts") is not None


GIB = 1 << 30


def _size_bytes(text: str) -> int:
    return int(text[:-1]) << {"k": 10, "m": 20, "g": 30}[text[-1].lower()]


def test_memory_defaults_are_an_eighth_of_the_machine_within_bounds():
    assert memory_defaults(None) == ("1024m", "512m")
    assert memory_defaults(2 * GIB) == ("1024m", "512m")  # floors on a small machine
    assert memory_defaults(12 * GIB) == ("1536m", "1536m")
    # this machine kind: 24,684,084 kB -> an eighth is 3,013 MiB -> 3072m
    assert memory_defaults(24_684_084 * 1024) == ("3072m", "3072m")
    assert memory_defaults(512 * GIB) == ("4096m", "4096m")  # caps on a large one
    assert machine_memory() is None or machine_memory() > 0


def test_server_memory_takes_the_environment_first(monkeypatch):
    monkeypatch.setenv("KNOWFORGE_NEO4J_HEAP", "2g")
    monkeypatch.setenv("KNOWFORGE_NEO4J_PAGECACHE", "300m")
    assert server_memory() == ("2g", "300m")
    monkeypatch.delenv("KNOWFORGE_NEO4J_HEAP")
    monkeypatch.delenv("KNOWFORGE_NEO4J_PAGECACHE")
    assert server_memory() == memory_defaults(machine_memory())


def test_a_size_that_is_no_size_is_refused_before_java_starts(tmp_path, monkeypatch):
    monkeypatch.setenv("KNOWFORGE_NEO4J_HEAP", "lots")
    with pytest.raises(ConfigError, match="KNOWFORGE_NEO4J_HEAP must be a memory size .*'lots'"):
        server_memory()
    monkeypatch.setenv("KNOWFORGE_NEO4J_HEAP", " 2g ")
    monkeypatch.setenv("KNOWFORGE_NEO4J_PAGECACHE", "1.5g")
    with pytest.raises(ConfigError, match="KNOWFORGE_NEO4J_PAGECACHE"):
        server_memory()
    monkeypatch.delenv("KNOWFORGE_NEO4J_PAGECACHE")
    assert server_memory()[0] == "2g"
    with pytest.raises(ConfigError, match="--heap must be"):
        ManagedNeo4j(home=tmp_path / "home").start(heap="2 GB")
    assert not ManagedNeo4j(home=tmp_path / "home").status().running


def test_session_server_runs_with_the_memory_it_was_given(neo4j_server):
    """The heap and page cache reach the JVM and Neo4j (conftest sets small ones for tests)."""
    server, settings = neo4j_server
    if server is None:
        pytest.skip("tests run against an external server")
    heap, pagecache = server_memory()
    with open_store(settings) as store:  # SHOW SETTINGS is an admin command: not a user_query
        [setting], _, _ = store.driver.execute_query(
            "SHOW SETTINGS YIELD name, value WHERE name = 'server.memory.pagecache.size' RETURN value")
        [jmx], _, _ = store.driver.execute_query(
            "CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes "
            "RETURN attributes.HeapMemoryUsage.value.properties.max AS max")
    assert jmx["max"] == _size_bytes(heap)
    amount, unit = setting["value"][:-3], setting["value"][-3:]  # e.g. '128.0MiB', '3.00GiB'
    assert float(amount) * {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": GIB}[unit] == _size_bytes(pagecache)


def test_session_server_has_the_launchers_memory_and_file_access(neo4j_server):
    """Started from the jars with the JVM options Neo4j's launcher passes, the server's page
    cache gets direct buffers and its transaction logs native file access: debug.log carries
    neither warning that it logs without them."""
    server, _ = neo4j_server
    if server is None:
        pytest.skip("tests run against an external server")
    debug_log = (server.logs_dir / "debug.log").read_text(encoding="utf-8", errors="replace")
    # the server's record of its JVM's arguments: the log covers the start
    assert "--add-opens=java.base/java.nio=ALL-UNNAMED" in debug_log
    # and $KNOWFORGE_JVM_OPTIONS after them (the suite sets it, conftest.py)
    assert extra_jvm_options() and all(option in debug_log for option in extra_jvm_options())
    assert "using fallback mode" not in debug_log
    assert "Incorrect file descriptor" not in debug_log


def test_start_reuses_running_server(neo4j_server):
    server, settings = neo4j_server
    if server is None:
        pytest.skip("tests run against an external server")
    again = server.start()
    assert again.reused is True
    # the sizes it was started with, from its state file (conftest's small ones)
    assert (again.heap, again.pagecache) == server_memory() == (server.status().heap,
                                                                server.status().pagecache)
    assert again.uri == settings.uri
    assert again.pid == server.status().pid


def test_wrong_password_is_a_clear_error(neo4j_server):
    _, settings = neo4j_server
    bad = GraphSettings(uri=settings.uri, user=settings.user, password="not-the-password")
    with pytest.raises(GraphUnavailable, match="refused the credentials"):
        open_store(bad)


def test_wrong_password_through_cli_has_no_traceback(neo4j_server, monkeypatch):
    _, settings = neo4j_server
    monkeypatch.setenv("NEO4J_URI", settings.uri)
    monkeypatch.setenv("NEO4J_PASSWORD", "wrong")
    result = CliRunner().invoke(cli, ["stats"])
    assert result.exit_code == 1
    assert "refused the credentials" in result.output
    assert "Traceback" not in result.output


def test_unreachable_server_is_a_clear_error(monkeypatch):
    # the driver still retries (the path a dead server takes), for one second instead of ten
    monkeypatch.setenv("KNOWFORGE_NEO4J_RETRY_SECONDS", "1")
    port = free_port()
    with pytest.raises(GraphUnavailable, match="cannot reach Neo4j"):
        open_store(GraphSettings(uri=f"bolt://127.0.0.1:{port}", user="neo4j", password="x"))


def test_explicit_port_in_use_is_refused(tmp_path, neo4j_server):
    server, _ = neo4j_server
    if server is None:
        pytest.skip("needs the managed server's jars")
    other = ManagedNeo4j(home=tmp_path / "home", cache_dir=server.cache_dir)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        port = sock.getsockname()[1]
        with pytest.raises(Neo4jServerError, match="port .* in use"):
            other.start(port=port)
    assert not other.status().running


@pytest.mark.slow
def test_second_server_losing_its_port_in_a_race_starts_on_a_free_one(tmp_path, neo4j_server,
                                                                       monkeypatch):
    """Two servers starting at once both see a port free; the one that loses the bind must not
    take the winner's AuthError for a wrong password, and starts again on a free port. The race
    is made certain: the second server is told the session server's port is free, once."""
    server, _ = neo4j_server
    if server is None:
        pytest.skip("needs the managed server's jars")
    taken = server.status().bolt_port
    checked = []
    honest = neo4j_server_module.port_is_free

    def free_when_first_checked(port, host="127.0.0.1"):
        if port == taken and not checked:
            checked.append(port)
            return True
        return honest(port, host)

    monkeypatch.setattr(neo4j_server_module, "DEFAULT_BOLT_PORT", taken)
    monkeypatch.setattr(neo4j_server_module, "port_is_free", free_when_first_checked)
    second = ManagedNeo4j(home=tmp_path / "second", cache_dir=server.cache_dir)
    result = second.start(timeout=240)
    try:
        assert checked == [taken]  # the first start really went for the taken port
        assert "Address already in use" in second.console_log.read_text(errors="replace")
        assert result.reused is False
        assert (result.heap, result.pagecache) == server_memory()
        assert result.bolt_port != taken
        assert second.status().running
        with open_store(GraphSettings(result.uri, "neo4j", second.password())) as store:
            assert store.user_query("RETURN 1 AS one") == [{"one": 1}]
    finally:
        assert second.stop(timeout=60) is True
    assert not second.status().running
    assert second.stop() is False  # stopping twice is harmless


def test_status_and_logs_commands(neo4j_server):
    server, _ = neo4j_server
    if server is None:
        pytest.skip("tests run against an external server")
    runner = CliRunner()
    out = runner.invoke(cli, ["neo4j", "status", "--home", str(server.home)], catch_exceptions=False)
    assert out.exit_code == 0 and "running" in out.output and server.status().uri in out.output
    assert f"heap {server_memory()[0]}, page cache {server_memory()[1]}" in out.output
    as_json = runner.invoke(cli, ["neo4j", "status", "--home", str(server.home), "--json"])
    assert json.loads(as_json.output)["heap"] == server_memory()[0]
    logs = runner.invoke(cli, ["neo4j", "logs", "--home", str(server.home), "-n", "5"],
                         catch_exceptions=False)
    assert logs.exit_code == 0 and "Started" in server.logs(lines=200)
    browser = server.status().browser_url
    import urllib.request
    with urllib.request.urlopen(browser, timeout=30) as resp:  # Neo4j Browser is served
        assert resp.status == 200

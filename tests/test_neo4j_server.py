"""The managed server: start, reuse, stop, port conflicts, auth — against the real Neo4j."""

from __future__ import annotations

import socket
import stat

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.errors import GraphUnavailable, Neo4jServerError
from knowforge.kg.connection import GraphSettings, open_store
from knowforge.kg.neo4j_server import ManagedNeo4j, free_port


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


def test_start_reuses_running_server(neo4j_server):
    server, settings = neo4j_server
    if server is None:
        pytest.skip("tests run against an external server")
    again = server.start()
    assert again.reused is True
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


def test_unreachable_server_is_a_clear_error():
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
def test_second_server_picks_free_port_then_stops(tmp_path, neo4j_server):
    """Start a second managed server while 7687 may be taken; stop it; status follows."""
    server, _ = neo4j_server
    if server is None:
        pytest.skip("needs the managed server's jars")
    blocker = socket.socket()
    blocked = False
    try:
        blocker.bind(("127.0.0.1", 7687))
        blocker.listen(1)
        blocked = True
    except OSError:
        pass  # 7687 is already taken by someone else: the same situation
    try:
        second = ManagedNeo4j(home=tmp_path / "second", cache_dir=server.cache_dir)
        result = second.start(timeout=240)
        try:
            assert result.reused is False
            assert result.bolt_port != 7687
            assert second.status().running
            with open_store(GraphSettings(result.uri, "neo4j", second.password())) as store:
                assert store.user_query("RETURN 1 AS one") == [{"one": 1}]
        finally:
            assert second.stop(timeout=60) is True
        assert not second.status().running
        assert second.stop() is False  # stopping twice is harmless
    finally:
        if blocked:
            blocker.close()


def test_status_and_logs_commands(neo4j_server):
    server, _ = neo4j_server
    if server is None:
        pytest.skip("tests run against an external server")
    runner = CliRunner()
    out = runner.invoke(cli, ["neo4j", "status", "--home", str(server.home)], catch_exceptions=False)
    assert out.exit_code == 0 and "running" in out.output and server.status().uri in out.output
    logs = runner.invoke(cli, ["neo4j", "logs", "--home", str(server.home), "-n", "5"],
                         catch_exceptions=False)
    assert logs.exit_code == 0 and "Started" in server.logs(lines=200)
    browser = server.status().browser_url
    import urllib.request
    with urllib.request.urlopen(browser, timeout=30) as resp:  # Neo4j Browser is served
        assert resp.status == 200

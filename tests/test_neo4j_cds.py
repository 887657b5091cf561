"""Class data sharing for the managed server: one start records an archive, later starts map it,
and anything wrong with it means an ordinary start. Real JVMs and a real server, in a cache of
their own (the jars linked from the installed ones), so the user's archive is not touched."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from knowforge.kg.connection import GraphSettings, open_store
from knowforge.kg.neo4j_cds import cds_enabled
from knowforge.kg.neo4j_server import NEO4J_VERSION, ManagedNeo4j, free_port, java_executable


@pytest.fixture
def own_cache(tmp_path):
    """A cache dir whose lib/ is the installed jars (a link) and whose cds/ is empty."""
    installed = ManagedNeo4j(home=tmp_path / "unused")
    if not installed.is_installed():
        installed.install()
    cache = tmp_path / "cache"
    (cache / f"neo4j-{NEO4J_VERSION}").mkdir(parents=True)
    (cache / f"neo4j-{NEO4J_VERSION}" / "lib").symlink_to(installed.lib_dir)
    return cache


def _mapped(pid: int, path: Path) -> bool:
    return str(path) in Path(f"/proc/{pid}/maps").read_text()


def test_one_start_records_the_archive_and_the_next_maps_it(own_cache, tmp_path, monkeypatch):
    monkeypatch.delenv("KNOWFORGE_NEO4J_CDS", raising=False)
    server = ManagedNeo4j(home=tmp_path / "home", cache_dir=own_cache)
    archive = server.cds_archive(java_executable())
    assert archive.parent == own_cache / f"neo4j-{NEO4J_VERSION}" / "cds" and not archive.exists()
    server._write_config(free_port(), free_port())

    first = server.start(port=free_port(), timeout=240)
    try:
        args = Path(f"/proc/{first.pid}/cmdline").read_bytes().split(b"\0")
        assert any(a.startswith(b"-XX:ArchiveClassesAtExit=") and a.endswith(b".partial") for a in args)
        lock = json.loads(archive.with_name(archive.name + ".lock").read_text())
        assert lock == {"home": str(server.home)}
        # a second home started meanwhile neither waits for nor records an archive
        other = ManagedNeo4j(home=tmp_path / "other", cache_dir=own_cache)
        assert other._cds_options(java_executable()) == ([], None)
    finally:
        # a one-second timeout, as a script might pass: a recorder's stop waits for the archive
        # (tens of seconds under load) instead of killing it half-written
        assert server.stop(timeout=1)
    assert archive.is_file() and archive.stat().st_size > 0
    assert sorted(p.name for p in archive.parent.iterdir()) == [archive.name]  # no lock, no partial

    second = server.start(port=free_port(), timeout=240)
    try:
        args = Path(f"/proc/{second.pid}/cmdline").read_bytes().split(b"\0")
        assert f"-XX:SharedArchiveFile={archive}".encode() in args
        assert _mapped(second.pid, archive)
        with open_store(GraphSettings(uri=second.uri, user="neo4j", password=server.password())) as store:
            assert store.read("stats/label_counts") is not None
    finally:
        server.stop(timeout=60)


def test_the_archive_name_follows_the_jars_and_the_jdk(tmp_path):
    lib = tmp_path / "cache" / f"neo4j-{NEO4J_VERSION}" / "lib"
    lib.mkdir(parents=True)
    (lib / "a.jar").write_bytes(b"x")
    server = ManagedNeo4j(home=tmp_path / "home", cache_dir=tmp_path / "cache")
    java = java_executable()
    name = server.cds_archive(java)
    assert name == server.cds_archive(java)
    os.utime(lib / "a.jar", ns=(1, 1))   # re-fetched jars: the JVM would refuse the old archive
    assert server.cds_archive(java) != name
    (lib / "b.jar").write_bytes(b"y")
    assert len({name, server.cds_archive(java)}) == 2
    # the same JDK behind a wrapper script elsewhere (a test's recording java, a link): the same
    # archive, not one more per launcher path
    wrapper = tmp_path / "java-home" / "bin" / "java"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text(f'#!/bin/sh\nexec "{os.path.realpath(java)}" "$@"\n')
    wrapper.chmod(0o755)
    assert server.cds_archive(str(wrapper)) == server.cds_archive(java)


def test_a_stale_lock_is_taken_over_and_a_killed_recorder_leaves_nothing(tmp_path):
    lib = tmp_path / "cache" / f"neo4j-{NEO4J_VERSION}" / "lib"
    lib.mkdir(parents=True)
    (lib / "a.jar").write_bytes(b"x")
    java = java_executable()
    crashed = ManagedNeo4j(home=tmp_path / "crashed", cache_dir=tmp_path / "cache")
    options, partial = crashed._cds_options(java)
    assert options == [f"-XX:ArchiveClassesAtExit={partial}"]
    lock = crashed.cds_archive(java).with_name(crashed.cds_archive(java).name + ".lock")
    # while the lock is young, another home starts the ordinary way
    later = ManagedNeo4j(home=tmp_path / "later", cache_dir=tmp_path / "cache")
    assert later._cds_options(java) == ([], None)
    # the recorder never came back (no server runs in its home) and the lock aged: taken over
    old = time.time() - 3600
    os.utime(lock, (old, old))
    options, partial_2 = later._cds_options(java)
    assert options == [f"-XX:ArchiveClassesAtExit={partial_2}"]
    assert json.loads(lock.read_text()) == {"home": str(later.home)}
    # a recorder that had to be killed: its half-written archive and its lock go
    partial_2.write_bytes(b"half")
    later._finish_cds_archive({"cds_dump": str(partial_2)}, clean_exit=False)
    assert list(lock.parent.iterdir()) == []


def test_sharing_is_off_when_asked_or_when_the_options_set_their_own(tmp_path, monkeypatch):
    monkeypatch.setenv("KNOWFORGE_JVM_OPTIONS", "-XX:TieredStopAtLevel=1")
    monkeypatch.delenv("KNOWFORGE_NEO4J_CDS", raising=False)
    assert cds_enabled()
    monkeypatch.setenv("KNOWFORGE_NEO4J_CDS", "0")
    assert not cds_enabled()
    server = ManagedNeo4j(home=tmp_path / "home", cache_dir=tmp_path / "cache")
    assert server._cds_options(java_executable()) == ([], None)
    monkeypatch.delenv("KNOWFORGE_NEO4J_CDS")
    monkeypatch.setenv("KNOWFORGE_JVM_OPTIONS", "-XX:TieredStopAtLevel=1 -Xshare:off")
    assert not cds_enabled()


def test_the_jvm_starts_without_an_archive_that_is_damaged(tmp_path):
    """What start() relies on instead of checking the archive itself: this JDK maps an archive
    only when it validates, and otherwise loads classes the ordinary way."""
    garbage = tmp_path / "server.jsa"
    garbage.write_bytes(os.urandom(4096))
    out = subprocess.run([java_executable(), f"-XX:SharedArchiveFile={garbage}", "-version"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "version" in out.stderr and "sharing" not in out.stderr   # ran, with no archive mapped

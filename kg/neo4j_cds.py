"""Class data sharing (CDS) for the managed Neo4j server's JVM: the archive's key, the lock that
lets one server record it, the recording, and the ``-XX:SharedArchiveFile`` option of later
starts. Also the JVM facts the key is made of (the JDK's identity) and ``$KNOWFORGE_JVM_OPTIONS``,
whose own sharing options turn this off. ``ManagedNeo4j`` (kg/neo4j_server.py) mixes in
``ClassDataSharing``; this module knows nothing else about the server.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import shlex
import subprocess
import time
from pathlib import Path

log = logging.getLogger(__name__)


def extra_jvm_options() -> list[str]:
    """``$KNOWFORGE_JVM_OPTIONS``, split as a shell would: appended to every JVM knowforge starts
    (the server, the admin tool, the Spark driver). The tests set ``-XX:TieredStopAtLevel=1``:
    on tiny inputs the JIT's second tier costs more CPU than it saves (a server start took half
    the time and a first Spark parse of the sample 40 s instead of 102 s on the loaded 2-core
    machine, issue 33)."""
    return shlex.split(os.environ.get("KNOWFORGE_JVM_OPTIONS", ""))


def java_version_text(java: str) -> str:
    """What ``java -XshowSettings:properties -version`` prints: the version, and the JDK's own
    properties (``java.home`` is the JDK behind a wrapper script or a link). Asked once per
    binary (and its modification time) in a process: a JVM start costs a fraction of a second
    of CPU, and start() needs the text twice (the version check and the class-data archive's
    key)."""
    real = os.path.realpath(java)
    return _java_version_text(real, os.stat(real).st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _java_version_text(real: str, mtime_ns: int) -> str:
    out = subprocess.run([real, "-XshowSettings:properties", "-version"], capture_output=True, text=True,
                         timeout=30)
    return out.stderr + out.stdout


_JDK_PROPERTIES = re.compile(r"^\s*(java\.home|java\.vm\.version|java\.runtime\.version|java\.vm\.name)"
                             r" = (.*)$", re.MULTILINE)


def jdk_identity(java: str) -> str:
    """The JDK that ``java`` runs, whatever launches it: its home and exact build. A class-data
    archive is valid for that JVM only, and a launcher path (a wrapper script in a temporary
    folder, a link) would key a new archive on every run."""
    text = java_version_text(java)
    found = sorted(_JDK_PROPERTIES.findall(text))
    return "\n".join(f"{k}={v.strip()}" for k, v in found) if found else os.path.realpath(java) + "\n" + text


# Class data sharing (CDS): a server start spends most of its CPU loading and verifying the
# classes of ~200 jars. A dynamic archive of the classes a server loaded (-XX:ArchiveClassesAtExit,
# written when that JVM exits) lets later JVMs map them instead (-XX:SharedArchiveFile): 8-9
# instead of 13-16 CPU seconds per start on the 2-core machine (issue 33). The JVM validates the
# archive against its own build and the class path (each jar's size and time) and silently loads
# classes the ordinary way when they differ; the archive's name hashes exactly those, so a new
# JDK or re-fetched jars get a new archive instead of a stale one used in vain.
CDS_ENV = "KNOWFORGE_NEO4J_CDS"
CDS_USER_OPTIONS = ("-Xshare", "SharedArchiveFile", "ArchiveClassesAtExit", "AutoCreateSharedArchive")
CDS_PARTIAL_MAX_AGE_S = 24 * 3600
# A recording server's lock is honoured this long even before its state file names a live
# server (it is written between the lock and the JVM's start).
CDS_LOCK_GRACE_S = 600
# How long stop() waits for a recording server: its archive took 45-73 s to write on the
# 2-core machine at load 10-12.
CDS_WRITE_WAIT_S = 300


def cds_enabled() -> bool:
    """Whether servers use a class-data archive: not when ``$KNOWFORGE_NEO4J_CDS`` is 0/off/false/no,
    nor when ``$KNOWFORGE_JVM_OPTIONS`` sets sharing options of its own."""
    if os.environ.get(CDS_ENV, "").strip().lower() in ("0", "off", "false", "no"):
        return False
    return not any(marker in option for option in extra_jvm_options() for marker in CDS_USER_OPTIONS)


class ClassDataSharing:
    """The class-data archive of a managed server. The class it is mixed into gives ``home``,
    ``cache_dir`` and ``lib_dir`` (folders), ``server_version`` (part of the archive's key),
    ``status()`` and a ``(home, cache_dir)`` constructor (a lock's holder is looked up by home)."""

    home: Path
    cache_dir: Path
    lib_dir: Path
    server_version: str

    @property
    def cds_dir(self) -> Path:
        """Where the server's class-data archives live: next to the jars they were made from."""
        return self.lib_dir.parent / "cds"

    def cds_archive(self, java: str) -> Path:
        """The server's class-data archive for ``java`` and the installed jars (which may not
        exist yet). Its name hashes what the JVM checks before it maps an archive: the JDK
        (its home and build) and every jar's name, size and modification time."""
        digest = hashlib.sha256()
        digest.update(f"{jdk_identity(java)}\n{self.server_version}\n".encode())
        for jar in sorted(self.lib_dir.glob("*.jar")):
            st = jar.stat()
            digest.update(f"{jar.name} {st.st_size} {st.st_mtime_ns}\n".encode())
        return self.cds_dir / f"server-{digest.hexdigest()[:20]}.jsa"

    def _cds_partial(self, archive: Path) -> Path:
        # One per home: a home runs one server at a time, so a partial archive of this home
        # that already exists is a leftover of a server that never stopped cleanly.
        home_key = hashlib.sha256(str(self.home.resolve()).encode()).hexdigest()[:12]
        return archive.with_name(f"{archive.name}.{home_key}.partial")

    def _cds_options(self, java: str) -> tuple[list[str], Path | None]:
        """(JVM options, partial archive this JVM writes at exit or None). Use the archive when
        it exists; else have this server write one when it stops (stop() renames it into
        place), so the next start maps it. Any trouble here means an ordinary start."""
        if not cds_enabled():
            return [], None
        try:
            archive = self.cds_archive(java)
            if archive.is_file() and archive.stat().st_size > 0:
                return [f"-XX:SharedArchiveFile={archive}"], None
            self.cds_dir.mkdir(parents=True, exist_ok=True)
            cutoff = time.time() - CDS_PARTIAL_MAX_AGE_S
            for stale in self.cds_dir.glob("*.partial"):  # servers killed while they dumped
                if stale.stat().st_mtime < cutoff:
                    stale.unlink(missing_ok=True)
            if not self._take_cds_lock(archive):
                return [], None
            partial = self._cds_partial(archive)
            partial.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("no class-data archive for Neo4j (%s); starting without one", exc)
            return [], None
        return [f"-XX:ArchiveClassesAtExit={partial}"], partial

    def _take_cds_lock(self, archive: Path) -> bool:
        """Whether this server may be the one that writes ``archive``. One server at a time: a
        JVM that records its classes costs about twice the CPU to start and writes the archive
        only when it stops, so every server started while the first still runs (a test
        session's, xdist's second worker's) starts the ordinary way instead of recording too.
        The lock names the recording home; it is stale once that home's server is gone."""
        lock = archive.with_name(archive.name + ".lock")
        for _ in range(2):
            try:
                fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                try:
                    holder = Path(json.loads(lock.read_text())["home"])
                    young = time.time() - lock.stat().st_mtime < CDS_LOCK_GRACE_S
                except (OSError, ValueError, KeyError, TypeError):
                    holder, young = None, False
                if holder is not None and (young or type(self)(holder, self.cache_dir).status().running):
                    return holder == self.home
                lock.unlink(missing_ok=True)
                continue
            with os.fdopen(fd, "w") as fh:
                json.dump({"home": str(self.home)}, fh)
            return True
        return False

    def _finish_cds_archive(self, state: dict, *, clean_exit: bool) -> None:
        """After the server exited: move the archive it wrote into place, or drop it when the
        JVM was killed (a half-written archive)."""
        partial = state.get("cds_dump")
        if not partial:
            return
        partial = Path(partial)
        final = partial.with_name(partial.name.rsplit(".", 2)[0])
        try:
            if clean_exit and partial.is_file() and partial.stat().st_size > 0 and not final.exists():
                os.replace(partial, final)
            else:
                partial.unlink(missing_ok=True)
            lock = final.with_name(final.name + ".lock")
            if json.loads(lock.read_text()).get("home") == str(self.home):
                lock.unlink(missing_ok=True)
        except (OSError, ValueError, AttributeError) as exc:
            log.debug("class-data archive %s: %s", partial, exc)

"""Install, start, stop and inspect the Neo4j server that knowforge manages itself.

The server is Neo4j 5.26 LTS Community, fetched from Maven Central by Maven using the pinned
manifest ``docker/neo4j-server.pom.xml`` and run as
``java org.neo4j.server.CommunityEntryPoint --console-mode`` bound to 127.0.0.1 only.
This module knows nothing about the store or the schema; it only owns the process.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import platformdirs

from knowforge.errors import ConfigError, Neo4jServerError
from knowforge.kg.neo4j_cds import CDS_WRITE_WAIT_S, ClassDataSharing, extra_jvm_options, java_version_text

log = logging.getLogger(__name__)

NEO4J_VERSION = "5.26.30"
DEFAULT_BOLT_PORT = 7687
PORT_IN_USE_HINT = "\nport in use: another process holds the Bolt port; use --port or stop it"
DEFAULT_HTTP_PORT = 7474
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_TOOL = "org.neo4j.cli.AdminTool"
SUPPORTED_JAVA = (17, 21)
REPO_ROOT = Path(__file__).resolve().parents[1]
MANIFEST = REPO_ROOT / "docker" / "neo4j-server.pom.xml"


def default_home() -> Path:
    """Data directory of the managed server: ``$KNOWFORGE_NEO4J_HOME`` or the user data dir."""
    env = os.environ.get("KNOWFORGE_NEO4J_HOME")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("knowforge")) / "neo4j"


def default_cache_dir() -> Path:
    """Where the server jars are cached: ``$KNOWFORGE_CACHE_DIR`` or the user cache dir."""
    env = os.environ.get("KNOWFORGE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir("knowforge"))


# The JVM options Neo4j's own launcher passes (the server.jvm.additional lines of the 5.26
# distribution's neo4j.conf), which a server started from the jars does not get by itself.
# Without the --add-opens lines its page cache runs in a fallback mode ("could have negative
# impact on performance", debug.log) and the transaction logs are neither preallocated nor
# advised to the kernel ("Incorrect file descriptor" warnings). The admin tool logs neither
# warning and imported 1M facts in the same time with them (17.7 s), so it keeps its two.
NEO4J_JVM_OPTIONS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+AlwaysPreTouch",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
)


# Every address LOAD CSV could fetch from (http, https, ftp): the whole IPv4 and IPv6 space.
BLOCKED_FETCH_NETWORKS = ("0.0.0.0/0", "::/0")

MIB = 1 << 20
# The managed server's heap and page cache, unless KNOWFORGE_NEO4J_HEAP / _PAGECACHE say: an
# eighth of the machine's memory each, within these bounds (MiB). With a 1 GB heap a first load
# of 100k facts ran 10-20% slower than with 3 GB and, one batch at a time, cost a third to a
# half more CPU (docs/scale.md, "The managed server's memory and JVM"). Neo4j allocates the
# page cache as the store grows, so a larger bound costs nothing on a small graph.
HEAP_BOUNDS_MIB = (1024, 4096)
PAGECACHE_BOUNDS_MIB = (512, 4096)


def machine_memory() -> int | None:
    """Bytes of memory this process may use: the machine's, or its cgroup's limit when lower."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    for limit_file in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            raw = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if raw.isdigit():
            total = min(total, int(raw))  # "max" (v2) or a huge number (v1) means no limit
    return total


def memory_defaults(total_bytes: int | None) -> tuple[str, str]:
    """(heap, page cache) for the managed server on a machine with ``total_bytes`` of memory:
    an eighth each, to the nearest 256 MiB, within ``HEAP_BOUNDS_MIB`` / ``PAGECACHE_BOUNDS_MIB``;
    the lower bounds when the size is unknown."""
    def size(bounds: tuple[int, int]) -> str:
        if total_bytes is None:
            return f"{bounds[0]}m"
        eighth = round(total_bytes / 8 / MIB / 256) * 256
        return f"{min(max(eighth, bounds[0]), bounds[1])}m"

    return size(HEAP_BOUNDS_MIB), size(PAGECACHE_BOUNDS_MIB)


_MEMORY_SIZE = re.compile(r"[1-9][0-9]*[kKmMgG]")


def checked_size(value: str, where: str) -> str:
    """``value`` when it is a JVM/Neo4j memory size such as 512m or 2g; else a ConfigError
    naming ``where`` (the JVM's own message would only reach the console log)."""
    if not _MEMORY_SIZE.fullmatch(value.strip()):
        raise ConfigError(f"{where} must be a memory size such as 512m or 2g, not {value!r}")
    return value.strip()


def _size_from_env(name: str, default: str) -> str:
    raw = os.environ.get(name, "").strip()
    return checked_size(raw, name) if raw else default


def import_heap(heap: str | None = None) -> str:
    """The admin tool's heap: ``heap`` (``--heap``), else ``KNOWFORGE_IMPORT_HEAP``, else 1g (the
    import works mostly off-heap)."""
    return checked_size(heap, "--heap") if heap else _size_from_env("KNOWFORGE_IMPORT_HEAP", "1g")


def server_memory() -> tuple[str, str]:
    """(heap, page cache) the managed server starts with: the environment's, else the defaults."""
    heap, pagecache = memory_defaults(machine_memory())
    return (_size_from_env("KNOWFORGE_NEO4J_HEAP", heap),
            _size_from_env("KNOWFORGE_NEO4J_PAGECACHE", pagecache))


@dataclass(frozen=True)
class ServerStatus:
    home: Path
    installed: bool
    running: bool
    pid: int | None
    uri: str | None
    bolt_port: int | None
    browser_url: str | None = None
    version: str = NEO4J_VERSION
    heap: str | None = None  # what it was started with (None when not running)
    pagecache: str | None = None


@dataclass(frozen=True)
class StartResult:
    uri: str
    pid: int
    bolt_port: int
    reused: bool
    seconds: float
    browser_url: str | None = None
    heap: str | None = None  # None for a reused server that an older knowforge started
    pagecache: str | None = None


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _first_free(*ports: int | None, avoid: int | None = None) -> int:
    """The first of ``ports`` that is free (and not ``avoid``), else any free port."""
    for port in ports:
        if port and port != avoid and port_is_free(port):
            return port
    port = free_port()
    while port == avoid:
        port = free_port()
    return port


class _PortTaken(Neo4jServerError):
    """Our server lost its Bolt or HTTP port to another process between the check and the bind."""


def listens_on(pid: int, port: int) -> bool | None:
    """Whether process ``pid`` holds the listening TCP socket on ``port``; None where /proc
    cannot tell (not Linux, or another user's process)."""
    inodes: set[str] = set()
    try:
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                with open(table, encoding="ascii") as fh:
                    rows = fh.read().splitlines()[1:]
            except FileNotFoundError:
                continue
            for row in rows:
                fields = row.split()
                # fields: sl, local "ADDR:PORT" in hex, remote, state (0A is LISTEN), ..., inode
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(fields[9])
        fds = os.listdir(f"/proc/{pid}/fd")
    except (OSError, IndexError, ValueError):
        return None
    if not inodes:
        return False
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            return True
    return False


def _pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); treat it as dead.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return True


def process_arguments(pid: int) -> list[str] | None:
    """The command line of process ``pid`` (``/proc/PID/cmdline``, else ``ps``); None when it
    cannot be read (gone, or another user's on a system that hides it)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        if Path("/proc/self").exists():
            return None   # a /proc without this pid: the process is gone
        try:
            out = subprocess.run(["ps", "-p", str(pid), "-o", "args="], capture_output=True,
                                 text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return out.stdout.split() if out.returncode == 0 and out.stdout.strip() else None
    except OSError:
        return None
    return [a.decode("utf-8", errors="replace") for a in raw.split(b"\0") if a] or None


def _same_path(a: str, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a) == b


def java_executable() -> str:
    """The java binary to use: ``$JAVA_HOME/bin/java`` or ``java`` on PATH, version 17 or 21."""
    java_home = os.environ.get("JAVA_HOME")
    java = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    hint = "Java 17 or 21 not found; install openjdk-17-jre (apt-get install openjdk-17-jre-headless) or set JAVA_HOME"
    if not java or not Path(java).exists():
        raise Neo4jServerError(hint)
    try:
        text = java_version_text(java)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Neo4jServerError(f"{hint} ({exc})") from exc
    major = None
    found = re.search(r'version "([^"]*)"', text)
    head = found.group(1).split(".")[0] if found else ""
    major = int(head) if head.isdigit() else None
    if major not in SUPPORTED_JAVA:
        raise Neo4jServerError(f"Neo4j {NEO4J_VERSION} needs Java 17 or 21, found {major} at {java}; "
                               "install openjdk-17-jre or set JAVA_HOME")
    return java


class ManagedNeo4j(ClassDataSharing):
    """One managed Neo4j installation: jars in a cache dir, data and config in ``home``; its
    class-data archive is kg/neo4j_cds.py's."""

    server_version = NEO4J_VERSION

    def __init__(self, home: Path | str | None = None, cache_dir: Path | str | None = None):
        self.home = Path(home).expanduser() if home else default_home()
        self.cache_dir = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
        self.lib_dir = self.cache_dir / f"neo4j-{NEO4J_VERSION}" / "lib"
        self.conf_dir = self.home / "conf"
        self.data_dir = self.home / "data"
        self.logs_dir = self.home / "logs"
        self.run_dir = self.home / "run"
        self.import_dir = self.home / "import"   # the only folder LOAD CSV may read
        self.state_file = self.run_dir / "knowforge-server.json"
        self.password_file = self.home / "password"
        self.console_log = self.logs_dir / "console.log"

    # ---- install -------------------------------------------------------------------------
    def _stamp(self) -> str:
        return hashlib.sha256(MANIFEST.read_bytes()).hexdigest() if MANIFEST.exists() else NEO4J_VERSION

    def is_installed(self) -> bool:
        stamp = self.lib_dir / ".knowforge-complete"
        return stamp.exists() and stamp.read_text().strip() == self._stamp()

    def install(self, *, force: bool = False) -> Path:
        """Fetch the server jars with Maven into the cache (idempotent). Returns the lib dir."""
        if self.is_installed() and not force:
            return self.lib_dir
        if not MANIFEST.exists():
            raise Neo4jServerError(f"Neo4j manifest not found at {MANIFEST}; run knowforge from a clone "
                                   "of the repository, or point NEO4J_URI at an existing server")
        mvn = shutil.which("mvn")
        if not mvn:
            raise Neo4jServerError("Maven not found; install it (apt-get install maven) to fetch the "
                                   "Neo4j jars, or set NEO4J_URI to use an existing server")
        staging = self.lib_dir.with_name("lib.partial")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True, exist_ok=True)
        cmd = [mvn, "-q", "-B", "-f", str(MANIFEST), "dependency:copy-dependencies",
               f"-DoutputDirectory={staging}", "-DincludeScope=runtime"]
        log.info("fetching Neo4j %s jars with Maven", NEO4J_VERSION)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            raise Neo4jServerError(f"Maven could not fetch the Neo4j jars (exit {proc.returncode}):\n{tail}")
        if not any(staging.glob("neo4j-*.jar")):
            raise Neo4jServerError(f"Maven finished but no Neo4j jars are in {staging}")
        shutil.rmtree(self.lib_dir, ignore_errors=True)
        staging.rename(self.lib_dir)
        (self.lib_dir / ".knowforge-complete").write_text(self._stamp())
        return self.lib_dir

    # ---- state ---------------------------------------------------------------------------
    def _read_state(self) -> dict | None:
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return None

    def password(self) -> str:
        try:
            return self.password_file.read_text().strip()
        except OSError as exc:
            raise Neo4jServerError(f"no password file at {self.password_file}; start the server once "
                                   "with `knowforge neo4j start` to create it") from exc

    def is_own_server(self, pid: int | None) -> bool:
        """Whether ``pid`` is a live Neo4j server of this home: its command line names
        Neo4j's entry point and ``--home-dir=`` this home. After a crash or a reboot the PID
        in the state file may belong to any other process, which must not be reused or
        signalled."""
        if not _pid_alive(pid):
            return False
        args = process_arguments(pid)
        if not args or ENTRY_POINT not in args:
            return False
        homes = [a.split("=", 1)[1] for a in args if a.startswith("--home-dir=")]
        return any(_same_path(h, self.home) for h in homes)

    def status(self) -> ServerStatus:
        state = self._read_state() or {}
        pid = state.get("pid")
        running = self.is_own_server(pid)
        port = state.get("bolt_port") if running else None
        http = state.get("http_port") if running else None
        return ServerStatus(home=self.home, installed=self.is_installed(), running=running,
                            pid=pid if running else None,
                            uri=f"bolt://127.0.0.1:{port}" if port else None, bolt_port=port,
                            browser_url=f"http://127.0.0.1:{http}/browser/" if http else None,
                            heap=state.get("heap") if running else None,
                            pagecache=state.get("pagecache") if running else None)

    # ---- start / stop --------------------------------------------------------------------
    def _write_config(self, bolt_port: int, http_port: int, pagecache: str | None = None) -> None:
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        conf = "\n".join([
            "# Written by knowforge on every start; edit kg/neo4j_server.py instead.",
            "server.default_listen_address=127.0.0.1",
            f"server.bolt.listen_address=127.0.0.1:{bolt_port}",
            "server.bolt.tls_level=DISABLED",
            # Browser must be told the real Bolt port, which may not be 7687.
            f"server.bolt.advertised_address=127.0.0.1:{bolt_port}",
            "server.http.enabled=true",
            f"server.http.listen_address=127.0.0.1:{http_port}",
            "server.https.enabled=false",
            "dbms.security.auth_enabled=true",
            "dbms.usage_report.enabled=false",
            f"server.memory.pagecache.size={pagecache or server_memory()[1]}",
            f"server.directories.data={self.data_dir}",
            f"server.directories.logs={self.logs_dir}",
            f"server.directories.run={self.run_dir}",
            # LOAD CSV runs as the invoking user: file URLs resolve inside HOME/import only (so
            # neither /etc/passwd nor HOME/password can be read), and every IPv4 and IPv6
            # address is blocked for URL fetches (no server-side request forgery). The
            # blocklist is 5.26's internal name for the setting (unsupported.* before 5.0).
            f"server.directories.import={self.import_dir}",
            "dbms.security.allow_csv_import_from_file_urls=true",
            f"internal.dbms.cypher_ip_blocklist={','.join(BLOCKED_FETCH_NETWORKS)}",
            "db.tx_log.rotation.retention_policy=1 files",
            # A stop waited 10 s after the databases were closed: two 5 s grace periods for Bolt
            # connections and Netty's event loops. A managed server is stopped on purpose (stop,
            # import, restart), with nothing left to drain; its stop now takes about a second.
            "internal.server.bolt.connection_shutdown_wait_time=0s",
            "internal.server.bolt.thread_pool_shutdown_wait_time=0s",
            "internal.dbms.bolt.netty_server_shutdown_quiet_period=0",
            "",
        ])
        (self.conf_dir / "neo4j.conf").write_text(conf)

    def _env(self) -> dict:
        env = dict(os.environ)
        env["NEO4J_HOME"] = str(self.home)
        env["NEO4J_CONF"] = str(self.conf_dir)
        return env

    def _classpath(self) -> str:
        return str(self.lib_dir / "*")

    def _ensure_password(self, java: str) -> str:
        # Once the system database exists the initial password can no longer be set.
        auth_exists = (self.data_dir / "databases" / "system").exists()
        if self.password_file.exists():
            return self.password()
        if auth_exists:
            raise Neo4jServerError(
                f"the data directory {self.data_dir} already has users but {self.password_file} is "
                "missing; restore that file, set NEO4J_PASSWORD with NEO4J_URI, or remove the data "
                "directory to start afresh")
        # Hex only: a password starting with "-" would be read by the admin tool as an option,
        # and one with spaces or quotes would be split by the argument file below.
        password = secrets.token_hex(24)
        self.home.mkdir(parents=True, exist_ok=True)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        # The password reaches the admin tool through an argument file (picocli expands
        # "@FILE" into the file's words), never on the command line, which `ps` shows to
        # every local user. The file is readable by the owner only and removed at once.
        args_file = self.run_dir / "initial-password.args"
        fd = os.open(args_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "w") as fh:
                fh.write(password + "\n")
            proc = subprocess.run([java, *extra_jvm_options(), "-cp", self._classpath(), ADMIN_TOOL, "dbms",
                                   "set-initial-password", f"@{args_file}"],
                                  capture_output=True, text=True, env=self._env())
        finally:
            args_file.unlink(missing_ok=True)
        if proc.returncode != 0:
            raise Neo4jServerError(f"could not set the initial Neo4j password: {proc.stderr.strip()[-500:]}")
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(password + "\n")
        os.chmod(self.password_file, 0o600)
        return password

    def start(self, *, port: int | None = None, timeout: float = 180.0,
              heap: str | None = None, _tries: int = 3) -> StartResult:
        """Start the server, or reuse it when it already runs. Waits until Bolt answers.

        A port chosen here that another process binds before Neo4j does (two servers starting
        at once both see 7687 free) is given up for the next free one, up to ``_tries`` starts;
        an explicit ``port`` is never changed."""
        t0 = time.monotonic()
        heap = checked_size(heap, "--heap") if heap else None
        status = self.status()
        if status.running and status.uri:
            self._wait_for_bolt(status.uri, status.pid, timeout)
            return StartResult(uri=status.uri, pid=status.pid, bolt_port=status.bolt_port,
                               reused=True, seconds=time.monotonic() - t0,
                               browser_url=status.browser_url, heap=status.heap,
                               pagecache=status.pagecache)
        if not self.is_installed():
            raise Neo4jServerError("the Neo4j jars are not installed; run `knowforge neo4j install`")
        java = java_executable()
        if port is not None:
            if not port_is_free(port):
                raise Neo4jServerError(f"port {port} in use; choose another with --port, or stop what "
                                       "listens there")
            bolt_port = port
        else:
            # The ports of the last start first: a restart or a crash recovery keeps the URI
            # that scripts, NEO4J_URI and an open Neo4j Browser use, while that port is free.
            bolt_port = _first_free(self.bolt_port(), DEFAULT_BOLT_PORT)
        # With an explicit bolt port (tests, several servers side by side) the HTTP port is one the
        # OS hands out too: servers starting at once all found 7474 free, and all but one died
        # binding it ("Neo4j exited during start-up" from Jetty).
        http_port = (_first_free(self.http_port(), avoid=bolt_port) if port is not None
                     else _first_free(self.http_port(), DEFAULT_HTTP_PORT, avoid=bolt_port))
        for d in (self.data_dir, self.logs_dir, self.run_dir, self.import_dir):
            d.mkdir(parents=True, exist_ok=True)
        os.chmod(self.home, 0o700)
        default_heap, pagecache = server_memory()
        heap = heap or default_heap
        self._write_config(bolt_port, http_port, pagecache)
        self._ensure_password(java)
        cds_options, cds_dump = self._cds_options(java)
        cmd = [java, f"-Xms{heap}", f"-Xmx{heap}", *NEO4J_JVM_OPTIONS, *extra_jvm_options(), *cds_options,
               "-cp", self._classpath(), ENTRY_POINT,
               f"--home-dir={self.home}", f"--config-dir={self.conf_dir}", "--console-mode"]
        console = open(self.console_log, "ab")
        proc = subprocess.Popen(cmd, stdout=console, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=self._env(), start_new_session=True, close_fds=True)
        console.close()
        uri = f"bolt://127.0.0.1:{bolt_port}"
        self.state_file.write_text(json.dumps({"pid": proc.pid, "bolt_port": bolt_port, "uri": uri,
                                               "http_port": http_port, "version": NEO4J_VERSION,
                                               "heap": heap, "pagecache": pagecache,
                                               "cds_dump": str(cds_dump) if cds_dump else None,
                                               "started_at": time.time()}))
        try:
            self._wait_for_bolt(uri, proc.pid, timeout, proc=proc)
        except _PortTaken as exc:
            self.stop(timeout=10, wait_for_archive=False)
            if port is not None or _tries <= 1:
                raise Neo4jServerError(str(exc)) from None
            log.warning("port %s or %s was taken while Neo4j started; starting again on free ports",
                        bolt_port, http_port)
            return self.start(timeout=max(timeout - (time.monotonic() - t0), 30.0), heap=heap,
                              _tries=_tries - 1)
        except Neo4jServerError:
            self.stop(timeout=10, wait_for_archive=False)
            raise
        return StartResult(uri=uri, pid=proc.pid, bolt_port=bolt_port, reused=False,
                           seconds=time.monotonic() - t0,
                           browser_url=f"http://127.0.0.1:{http_port}/browser/",
                           heap=heap, pagecache=pagecache)

    def _wait_for_bolt(self, uri: str, pid: int | None, timeout: float, proc=None) -> None:
        from knowforge.kg.driver import neo4j  # local: keeps `knowforge neo4j --help` fast

        deadline = time.monotonic() + timeout
        password = self.password()
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None or proc is None and not _pid_alive(pid):
                message = self._failure_message("Neo4j exited during start-up")
                raise (_PortTaken if PORT_IN_USE_HINT in message else Neo4jServerError)(message)
            try:
                # A plain session (not execute_query) so a refused connection fails at once
                # instead of being retried by the driver for 30 s.
                with neo4j.GraphDatabase.driver(uri, auth=("neo4j", password),
                                                connection_timeout=2.0) as driver:
                    with driver.session() as session:
                        session.run("RETURN 1 AS ok").consume()
                return
            except neo4j.exceptions.AuthError as exc:
                # While ours starts, the one answering may be another server that bound the
                # port first; ours then exits on the bind, and that is the error to report.
                if proc is not None and listens_on(proc.pid, urlsplit(uri).port) is False:
                    last_error = exc
                    time.sleep(0.25)
                    continue
                raise Neo4jServerError(f"the managed Neo4j at {uri} rejected the stored password in "
                                       f"{self.password_file}") from exc
            except Exception as exc:  # not up yet: ServiceUnavailable, SessionExpired, ...
                last_error = exc
                time.sleep(0.25)
        raise Neo4jServerError(self._failure_message(
            f"Neo4j did not answer on {uri} within {timeout:.0f}s ({last_error})"))

    def _failure_message(self, headline: str) -> str:
        tail = self.logs(lines=25)
        hint = ""
        if "Address already in use" in tail or "BindException" in tail:
            hint = PORT_IN_USE_HINT
        return f"{headline}.{hint}\nLast lines of {self.console_log}:\n{tail}"

    def stop(self, *, timeout: float = 30.0, wait_for_archive: bool = True) -> bool:
        """Stop the server: SIGTERM for a clean shutdown, SIGKILL after ``timeout`` (at least
        ``CDS_WRITE_WAIT_S`` for a server that records its class-data archive, unless
        ``wait_for_archive`` is false)."""
        state = self._read_state() or {}
        pid = state.get("pid")
        if not self.is_own_server(pid):
            if _pid_alive(pid):
                log.warning("process %s in %s is not this home's Neo4j (a reused PID): left alone",
                            pid, self.state_file)
            self._finish_cds_archive(state, clean_exit=False)
            self.state_file.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        if state.get("cds_dump") and wait_for_archive:
            # The JVM writes the class-data archive after Neo4j has closed its databases: more
            # time to finish it, instead of a kill that throws it away (the next start would
            # pay the recording again).
            log.info("Neo4j is writing its class-data archive (once per JDK and install)")
            timeout = max(timeout, CDS_WRITE_WAIT_S)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and _pid_alive(pid):
            try:  # reap if it is our child (tests start and stop in one process)
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
            time.sleep(0.2)
        killed = _pid_alive(pid)
        if killed:
            log.warning("Neo4j (pid %s) did not stop within %.0fs; killing it", pid, timeout)
            os.kill(pid, signal.SIGKILL)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        self._finish_cds_archive(state, clean_exit=not killed)
        self.state_file.unlink(missing_ok=True)
        return True

    def admin(self, args: list[str], *, log_path: Path, heap: str | None = None) -> None:
        """Run ``neo4j-admin`` (``org.neo4j.cli.AdminTool``) from our jars on this home.

        Its output goes to ``log_path``; a failure raises with the last lines of it. The
        server must be stopped for commands that write a database (``database import``).
        """
        if not self.is_installed():
            raise Neo4jServerError("the Neo4j jars are not installed; run `knowforge neo4j install`")
        java = java_executable()
        for d in (self.data_dir, self.logs_dir, self.run_dir, self.conf_dir):
            d.mkdir(parents=True, exist_ok=True)
        if not (self.conf_dir / "neo4j.conf").exists():
            self._write_config(DEFAULT_BOLT_PORT, DEFAULT_HTTP_PORT)
        heap = import_heap(heap)
        cmd = [java, f"-Xmx{heap}", "-XX:+UseG1GC", "-Dfile.encoding=UTF-8", *extra_jvm_options(), "-cp",
               self._classpath(), ADMIN_TOOL, *args]
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "ab") as out:
            proc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  env=self._env())
        if proc.returncode != 0:
            tail = log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-25:]
            raise Neo4jServerError(f"neo4j-admin {' '.join(args[:3])} failed (exit {proc.returncode}); "
                                   f"last lines of {log_path}:\n" + "\n".join(tail))

    def bolt_port(self) -> int | None:
        """The Bolt port of the last start (kept in the config), so a restart keeps the URI."""
        return self._configured_port("server.bolt.listen_address")

    def http_port(self) -> int | None:
        """The HTTP (Neo4j Browser) port of the last start."""
        return self._configured_port("server.http.listen_address")

    def _configured_port(self, setting: str) -> int | None:
        try:
            for line in (self.conf_dir / "neo4j.conf").read_text().splitlines():
                if line.startswith(f"{setting}="):
                    return int(line.rsplit(":", 1)[1])
        except (OSError, ValueError):
            return None
        return None

    def logs(self, *, lines: int = 50) -> str:
        try:
            with open(self.console_log, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                size = fh.tell()
                fh.seek(max(0, size - 256 * 1024))
                text = fh.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

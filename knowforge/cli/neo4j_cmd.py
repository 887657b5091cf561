"""``knowforge neo4j ...``: the managed Neo4j server."""

from __future__ import annotations

import json
import time

import click

from knowforge.cli.common import console, handle_errors, home_option
from knowforge.kg.neo4j_server import NEO4J_VERSION, ManagedNeo4j


@click.group("neo4j")
def neo4j_group() -> None:
    """Manage knowforge's own Neo4j 5.26 server (jars from Maven Central, 127.0.0.1 only).

    \b
    Example:
      knowforge neo4j install && knowforge neo4j start
    """


@neo4j_group.command("install")
@click.option("--force", is_flag=True, help="Fetch the jars again even if cached.")
@handle_errors
def install_cmd(force: bool) -> None:
    """Fetch the Neo4j server jars with Maven (idempotent; cached outside the repo).

    Example: knowforge neo4j install
    """
    server = ManagedNeo4j()
    if server.is_installed() and not force:
        click.echo(f"Neo4j {NEO4J_VERSION} already installed in {server.lib_dir}")
        return
    t0 = time.monotonic()
    with console.status(f"Fetching Neo4j {NEO4J_VERSION} with Maven..."):
        lib = server.install(force=force)
    click.echo(f"Neo4j {NEO4J_VERSION} installed in {lib} ({time.monotonic() - t0:.1f}s)")


def _memory(heap: str | None, pagecache: str | None) -> str:
    """", heap 3072m, page cache 3072m" for a server whose sizes are known, else ""."""
    return f", heap {heap}, page cache {pagecache}" if heap else ""


@neo4j_group.command("start")
@home_option
@click.option("--port", type=int, default=None,
              help="Bolt port. Default 7687, or a free port when 7687 is taken.")
@click.option("--timeout", type=float, default=180, show_default=True,
              help="Seconds to wait until Bolt answers RETURN 1.")
@click.option("--heap", default=None, help="JVM heap, e.g. 2g (env KNOWFORGE_NEO4J_HEAP; default an "
              "eighth of the machine's memory, between 1g and 4g).")
@handle_errors
def start_cmd(home, port, timeout, heap) -> None:
    """Start the managed Neo4j (or reuse it when running) and print its Bolt URI.

    Installs the jars first when they are missing. The password is generated once and stored
    readable by you only in HOME/password; it is never printed.

    Example: knowforge neo4j start --port 7688
    """
    server = ManagedNeo4j(home)
    if not server.is_installed():
        with console.status(f"Fetching Neo4j {NEO4J_VERSION} with Maven..."):
            server.install()
    with console.status("Starting Neo4j..."):
        result = server.start(port=port, timeout=timeout, heap=heap)
    verb = "reusing running" if result.reused else f"started in {result.seconds:.1f}s:"
    console.print(f"Neo4j {NEO4J_VERSION} {verb} pid {result.pid}, data in {server.home}"
                  f"{_memory(result.heap, result.pagecache)}")
    if result.browser_url:
        console.print(f"Neo4j Browser: {result.browser_url} (user neo4j; `knowforge neo4j password`)")
    click.echo(result.uri)


@neo4j_group.command("stop")
@home_option
@click.option("--timeout", type=float, default=30, show_default=True,
              help="Seconds to wait for a clean shutdown before killing the process.")
@handle_errors
def stop_cmd(home, timeout) -> None:
    """Stop the managed Neo4j: a clean shutdown, then a kill after the timeout.

    Example: knowforge neo4j stop
    """
    stopped = ManagedNeo4j(home).stop(timeout=timeout)
    click.echo("stopped" if stopped else "not running")


@neo4j_group.command("status")
@home_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@handle_errors
def status_cmd(home, as_json) -> None:
    """Report whether the managed Neo4j is installed and running, and where.

    Example: knowforge neo4j status --json
    """
    st = ManagedNeo4j(home).status()
    data = {"version": st.version, "installed": st.installed, "running": st.running,
            "pid": st.pid, "uri": st.uri, "browser": st.browser_url, "home": str(st.home),
            "heap": st.heap, "pagecache": st.pagecache}
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    if st.running:
        click.echo(f"running: Neo4j {st.version} pid {st.pid} at {st.uri} "
                   f"(data {st.home}{_memory(st.heap, st.pagecache)})")
        if st.browser_url:
            click.echo(f"browser: {st.browser_url}")
    else:
        click.echo(f"not running (installed: {'yes' if st.installed else 'no'}, data {st.home})")


@neo4j_group.command("logs")
@home_option
@click.option("-n", "--lines", type=int, default=50, show_default=True, help="How many lines.")
@handle_errors
def logs_cmd(home, lines) -> None:
    """Print the last lines of the managed Neo4j's console log.

    Example: knowforge neo4j logs -n 100
    """
    click.echo(ManagedNeo4j(home).logs(lines=lines))


@neo4j_group.command("password")
@home_option
@handle_errors
def password_cmd(home) -> None:
    """Print the generated password (for Neo4j Browser or Desktop). Only on request.

    Example: knowforge neo4j password
    """
    click.echo(ManagedNeo4j(home).password())


@neo4j_group.command("import")
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@home_option
@click.option("--overwrite", is_flag=True,
              help="Replace a database that already holds data (everything in it is lost).")
@click.option("--heap", default=None, help="JVM heap of the import tool, e.g. 4g "
              "(env KNOWFORGE_IMPORT_HEAP, default 1g).")
@handle_errors
def import_cmd(folder, home, overwrite, heap) -> None:
    """Bulk-load FOLDER (written by `knowforge load wikidata --engine spark`) into the managed Neo4j.

    Stops the server, runs `neo4j-admin database import full` from the installed jars,
    starts it again on the same port and applies the schema. The import replaces the whole
    database: one that holds data is refused unless --overwrite. Later loads add to the
    imported graph as usual (`knowforge load ...`).

    With NEO4J_URI set nothing is stopped: the command prints how to load the same files
    on that server.

    \b
    Examples:
      knowforge load wikidata latest-all.json.bz2 --engine spark --out bulk/
      knowforge neo4j import bulk/
      knowforge neo4j import bulk/ --overwrite --heap 8g
    """
    from knowforge.kg.bulk.admin_import import external_instructions, import_bulk
    from knowforge.kg.connection import settings_from_env

    settings = settings_from_env()
    if settings is not None:
        click.echo(external_instructions(folder, settings.uri))
        return

    def warn(text: str) -> None:
        console.print(f"[bold red]warning:[/] {text}", highlight=False)

    with console.status("importing...") as status:
        result = import_bulk(folder, home=home, overwrite=overwrite, warn=warn,
                             step=lambda text: status.update(f"{text}..."), heap=heap)
    c = result.counts
    click.echo(f"imported {c['entities']:,} entities, {c['facts']:,} facts, {c['relations']:,} relations, "
               f"{c['has_fact'] + c['object']:,} relationships in {result.total_seconds:.0f}s "
               f"({', '.join(f'{k} {v:.0f}s' for k, v in result.seconds.items())})")
    click.echo(result.uri)

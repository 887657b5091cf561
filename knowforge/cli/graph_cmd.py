"""``knowforge init``, ``stats`` and ``query``: the graph itself."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import click

from knowforge.cli.common import console, handle_errors, home_option, open_graph, stdout_console
from knowforge.errors import ConfigError
from knowforge.kg.cypher import split_statements
from knowforge.models.tables import table_of

# columns whose cells are kept whole first in the query table: id, e.id, run_id, fact_id, ...
_ID_COLUMN = re.compile(r"(?i)(^|[._])id$")


@click.command("init")
@home_option
@handle_errors
def init_cmd(home) -> None:
    """Apply the graph schema (constraints and indexes); safe to run any number of times.

    Example: knowforge init
    """
    with open_graph(home) as store:
        n = store.apply_schema()
    click.echo(f"schema applied ({n} statements) on {store.uri}")


def collect_stats(store) -> dict:
    return {
        "labels": {r["label"]: r["nodes"] for r in store.read("stats/label_counts")},
        "relationships": {r["type"]: r["relationships"] for r in store.read("stats/relationship_counts")},
        "facts_by_source": store.read("stats/facts_by_source"),
    }


@click.command("stats")
@home_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@handle_errors
def stats_cmd(home, as_json) -> None:
    """Counts per label and relationship type, and facts per source (with time qualifiers).

    Example: knowforge stats --json
    """
    with open_graph(home) as store:
        stats = collect_stats(store)
    if as_json:
        click.echo(json.dumps(stats, indent=2, sort_keys=True))
        return
    out = stdout_console()  # stdout console for tables
    out.print(table_of(["label", "nodes"], [[label, f"{n:,}"] for label, n in stats["labels"].items()],
                       right={"nodes"}, title="Nodes per label"))
    out.print(table_of(["type", "relationships"], [[typ, f"{n:,}"] for typ, n in stats["relationships"].items()],
                       right={"relationships"}, title="Relationships per type"))
    cols = ["source", "layer", "facts", "relation_facts", "attribute_facts", "with_interval",
            "with_point_in_time", "with_releases"]
    cells = [[f"{row[c]:,}" if isinstance(row[c], int) else str(row[c]) for c in cols]
             for row in stats["facts_by_source"]]
    out.print(table_of(cols, cells, right=set(cols) - {"source", "layer"}, title="Facts per source"))


def _parse_param(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise ConfigError(f"--param expects KEY=VALUE, got {text!r}")
    key, raw = text.split("=", 1)
    if not key.strip():
        raise ConfigError(f"--param expects KEY=VALUE, got {text!r} (no KEY)")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


def read_recipe(path: Path) -> str:
    """The one statement of a Cypher file (a ``cypher/queries/*.cypher`` recipe): its text with
    a trailing ``;`` dropped; a file of several statements or none is an error naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the Cypher file {path}: {exc}") from exc
    statements = split_statements(text)
    if len(statements) != 1:
        raise ConfigError(f"{path} holds {len(statements)} statements; `knowforge query --file` runs "
                          "exactly one (statements end with ';' at a line end)")
    return re.sub(r";\s*$", "", text.rstrip())


def json_safe(value):
    """``value`` with NaN and +-Infinity as None: JSON has no such numbers, and a reader that
    gets a bare ``NaN`` fails on the whole document."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


@click.command("query")
@click.argument("cypher", required=False)
@click.option("-f", "--file", "file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Run the statement in FILE instead (e.g. a recipe from cypher/queries/).")
@click.option("-p", "--param", "params", multiple=True, metavar="K=V",
              help="Query parameter; V is parsed as JSON when it can be (numbers, lists, null), else text.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="json: always valid JSON; NaN and +-Infinity are printed as null.")
@click.option("--write", is_flag=True, help="Allow the query to write (read-only by default).")
@click.option("--unsafe", is_flag=True,
              help="Allow LOAD CSV, dbms.* and other procedures outside the read-only allow-list, and "
                   "administration commands (refused by default).")
@home_option
@handle_errors
def query_cmd(cypher, file, params, fmt, write, unsafe, home) -> None:
    """Run a Cypher query (CYPHER, or the one statement in --file), read-only unless --write.

    The server plans the statement first: LOAD CSV, administration commands and procedures
    other than read-only db.* ones (db.labels, db.schema.visualization, ...) are refused unless
    --unsafe; writes and schema changes unless --write. The server's warnings (an unknown
    label or property) are printed on stderr.

    \b
    Examples:
      knowforge query "MATCH (e:Entity {id: \\$id})-[:HAS_FACT]->(f) RETURN f.relation, f.value" -p id=Q76
      knowforge query --file cypher/queries/knowgen_list_artificial_entities.cypher -p class=Camelidae -p batch=null
      knowforge query "CALL db.labels()" --format json
    """
    if (cypher is None) == (file is None):
        raise ConfigError("give the query as CYPHER or with --file FILE (one of them)")
    text = read_recipe(file) if file is not None else cypher
    parsed = dict(_parse_param(p) for p in params)
    with open_graph(home) as store:
        result = store.run_user_query(text, parsed, write=write, unsafe=unsafe)
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
    rows = result.rows
    if fmt == "json":
        click.echo(json.dumps(json_safe(rows), indent=2, default=str, allow_nan=False))
        return
    out = stdout_console()
    if not rows:
        out.print("(no rows)")
        return
    cells = [[json.dumps(v, default=str) if not isinstance(v, str) else v for v in row.values()] for row in rows]
    headers = list(rows[0])
    out.print(table_of(headers, cells, ids={h for h in headers if _ID_COLUMN.search(h)}))
    out.print(f"{len(rows)} row(s)")

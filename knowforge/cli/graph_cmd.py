"""``knowforge init``, ``stats`` and ``query``: the graph itself."""

from __future__ import annotations

import json

import click
from rich.table import Table

from knowforge.cli.common import console, handle_errors, home_option, open_graph
from knowforge.errors import ConfigError


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
    out = console.__class__()  # stdout console for tables
    t = Table(title="Nodes per label")
    t.add_column("label")
    t.add_column("nodes", justify="right")
    for label, n in stats["labels"].items():
        t.add_row(label, f"{n:,}")
    out.print(t)
    t = Table(title="Relationships per type")
    t.add_column("type")
    t.add_column("relationships", justify="right")
    for typ, n in stats["relationships"].items():
        t.add_row(typ, f"{n:,}")
    out.print(t)
    t = Table(title="Facts per source")
    cols = ["source", "layer", "facts", "relation_facts", "attribute_facts", "with_interval",
            "with_point_in_time", "with_releases"]
    for c in cols:
        t.add_column(c, justify="left" if c in ("source", "layer") else "right")
    for row in stats["facts_by_source"]:
        t.add_row(*[f"{row[c]:,}" if isinstance(row[c], int) else str(row[c]) for c in cols])
    out.print(t)


def _parse_param(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise ConfigError(f"--param expects k=v, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


@click.command("query")
@click.argument("cypher")
@click.option("-p", "--param", "params", multiple=True, metavar="K=V",
              help="Query parameter; V is parsed as JSON when it can be (numbers, lists), else text.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--write", is_flag=True, help="Allow the query to write (read-only by default).")
@home_option
@handle_errors
def query_cmd(cypher, params, fmt, write, home) -> None:
    """Run a Cypher query, read-only unless --write.

    \b
    Example:
      knowforge query "MATCH (e:Entity {id: \\$id})-[:HAS_FACT]->(f) RETURN f.relation, f.value" -p id=Q76
    """
    parsed = dict(_parse_param(p) for p in params)
    with open_graph(home) as store:
        rows = store.user_query(cypher, parsed, write=write)
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, default=str))
        return
    out = console.__class__()
    if not rows:
        out.print("(no rows)")
        return
    t = Table()
    for col in rows[0]:
        t.add_column(col)
    for row in rows:
        t.add_row(*[json.dumps(v, default=str) if not isinstance(v, str) else v for v in row.values()])
    out.print(t)
    out.print(f"{len(rows)} row(s)")

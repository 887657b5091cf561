"""``knowforge ripple``: what else changes, or may change, within k hops of an edit."""

from __future__ import annotations

import json

import click

from knowforge.cli.common import console, handle_errors, home_option, open_graph


@click.command("ripple")
@click.argument("event_id", required=False)
@click.option("--edit", default=None,
              help='An ad-hoc triplet edit SUBJECT,RELATION,OLD->NEW, e.g. "Q11571,P54,Q999307907->Q8682" '
                   '(OLD must be a current fact; empty: every current object of SUBJECT,RELATION).')
@click.option("--hops", type=int, default=None,
              help="How many facts away to look (default 1; with --run: every probe the run recorded).")
@click.option("--run", "run_id", default=None,
              help="An editing run recorded with -S ripple_hops=K: what the model did on the event's ripple "
                   "(should move and moved, should move and stayed, collateral, kept).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "cypher"]), default="table",
              show_default=True, help="cypher prints a query that shows the subgraph in Neo4j Browser.")
@click.option("--graphml", type=click.Path(dir_okay=False), default=None,
              help="Also write the ripple subgraph as GraphML (entities as nodes, facts as edges), "
                   "for networkx, Gephi or Cytoscape.")
@home_option
@handle_errors
def ripple_cmd(event_id, edit, hops, run_id, fmt, graphml, home):
    """List every fact whose truth changes or may change within k hops of an edit.

    Facts the event's template declared (retracted facts, facts its answers were read
    through) are separated from facts only reachable by paths: candidate missed ripples.

    \b
    Examples:
      knowforge ripple ev:0123abcd --hops 2
      knowforge ripple --edit "Q11571,P54,Q999307907->Q8682" --hops 2 --format json
      knowforge ripple ev:0123abcd --format cypher    # paste into Neo4j Browser
      knowforge ripple ev:0123abcd --hops 2 --graphml out/ripple.graphml
      knowforge ripple ev:0123abcd --run run-20250101T000000-0123abcd   # the model's ripple
    """
    from knowforge.errors import ConfigError
    from knowforge.kg.ripple import (ripple_cypher, ripple_edit, ripple_event,
                                                    ripple_table_rows, write_graphml)

    if (event_id is None) == (edit is None):
        raise ConfigError("give either an EVENT_ID or --edit SUBJECT,RELATION,OLD->NEW")
    if hops is not None and hops < 1:
        raise ConfigError("--hops must be at least 1")
    if run_id is not None:
        if event_id is None:
            raise ConfigError("--run shows one event's ripple in a run: give the EVENT_ID")
        if fmt == "cypher" or graphml:
            raise ConfigError("--run prints a table or JSON; drop --format cypher and --graphml")
        _run_ripple(event_id, run_id, hops, fmt, home)
        return
    hops = 1 if hops is None else hops
    store = open_graph(home)
    try:
        report = ripple_event(store, event_id, hops) if event_id else ripple_edit(store, edit, hops)
    finally:
        store.close()
    if graphml:
        graph = write_graphml(report, graphml)
        click.echo(f"wrote {graph.number_of_nodes()} nodes and {graph.number_of_edges()} edges "
                   f"to {graphml}", err=True)
    if fmt == "json":
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    elif fmt == "cypher":
        click.echo(ripple_cypher(report))
    else:
        from knowforge.models.tables import table_of

        console.print(table_of(("kind", "why", "fact", "hops", "path"), ripple_table_rows(report), right={"hops"},
                               title=f"ripple of {report.target} within {hops} hop(s)"))
        click.echo(f"{len(report.declared)} declared, {len(report.candidates)} candidate ripples")


def _run_ripple(event_id: str, run_id: str, hops: int | None, fmt: str, home) -> None:
    """What the model of a run did on an event's ripple: the method's ``ripple`` run view, from the
    probe answers the run recorded."""
    from knowforge.eval.registry import run_view_spec

    view = run_view_spec("ripple")
    store = open_graph(home)
    try:
        view.show(store, run_id, event_id, hops, fmt, console)
    finally:
        store.close()

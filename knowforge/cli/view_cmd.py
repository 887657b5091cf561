"""``knowforge view``: a local, read-only web viewer of runs, samples and the graph behind them."""

from __future__ import annotations

import click

from knowforge.cli.common import console, handle_errors, home_option, open_graph


@click.command("view")
@click.option("--port", type=int, default=8765, show_default=True,
              help="Port on 127.0.0.1; a free one is used when it is taken (0: any free port).")
@click.option("--open", "open_browser", is_flag=True, help="Open the viewer in a web browser.")
@home_option
@handle_errors
def view_cmd(port: int, open_browser: bool, home: str | None) -> None:
    """Serve a read-only viewer of the graph's runs on 127.0.0.1 (no login; nothing is written).

    \b
    Pages:
      runs       a sortable table: model, benchmark, method, scoring, items, date, accuracy
                 with its 95% interval; filter by benchmark or model; compare checked runs
      a run      accuracy per task and per slice with intervals, the report's tables and plots
      samples    filterable (task, slice, right or wrong, parse failures, errors), paginated;
                 a sample shows its prompt, answers, gold, score, explanation, rule and facts
      views      what each method declares: a KnowGen entity beside its parent, an ELKEN
                 event's ripple, a LINK statement's rule chain, a ChroKnow fact timeline,
                 a NewTerm term with its related terms

    Uses NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD when set, otherwise the managed Neo4j.
    Stop it with Ctrl-C.

    \b
    Examples:
      knowforge view
      knowforge view --port 9000 --open
    """
    from knowforge.view.app import build_app
    from knowforge.view.server import serve

    store = open_graph(home)
    try:
        app = build_app(store)
        for problem in app.state.viewer.views.problems:
            console.print(f"[yellow]view left out:[/] {problem}")
        serve(app, port, open_browser=open_browser,
              ready=lambda url: console.print(f"knowforge view: [bold]{url}[/] (read-only; Ctrl-C stops it)"))
    finally:
        store.close()

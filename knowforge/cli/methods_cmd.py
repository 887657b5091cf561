"""``knowforge methods``: the installed methods with their tasks, solvers and export formats."""

from __future__ import annotations

import json

import click

from knowforge.cli.common import console, handle_errors, home_option, open_graph


def _describe(method) -> dict:
    from knowforge.workflow import export_formats

    return {"name": method.name, "title": method.title, "description": method.description,
            "unit": method.unit, "backend": method.backend, "docs": method.docs,
            "can_drop": method.drop is not None, "can_import": method.importer is not None,
            "formats": {k: v.description for k, v in export_formats(method).items()},
            "tasks": [t.to_dict() for t in method.tasks],
            "params": method.params.model_json_schema()}


@click.command("methods")
@click.argument("method", required=False)
@click.option("--task", default=None, help="Print one task as YAML (e.g. knowgen/KA).")
@click.option("--solvers", is_flag=True,
              help="List the solvers and their arguments, the metrics and scorers, and the official file "
                   "layouts (export run, score), each with the method that declares it.")
@click.option("--benchmarks", is_flag=True, help="List the benchmarks in the graph.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@home_option
@handle_errors
def methods_cmd(method, task, solvers, benchmarks, as_json, home):
    """The installed benchmark methods: tasks (items, solver, scorer, metrics), export formats
    and generation parameters. Methods come from the `knowforge.methods` entry-point group, so
    other packages can add their own.

    \b
    Examples:
      knowforge methods
      knowforge methods knowgen --task knowgen/KA      # the task as YAML, to print, diff, version
      knowforge methods --solvers
      knowforge methods --benchmarks
    """
    from knowforge import methods as registry

    if benchmarks:
        from contextlib import closing

        from knowforge.models.questions import list_benchmarks

        with closing(open_graph(home)) as store:
            rows = list_benchmarks(store)
        if as_json:
            click.echo(json.dumps(rows, indent=2, default=str))
            return
        for r in rows:
            click.echo(f"{r['id']}\t{r['questions']} questions\t{r.get('created_at') or ''}")
        return
    if solvers:
        from knowforge.eval.registry import registry as eval_registry
        from knowforge.eval.solvers import describe_solvers

        rows = describe_solvers()
        reg = eval_registry()
        components = {kind: [{"name": name, "owner": reg.owner(kind, name), "description": spec.description}
                             for name, spec in sorted(table.items())]
                      for kind, table in (("metric", reg.metrics), ("scorer", reg.scorers),
                                          ("run export", reg.run_exports), ("file scoring", reg.file_scorings))}
        if as_json:
            click.echo(json.dumps({"solvers": rows, **{f"{k}s": v for k, v in components.items()}},
                                  indent=2, default=str))
            return
        click.echo("solvers (knowforge eval --solver NAME -S KEY=VALUE):")
        for r in rows:
            args = ", ".join(f"{k}={v}" for k, v in r["args"].items())
            click.echo(f"  {r['name']:18} [{r['owner']}] {r['description']}" + (f"  [{args}]" if args else ""))
        for kind, title in (("metric", "metrics"), ("scorer", "scorers (official rule where marked)"),
                            ("run export", "export run --format"), ("file scoring", "score")):
            click.echo(f"{title}:")
            for r in components[kind]:
                official = ""
                if kind == "scorer" and reg.scorers[r["name"]].official is not None:
                    official = " (official)"
                click.echo(f"  {r['name']:18} [{r['owner']}] {r['description']}{official}")
        return
    chosen = [registry.get_method(method)] if method else list(registry.available().values())
    if task:
        if not method:
            method = task.split("/", 1)[0]
            chosen = [registry.get_method(method)]
        click.echo(chosen[0].task(task).to_yaml(), nl=False)
        return
    if as_json:
        click.echo(json.dumps([_describe(m) for m in chosen], indent=2, default=str))
        return
    from knowforge.workflow import export_formats

    for m in chosen:
        click.echo(f"{m.name}: {m.title}")
        click.echo(f"  {m.description}")
        for t in m.tasks:
            solvers_ = ", ".join(c.label for c in t.solvers())
            click.echo(f"  task {t.name} (v{t.version}): solver {solvers_}; metrics {', '.join(t.metrics)}")
        click.echo(f"  formats: {', '.join(export_formats(m))}")
        click.echo(f"  --limit counts {m.unit}; docs: {m.docs or 'README.md'}")
    for name, error in registry.load_errors().items():
        console.print(f"{name}: failed to load: {error}", style="red", markup=False, highlight=False)
    from knowforge.eval.registry import load_errors as evaluation_errors
    from knowforge.eval.registry import namespaced

    # a method that loaded but whose evaluation side did not (refused on a name clash, or broken)
    for name, error in evaluation_errors().items():
        console.print(f"{name}: cannot be evaluated: {error}", style="red", markup=False, highlight=False)
    # a plug-in name another method declares too: registered under its owner's name
    for name, notes in namespaced().items():
        for note in notes:
            click.echo(f"{name}: namespaced: {note}", err=True)     # one line each, never wrapped

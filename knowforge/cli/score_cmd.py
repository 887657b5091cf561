"""``knowforge score FORMAT FILES`` and ``knowforge export run RUN``: the official file
layouts of the methods' released scripts, scored with our rules and written from a recorded
run. The formats are the methods' own declarations (their evaluation units); this module
names none of them."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import click

from knowforge.cli.common import console, handle_errors, home_option, open_graph


class FileScoringGroup(click.Group):
    """One sub-command per file scoring a method declares."""

    def list_commands(self, ctx):
        from knowforge.eval.registry import registry

        return sorted(registry().file_scorings)

    def get_command(self, ctx, name):
        from knowforge.eval.registry import registry

        from knowforge.errors import ConfigError

        try:
            spec = registry().lookup("file scoring", name)
        except ConfigError as exc:       # two plug-ins' bare name: click says no such command
            raise click.UsageError(str(exc)) from exc
        return None if spec is None else _score_command(name, spec.description)


def _score_command(name: str, description: str) -> click.Command:
    @click.command(name, help=f"Score {description}.\n\nUse it for predictions made elsewhere, or to check "
                              "knowforge's numbers against the published script's (--scoring official is the "
                              "default here).\n\n\b\nExamples:\n"
                              f"  knowforge score {name} FILE [FILE ...]\n"
                              f"  knowforge score {name} FILE [FILE ...] --scoring knowforge --json")
    @click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
    @click.option("--scoring", type=click.Choice(["official", "knowforge"]), default="official", show_default=True,
                  help="official: the released script's rules (to compare with published numbers); knowforge: ours.")
    @click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
    @handle_errors
    def command(files, scoring, as_json):
        from knowforge.eval.registry import file_scoring_spec

        spec = file_scoring_spec(name)
        rows = spec.score(list(files), scoring)
        if as_json:
            click.echo(json.dumps(rows, indent=2, sort_keys=True, default=str))
            return
        console.print(spec.table(rows, scoring))
    return command


@click.group("score", cls=FileScoringGroup)
def score_group() -> None:
    """Score prediction files in a benchmark's official layout with knowforge's rules.

    One sub-command per layout a method declares (`knowforge score --help` lists them).

    \b
    Examples:
      knowforge score elken runs/helm/fact.json runs/helm/fact_local.json
      knowforge score newterm newterm/clean/results_2022/*.jsonl
    """


def _export_formats() -> list[str]:
    from knowforge.eval.registry import registry

    return sorted(registry().run_exports)


@click.command("run")
@click.argument("run_id")
@click.option("--format", "fmt", required=True, metavar="FORMAT",
              help="An official layout a method declares (`knowforge methods --solvers` lists them), "
                   "e.g. helm (ELKEN's request_states files), newterm-results (NewTerm's results files).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Output folder.")
@click.option("--option", "-O", "options", multiple=True, metavar="KEY=VALUE",
              help="An option of the format (repeatable), e.g. -O year=2022 (newterm-results: the year of items "
                   "that carry none) or -O before=RUN (helm: a no-edit run, for runs without answers without the "
                   "edit).")
@click.option("--overwrite", is_flag=True,
              help="Replace files of the same names already in --out (without it the export refuses and writes "
                   "nothing).")
@home_option
@handle_errors
def export_run_cmd(run_id, fmt, out_dir, options, overwrite, home):
    """Write a recorded run as the files the official scoring scripts read: every sample of every
    question (every phrasing, every request state, the run's answers without the edit).

    \b
    Examples:
      knowforge export run run-20260101T120000-ab12cd34 --format helm --out out/ice
      knowforge export run RUN --format newterm-results --out newterm -O year=2022
      knowforge score elken out/ice/*.json           # the same numbers metric.py prints
    """
    from knowforge.eval.run_export import export_run, parse_export_args

    with contextlib.closing(open_graph(home)) as store:
        export = export_run(store, run_id, out_dir, fmt, parse_export_args(options), overwrite=overwrite)
    for path in export.files:
        key = next((k for k in export.counts if path.as_posix().endswith(k) or path.stem == k), None)
        console.print(f"wrote {path} ({export.counts.get(key, 0)} records)")
    for reason, n in sorted(export.skipped.items()):
        console.print(f"[yellow]skipped {n} questions: {reason}[/yellow]")
    for note in export.notes:
        console.print(f"[yellow]{note}[/yellow]")
    click.echo(str(out_dir))

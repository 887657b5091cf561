"""``knowforge score elken|newterm FILES`` and ``knowforge export run RUN``: the official file
layouts, scored with our compat code and written from a recorded run."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import click

from knowforge.cli.common import console, handle_errors, home_option, open_graph

_scoring_option = click.option(
    "--scoring", type=click.Choice(["official", "knowforge"]), default="official", show_default=True,
    help="official: the released script's rules (to compare with published numbers); knowforge: ours.")
_json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
_files = click.argument("files", nargs=-1, required=True,
                        type=click.Path(exists=True, dir_okay=False, path_type=Path))


@click.group("score")
def score_group() -> None:
    """Score prediction files in a benchmark's official layout with knowforge's compat code.

    Use it for predictions made elsewhere, or to check knowforge's numbers against the
    published scripts' (--scoring official is the default here).

    \b
    Examples:
      knowforge score elken runs/helm/fact.json runs/helm/fact_local.json
      knowforge score newterm newterm/results_2022/*.jsonl
    """


@score_group.command("elken")
@_files
@_scoring_option
@_json_option
@handle_errors
def score_elken(files, scoring, as_json):
    """Score ELKEN HELM-style prediction files (request_states JSON).

    Give the after-edit files (fact.json, tendency_mc.json, a judge's *_exam.json) and, for
    locality, the before-edit file of the same kind (fact_local.json, tendency_mc_local.json).
    Kinds are recognised from the content, not the names.

    \b
    Examples:
      knowforge score elken out/fact.json out/fact_local.json
      knowforge score elken out/*.json --scoring knowforge --json
    """
    from knowforge.eval.compat.helm import score_files

    rows = score_files(files, scoring)
    if as_json:
        click.echo(json.dumps(rows, indent=2, sort_keys=True))
        return
    from rich.table import Table

    table = Table(title=f"ELKEN metrics · scoring {scoring}")
    for col in ("file", "kind", "accuracy", "edit level", "locality", "known / unknown", "event level"):
        table.add_column(col, justify="left" if col in ("file", "kind") else "right")
    for row in rows:
        acc = row.get("accuracy", {})
        split = (f"{_pct(acc.get('known_acc'))} / {_pct(acc.get('unknown_acc'))}"
                 if "known_acc" in acc else "-")
        judge = row.get("judge")
        table.add_row(Path(row["file"]).name, row["kind"],
                      _pct(acc.get("overall_acc")) if acc else f"full mark {_pct(judge['full_mark'])}",
                      _pct(row.get("event_accuracy", {}).get("overall_acc")),
                      _pct(row.get("locality", {}).get("overall_consistency")), split,
                      _pct((row.get("overall_event_level") or {}).get("percent"), scale=1))
    console.print(table)


@score_group.command("newterm")
@_files
@_scoring_option
@_json_option
@handle_errors
def score_newterm(files, scoring, as_json):
    """Score NewTerm result files (results_{year}/{TASK}_{model}[_{prompt}].jsonl).

    Prints what newterm/get_results.py prints: per model and prompt, COMA and COST accuracy,
    CSJ balanced accuracy and their mean (×100).

    \b
    Examples:
      knowforge score newterm newterm/results_2022/*.jsonl
      knowforge score newterm results_2022/COMA_gpt-4.jsonl --scoring knowforge
    """
    from knowforge.eval.compat.newterm import TASKS, score_results

    rows = score_results(files, scoring)
    if as_json:
        click.echo(json.dumps(rows, indent=2, sort_keys=True))
        return
    from rich.table import Table

    table = Table(title=f"NewTerm · scoring {scoring}")
    for col in ("model", "prompt", *TASKS, "average"):
        table.add_column(col, justify="left" if col in ("model", "prompt") else "right")
    for row in rows:
        table.add_row(row["model"], row["prompt"], *[_num(row.get(t)) for t in (*TASKS, "average")])
    console.print(table)


def _pct(value, scale: float = 100.0) -> str:
    return "-" if value is None else f"{scale * value:.2f}"


def _num(value) -> str:
    return "-" if value is None else f"{value:.2f}"


@click.command("run")
@click.argument("run_id")
@click.option("--format", "fmt", type=click.Choice(["helm", "newterm-results"]), required=True,
              help="helm: ELKEN's request_states files; newterm-results: NewTerm's results_{year}/ files.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Output folder.")
@click.option("--before", default=None,
              help="helm: the run over the same items without the edit (eval --solver no-edit); "
                   "gives fact_local.json and tendency_mc_local.json for locality.")
@click.option("--year", type=int, default=None, help="newterm-results: year of items that carry none.")
@click.option("--prompt", type=click.Choice(["base", "gold", "few", "few_gold"]), default=None,
              help="newterm-results: the prompt kind in the file name (default: base).")
@home_option
@handle_errors
def export_run_cmd(run_id, fmt, out_dir, before, year, prompt, home):
    """Write a recorded run as the files the official scoring scripts read.

    \b
    Examples:
      knowforge export run run-20260101T120000-ab12cd34 --format helm --out out/ice \\
          --before run-20260101T121500-cd34ef56
      knowforge export run RUN --format newterm-results --out newterm --year 2022
      knowforge score elken out/ice/*.json           # the same numbers metric.py prints
    """
    from knowforge.eval.compat.run_export import export_run

    with contextlib.closing(open_graph(home)) as store:
        export = export_run(store, run_id, out_dir, fmt, before=before, year=year, prompt=prompt)
    for path in export.files:
        console.print(f"wrote {path} ({export.counts.get(path.stem, export.counts.get(path.name, 0))} records)")
    for reason, n in sorted(export.skipped.items()):
        console.print(f"[yellow]skipped {n} questions: {reason}[/yellow]")
    for note in export.notes:
        console.print(f"[yellow]{note}[/yellow]")
    click.echo(str(out_dir))

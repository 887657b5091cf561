"""Shared option decorators and helpers of the CLI (the only layer that talks to click)."""

from __future__ import annotations

import contextlib
import functools
import traceback
from collections.abc import Iterator

import click
from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)

from knowforge.cli.error_messages import describe_error, verbosity

console = Console(stderr=True)


def handle_errors(fn):
    """Turn knowforge's own errors and the Neo4j driver's into one line that names the cause
    and the next step (``error_messages.describe_error``); ``-v`` prints the traceback too.
    Anything else is a bug and stays a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:
            ctx = click.get_current_context(silent=True)
            message = describe_error(exc, ctx)
            if message is None:
                raise
            if verbosity(ctx) > 0:
                console.print("".join(traceback.format_exception(exc)), markup=False, highlight=False)
            raise click.ClickException(message) from exc

    return wrapper


def silent_option(fn):
    return click.option("--silent", is_flag=True, help="No progress bars.")(fn)


def home_option(fn):
    return click.option("--home", "home", type=click.Path(file_okay=False), default=None,
                        envvar="KNOWFORGE_NEO4J_HOME", show_envvar=True,
                        help="Data directory of the managed Neo4j (default: the user data dir).")(fn)


def open_graph(home: str | None = None):
    """Open the store (env-configured server or the managed one) for a CLI command."""
    from knowforge.kg.connection import open_store

    return open_store(home=home)


@contextlib.contextmanager
def progress_bar(description: str, total: int | None = None, *, silent: bool = False,
                 unit: str = "items") -> Iterator:
    """A rich progress bar; yields ``advance(n)``. ``silent`` yields a no-op."""
    if silent:
        yield lambda n=1: None
        return
    columns = [SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
               MofNCompleteColumn(), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
               TimeRemainingColumn()]
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(description, total=total, rate="")

        def advance(n: int = 1) -> None:
            progress.advance(task, n)
            t = progress.tasks[task]
            if t.elapsed:
                progress.update(task, rate=f"{t.completed / t.elapsed:,.0f} {unit}/s")

        yield advance

"""Shared option decorators and helpers of the CLI (the only layer that talks to click)."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator

import click
from rich.console import Console, ConsoleDimensions
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)

from knowforge.cli.error_messages import describe_error, verbosity

# Redirected to a file, rich lays tables out at 80 columns and wraps their cells mid-word into
# columns four characters wide; a log has no width, so there tables take the room they need. At
# 240 a table with long cells (a ripple's paths) was still squeezed into 6-character columns; no
# renderable here expands to the console's width (no rules, panels or expanding tables), so a
# wide log console only stops the squeezing.
LOG_WIDTH = 2000


class WideConsole(Console):
    """A rich Console whose width, without a terminal and without COLUMNS, is ``LOG_WIDTH``;
    read at each use (as rich reads COLUMNS), so a COLUMNS set after import still counts."""

    @property
    def width(self) -> int:
        if not self.is_terminal and "COLUMNS" not in os.environ and self._width is None:
            return LOG_WIDTH
        return Console.width.fget(self)

    @width.setter
    def width(self, width: int) -> None:
        Console.width.fset(self, width)

    @property
    def size(self) -> ConsoleDimensions:
        # rich lays renderables out from ``size`` (``options``), not from ``width``
        size = Console.size.fget(self)
        if not self.is_terminal and "COLUMNS" not in os.environ and self._width is None:
            return ConsoleDimensions(LOG_WIDTH, size.height)
        return size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)


def stdout_console() -> Console:
    """A console on stdout (tables a command prints as its result), wide when not a terminal."""
    return WideConsole()


console = WideConsole(stderr=True)


class LineProgress:
    """Progress for a log file: one plain line at most every ``every`` seconds and one at the end
    (``done/total (pct%), rate, elapsed, about N s left``), instead of a bar redrawn in place.
    Used when stderr is not a terminal. ``expect(n)`` raises the total as a step announces work;
    ``initial`` is work done before the line began (a training joined midway), which the rate
    does not count."""

    def __init__(self, description: str, total: int | None = None, *, unit: str = "items",
                 every: float = 10.0, stream=None, fields: Callable[[], str] | None = None,
                 initial: int = 0) -> None:
        self.description, self.total, self.unit, self.every = description, total, unit, every
        self.stream = stream
        self.fields = fields
        self.done = self.initial = initial
        self.start = time.monotonic()
        self.last = self.start
        self.first: tuple[float, int] | None = None   # (time, done) at the first report: the rate's origin

    def expect(self, n: int) -> None:
        self.total = (self.total or 0) + n

    def __call__(self, n: int = 1) -> None:
        now = time.monotonic()
        self.done += n
        if self.first is None:
            # the rate counts from the first finished piece: the set-up before it (a model
            # loading, a first chunk of 1,024 requests) says nothing of how fast the rest goes,
            # and counted from the piece's start it gave "about 0s left" on the first line
            self.first = (now, self.done)
        if now - self.last >= self.every:
            self.last = now
            self.line()

    def line(self, final: bool = False) -> None:
        elapsed = time.monotonic() - self.start
        total = f"/{self.total:,}" if self.total else ""
        pct = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        rate = (f", {(self.done - self.initial) / elapsed:,.1f} {self.unit}/s"
                if elapsed > 0 and self.done > self.initial else "")
        eta = ""
        if not final and self.total and self.first is not None and self.total > self.done:
            # from the work done since the first report: set-up before it (a model loading, data
            # being prepared) is not work the rest will repeat
            since, base = time.monotonic() - self.first[0], self.done - self.first[1]
            if base > 0 and since > 0:
                eta = f", about {(self.total - self.done) * since / base:,.0f}s left"
        extra = f", {self.fields()}" if self.fields else ""
        print(f"  {self.description}: {self.done:,}{total} {self.unit}{pct}{rate}{extra}, {elapsed:,.0f}s"
              f"{eta}{' (done)' if final else ''}", file=self.stream or sys.stderr, flush=True)

    @contextlib.contextmanager
    def running(self) -> Iterator[LineProgress]:
        yield self
        if self.done:
            self.line(final=True)


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
    if not console.is_terminal:
        with LineProgress(description, total, unit=unit).running() as line:
            yield line
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

"""Redirected to a file (no terminal, no COLUMNS), the CLI's consoles lay a table out at the
width its cells need: a long cell stays on one line instead of being wrapped mid-word into a
column a few characters wide (what rich does at its default of 80 columns).

Each test makes its consoles after setting the environment: rich reads COLUMNS when a console is
made, and pytest-xdist's workers run with COLUMNS=80, which the module's console kept."""

from __future__ import annotations

import contextlib
import io

from knowforge.cli.common import WideConsole, stdout_console
from knowforge.models.tables import table_of

PATH = "(President of Turkey, P1308 (officeholder), Abdullah Gül) → (Recep Tayyip Erdoğan, P937 (work location), Ankara)"


def _table():
    return table_of(("kind", "why", "fact", "hops", "path"),
                    [["edited", "asserted", "(President of Turkey, P1308 (officeholder), Abdullah Gül)", "0", ""],
                     ["candidate", "successor rule", "(Recep Tayyip Erdoğan, P937 (work location), Ankara)", "2", PATH]],
                    right={"hops"}, title="ripple")


def test_a_table_in_a_log_keeps_each_cell_on_one_line(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        WideConsole(stderr=True).print(_table())
        stdout_console().print(_table())
    for text in (err.getvalue(), out.getvalue()):
        assert any(PATH in line for line in text.splitlines()), text
        assert len(text.splitlines()) == 7        # title, 3 header lines, 2 rows, the bottom rule


def test_columns_still_sets_the_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        WideConsole(stderr=True).print(_table())
    assert max(len(line) for line in err.getvalue().splitlines()) <= 60

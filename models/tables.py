"""Terminal tables that never cut an id.

rich shrinks a table that is wider than the terminal by cutting cells (``run-2026112…``,
``gen:de…``), so an id printed in an 80-column terminal could not be copied. Here columns are
sized for an 80-column terminal before rich sees them: the id columns, then the others from the
narrowest, show their longest cell on one line (``min_width``, ``no_wrap``) while they fit; every
other column folds its text onto more lines (``overflow="fold"``: at spaces first, and nothing is
cut). A wider terminal gives the folded columns their room back.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from rich.table import Table

# the narrowest terminal a table is sized for
TERMINAL_WIDTH = 80
# a cell longer than this (a sentence, a long URL) folds rather than widen its column
LONGEST_WHOLE = 48
# what a folding column keeps at least, and what each column adds: its padding and a border
FOLDED_WIDTH = 4
COLUMN_CHROME = 3


def whole_width(cells: Sequence[str]) -> int | None:
    """The width that shows every cell of a column on one line, or None when a cell is longer
    than ``LONGEST_WHOLE`` (or there is nothing to show)."""
    longest = max((len(cell) for cell in cells), default=0)
    return longest if 0 < longest <= LONGEST_WHOLE else None


def whole_columns(headers: Sequence[str], rows: Sequence[Sequence[str]], *, ids: Collection[str] = (),
                  width: int = TERMINAL_WIDTH) -> dict[int, int]:
    """{column index: width} of the columns shown unwrapped in a terminal ``width`` wide: the
    ``ids`` columns first, then the others from the narrowest, while they fit beside what the
    folding columns need. (An unwrapped column does not wrap its header either: it counts.)"""
    natural = {i: max(w, len(h)) for i, h in enumerate(headers)
               if (w := whole_width([str(row[i]) for row in rows])) is not None}
    budget = width - 1 - (COLUMN_CHROME + FOLDED_WIDTH) * len(headers)
    kept: dict[int, int] = {}
    for i in sorted(natural, key=lambda i: (headers[i] not in ids, natural[i], i)):
        extra = max(0, natural[i] - FOLDED_WIDTH)
        if extra <= budget:
            kept[i] = natural[i]
            budget -= extra
    return kept


def add_columns(table: Table, headers: Sequence[str], rows: Sequence[Sequence[str]], *,
                right: Collection[str] = (), ids: Collection[str] = ()) -> Table:
    """Add ``headers`` as columns sized for ``rows`` (the cells, as text, that the caller adds
    next). ``right``: the headers justified right; ``ids``: the headers whose cells are ids,
    kept whole before any other column. Text folds at spaces first, so the words of a cell
    such as ``P54 (member of sports team)`` stay whole where the column allows."""
    kept = whole_columns(headers, rows, ids=ids)
    for index, header in enumerate(headers):
        justify = "right" if header in right else "left"
        if index in kept:
            table.add_column(header, justify=justify, overflow="fold", no_wrap=True, min_width=kept[index])
        else:
            table.add_column(header, justify=justify, overflow="fold")
    return table


def table_of(headers: Sequence[str], rows: Sequence[Sequence[str]], *, right: Collection[str] = (),
             ids: Collection[str] = (), **table_options) -> Table:
    """A new ``Table(**table_options)`` with ``add_columns`` and the rows."""
    table = add_columns(Table(**table_options), headers, rows, right=right, ids=ids)
    for row in rows:
        table.add_row(*row)
    return table


__all__ = ["LONGEST_WHOLE", "TERMINAL_WIDTH", "add_columns", "table_of", "whole_columns", "whole_width"]

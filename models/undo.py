"""An import that fails midway takes back what it wrote.

A release import writes in several statements (entities, the benchmark node, facts, questions),
each its own transaction: one transaction for a whole release would hold every row in the
server's memory and fail large releases for that reason alone. So the importers compensate
instead: once writing starts, any failure (the server refusing a record, a lost connection,
Ctrl-C) runs the benchmark's own drop, which deletes everything the import had written, and
the error is raised as it was. If the drop fails too (the server is gone), the error says so
and names the ``--drop`` to run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from knowforge.errors import KnowforgeError


class ImportNotUndone(KnowforgeError):
    """An import failed, and what it had written could not be removed."""


@contextlib.contextmanager
def undone_on_failure(benchmark: str, undo: Callable[[], object], *, drop_command: str) -> Iterator[None]:
    """Run ``undo`` if the block raises, then raise the block's error."""
    try:
        yield
    except BaseException as exc:
        try:
            undo()
        except Exception as cleanup:
            raise ImportNotUndone(
                f"the import of {benchmark} failed ({type(exc).__name__}: {exc}), and removing what it had "
                f"written failed too ({type(cleanup).__name__}: {cleanup}): run `{drop_command}` once the "
                "graph answers again") from exc
        raise


__all__ = ["ImportNotUndone", "undone_on_failure"]

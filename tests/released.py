"""Released benchmark files read into items the way knowforge's importers read them: the items
``knowforge generate events --import`` and ``knowforge generate newterm --import`` write to the
graph, made by the same functions, without the graph. The official-scorer tests score these,
so they test what a user's imported release is scored on (there is no second reader)."""

from __future__ import annotations

from pathlib import Path

from knowforge.generators.events.elken_release import read_elken_release
from knowforge.generators.newterm.importer import read_release, release_items
from knowforge.generators.newterm.release import release_files
from knowforge.models.types import BenchmarkItem


def elken_items(path: str | Path, *, benchmark: str | None = None) -> list[BenchmarkItem]:
    """The items of an ELKEN file (``generate events --import``'s reader)."""
    return list(read_elken_release(path, benchmark=benchmark).items)


def newterm_items(path: str | Path, *, year: int | None = None) -> list[BenchmarkItem]:
    """The items of one NewTerm question file (COMA.jsonl, CSJ_clean.jsonl, ...), as
    ``generate newterm --import`` makes them."""
    files, _ = release_files([Path(path)])
    assert files, f"{path} is not a NewTerm release file"
    parsed, _, _ = read_release(files)
    return release_items(parsed, benchmark=f"newterm:{year or 'release'}", year=year)

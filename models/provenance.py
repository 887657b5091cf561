"""Where a benchmark or a run came from: the knowforge version and git revision.

Every export manifest and every Run in the graph records these, so a published number can be
traced to the exact code that made it.
"""

from __future__ import annotations

import subprocess
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def git_revision() -> str | None:
    """The commit of the knowforge checkout, when it is one (a read-only git call)."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
                             capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() or None


def knowforge_version() -> str:
    from knowforge import __version__

    return __version__

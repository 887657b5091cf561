"""tests/plugins/kf_birthyear installed as pip would install it: the package and a .dist-info
with one ``knowforge.methods`` entry point, on sys.path. Shared by the seam's tests and the
doc-examples world (docs/tutorial.md shows these very files)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from knowforge import methods

PLUGIN = Path(__file__).parent / "plugins" / "kf_birthyear"


def install_birthyear(site: Path, mp: pytest.MonkeyPatch) -> Path:
    site.mkdir(parents=True, exist_ok=True)
    shutil.copytree(PLUGIN, site / PLUGIN.name)
    dist = site / "kf_birthyear-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kf-birthyear\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[knowforge.methods]\nbirthyear = kf_birthyear.method:METHOD\n")
    mp.syspath_prepend(str(site))
    methods.refresh()
    return site

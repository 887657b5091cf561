"""Load the bundled samples (``kg/samples/``) in the documented order: taxonomy, wikidata,
umls, mathkg, cskg, cfr, newterms. A source whose folder is absent is left out (and logged)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from knowforge.errors import InputError
from knowforge.kg.loaders.base import LoadReport, RecordProgress
from knowforge.kg.store import Store

log = logging.getLogger(__name__)

SAMPLE_ORDER = ("taxonomy", "wikidata", "umls", "mathkg", "cskg", "cfr", "newterms")


def samples_dir() -> Path:
    return Path(str(resources.files("knowforge.kg.samples")))


def sample_paths(root: Path | None = None) -> dict[str, list[Path]]:
    """Source → the paths its loader takes, for the sources present under ``root``."""
    root = root or samples_dir()
    out: dict[str, list[Path]] = {}
    wikidata = sorted((root / "wikidata").glob("*.json")) if (root / "wikidata").is_dir() else []
    candidates = {
        "taxonomy": [root / "taxonomy"],
        "wikidata": wikidata,
        "umls": [root / "umls"],
        "mathkg": [root / "mathkg"],
        "cskg": [root / "cskg"],
        "cfr": [root / "cfr"],
        "newterms": [root / "newterms"],
    }
    for source in SAMPLE_ORDER:
        paths = [p for p in candidates[source] if p.exists()]
        if paths:
            out[source] = paths
        else:
            log.warning("no %s sample under %s", source, root)
    return out


def load_samples(store: Store, *, root: Path | None = None, strict: bool = False,
                 progress_for: Callable[[str], RecordProgress | None] | None = None) -> list[LoadReport]:
    """Load every bundled sample; one report per source, in load order."""
    from knowforge.kg.loaders.registry import load_source

    found = sample_paths(root)
    if not found:
        raise InputError("no sample data found", path=str(root or samples_dir()))
    reports = []
    for source, paths in found.items():
        progress = progress_for(source) if progress_for else None
        reports.append(load_source(store, source, paths, strict=strict, progress=progress))
    return reports

"""``knowforge export events``: a batch read back from the graph, in ELKEN / JSONL / HF form."""

from __future__ import annotations

import json
from pathlib import Path

from knowforge.errors import ConfigError
from knowforge.kg.store import Store

from .build import read_batch
from .elken_io import EXPORT_VERSION, to_elken_event, write_elken, write_hf, write_jsonl

FORMATS = ("elken", "jsonl", "hf")


def export_events(store: Store, batch: str, fmt: str, out: str | Path) -> dict:
    """Write the batch; returns a manifest (also written next to the export)."""
    if fmt not in FORMATS:
        raise ConfigError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    events = read_batch(store, batch)
    if not events:
        raise ConfigError(f"no events in batch {batch!r}; generate them with "
                          f"`knowforge generate events --batch {batch}`")
    out = Path(out)
    items = [item for _, batch_items in events for item in batch_items]
    if fmt == "elken":
        path = out if out.suffix == ".json" else out / f"events_{batch}.json"
        write_elken(path, [to_elken_event(e["type"], e["text"], its) for e, its in events])
    elif fmt == "jsonl":
        path = out if out.suffix == ".jsonl" else out / f"events_{batch}.jsonl"
        write_jsonl(path, items)
    else:
        path = write_hf(out, items, name=f"knowforge events {batch}")
    seeds = sorted({e["plan"]["seed"] for e, _ in events})
    manifest = {"version": EXPORT_VERSION, "benchmark": f"events:{batch}", "format": fmt,
                "path": str(path), "events": len(events), "questions": len(items),
                "seeds": seeds, "event_types": sorted({e["type"] for e, _ in events})}
    folder = path if path.is_dir() else path.parent
    (folder / f"manifest_{batch}_{fmt}.json").write_text(json.dumps(manifest, indent=2) + "\n",
                                                         encoding="utf-8")
    return manifest

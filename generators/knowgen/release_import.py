"""An ALCUNA release in the graph: ``knowforge generate knowgen --import dataset/ [--name N]``.

``read_alcuna_release`` reads the two files (tolerant, every variant counted, every skipped line
or question listed); this module stores them as a KnowGen batch, so the KU/KD/KA tasks and the
four prompting settings run on it as on a generated batch:

* a ``(:Batch {origin: 'imported'})`` owns the artificial entities (``:Entity:Artificial``,
  ``alcuna:<batch>:<alcuna id>``), each with its properties as generated-layer facts (the
  difference a property came from is the fact's ``op``) and, when the graph holds the parent
  (``eol:<EOL page id>``), a ``DERIVED_FROM {op: 'parent'}`` edge to it;
* every question is a ``:Question`` of ``knowgen:<batch>`` about its entity, with the entity's
  knowledge as its context passage (the in-context setting).

Re-importing under the same name replaces the earlier import; a generated batch of that name
is refused; ``--drop NAME`` removes the batch as it removes a generated one.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from datetime import UTC, datetime

from knowforge.errors import ConfigError
from knowforge.kg.records import stable_id
from knowforge.kg.store import Store
from knowforge.models.undo import undone_on_failure
from knowforge.models.method import GenerationSummary
from knowforge.models.questions import source_graph_hash, write_benchmark, write_questions

from .alcuna_release import AlcunaRelease, ReleaseEntityRecord, read_alcuna_release, release_files
from .drop import drop_batch

MAX_LISTED = 20
ORIGIN = "imported"
DEFAULT_NAME = "alcuna"
_RELATION = re.compile(r"[^a-z0-9]+")


def fact_rows(entity: ReleaseEntityRecord, batch: str) -> list[dict]:
    rows = []
    for prop in entity.properties:
        kind = "relation" if prop.type == "relation" else "attribute"
        op = (entity.differences.get(prop.name) or ("release",))[0]
        for value in prop.values:
            props = {"kind": kind, "relation": _RELATION.sub("_", prop.name.lower()).strip("_") or "property",
                     "relation_label": prop.name, "value": value, "subject_id": entity.id, "layer": "generated",
                     "batch": batch, "op": op, "source": "alcuna-release", "temporal": False}
            if kind == "relation":
                props["object_name"] = value
            rows.append({"id": stable_id("f:alcuna:", batch, entity.id, len(rows)), "props": props})
    return rows


def entity_rows(release: AlcunaRelease, batch: str) -> list[dict]:
    rows = []
    for e in release.entities:
        parent = e.parent
        props = {"name": e.name, "alias_text": "", "batch": batch, "alcuna_id": e.alcuna_id, "rank": e.rank,
                 "source": "alcuna-release", "domain": "artificial", "stub": False, "release_line": e.line,
                 "release_json": json.dumps(e.record, ensure_ascii=False),
                 "parent_entity_id": f"eol:{parent.id}" if parent else None,
                 "parent_name": parent.name if parent else None,
                 "description": f"artificial {e.rank or 'entity'} of an ALCUNA release"
                                + (f", derived from {parent.name}" if parent else "")}
        rows.append({"id": e.id, "parent_entity_id": props["parent_entity_id"],
                     "props": {k: v for k, v in props.items() if v is not None}, "facts": fact_rows(e, batch)})
    return rows


def import_release(store: Store, paths, params, progress=None) -> GenerationSummary:
    """``knowforge generate knowgen --import``: an ALCUNA release as batch ``knowgen:NAME``."""
    started = time.monotonic()
    meta_path, question_path = release_files(list(paths))
    batch = params.batch if getattr(params, "name_given", True) else DEFAULT_NAME
    bid = f"knowgen:{batch}"
    existing = store.read("knowgen/read_batch", batch=batch)
    if existing and existing[0].get("origin") != ORIGIN:
        raise ConfigError(f"{bid} is a generated batch: drop it first (knowforge generate knowgen --drop {batch}) "
                          "or import under another --name")
    # read (and refuse) before anything is dropped: a bad release must not cost the batch it replaces
    release = read_alcuna_release([meta_path, question_path], benchmark=bid)
    replaced = drop_batch(store, batch) if existing else None
    report = release.report
    if progress:
        progress(report.entities)
    with undone_on_failure(bid, lambda: drop_batch(store, batch), drop_command=f"knowforge generate knowgen --drop {batch}"):
        source_hash = source_graph_hash(store)
        store.run("knowgen/upsert_import_batch", batch=batch, props={
            "method": "knowgen", "origin": ORIGIN, "seed": params.seed, "params": params.to_json(),
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"), "source_hash": source_hash,
            "imported_from": [str(meta_path), str(question_path)]})
        write_benchmark(store, method="knowgen", name=batch, seed=params.seed,
                        params={"import": [str(meta_path), str(question_path)]}, source_hash=source_hash,
                        props={"origin": ORIGIN, "imported_from": [str(meta_path), str(question_path)],
                               "import_report_json": json.dumps(
                                   {"variants": dict(report.variants), "variants_first": report.variants.first, "problems": [str(p) for p in report.problems],
                                    "questions_skipped": report.questions_skipped, "lines_skipped": report.lines_skipped},
                                   sort_keys=True, ensure_ascii=False)})
        rows = entity_rows(release, batch)
        store.write("knowgen/import_entities", rows, batch_id=batch)
        write_questions(store, release.items, extra_props={"batch": batch})
        if progress:
            progress(len(release.items))
    linked = sum(r["linked"] for r in store.read("knowgen/count_linked_parents", batch=batch))
    notes = [str(p) for p in report.problems[:MAX_LISTED]]
    if len(report.problems) > MAX_LISTED:
        notes.append(f"... and {len(report.problems) - MAX_LISTED} more (all in the benchmark's import_report_json)")
    notes += report.variants.notes()
    if replaced:
        notes.append(f"replaced the earlier import of {bid}")
    breakdown = {"questions by type": {k: report.questions.get(k, 0) for k in ("KU", "KD", "KA")},
                 "questions by form": dict(sorted(report.forms.items())),
                 "questions by difference": dict(sorted(Counter(i.slices["difference"] for i in release.items).items()))}
    if report.variants:
        breakdown["variants met (accepted)"] = dict(sorted(report.variants.items()))
    return GenerationSummary(
        method="knowgen", name=batch, benchmark=bid,
        counts={"entities": report.entities, "facts": sum(len(r["facts"]) for r in rows),
                "questions": len(release.items), "questions skipped": report.questions_skipped,
                "lines skipped": report.lines_skipped, "parents in the graph": linked},
        breakdown=breakdown, timings={"total": time.monotonic() - started}, notes=notes)


__all__ = ["entity_rows", "fact_rows", "import_release"]

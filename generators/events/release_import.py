"""An ELKEN release in the graph: ``knowforge generate events --import test.json [--name N]``.

The file is read by ``read_elken_release`` (tolerant of the real files' variants, counting and
reporting every one) and stored as a generated batch is, so every editing solver (ice, bm25,
dense, ft, no-edit) and every metric runs on it:

* each complete event becomes a layered ``:Event`` (batch = the benchmark name, stacked on top
  of the events already applied) whose payload is an ``EventPlan``: one impacted triplet per
  in-scope fact question, so ``knowforge ripple`` reads it like a generated one;
* its in-scope answers become the event's edit facts (``ASSERTS``, valid from ``--date``):
  relation facts to the answer entity, literal answers ("2023", "COO") as values and unknown
  golds as explicit unknown facts. These are what ``ft`` fine-tunes on, with the event text;
* subjects and answer entities are found by their Wikidata ids, or created as stubs
  (``source: 'elken-release'``) that a later Wikidata load completes;
* every question becomes a ``:Question`` that ``TESTS`` its event, with the ids, slices and
  metadata ``read_elken_release`` gave it.

What a release does not say is not invented: no fact is retracted (the file does not name the
facts an event ends) and out-of-scope answers stay questions, not facts. Re-importing under
the same name replaces the earlier import (same ids, no duplicates); a generated batch of that
name is refused. ``--drop NAME`` unstacks the events, their facts and questions, and the stubs
nothing else uses.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from knowforge.errors import ConfigError, InputError
from knowforge.kg.store import Store
from knowforge.models.undo import undone_on_failure
from knowforge.models.method import GenerationSummary
from knowforge.models.questions import read_benchmark, source_graph_hash, write_benchmark, write_questions

from .elken_release import ReleaseEvent, default_release_name, read_elken_release, release_target
from .instantiate import EventPlan, ImpactedTriplet, Slot
from .layering import apply_events, edit_fact_rows, unapply_batch
from .paths import Target
from .templates import load_relations

MAX_LISTED = 20
ORIGIN = "imported"


def release_file(paths) -> Path:
    """The one ELKEN file among ``paths`` (a folder may hold exactly one ``*.json``)."""
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(sorted(p.glob("*.json")) if p.is_dir() else [p])
    if not files:
        raise InputError("no ELKEN file (*.json) here", path=str(paths[0]))
    if len(files) > 1:
        raise ConfigError("import one ELKEN file at a time, each as its own benchmark (e.g. "
                          "`--import train.json`, then `--import test.json`); got "
                          + ", ".join(str(f) for f in files[:5]))
    return files[0]


def relation_label(rel_id: str | None) -> str:
    """``P749`` → "parent organization" (relations.yaml); a release's own ids read as words."""
    if not rel_id:
        return "unknown relation"
    info = load_relations().get(rel_id)
    return info.label if info else rel_id.replace("-", " ").replace("_", " ")


def release_plan(event: ReleaseEvent, *, batch: str, seed: int, date: str) -> EventPlan:
    """The ``EventPlan`` of an imported event: its subjects as slots, its in-scope fact
    questions as impacted triplets (answers read from the file), no retractions."""
    slots: dict[str, Slot] = {}
    impacts = []
    for item in event.items:
        if item.task != "events/fact":
            continue
        subject = item.metadata["subject"]
        if not subject.get("id"):
            continue
        if subject["id"] not in slots:
            slots[subject["id"]] = Slot(f"subject{len(slots) + 1}", subject["id"], subject.get("name") or subject["id"])
        target = release_target(item)
        release = item.metadata["release"]
        impacts.append(ImpactedTriplet(
            subject=Target(subject["id"], subject.get("name") or subject["id"]), relation=item.slices["relation"],
            relation_label=relation_label(item.metadata.get("rel_id")), objects=(target,), unknown=item.unknown,
            needs_background=bool(item.slices["needs_background"]), replace=False,
            declared=f"release {release['field']}[{release['index']}]"))
    return EventPlan(id=event.id, type=event.event_type, batch=batch, seed=seed, index=event.index, date=date,
                     year=int(date[:4]), text=event.text, slots=tuple(slots.values()), impacts=tuple(impacts),
                     retractions=())


def release_fact_rows(plan: EventPlan) -> list[dict]:
    """``edit_fact_rows``, with a release's literal answers as plain values: the generated
    literal is always the event date, a release's may be a year, a title or a number."""
    rows = edit_fact_rows(plan)
    for row in rows:
        props = row["props"]
        if props.get("kind") == "attribute":
            props["datatype"] = "string"
            for key in ("point_in_time", "point_in_time_precision"):
                props.pop(key, None)
        props["source"] = "elken-release"
    return rows


def entity_rows(events: list[ReleaseEvent]) -> list[dict]:
    """Every subject and answer entity the release names by id, first name seen."""
    names: dict[str, str] = {}
    for event in events:
        for item in event.items:
            subject = item.metadata.get("subject") or {}
            answer = item.metadata.get("answer") or {}
            if subject.get("id"):
                names.setdefault(subject["id"], subject.get("name") or subject["id"])
            if answer.get("id") and answer["id"] != "NA":
                names.setdefault(answer["id"], answer.get("name") or answer["id"])
    return [{"id": k, "name": v} for k, v in sorted(names.items())]


def _batch_origins(store: Store, batch: str) -> dict[str, int]:
    return {r["origin"]: r["events"] for r in store.read("events/read_batch_origin", batch=batch)}


def drop_release(store: Store, name: str) -> dict[str, int]:
    """Unstack an imported release's events (facts and questions with them), then remove the
    stubs nothing uses any more and the benchmark node."""
    events = unapply_batch(store, name)
    stubs = store.run("events/delete_release_stubs")["nodes_deleted"]
    store.run("benchmark/delete_benchmark", id=f"events:{name}")
    return {"events unstacked": events, "stub entities deleted": stubs}


def import_release(store: Store, paths, params, progress=None) -> GenerationSummary:
    """``knowforge generate events --import FILE``: one ELKEN file as benchmark ``events:NAME``."""
    started = time.monotonic()
    path = release_file(paths)
    name = params.name if getattr(params, "name_given", True) else default_release_name(path)
    bid = f"events:{name}"
    existing = read_benchmark(store, bid)
    origins = _batch_origins(store, name)
    if (existing and existing.get("origin") != ORIGIN) or set(origins) - {ORIGIN}:
        raise ConfigError(f"{bid} is a generated batch: drop it first (knowforge generate events --drop {name}) "
                          "or import under another --name")
    # read (and refuse) before anything is dropped: a bad file must not cost the benchmark it replaces
    release = read_elken_release(path, benchmark=bid)
    report = release.report
    if not release.events:
        raise InputError("no complete ELKEN event in the file"
                         + (f" ({report.damage_note()})" if report.truncated else ""), path=str(path))
    replaced = drop_release(store, name) if (existing or origins) else None
    if progress:
        progress(len(release.events))
    with undone_on_failure(bid, lambda: drop_release(store, name), drop_command=f"knowforge generate events --drop {name}"):
        plans = [release_plan(e, batch=name, seed=params.seed, date=params.date) for e in release.events]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        store.write("events/merge_release_entities", entity_rows(release.events))
        write_benchmark(store, method="events", name=name, seed=params.seed,
                        params={"import": str(path), "date": params.date, "seed": params.seed},
                        source_hash=source_graph_hash(store),
                        props={"origin": ORIGIN, "imported_from": str(path), "file_sha256": digest,
                               "truncated": report.truncated, "damage_offset": report.damage_offset,
                               "import_report_json": json.dumps(_report_dict(report), sort_keys=True,
                                                                ensure_ascii=False)})
        apply_events(store, plans, fact_rows=release_fact_rows, extra_props={
            e.id: {"origin": ORIGIN, "release_file": path.name, "release_index": e.index, "release_line": e.line,
                   "release_offset": e.offset,
                   "release_extra_json": json.dumps({k: v for k, v in e.record.items()
                                                     if k not in ("event_type", "event", "fact", "tendency")},
                                                    sort_keys=True, ensure_ascii=False)}
            for e in release.events})
        if progress:
            progress(len(plans))
        write_questions(store, release.items, event_ids={i.id: e.id for e in release.events for i in e.items})
        if progress:
            progress(len(release.items))
    return summary_of(release, name=name, path=path, replaced=replaced,
                      seconds=time.monotonic() - started)


def _report_dict(report) -> dict:
    return {"events": report.events, "events_skipped": report.events_skipped,
            "questions": dict(report.questions), "questions_skipped": dict(report.questions_skipped),
            "variants": dict(report.variants), "variants_first": report.variants.first, "damage_offset": report.damage_offset,
            "damage_line": report.damage_line, "size": report.size,
            "problems": [str(p) for p in report.problems]}


def summary_of(release, *, name: str, path: Path, replaced: dict | None, seconds: float) -> GenerationSummary:
    report = release.report
    items = release.items
    facts_in = [i for i in items if i.task == "events/fact"]
    notes = []
    if report.truncated:
        notes.append(report.damage_note())
    notes += [str(p) for p in report.problems[:MAX_LISTED]]
    if len(report.problems) > MAX_LISTED:
        notes.append(f"... and {len(report.problems) - MAX_LISTED} more skipped records (all of them are in the "
                     "benchmark node's import_report_json)")
    notes += report.variants.notes()
    if replaced:
        notes.append(f"replaced the earlier import of events:{name} ({replaced['events unstacked']} events)")
    breakdown = {"questions by part and scope": {k: report.questions.get(k, 0) for k in
                                                 ("fact.qas", "fact.local_qas", "tendency.qas", "tendency.local_qas")},
                 "in-scope fact golds": {"known": sum(not i.unknown for i in facts_in),
                                         "unknown": sum(i.unknown for i in facts_in),
                                         "needs background": sum(bool(i.slices["needs_background"]) for i in facts_in)},
                 "events by type": dict(sorted(report.event_types.items()))}
    if report.questions_skipped:
        breakdown["questions skipped"] = dict(report.questions_skipped)
    if report.variants:
        breakdown["variants met (accepted)"] = dict(sorted(report.variants.items()))
    counts = {"events": report.events, "questions": len(items),
              "questions skipped": sum(report.questions_skipped.values()),
              "events skipped": report.events_skipped,
              "answers asserted": sum(1 for i in facts_in if i.metadata["subject"].get("id"))}
    return GenerationSummary(method="events", name=name, benchmark=f"events:{name}", counts=counts,
                             breakdown=breakdown, timings={"total": seconds}, notes=notes)


__all__ = ["drop_release", "entity_rows", "import_release", "relation_label", "release_fact_rows", "release_file",
           "release_plan"]

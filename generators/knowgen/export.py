"""KnowGen's own export formats: ALCUNA's files and our JSONL with the entities beside the items.

Everything is read from Neo4j (entities, facts with their operation and provenance, questions'
stored BenchmarkItem JSON) in stable id order and written with fixed key order, so the same
seed and graph give byte-identical files. (Hugging Face, lm-eval and the manifest are written
by ``knowforge.workflow`` for every method.)

ALCUNA (METHODS.md §1): ``meta_data.jsonl`` + ``id2question.json``. Entity ids follow the
released data: minus the parent's numeric id (a parent used again in the batch:
``-(parent + k * 10**10)``). Multi-choice questions carry their options in the question text
(``A. ...`` lines) and the gold letter then the gold text in ``answers``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

from knowforge.errors import InputError
from knowforge.models.items_io import write_items
from knowforge.kg.store import Store
from knowforge.models.questions import read_items as read_stored_items
from knowforge.models.types import BenchmarkItem

from .plan import display_value
from .questions import TYPE_NAMES

log = logging.getLogger(__name__)

EXPORT_VERSION = "1"
LETTERS = "ABCD"


def _dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


def _fact_value(f: dict) -> str:
    if f.get("kind") == "relation" or f.get("object_id"):
        return f.get("object_name") or f.get("object_id") or ""
    return display_value(f.get("value"), f.get("unit"))


def _prop(f: dict) -> dict:
    return {"name": f.get("relation_label") or f["relation"],
            "type": "relation" if f.get("kind") == "relation" or f.get("object_id") else "attribute",
            "values": [_fact_value(f)]}


def property_list(facts: Iterable[dict]) -> list[dict]:
    """Facts grouped into ALCUNA properties, in first-appearance order."""
    groups: dict[str, dict] = {}
    for f in facts:
        p = _prop(f)
        if p["name"] in groups:
            groups[p["name"]]["values"].extend(p["values"])
        else:
            groups[p["name"]] = p
    return list(groups.values())


def _numeric_id(entity_id: str):
    tail = entity_id.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else entity_id


def read_entities(store: Store, batch: str) -> list[dict]:
    """The batch's artificial entities with their facts and their parents' (export order)."""
    if not store.read("knowgen/read_batch", batch=batch):
        raise InputError(f"no KnowGen batch {batch!r} in the graph (generate it first: "
                         f"knowforge generate knowgen --name {batch})")
    return store.read("knowgen/read_batch_entities", batch=batch)


def read_items(store: Store, batch: str) -> list[BenchmarkItem]:
    return read_stored_items(store, f"knowgen:{batch}")


def alcuna_meta(entity: dict) -> dict:
    parent_facts = {f["id"]: f for f in entity["parent_facts"]}
    difference = {"extension": [], "variation": [], "heredity": [], "dropout": []}
    for f in entity["facts"]:
        if f["op"] == "heredity":
            difference["heredity"].append(_prop(f))
        elif f["op"] == "extension":
            difference["extension"].append(_prop(f))
        elif f["op"] == "variation":
            old_id = next(s.split("|")[0] for s in f["sources"] if s.endswith("|varied"))
            difference["variation"].append([_prop(parent_facts[old_id]), _prop(f)])
    difference["dropout"] = [_prop(parent_facts[d]) for d in entity["dropout"] if d in parent_facts]
    return {
        "artificial_entity": {"name": entity["name"], "id": entity["alcuna_id"], "rank": entity["rank"],
                              "property": property_list(entity["facts"])},
        "parent_entity": {"name": entity["parent_name"], "id": _numeric_id(entity["parent_id"]),
                          "rank": entity["parent_rank"], "property": property_list(entity["parent_facts"])},
        "difference": difference,
    }


def alcuna_question(item: BenchmarkItem) -> dict:
    question, answers = item.question, list(item.answers)
    if item.form == "multi-choice":
        question = question + "\n" + "\n".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(item.choices))
        answers = [LETTERS[item.answer_index], item.choices[item.answer_index]]
    meta = {"related_property": item.metadata.get("related_property"),
            "difference": item.slices.get("difference")}
    if "hop_triplets" in item.metadata:
        meta["hop_triplets"] = item.metadata["hop_triplets"]
    return {"question": question, "answers": answers, "form": item.form,
            "type": TYPE_NAMES[item.slices["type"]], "meta_data": meta}


def export_alcuna(out: Path, entities: list[dict], items: Sequence[BenchmarkItem]) -> list[Path]:
    meta_path, q_path = out / "meta_data.jsonl", out / "id2question.json"
    with meta_path.open("w", encoding="utf-8", newline="\n") as fh:
        for e in entities:
            fh.write(_dumps(alcuna_meta(e)) + "\n")
    alcuna_ids = {e["id"]: str(e["alcuna_id"]) for e in entities}
    id2q: dict[str, list] = {alcuna_ids[e["id"]]: [] for e in entities}
    for it in items:
        id2q[alcuna_ids[it.entity_ids[0]]].append(alcuna_question(it))
    q_path.write_text(json.dumps(id2q, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return [meta_path, q_path]


def export_jsonl(out: Path, entities: list[dict], items: Sequence[BenchmarkItem]) -> list[Path]:
    items_path, ent_path = out / "items.jsonl", out / "entities.jsonl"
    write_items(items_path, items)
    with ent_path.open("w", encoding="utf-8", newline="\n") as fh:
        for e in entities:
            fh.write(json.dumps({"version": EXPORT_VERSION, "id": e["id"], **alcuna_meta(e)},
                                ensure_ascii=False, sort_keys=True) + "\n")
    return [items_path, ent_path]


def imported_records(store: Store, batch: str) -> list[tuple[str, dict]] | None:
    """(graph id, meta_data record as released) of an imported ALCUNA batch; None when the
    batch was generated."""
    rows = store.read("knowgen/read_batch", batch=batch)
    if not rows:
        read_entities(store, batch)       # the error that names the missing batch
    if rows[0].get("origin") != "imported":
        return None
    return [(r["id"], json.loads(r["release_json"])) for r in store.read("knowgen/read_import_entities", batch=batch)]


def export_release(out: Path, records: list[tuple[str, dict]], items: Sequence[BenchmarkItem]) -> list[Path]:
    """An imported release as it was released: its meta lines and the question records read."""
    meta_path, q_path = out / "meta_data.jsonl", out / "id2question.json"
    with meta_path.open("w", encoding="utf-8", newline="\n") as fh:
        for _, record in records:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    id2q: dict[str, list] = {}
    for it in items:
        id2q.setdefault(str(it.metadata["release"]["entity"]), []).append(it.metadata["record"])
    q_path.write_text(json.dumps(id2q, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return [meta_path, q_path]


def write_alcuna(store: Store, batch: str, items: Sequence[BenchmarkItem], out: Path) -> list[Path]:
    """``meta_data.jsonl`` + ``id2question.json``, validated against ALCUNA's schema (an imported
    release is written back as released, its variants included)."""
    from .alcuna_schema import validate_alcuna_export

    records = imported_records(store, batch)
    if records is not None:
        return export_release(out, records, items)
    files = export_alcuna(out, read_entities(store, batch), items)
    counts = validate_alcuna_export(out)
    log.info("ALCUNA export valid: %d entities, %d questions", counts["entities"], counts["questions"])
    return files


def write_jsonl(store: Store, batch: str, items: Sequence[BenchmarkItem], out: Path) -> list[Path]:
    """``items.jsonl`` (our item schema) + ``entities.jsonl`` (each entity's ALCUNA record)."""
    records = imported_records(store, batch)
    if records is None:
        return export_jsonl(out, read_entities(store, batch), items)
    items_path, ent_path = out / "items.jsonl", out / "entities.jsonl"
    write_items(items_path, items)
    with ent_path.open("w", encoding="utf-8", newline="\n") as fh:
        for graph_id, record in records:
            fh.write(json.dumps({"version": EXPORT_VERSION, "id": graph_id, **record}, ensure_ascii=False,
                                sort_keys=True) + "\n")
    return [items_path, ent_path]

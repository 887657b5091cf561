"""Export a batch, read back from the graph, as ALCUNA files, our JSONL schema, or an HF folder.

Everything is read from Neo4j (entities, facts with their operation and provenance, questions'
stored BenchmarkItem JSON) in stable id order and written with fixed key order, so the same
seed and graph give byte-identical files.

ALCUNA (METHODS.md §1): ``meta_data.jsonl`` + ``id2question.json``. Entity ids follow the
released data: minus the parent's numeric id (a parent used again in the batch:
``-(parent + k * 10**10)``). Multi-choice questions carry their options in the question text
(``A. ...`` lines) and the gold letter then the gold text in ``answers``.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from pathlib import Path

from knowforge.errors import InputError
from knowforge.models.items_io import write_items
from knowforge.models.types import BenchmarkItem
from knowforge.kg.store import Store

from .params import KnowGenParams
from .plan import display_value
from .questions import TYPE_NAMES

log = logging.getLogger(__name__)

EXPORT_VERSION = "1"
FORMATS = ("alcuna", "jsonl", "hf")
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


def read_batch(store: Store, batch: str) -> tuple[KnowGenParams, dict, list[dict], list[BenchmarkItem]]:
    rows = store.read("knowgen/read_batch", batch=batch)
    if not rows:
        raise InputError(f"no KnowGen batch {batch!r} in the graph (generate it first: "
                         f"knowforge generate knowgen --batch {batch})")
    params = KnowGenParams.model_validate_json(rows[0]["params"])
    entities = store.read("knowgen/read_batch_entities", batch=batch)
    items = [BenchmarkItem.model_validate_json(r["item_json"])
             for r in store.read("knowgen/read_batch_questions", benchmark=params.benchmark)]
    return params, rows[0], entities, items


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


def export_alcuna(out: Path, entities: list[dict], items: list[BenchmarkItem]) -> list[Path]:
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


def export_jsonl(out: Path, entities: list[dict], items: list[BenchmarkItem]) -> list[Path]:
    items_path, ent_path = out / "items.jsonl", out / "entities.jsonl"
    write_items(items_path, items)
    with ent_path.open("w", encoding="utf-8", newline="\n") as fh:
        for e in entities:
            fh.write(json.dumps({"version": EXPORT_VERSION, "id": e["id"], **alcuna_meta(e)},
                                ensure_ascii=False, sort_keys=True) + "\n")
    return [items_path, ent_path]


def hf_row(item: BenchmarkItem) -> dict:
    """A flat row with one fixed schema (nested metadata as a JSON string, so Arrow can type it)."""
    return {"id": item.id, "entity_id": item.entity_ids[0], "type": item.slices["type"],
            "form": item.form, "difference": item.slices["difference"],
            "hop_count": item.slices["hop_count"], "class": item.slices["class"],
            "context": item.context or "", "question": item.question, "choices": list(item.choices),
            "answers": list(item.answers), "answer_index": -1 if item.answer_index is None else item.answer_index,
            "unknown": item.unknown, "fact_ids": list(item.fact_ids),
            "metadata_json": json.dumps(item.metadata, ensure_ascii=False, sort_keys=True)}


HF_CARD = """---
pretty_name: KnowGen batch {batch}
language:
- en
task_categories:
- question-answering
- multiple-choice
tags:
- knowforge
- alcuna
- artificial-entities
configs:
- config_name: default
  data_files:
  - split: test
    path: data/test.jsonl
- config_name: entities
  data_files:
  - split: test
    path: data/entities.jsonl
---

# KnowGen batch `{batch}`

Artificial entities generated by knowforge's KnowGen (the ALCUNA method: heredity, variation,
dropout and extension of a real taxon's properties) and questions about them: Knowledge
Understanding (KU), Knowledge Differentiation (KD) and Knowledge Association (KA), each as
boolean, fill-in-blank and multi-choice questions.

- entities: {entities}
- questions: {questions} ({by_type})
- seed: {seed}; source graph sha256: `{source_hash}`

Load it with `datasets.load_dataset("json", data_files="data/test.jsonl")`, or
`datasets.load_dataset("<this folder>")` (the `configs` header above names the files).

Fields of `data/test.jsonl`: `id`, `entity_id`, `type` (KU|KD|KA), `form`, `difference`
(heredity|variation|dropout|extension), `hop_count`, `class`, `context` (the entity's knowledge
as a passage), `question`, `choices`, `answers` (every acceptable answer and alias),
`answer_index` (multi-choice gold, -1 otherwise), `unknown` (gold is "unknown"), `fact_ids`
(graph facts the question tests), `metadata_json`.
"""


def export_hf(out: Path, params: KnowGenParams, batch_row: dict, entities: list[dict],
              items: list[BenchmarkItem]) -> list[Path]:
    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)
    test_path, ent_path = data / "test.jsonl", data / "entities.jsonl"
    with test_path.open("w", encoding="utf-8", newline="\n") as fh:
        for it in items:
            fh.write(json.dumps(hf_row(it), ensure_ascii=False, sort_keys=True) + "\n")
    with ent_path.open("w", encoding="utf-8", newline="\n") as fh:
        for e in entities:
            m = alcuna_meta(e)
            fh.write(json.dumps({"id": e["id"], "name": e["name"], "alcuna_id": e["alcuna_id"],
                                 "parent_id": e["parent_id"], "rank": e["rank"],
                                 "meta_json": json.dumps(m, ensure_ascii=False, sort_keys=True)},
                                ensure_ascii=False, sort_keys=True) + "\n")
    by_type: dict[str, int] = {}
    for it in items:
        by_type[it.slices["type"]] = by_type.get(it.slices["type"], 0) + 1
    card = out / "README.md"
    card.write_text(HF_CARD.format(batch=params.batch, entities=len(entities), questions=len(items),
                                   by_type=", ".join(f"{k} {v}" for k, v in sorted(by_type.items())),
                                   seed=params.seed, source_hash=batch_row.get("source_hash")),
                    encoding="utf-8")
    return [test_path, ent_path, card]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def git_revision() -> str | None:
    import subprocess

    try:
        root = Path(__file__).resolve().parents[2]
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                             timeout=5)
        return out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def export_batch(store: Store, batch: str, fmt: str, out_dir: str | Path) -> list[Path]:
    """Write batch ``batch`` to ``out_dir`` in ``fmt`` (alcuna|jsonl|hf) plus ``manifest.json``."""
    if fmt not in FORMATS:
        raise InputError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    params, batch_row, entities, items = read_batch(store, batch)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if fmt == "alcuna":
        files = export_alcuna(out, entities, items)
    elif fmt == "jsonl":
        files = export_jsonl(out, entities, items)
    else:
        files = export_hf(out, params, batch_row, entities, items)
    from knowforge import __version__

    manifest = {"version": EXPORT_VERSION, "method": "knowgen", "format": fmt,
                "benchmark": params.benchmark, "batch": params.batch, "seed": params.seed,
                "params": params.model_dump(mode="json"), "knowforge_version": __version__,
                "git_revision": git_revision(), "source_graph_sha256": batch_row.get("source_hash"),
                "entities": len(entities), "questions": len(items),
                "item_schema_version": items[0].version if items else None,
                "files": {str(p.relative_to(out)): _sha256(p) for p in files}}
    path = out / "manifest.json"
    path.write_text(json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
                    encoding="utf-8")
    log.info("exported batch %s (%s) to %s", batch, fmt, out)
    return [*files, path]

"""A validator of the ALCUNA export (METHODS.md §1), used by tests and ``knowforge export``.

meta_data.jsonl, one artificial entity a line:
  {"artificial_entity": ENTITY, "parent_entity": ENTITY,
   "difference": {"extension": [PROP], "variation": [[PROP, PROP]], "heredity": [PROP],
                  "dropout": [PROP]}}
  ENTITY = {"name": str, "id": int (artificial: negative), "rank": str|null, "property": [PROP]}
  PROP   = {"name": str, "type": "attribute"|"relation", "values": [str, ...]}
id2question.json:
  {"<artificial id>": [{"question": str, "answers": [str, ...] (non-empty),
                        "form": "boolean"|"fill-in-blank"|"multi-choice",
                        "type": "Knowledge Understanding"|"Knowledge Differentiation"|
                                "Knowledge Association",
                        "meta_data": {"related_property": str, "difference": str,
                                      "hop_triplets"?: [[str, str, str], ...]}}]}
"""

from __future__ import annotations

import json
from pathlib import Path

from knowforge.errors import InputError

FORMS = {"boolean", "fill-in-blank", "multi-choice"}
TYPES = {"Knowledge Understanding", "Knowledge Differentiation", "Knowledge Association"}
DIFFERENCES = {"heredity", "variation", "dropout", "extension"}


def _fail(path: Path, line: int | None, message: str):
    raise InputError(f"{path}{f':{line}' if line else ''}: {message}", path=str(path), line=line)


def _check_prop(p, path, line, where):
    if not isinstance(p, dict) or set(p) != {"name", "type", "values"}:
        _fail(path, line, f"{where}: a property is {{name, type, values}}, got {p!r}")
    if not isinstance(p["name"], str) or not p["name"]:
        _fail(path, line, f"{where}: property name must be a non-empty string")
    if p["type"] not in ("attribute", "relation"):
        _fail(path, line, f"{where}: property type must be attribute or relation, got {p['type']!r}")
    if not isinstance(p["values"], list) or not p["values"] or not all(isinstance(v, str) for v in p["values"]):
        _fail(path, line, f"{where}: values must be a non-empty list of strings")


def _check_entity(e, path, line, where, *, negative: bool):
    if not isinstance(e, dict) or set(e) != {"name", "id", "rank", "property"}:
        _fail(path, line, f"{where} must have exactly name, id, rank, property")
    if not isinstance(e["name"], str) or not e["name"]:
        _fail(path, line, f"{where}.name must be a non-empty string")
    if negative and not (isinstance(e["id"], int) and e["id"] < 0):
        _fail(path, line, f"{where}.id must be a negative integer, got {e['id']!r}")
    if not isinstance(e["property"], list):
        _fail(path, line, f"{where}.property must be a list")
    for p in e["property"]:
        _check_prop(p, path, line, f"{where}.property")


def validate_alcuna_export(out_dir: str | Path) -> dict[str, int]:
    """Raise InputError (file and line) at the first violation; return counts when valid."""
    out = Path(out_dir)
    meta_path, q_path = out / "meta_data.jsonl", out / "id2question.json"
    for p in (meta_path, q_path):
        if not p.is_file():
            _fail(p, None, "missing")
    ids: set[str] = set()
    for n, text in enumerate(meta_path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            rec = json.loads(text)
        except json.JSONDecodeError as exc:
            _fail(meta_path, n, f"not JSON: {exc}")
        if not isinstance(rec, dict) or set(rec) != {"artificial_entity", "parent_entity", "difference"}:
            _fail(meta_path, n, "a line has exactly artificial_entity, parent_entity, difference")
        _check_entity(rec["artificial_entity"], meta_path, n, "artificial_entity", negative=True)
        _check_entity(rec["parent_entity"], meta_path, n, "parent_entity", negative=False)
        diff = rec["difference"]
        if not isinstance(diff, dict) or set(diff) != DIFFERENCES:
            _fail(meta_path, n, "difference has exactly extension, variation, heredity, dropout")
        for key in ("extension", "heredity", "dropout"):
            for p in diff[key]:
                _check_prop(p, meta_path, n, f"difference.{key}")
        for pair in diff["variation"]:
            if not isinstance(pair, list) or len(pair) != 2:
                _fail(meta_path, n, "difference.variation holds [old_prop, new_prop] pairs")
            for p in pair:
                _check_prop(p, meta_path, n, "difference.variation")
        key = str(rec["artificial_entity"]["id"])
        if key in ids:
            _fail(meta_path, n, f"duplicate artificial entity id {key}")
        ids.add(key)
    try:
        id2q = json.loads(q_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        _fail(q_path, exc.lineno, f"not JSON: {exc}")
    if not isinstance(id2q, dict):
        _fail(q_path, None, "top level must be an object {entity_id: [questions]}")
    questions = 0
    for key, qs in id2q.items():
        if key not in ids:
            _fail(q_path, None, f"entity id {key} is not in meta_data.jsonl")
        if not isinstance(qs, list):
            _fail(q_path, None, f"{key}: questions must be a list")
        for i, q in enumerate(qs):
            where = f"{key}[{i}]"
            if not isinstance(q, dict) or set(q) != {"question", "answers", "form", "type", "meta_data"}:
                _fail(q_path, None, f"{where}: a question has exactly question, answers, form, type, meta_data")
            if not isinstance(q["question"], str) or not q["question"]:
                _fail(q_path, None, f"{where}: empty question")
            if not isinstance(q["answers"], list) or not q["answers"] or not all(isinstance(a, str) for a in q["answers"]):
                _fail(q_path, None, f"{where}: answers must be a non-empty list of strings")
            if q["form"] not in FORMS:
                _fail(q_path, None, f"{where}: form {q['form']!r} not in {sorted(FORMS)}")
            if q["type"] not in TYPES:
                _fail(q_path, None, f"{where}: type {q['type']!r} not in {sorted(TYPES)}")
            m = q["meta_data"]
            if not isinstance(m, dict) or not {"related_property", "difference"} <= set(m) \
                    or not set(m) <= {"related_property", "difference", "hop_triplets"}:
                _fail(q_path, None, f"{where}: meta_data has related_property, difference[, hop_triplets]")
            if m["difference"] not in DIFFERENCES:
                _fail(q_path, None, f"{where}: difference {m['difference']!r} not in {sorted(DIFFERENCES)}")
            if q["type"] == "Knowledge Association":
                hops = m.get("hop_triplets")
                if not isinstance(hops, list) or len(hops) < 2 or not all(
                        isinstance(t, list) and len(t) == 3 and all(isinstance(x, str) for x in t) for t in hops):
                    _fail(q_path, None, f"{where}: KA questions need hop_triplets [[s, r, o], ...] (2+ hops)")
            questions += 1
    return {"entities": len(ids), "questions": questions}

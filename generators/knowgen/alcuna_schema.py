"""The ALCUNA export's record schema (METHODS.md §1) as pydantic models, and its validator,
used by tests and ``knowforge export``.

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

Records are validated from JSON text in strict mode: no key beyond the schema, no missing
key, and no coercion (``"5"`` is not an id, ``5`` is not a name).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from knowforge.errors import InputError, describe_validation_error

Form = Literal["boolean", "fill-in-blank", "multi-choice"]
QuestionType = Literal["Knowledge Understanding", "Knowledge Differentiation", "Knowledge Association"]
DifferenceName = Literal["heredity", "variation", "dropout", "extension"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class AlcunaProperty(_Record):
    name: str = Field(min_length=1)
    type: Literal["attribute", "relation"]
    values: list[str] = Field(min_length=1)


class AlcunaEntity(_Record):
    name: str = Field(min_length=1)
    id: int
    rank: str | None
    property: list[AlcunaProperty]


class ArtificialEntity(AlcunaEntity):
    id: int = Field(lt=0)


class Difference(_Record):
    extension: list[AlcunaProperty]
    variation: list[tuple[AlcunaProperty, AlcunaProperty]]    # [old, new] pairs
    heredity: list[AlcunaProperty]
    dropout: list[AlcunaProperty]


class MetaRecord(_Record):
    """One line of meta_data.jsonl."""

    artificial_entity: ArtificialEntity
    parent_entity: AlcunaEntity
    difference: Difference


class QuestionMeta(_Record):
    related_property: str
    difference: DifferenceName
    hop_triplets: list[tuple[str, str, str]] | None = None


class AlcunaQuestion(_Record):
    question: str = Field(min_length=1)
    answers: list[str] = Field(min_length=1)
    form: Form
    type: QuestionType
    meta_data: QuestionMeta

    @model_validator(mode="after")
    def _chains(self) -> AlcunaQuestion:
        if self.type == "Knowledge Association" and len(self.meta_data.hop_triplets or ()) < 2:
            raise ValueError("KA questions need meta_data.hop_triplets [[s, r, o], ...] (2+ hops)")
        return self


ID2QUESTION = TypeAdapter(dict[str, list[AlcunaQuestion]])


def validate_alcuna_export(out_dir: str | Path) -> dict[str, int]:
    """Raise InputError (file and line, or entity id and question index) at the first bad
    record; return counts when every record is valid."""
    out = Path(out_dir)
    meta_path, q_path = out / "meta_data.jsonl", out / "id2question.json"
    for p in (meta_path, q_path):
        if not p.is_file():
            raise InputError("missing", path=str(p))
    ids: set[str] = set()
    for n, text in enumerate(meta_path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            record = MetaRecord.model_validate_json(text)
        except ValidationError as exc:
            raise InputError(describe_validation_error(exc), path=str(meta_path), line=n) from exc
        key = str(record.artificial_entity.id)
        if key in ids:
            raise InputError(f"duplicate artificial entity id {key}", path=str(meta_path), line=n)
        ids.add(key)
    text = q_path.read_text(encoding="utf-8")
    try:
        id2q = ID2QUESTION.validate_json(text)
    except ValidationError as exc:
        line = None
        try:
            json.loads(text)
        except json.JSONDecodeError as decode:
            line = decode.lineno
        raise InputError(describe_validation_error(exc), path=str(q_path), line=line) from exc
    for key in id2q:
        if key not in ids:
            raise InputError(f"entity id {key} is not in meta_data.jsonl", path=str(q_path),
                             record=key)
    return {"entities": len(ids), "questions": sum(len(qs) for qs in id2q.values())}

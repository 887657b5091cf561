"""The options of one KnowGen batch (persisted on the Batch node and in export manifests)."""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

PARAMS_VERSION = "1"
FORMS = ("boolean", "fill-in-blank", "multi-choice")
_BATCH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class KnowGenParams(BaseModel):
    """Everything that changes a batch's output; same params + same graph = same batch."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = PARAMS_VERSION
    batch: str
    seed: int = 0
    n: int = Field(100, ge=1)
    classes: tuple[str, ...] | None = None   # class ids or names; None = every class
    class_label: str = "Taxon"                # label of class members
    parent_rel: str = "P171"                  # member -> class relation (taxonomy: parent taxon)
    min_members: int = Field(2, ge=2)         # a class needs a parent and at least one sibling
    heredity_ratio: float = Field(0.5, ge=0)
    variation_ratio: float = Field(0.3, ge=0)
    dropout_ratio: float = Field(0.2, ge=0)
    max_extension: int = Field(2, ge=0)       # extension facts per entity: uniform in 0..max
    name_cutoff: float = Field(85.0, gt=0, le=100)
    max_ku: int = Field(6, ge=0)              # KU properties asked per entity (0 = every one)
    max_ka2: int = Field(2, ge=0)             # 2-hop KA questions (per form) per entity
    max_ka3: int = Field(1, ge=0)             # 3-hop KA questions (per form) per entity
    max_hop_triplets: int = Field(3, ge=1)    # chains recorded per KA question
    forms: tuple[str, ...] = FORMS
    few_shot: int = Field(2, ge=0)

    @field_validator("batch")
    @classmethod
    def _batch_id(cls, value: str) -> str:
        if not _BATCH.match(value):
            raise ValueError(f"batch id {value!r} must be letters, digits, '_', '-', '.' (max 64)")
        return value

    @field_validator("forms")
    @classmethod
    def _forms(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [f for f in value if f not in FORMS]
        if bad:
            raise ValueError(f"unknown forms {bad}; choose from {', '.join(FORMS)}")
        return tuple(f for f in FORMS if f in value)

    @model_validator(mode="after")
    def _ratios(self) -> KnowGenParams:
        if self.heredity_ratio + self.variation_ratio + self.dropout_ratio <= 0:
            raise ValueError("heredity/variation/dropout ratios must not all be zero")
        return self

    @property
    def benchmark(self) -> str:
        return f"knowgen:{self.batch}"

    def split_probabilities(self) -> tuple[float, float, float]:
        total = self.heredity_ratio + self.variation_ratio + self.dropout_ratio
        return (self.heredity_ratio / total, self.variation_ratio / total, self.dropout_ratio / total)

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))

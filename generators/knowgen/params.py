"""The options of one KnowGen batch (persisted on the Batch node and in export manifests)."""

from __future__ import annotations

import json

from pydantic import AliasChoices, Field, field_validator, model_validator

from knowforge.models.method import MethodParams

PARAMS_VERSION = "1"
FORMS = ("boolean", "fill-in-blank", "multi-choice")


def _cli(**options) -> dict:
    return {"cli": options}


class KnowGenParams(MethodParams):
    """Everything that changes a batch's output; same params + same graph = same batch."""

    version: str = Field(PARAMS_VERSION, json_schema_extra=_cli(hidden=True))
    name: str | None = Field(None, validation_alias=AliasChoices("name", "batch"),
                             description="Batch id (letters, digits, _-.); default kg<SEED>. "
                                         "Its benchmark is knowgen:BATCH.",
                             json_schema_extra=_cli(flags=["--name"]))
    n: int = Field(100, ge=1, description="Artificial entities to generate.")
    classes: tuple[str, ...] | None = Field(
        None, description="Class C to draw parents from (id like ncbi:9835 or name like Camelidae); "
                          "repeatable. Default: every class with at least two members.",
        json_schema_extra=_cli(flags=["--class"], multiple=True))
    class_label: str = Field("Taxon", description="Label of class members (any class in the graph, "
                                                  "not only taxa).")
    parent_rel: str = Field("P171", description="Relation from a member to its class "
                                                "(taxonomy: P171 parent taxon).")
    min_members: int = Field(2, ge=2, description="A class needs a parent and at least one sibling.")
    heredity_ratio: float = Field(0.5, ge=0, description="Share of the parent's facts inherited unchanged.",
                                  json_schema_extra=_cli(flags=["--heredity"]))
    variation_ratio: float = Field(0.3, ge=0, description="Share of the parent's facts varied.",
                                   json_schema_extra=_cli(flags=["--variation"]))
    dropout_ratio: float = Field(0.2, ge=0, description="Share of the parent's facts dropped.",
                                 json_schema_extra=_cli(flags=["--dropout"]))
    max_extension: int = Field(2, ge=0, description="Extension facts sampled from siblings per entity "
                                                    "(uniform 0..MAX).")
    name_cutoff: float = Field(85.0, gt=0, le=100, description="rapidfuzz ratio at or above which a new "
                                                                "name counts as a collision.")
    max_ku: int = Field(6, ge=0, description="Properties asked about in KU questions per entity (0 = all).")
    max_ka2: int = Field(2, ge=0, description="2-hop KA questions per entity (per form).")
    max_ka3: int = Field(1, ge=0, description="3-hop KA questions per entity (per form).")
    max_hop_triplets: int = Field(3, ge=1, description="Chains recorded per KA question.")
    forms: tuple[str, ...] = Field(FORMS, description="Question forms.", json_schema_extra=_cli(separator=","))
    few_shot: int = Field(2, ge=0, description="Few-shot exemplars per question.")

    def default_name(self) -> str:
        return f"kg{self.seed}"

    @property
    def batch(self) -> str:
        return self.name

    @property
    def name_given(self) -> bool:
        return self._name_given

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

"""The options of one LINK generation (persisted on its Benchmark node and in export manifests)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from knowforge.models.method import MethodParams

from . import critic



def _cli(**options) -> dict:
    return {"cli": options}


class LinkParams(MethodParams):
    """Everything that changes a LINK benchmark; same params + graph + cache = same statements."""

    name: str | None = Field(None, description="Benchmark name (default lk<SEED>); its id is link:NAME.",
                             json_schema_extra=_cli(flags=["--name"]))
    rules: tuple[str, ...] = Field((), description="Rule files or folders (YAML/JSON, LINK's rule shape); "
                                                   "repeatable. Default: the bundled starter set.",
                                   json_schema_extra=_cli(flags=["--rules"], multiple=True))
    rule_ids: tuple[str, ...] = Field((), description="Only these rule ids (repeatable; default: every rule).",
                                      json_schema_extra=_cli(flags=["--rule"], multiple=True))
    patterns: str | None = Field(None, description="Grounding patterns YAML (default: the bundled "
                                                   "generators/link/predicates.yaml).")
    n: int = Field(100, ge=1, description="Statements per rule and distribution.")
    distribution: Literal["head", "longtail", "both"] = Field(
        "both", description="Which statements to keep: the head (likely), the long tail (unlikely) or both.")
    chain_depth: int = Field(1, ge=1, le=5, description="Rule chains up to this depth: a conclusion may serve "
                                                        "as the premise of another rule.")
    grounded_only: bool = Field(False, description="Search only the rules the graph grounds completely, "
                                                   "even when a model is given (without one, the others are "
                                                   "skipped anyway).")
    beam_size: int = Field(200, ge=1, description="Values kept per variable (LINK: 200).")
    values_per_call: int = Field(50, ge=1, description="Values asked per knowledge-model call (LINK: 50; the "
                                                       "first variable asks twice as many).")
    keep_ratio: float = Field(critic.KEEP_RATIO, gt=0, le=1, description="Reranker keeps min(beam size, "
                                                                         "ceil(ratio x n)) beams.")
    datatype_threshold: float = Field(critic.DATATYPE_START, gt=0, le=1,
                                      description="Critic's starting datatype threshold.")
    datatype_floor: float = Field(critic.DATATYPE_FLOOR, gt=0, le=1,
                                  description="Lowest datatype threshold (lowered by 0.05 while nothing passes).")
    factual_threshold: float = Field(critic.FACTUAL_CAP, gt=0, le=1,
                                     description="Cap of the factual threshold (best confidence rounded down).")
    repetition_penalty: float = Field(critic.REPETITION_PENALTY, ge=0,
                                      description="Head reranker: weight of the ROUGE-L overlap with earlier values.")
    max_candidates: int = Field(200, ge=1, description="Graph candidates per beam and variable (sampled with "
                                                       "the seeded generator above that).")
    temperature: float = Field(0.7, ge=0, description="Knowledge-model sampling temperature (LINK: 0.7).")
    parse_retries: int = Field(10, ge=0, description="Re-asks when a reply brings no new value (LINK: 10).")
    ranker: Literal["auto", "likelihood", "popularity"] = Field(
        "auto", description="Reranker: mean token log-likelihood under the scoring model, or graph popularity "
                            "(sitelinks, degree); auto = likelihood when a scoring model is given.")
    scorer_backend: Literal["hf", "openai", "vllm"] | None = Field(
        None, description="Backend of the scoring model (critic P(yes), reranker, distribution check); "
                          "default: the --backend model.")
    scorer_model: str | None = Field(None, description="Scoring model id or local directory.")
    scorer_base_url: str | None = Field(None, description="openai: the scoring model's server URL.")

    def default_name(self) -> str:
        return f"lk{self.seed}"

    @model_validator(mode="after")
    def _defaults(self) -> LinkParams:
        if self.datatype_floor > self.datatype_threshold:
            raise ValueError("the datatype floor must not exceed the starting datatype threshold")
        if (self.scorer_backend or self.scorer_base_url) and not self.scorer_model:
            raise ValueError("--scorer-backend/--scorer-base-url need --scorer-model")
        return self

    @property
    def benchmark(self) -> str:
        return f"link:{self.name}"

    @property
    def name_given(self) -> bool:
        return self._name_given

    @property
    def distributions(self) -> tuple[str, ...]:
        return ("head", "longtail") if self.distribution == "both" else (self.distribution,)


__all__ = ["LinkParams"]

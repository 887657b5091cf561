"""Records shared by generators and eval: the contract between the two layers.

Generators produce ``BenchmarkItem`` values (and ask models through the same backends when a
step needs an LLM); the eval engine turns items into ``GenerationRequest`` /
``LoglikelihoodRequest`` values, any ``Backend`` answers them. Both layers import this
module; neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

ITEM_SCHEMA_VERSION = "1"

Form = Literal["generation", "fill-in-blank", "boolean", "multi-choice", "true-false"]

# Capabilities a backend may declare.
CAP_GENERATE = "generate"
CAP_CHAT = "chat"
CAP_LOGLIKELIHOOD = "loglikelihood"
CAP_SEED = "seed"


@dataclass(frozen=True)
class GenerationRequest:
    """One prompt (text) or chat (messages); ``n`` samples come back for it."""

    prompt: str | None = None
    messages: tuple[tuple[str, str], ...] | None = None  # ((role, content), ...)
    n: int = 1
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None
    max_tokens: int = 64
    stop: tuple[str, ...] = ()
    # Index of the first sample asked for: the cache asks only for the samples it lacks
    # (indices sample_offset .. sample_offset + n - 1); a seeded backend derives each sample's
    # seed from (seed, index), so sample i is the same whatever n was asked.
    sample_offset: int = 0

    def __post_init__(self) -> None:
        if (self.prompt is None) == (self.messages is None):
            raise ValueError("a GenerationRequest needs exactly one of prompt and messages")
        if self.n < 1:
            raise ValueError("n must be >= 1")
        if self.sample_offset < 0:
            raise ValueError("sample_offset must be >= 0")

    def cache_payload(self) -> dict[str, Any]:
        """Everything that changes the output (and nothing else, e.g. no timeouts)."""
        return {"prompt": self.prompt, "messages": [list(m) for m in self.messages] if self.messages else None,
                "temperature": self.temperature, "top_p": self.top_p, "seed": self.seed,
                "max_tokens": self.max_tokens, "stop": list(self.stop)}


@dataclass(frozen=True)
class GenerationResult:
    texts: tuple[str, ...]
    finish_reasons: tuple[str, ...]
    cached: tuple[bool, ...] = ()
    error: str | None = None  # a per-request failure, recorded and counted, never swallowed


@dataclass(frozen=True)
class LoglikelihoodRequest:
    context: str
    continuation: str


@dataclass(frozen=True)
class LoglikelihoodResult:
    total: float
    token_logprobs: tuple[float, ...]
    is_greedy: bool | None = None
    cached: bool = False


@runtime_checkable
class Backend(Protocol):
    """A model. Batch-first, like lm-evaluation-harness: lists in, lists out, same order."""

    name: str          # "hf", "openai", "vllm"
    model: str         # model id or path
    capabilities: frozenset[str]

    def generate(self, requests: list[GenerationRequest]) -> list[GenerationResult]: ...

    def loglikelihood(self, requests: list[LoglikelihoodRequest]) -> list[LoglikelihoodResult]: ...


class BenchmarkItem(BaseModel):
    """One question of any benchmark, in our versioned JSONL schema."""

    model_config = ConfigDict(extra="forbid")

    version: str = ITEM_SCHEMA_VERSION
    id: str
    benchmark: str                       # e.g. "knowgen:b1", "chrono:general", "events:e1"
    task: str                            # e.g. "knowgen/KU", "chrono/generation", "events/fact"
    form: Form
    question: str
    context: str | None = None           # passage given in context (KU, ICE, NewTerm gold)
    choices: list[str] = Field(default_factory=list)
    answers: list[str] = Field(default_factory=list)   # every acceptable answer (aliases too)
    answer_index: int | None = None      # gold choice for multi-choice
    unknown: bool = False                # the gold answer is "unknown" (dropout, deletion)
    scorer: str = "fuzzy"                # name in knowforge.eval.scorers.SCORERS
    few_shot: list[dict[str, str]] = Field(default_factory=list)  # [{question, answer}]
    fact_ids: list[str] = Field(default_factory=list)
    entity_ids: list[str] = Field(default_factory=list)
    slices: dict[str, Any] = Field(default_factory=dict)  # relation, year, hop_count, domain, ...
    metadata: dict[str, Any] = Field(default_factory=dict)

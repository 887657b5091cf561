"""Records of the eval engine: what a scorer says (``Score``), one scored answer
(``SampleResult``) and the typed options of one run (``EvalOptions``). The records shared with
generators live in ``knowforge.models.types``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from knowforge.errors import ConfigError
from knowforge.models.config import BackendConfig

# How answers are scored: "official" reproduces each benchmark's released scoring script rule
# for rule (quirks included); "knowforge" (the default) applies the rules we think right.
# docs/fidelity.md lists every difference with an example.
Scoring = Literal["knowforge", "official"]
SCORING_MODES: tuple[str, ...] = get_args(Scoring)
DEFAULT_SCORING: Scoring = "knowforge"


class Score(BaseModel):
    """What a scorer says about one response."""

    value: float                          # 1.0 right, 0.0 wrong (or a graded value)
    answer: str | None = None             # the parsed answer
    explanation: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class SampleResult:
    """One sample of one item: what the model said and what it scored.

    ``variant`` names a prompt a solver derived in memory from the question (ELKEN's question
    without the edit, NewTerm's other setting): such answers are recorded beside the run's own
    (``GAVE_VARIANT``), never as answers of the run's setting, and never as new questions.
    """

    item_id: str
    sample_index: int
    raw: str | None
    parsed: str | None
    score: float
    error: str | None = None
    cached: bool = False
    finish_reason: str | None = None
    prompt: str = ""
    explanation: str | None = None
    cache_key: str | None = None
    metadata: dict[str, Any] | None = None   # likelihood: per-option logprobs; solver tags
    rule: str | None = None                  # the scoring rule applied: "<scorer>:<mode>"
    variant: str | None = None


class EvalOptions(BaseModel):
    """Typed options of one evaluation run (what ``knowforge eval`` parses). A solver's own
    arguments are its parameter model, not these."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    backend: Literal["hf", "openai", "vllm"] = "hf"
    model: str = ""
    base_url: str | None = None
    temperature: float = Field(0.0, ge=0.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    n: int = Field(1, ge=1)
    seed: int = 0
    max_tokens: int = Field(64, ge=1)
    limit: int | None = Field(None, ge=1)  # the first K units of each run (method's item_group)
    sample: int | None = Field(None, ge=1)  # K units of each run drawn at random (seeded by seed)
    log_samples: bool = False
    cache: bool = True
    cache_dir: Path | None = None
    out_dir: Path = Path("runs")
    silent: bool = False
    device: str | None = None            # hf: "cpu", "cuda"
    tensor_parallel_size: int = Field(1, ge=1)   # vllm
    prefix_caching: bool = True          # vllm
    engine_args: dict[str, Any] = Field(default_factory=dict)   # vllm: more LLM(...) arguments
    dtype: str | None = None             # hf: torch dtype name
    concurrency: int = Field(8, ge=1)    # openai
    timeout: float = Field(120.0, gt=0)  # openai: seconds per HTTP request
    max_retries: int = Field(4, ge=0)    # openai: the SDK's retries (429 / 5xx / connection errors)
    openai_api: Literal["auto", "chat"] = "auto"
    batch_size: int = Field(8, ge=1)     # hf: sequences per forward pass; cache: requests per write
    revision: str | None = None          # hf / vllm: model revision (part of the cache key)
    mc_scoring: Literal["generate", "likelihood"] = "generate"
    mc_continuation: Literal["text", "letter"] = "text"
    scoring: Scoring = DEFAULT_SCORING   # "knowforge" or "official" (the released scripts' rules)
    chat: bool = False                   # send chat messages (the model's chat template)
    model_cutoff: str | None = None      # the model's knowledge cutoff (cutoff slices, validity)
    # bootstrap resamples of every task metric's interval (knowforge.eval.metric_stats); 0: none
    bootstrap: int = Field(1000, ge=0)

    @field_validator("scoring", mode="before")
    @classmethod
    def _scoring(cls, value: str) -> str:
        if value not in SCORING_MODES:
            raise ValueError(f"unknown scoring mode {value!r}; choose one of {', '.join(SCORING_MODES)}")
        return value

    @field_validator("bootstrap")
    @classmethod
    def _bootstrap(cls, value: int) -> int:
        if value == 1:
            raise ValueError("a bootstrap needs at least 2 resamples (0 turns it off)")
        return value

    @classmethod
    def make(cls, **values: Any) -> EvalOptions:
        """``EvalOptions(**values)``, with a bad value a ``ConfigError`` naming the option."""
        try:
            return cls(**values)
        except ValidationError as exc:
            raise ConfigError(describe_validation(exc, "option")) from None

    def but(self, **changes: Any) -> EvalOptions:
        """A copy with ``changes``, validated."""
        return type(self).make(**{**self.model_dump(), **changes})

    def backend_config(self) -> BackendConfig:
        """The part of these options that builds and keys a backend."""
        return BackendConfig(
            backend=self.backend, model=self.model, base_url=self.base_url, seed=self.seed,
            cache=self.cache, cache_dir=self.cache_dir, silent=self.silent, device=self.device,
            batch_size=self.batch_size, revision=self.revision,
            tensor_parallel_size=self.tensor_parallel_size, prefix_caching=self.prefix_caching,
            concurrency=self.concurrency, timeout=self.timeout, max_retries=self.max_retries,
            openai_api=self.openai_api, dtype=self.dtype, engine_args=dict(self.engine_args))


def parse_key_values(pairs: Sequence[str], option: str) -> dict[str, Any]:
    """``["span=both"]`` → {"span": "both"} for a repeatable ``KEY=VALUE`` option (``-S``,
    ``-O``); keys take ``_`` for ``-``, and the owner's argument model converts the values."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{option} {pair!r} is not KEY=VALUE")
        out[key.strip().replace("-", "_")] = value
    return out


def describe_validation(exc: ValidationError, what: str) -> str:
    """One line per problem of a pydantic validation error: ``--limit: ...``."""
    problems = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or what
        problems.append(f"{what} {where}: {error['msg']}")
    return "; ".join(problems)

"""Records of the eval engine: what a scorer says (``Score``) and the options of one run
(``EvalOptions``). The records shared with generators live in ``knowforge.models.types``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from knowforge.errors import ConfigError
from knowforge.models.config import BackendConfig

# How answers are scored: "official" reproduces each benchmark's released scoring script rule
# for rule (quirks included); "knowforge" (the default) applies the rules we think right.
# docs/fidelity.md lists every difference with an example.
SCORING_MODES = ("knowforge", "official")
DEFAULT_SCORING = "knowforge"


class Score(BaseModel):
    """What a scorer says about one response."""

    value: float                          # 1.0 right, 0.0 wrong (or a graded value)
    answer: str | None = None             # the parsed answer
    explanation: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class EvalOptions:
    """Typed options of one evaluation run (what ``knowforge eval`` parses)."""

    backend: str = "hf"
    model: str = ""
    base_url: str | None = None
    temperature: float = 0.0
    top_p: float = 1.0
    n: int = 1
    seed: int = 0
    max_tokens: int = 64
    limit: int | None = None
    log_samples: bool = False
    cache: bool = True
    cache_dir: Path | None = None
    out_dir: Path = Path("runs")
    silent: bool = False
    device: str | None = None            # hf: "cpu", "cuda"
    tensor_parallel_size: int = 1        # vllm
    prefix_caching: bool = True          # vllm
    concurrency: int = 8                 # openai
    timeout: float = 120.0               # openai: seconds per HTTP request
    max_retries: int = 4                 # openai: the SDK's retries (429 / 5xx / connection errors / timeouts)
    openai_api: str = "auto"             # openai: "auto" (prompt->completions, messages->chat) or "chat"
    batch_size: int = 8                  # hf: sequences per forward pass; cache: requests per write
    revision: str | None = None          # hf / vllm: model revision (part of the cache key)
    mc_scoring: str = "generate"         # multi-choice/boolean items: "generate" or "likelihood"
    mc_continuation: str = "text"        # likelihood: score each option's "text" or its "letter"
    scoring: str = DEFAULT_SCORING       # "knowforge" or "official" (the released scripts' rules)
    extra: dict[str, Any] = field(default_factory=dict)  # method-specific (setting, check, span, method)

    def __post_init__(self) -> None:
        if self.scoring not in SCORING_MODES:
            raise ConfigError(f"unknown scoring mode {self.scoring!r}; choose one of {', '.join(SCORING_MODES)}")

    def backend_config(self) -> BackendConfig:
        """The part of these options that builds and keys a backend."""
        return BackendConfig(
            backend=self.backend, model=self.model, base_url=self.base_url, seed=self.seed,
            cache=self.cache, cache_dir=self.cache_dir, silent=self.silent, device=self.device,
            batch_size=self.batch_size, revision=self.revision,
            tensor_parallel_size=self.tensor_parallel_size, prefix_caching=self.prefix_caching,
            concurrency=self.concurrency, timeout=self.timeout, max_retries=self.max_retries,
            openai_api=self.openai_api,
            dtype=self.extra.get("dtype"), engine_args=dict(self.extra.get("vllm_engine_kwargs", {})))

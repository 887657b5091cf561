"""How to build one model backend: the typed configuration ``make_backend`` takes.

Generators that need an LLM (distractors, paraphrases, related terms, rule values, a critic)
and the eval engine build their backends from the same record, so a model is configured the
same way wherever it is used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class BackendConfig:
    backend: str = "hf"                  # "hf", "openai", "vllm"
    model: str = ""                      # model id or local directory
    base_url: str | None = None          # openai: server URL
    seed: int = 0
    cache: bool = True                   # answer from the on-disk response cache first
    cache_dir: Path | None = None
    silent: bool = False
    device: str | None = None            # hf: "cpu", "cuda"
    batch_size: int = 8                  # hf: sequences per forward pass
    revision: str | None = None          # hf / vllm: model revision (part of the cache key)
    dtype: str | None = None             # hf: torch dtype name
    tensor_parallel_size: int = 1        # vllm
    prefix_caching: bool = True          # vllm
    engine_args: dict[str, Any] = field(default_factory=dict)   # vllm: more LLM(...) engine arguments
    concurrency: int = 8                 # openai: parallel requests
    timeout: float = 120.0               # openai: seconds per HTTP request
    max_retries: int = 4                 # openai: the SDK's retries (429 / 5xx / connection errors / timeouts)
    openai_api: str = "auto"             # openai: "auto" (prompt->completions, messages->chat) or "chat"


def as_backend_config(config) -> BackendConfig:
    """``config`` itself, or the ``BackendConfig`` a richer options record gives
    (``EvalOptions.backend_config()``)."""
    return config.backend_config() if hasattr(config, "backend_config") else config

"""vLLM offline engine, written against vLLM's documented ``LLM`` / ``SamplingParams`` API.

- ``vllm.LLM(model=, revision=, tensor_parallel_size=, enable_prefix_caching=, seed=, **engine_args)``,
  built by ``llm_kwargs`` (a pure function, tested without vLLM): ``--engine-arg KEY=VALUE``
  reaches the engine as is (pipeline / data parallelism, ``max_num_seqs``, ...).
- Prompts are tokenised here (chat messages through the tokenizer's chat template, as in the
  hf backend) and sent as ``{"prompt_token_ids": [...]}`` to ``LLM.generate(prompts,
  sampling_params)``; one ``SamplingParams`` per prompt.
- Seeded sampling sends one prompt per sample with ``n=1`` and ``seed=derive_seed(seed, i)``,
  so sample i is the same whatever ``n`` was asked (the cache relies on it); prefix caching
  makes the repeated prompt cheap. Greedy decodes once and copies.
- Log-likelihood: ``SamplingParams(max_tokens=1, prompt_logprobs=0)``;
  ``RequestOutput.prompt_logprobs[i]`` maps the prompt's token at i to a ``Logprob`` with
  ``.logprob`` and ``.rank`` (rank 1 = the greedy choice).
"""

from __future__ import annotations

import logging
from typing import Any

from knowforge.errors import BackendError, ConfigError

from ..config import as_backend_config
from ..types import (GenerationRequest, GenerationResult, LoglikelihoodRequest,
                     LoglikelihoodResult)
from . import CAPABILITIES, derive_seed
from .text import encode_pair, format_chat

log = logging.getLogger(__name__)


# Set from knowforge's own options; an --engine-arg may not name them (the cache key and the
# per-sample seeds depend on them).
_OWN_ARGS = {"model": "--model", "revision": "--revision", "seed": "--seed"}


def llm_kwargs(model: str, *, tensor_parallel_size: int = 1, prefix_caching: bool = True, seed: int = 0,
               revision: str | None = None, engine_args: dict[str, Any] | None = None) -> dict[str, Any]:
    """The keyword arguments of ``vllm.LLM``: knowforge's options, then every ``--engine-arg``.

    An engine argument overrides a default knowforge picks (``enable_prefix_caching``), and may
    repeat ``tensor_parallel_size`` only with the value of ``--tensor-parallel-size`` (or when
    that is left at 1); ``model``, ``revision`` and ``seed`` come from their own options only.
    """
    kwargs: dict[str, Any] = {"model": model, "revision": revision, "tensor_parallel_size": tensor_parallel_size,
                              "enable_prefix_caching": prefix_caching, "seed": seed}
    for key, value in (engine_args or {}).items():
        if key in _OWN_ARGS:
            raise ConfigError(f"--engine-arg {key}=... : use {_OWN_ARGS[key]} (it is part of the cache key)")
        if key == "tensor_parallel_size" and tensor_parallel_size not in (1, value):
            raise ConfigError(f"--engine-arg tensor_parallel_size={value} contradicts "
                              f"--tensor-parallel-size {tensor_parallel_size}")
        kwargs[key] = value
    return kwargs


def config_llm_kwargs(config) -> dict[str, Any]:
    """``vllm.LLM`` keyword arguments of a ``BackendConfig`` (or ``EvalOptions``), as
    ``VLLMBackend.from_options`` passes them."""
    config = as_backend_config(config)
    return llm_kwargs(config.model, tensor_parallel_size=config.tensor_parallel_size,
                      prefix_caching=config.prefix_caching, seed=config.seed, revision=config.revision,
                      engine_args=config.engine_args)


class VLLMBackend:
    """``VLLMBackend(model, tensor_parallel_size=1, prefix_caching=True, seed=0, revision=None)``."""

    name = "vllm"
    capabilities = CAPABILITIES["vllm"]

    def __init__(self, model: str, *, tensor_parallel_size: int = 1, prefix_caching: bool = True,
                 seed: int = 0, revision: str | None = None, **engine_kwargs: Any):
        self._start(llm_kwargs(model, tensor_parallel_size=tensor_parallel_size, prefix_caching=prefix_caching,
                               seed=seed, revision=revision, engine_args=engine_kwargs))

    @classmethod
    def from_options(cls, options) -> VLLMBackend:
        backend = cls.__new__(cls)
        backend._start(config_llm_kwargs(options))
        return backend

    def _start(self, kwargs: dict[str, Any]) -> None:
        try:
            import vllm
        except ImportError as exc:
            raise BackendError("the vllm backend needs vllm and a CUDA GPU: pip install 'knowforge[vllm]'; "
                               "or run `vllm serve` elsewhere and use --backend openai --base-url") from exc
        self.vllm = vllm
        self.model = kwargs["model"]
        self.revision = kwargs["revision"]
        self.batch_size = 256    # requests per cache write; vLLM schedules its own batches
        self.llm = vllm.LLM(**kwargs)
        self.tokenizer = self.llm.get_tokenizer()
        tok = self.tokenizer
        self.prefix_id = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id

    def prompt_ids(self, request: GenerationRequest) -> list[int]:
        if request.messages is not None:
            text = format_chat(self.tokenizer, request.messages, model=self.model)
            return self.tokenizer(text, add_special_tokens=False).input_ids
        return self.tokenizer(request.prompt).input_ids

    def generate(self, requests: list[GenerationRequest]) -> list[GenerationResult]:
        SamplingParams = self.vllm.SamplingParams
        prompts: list[dict[str, list[int]]] = []
        params: list[Any] = []
        owners: list[tuple[int, int | None]] = []   # (request, sample slot or None = all slots)
        for i, request in enumerate(requests):
            ids = self.prompt_ids(request)
            common = dict(temperature=request.temperature, top_p=request.top_p,
                          max_tokens=request.max_tokens, stop=list(request.stop) or None)
            if request.temperature == 0:
                prompts.append({"prompt_token_ids": ids})
                params.append(SamplingParams(n=1, **common))
                owners.append((i, None))
            elif request.seed is None:
                prompts.append({"prompt_token_ids": ids})
                params.append(SamplingParams(n=request.n, **common))
                owners.append((i, -1))
            else:
                for slot in range(request.n):
                    prompts.append({"prompt_token_ids": ids})
                    params.append(SamplingParams(n=1, seed=derive_seed(request.seed, request.sample_offset + slot),
                                                 **common))
                    owners.append((i, slot))
        outputs = self.llm.generate(prompts, params, use_tqdm=False)
        texts: list[list[str]] = [[""] * r.n for r in requests]
        reasons: list[list[str]] = [["length"] * r.n for r in requests]
        for (i, slot), output in zip(owners, outputs, strict=True):
            completions = output.outputs
            if slot is None:        # greedy: copy the one answer to every slot
                pairs = [(s, completions[0]) for s in range(requests[i].n)]
            elif slot == -1:        # unseeded n samples in one call
                pairs = list(enumerate(completions))
            else:
                pairs = [(slot, completions[0])]
            for s, completion in pairs:
                texts[i][s] = completion.text
                reasons[i][s] = "stop" if completion.finish_reason == "stop" else str(completion.finish_reason)
        return [GenerationResult(texts=tuple(t), finish_reasons=tuple(f)) for t, f in zip(texts, reasons)]

    def loglikelihood(self, requests: list[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        pairs = [encode_pair(self.tokenizer, r.context, r.continuation, self.prefix_id) for r in requests]
        params = self.vllm.SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=0)
        outputs = self.llm.generate([{"prompt_token_ids": ctx + cont} for ctx, cont in pairs], params,
                                    use_tqdm=False)
        results = []
        for (ctx, cont), output in zip(pairs, outputs, strict=True):
            positions = output.prompt_logprobs or []
            values, greedy = [], True
            for pos, token in enumerate(cont, start=len(ctx)):
                try:
                    entry = positions[pos][token]
                except (IndexError, KeyError, TypeError) as exc:
                    raise BackendError(f"vllm returned no prompt logprob for token {token} at {pos}") from exc
                values.append(float(entry.logprob))
                greedy = greedy and entry.rank == 1
            results.append(LoglikelihoodResult(total=sum(values), token_logprobs=tuple(values), is_greedy=greedy))
        return results

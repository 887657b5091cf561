"""transformers backend, CPU or GPU: batched greedy and seeded sampling, log-likelihood.

Decoding is our own small loop over the model's KV cache rather than ``model.generate``,
because reproducible sampling needs one ``torch.Generator`` per sample (``generate`` draws
from the global RNG) and because stop strings, per-row temperature / top_p and per-row
token budgets then live in one readable place. Batches are left-padded with explicit
position ids, so a row's tokens do not depend on what it was batched with.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from knowforge.errors import BackendError

from ..config import as_backend_config
from ..types import (GenerationRequest, GenerationResult, LoglikelihoodRequest,
                     LoglikelihoodResult)
from . import CAPABILITIES, derive_seed, local_model_dir
from .text import encode_pair, format_chat

log = logging.getLogger(__name__)

_HASH_LIMIT = 64 * 2**20  # hash weight files up to this size; larger ones by size + mtime


def local_model_fingerprint(path: Path) -> str:
    """A short content fingerprint of a local model directory (part of the cache key)."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.iterdir() if p.is_file()):
        if file.suffix not in (".json", ".safetensors", ".bin", ".model", ".jinja", ".txt"):
            continue
        stat = file.stat()
        digest.update(file.name.encode())
        if stat.st_size <= _HASH_LIMIT:
            digest.update(file.read_bytes())
        else:
            digest.update(f"{stat.st_size}:{stat.st_mtime_ns}".encode())
    return "sha256:" + digest.hexdigest()[:16]


@dataclass
class _Row:
    """One sequence being decoded: one sample of one request."""

    request_index: int
    sample_slot: int
    prompt_ids: list[int]
    request: GenerationRequest
    generator: Any = None   # torch.Generator, None for greedy
    new_ids: list[int] = field(default_factory=list)
    text: str = ""
    finish_reason: str | None = None


class HFBackend:
    """A transformers causal LM. ``HFBackend(model_path_or_id, device=, batch_size=, revision=)``."""

    name = "hf"
    capabilities = CAPABILITIES["hf"]

    def __init__(self, model: str, *, device: str | None = None, batch_size: int = 8,
                 revision: str | None = None, dtype: str | None = None):
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:
            raise BackendError("the hf backend needs torch and transformers: pip install 'knowforge[hf]'") from exc
        # knowforge shows its own progress; transformers' loading bars would interleave with it.
        hf_logging.disable_progress_bar()
        self.torch = torch
        self.model = model
        self.batch_size = max(1, batch_size)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        local = local_model_dir(model)
        self.revision = revision or (local_model_fingerprint(local) if local is not None else None)
        # A local folder is read as HF_HUB_OFFLINE would: no Hub request, so no retries of an
        # unreachable Hub before a folder that is right there is loaded.
        source = str(local) if local is not None else model
        offline = {"local_files_only": True} if local is not None else {}
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(source, revision=revision, **offline)
            torch_dtype = getattr(torch, dtype) if dtype else (torch.float32 if self.device == "cpu" else "auto")
            self.lm = AutoModelForCausalLM.from_pretrained(source, revision=revision, dtype=torch_dtype, **offline)
        except (OSError, ValueError) as exc:
            raise BackendError(f"cannot load hf model {model!r}: {exc}") from exc
        self.lm.to(self.device).eval()
        tok = self.tokenizer
        self.eos_id = tok.eos_token_id
        self.pad_id = tok.pad_token_id if tok.pad_token_id is not None else self.eos_id
        self.prefix_id = tok.bos_token_id if tok.bos_token_id is not None else self.eos_id
        # Models that take ``logits_to_keep`` (transformers' causal LMs) project only the positions
        # read onto the vocabulary: with a small model the projection and its log-softmax over every
        # prompt position cost as much as the layers (issue 33's profile of the demo).
        self.keep_logits = "logits_to_keep" in inspect.signature(self.lm.forward).parameters

    @classmethod
    def from_options(cls, options) -> HFBackend:
        options = as_backend_config(options)
        return cls(options.model, device=options.device, batch_size=options.batch_size,
                   revision=options.revision, dtype=options.dtype)

    # -- prompts ------------------------------------------------------------------------------

    def format_chat(self, messages: tuple[tuple[str, str], ...]) -> str:
        """The prompt text for chat ``messages`` (the tokenizer's chat template when it has one)."""
        return format_chat(self.tokenizer, messages, model=self.model)

    def prompt_ids(self, request: GenerationRequest) -> list[int]:
        if request.messages is not None:
            # The template writes its own special tokens (bos); do not add them twice.
            return self.tokenizer(self.format_chat(request.messages), add_special_tokens=False).input_ids
        return self.tokenizer(request.prompt).input_ids

    # -- generation ---------------------------------------------------------------------------

    def generate(self, requests: list[GenerationRequest]) -> list[GenerationResult]:
        torch = self.torch
        rows: list[_Row] = []
        for i, request in enumerate(requests):
            if request.temperature < 0 or not 0 < request.top_p <= 1:
                raise BackendError(f"request {i}: temperature must be >= 0 and top_p in (0, 1]")
            ids = self.prompt_ids(request)
            if request.temperature == 0:
                # Greedy: every sample is the same; decode once, copy below.
                rows.append(_Row(i, -1, ids, request))
                continue
            for slot in range(request.n):
                generator = torch.Generator(device=self.device)
                if request.seed is not None:
                    generator.manual_seed(derive_seed(request.seed, request.sample_offset + slot))
                else:
                    generator.seed()
                rows.append(_Row(i, slot, ids, request, generator))
        # Longest first: batches of similar length waste little padding.
        order = sorted(range(len(rows)), key=lambda k: -len(rows[k].prompt_ids))
        for start in range(0, len(order), self.batch_size):
            self._decode([rows[k] for k in order[start:start + self.batch_size]])

        texts: list[list[str]] = [[""] * r.n for r in requests]
        reasons: list[list[str]] = [["length"] * r.n for r in requests]
        for row in rows:
            slots = range(requests[row.request_index].n) if row.sample_slot < 0 else [row.sample_slot]
            for slot in slots:
                texts[row.request_index][slot] = row.text
                reasons[row.request_index][slot] = row.finish_reason or "length"
        return [GenerationResult(texts=tuple(t), finish_reasons=tuple(f)) for t, f in zip(texts, reasons)]

    def _decode(self, rows: list[_Row]) -> None:
        torch = self.torch
        budget = max(r.request.max_tokens for r in rows)
        for row in rows:
            if row.request.max_tokens <= 0:
                row.finish_reason = "length"
        if budget <= 0:
            return
        width = max(len(r.prompt_ids) for r in rows)
        input_ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for b, row in enumerate(rows):
            input_ids[b, width - len(row.prompt_ids):] = torch.tensor(row.prompt_ids)
            mask[b, width - len(row.prompt_ids):] = 1
        input_ids, mask = input_ids.to(self.device), mask.to(self.device)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        past = None
        last = {"logits_to_keep": 1} if self.keep_logits else {}
        with torch.inference_mode():
            for _ in range(budget):
                out = self.lm(input_ids=input_ids, attention_mask=mask, position_ids=positions,
                              past_key_values=past, use_cache=True, **last)
                past = out.past_key_values
                logits = out.logits[:, -1, :].float()
                next_ids = []
                for b, row in enumerate(rows):
                    if row.finish_reason is not None:
                        next_ids.append(self.pad_id)
                        continue
                    token = self._choose(logits[b], row)
                    next_ids.append(token)
                    self._append(row, token)
                if all(row.finish_reason is not None for row in rows):
                    break
                input_ids = torch.tensor(next_ids, device=self.device).unsqueeze(1)
                mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
                positions = positions[:, -1:] + 1

    def _choose(self, logits, row: _Row) -> int:
        torch = self.torch
        if row.generator is None:
            return int(torch.argmax(logits))
        probs = torch.softmax(logits / row.request.temperature, dim=-1)
        if row.request.top_p < 1.0:
            sorted_probs, sorted_ids = torch.sort(probs, descending=True)
            # Keep the smallest prefix whose mass reaches top_p (the first token always stays).
            keep = (sorted_probs.cumsum(-1) - sorted_probs) < row.request.top_p
            filtered = torch.zeros_like(probs)
            filtered[sorted_ids[keep]] = sorted_probs[keep]
            probs = filtered / filtered.sum()
        return int(torch.multinomial(probs, 1, generator=row.generator))

    def _append(self, row: _Row, token: int) -> None:
        if token == self.eos_id:
            row.finish_reason = "stop"
            return
        row.new_ids.append(token)
        row.text = self.tokenizer.decode(row.new_ids, skip_special_tokens=True)
        if row.request.stop:
            cuts = [row.text.find(s) for s in row.request.stop if s and s in row.text]
            if cuts:
                row.text = row.text[:min(cuts)]
                row.finish_reason = "stop"
                return
        if len(row.new_ids) >= row.request.max_tokens:
            row.finish_reason = "length"

    # -- log-likelihood -----------------------------------------------------------------------

    def encode_pair(self, context: str, continuation: str) -> tuple[list[int], list[int]]:
        return encode_pair(self.tokenizer, context, continuation, self.prefix_id)

    def loglikelihood(self, requests: list[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        torch = self.torch
        pairs = [self.encode_pair(r.context, r.continuation) for r in requests]
        # The model reads (context + continuation)[:-1]. Requests with the same input (a question's
        # options when each is one token after the same context, as lm-evaluation-harness groups
        # them) share one row: the context is read once, not once per option.
        inputs = [tuple((ctx + cont)[:-1]) or (self.prefix_id,) for ctx, cont in pairs]
        rows = list(dict.fromkeys(inputs))
        members: dict[tuple, list[int]] = {}
        for k, seq in enumerate(inputs):
            members.setdefault(seq, []).append(k)
        results: list[LoglikelihoodResult | None] = [None] * len(requests)
        rows.sort(key=len, reverse=True)
        for start in range(0, len(rows), self.batch_size):
            batch = rows[start:start + self.batch_size]
            width = max(len(s) for s in batch)
            # Right padding: a causal model's earlier positions never see the pads.
            input_ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for b, seq in enumerate(batch):
                input_ids[b, :len(seq)] = torch.tensor(seq)
                mask[b, :len(seq)] = 1
            # the positions whose next-token distribution a continuation is scored by
            spans = {k: (len(pairs[k][0]) - 1, len(pairs[k][1])) for seq in batch for k in members[seq]}
            keep = sorted({p for first, n in spans.values() for p in range(first, first + n)})
            extra = {}
            if self.keep_logits and keep:
                extra["logits_to_keep"] = torch.tensor(keep, device=self.device)
            with torch.inference_mode():
                logits = self.lm(input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device),
                                 **extra).logits
                logprobs = torch.log_softmax(logits.float(), dim=-1)
            column = {p: i for i, p in enumerate(keep)} if extra else None
            for b, seq in enumerate(batch):
                for k in members[seq]:
                    cont = pairs[k][1]
                    if not cont:
                        results[k] = LoglikelihoodResult(total=0.0, token_logprobs=(), is_greedy=True)
                        continue
                    first = spans[k][0]
                    if column is None:
                        span = logprobs[b, first:first + len(cont)]
                    else:
                        span = logprobs[b, [column[p] for p in range(first, first + len(cont))]]
                    target = torch.tensor(cont, device=span.device)
                    token_lp = span.gather(-1, target.unsqueeze(-1)).squeeze(-1)
                    greedy = bool((span.argmax(-1) == target).all())
                    values = tuple(float(v) for v in token_lp.cpu())
                    results[k] = LoglikelihoodResult(total=float(sum(values)), token_logprobs=values, is_greedy=greedy)
        return [r for r in results if r is not None]

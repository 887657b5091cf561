"""Prompt rendering and tokenisation shared by the local backends (hf, vllm)."""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)
_warned_models: set[str] = set()   # warn once per model, not once per prompt


def render_plain_chat(messages: tuple[tuple[str, str], ...]) -> str:
    """The fallback chat rendering for tokenizers without a template."""
    return "".join(f"{role}: {content}\n" for role, content in messages) + "assistant:"


def format_chat(tokenizer: Any, messages: tuple[tuple[str, str], ...], *, model: str = "") -> str:
    """The prompt text for chat ``messages``: the tokenizer's chat template when it has one,
    else ``role: content`` lines (with a warning, since the model was not trained on them)."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template([{"role": r, "content": c} for r, c in messages],
                                             tokenize=False, add_generation_prompt=True)
    if model not in _warned_models:
        _warned_models.add(model)
        log.warning("tokenizer of %s has no chat template: rendering messages as 'role: content' lines",
                    model)
    return render_plain_chat(messages)


def encode_pair(tokenizer: Any, context: str, continuation: str, prefix_id: int) -> tuple[list[int], list[int]]:
    """Token ids of context and continuation, split as lm-evaluation-harness does.

    Trailing spaces of the context move to the continuation, the pair is encoded whole and the
    continuation is what follows the context's own tokens; an empty context becomes
    ``prefix_id`` (bos, else eos) so the first continuation token has a log-probability.
    """
    stripped = context.rstrip(" ")
    continuation = context[len(stripped):] + continuation
    context = stripped
    if not context:
        return [prefix_id], tokenizer(continuation, add_special_tokens=False).input_ids
    whole = tokenizer(context + continuation).input_ids
    ctx = tokenizer(context).input_ids
    return whole[:len(ctx)], whole[len(ctx):]

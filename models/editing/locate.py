"""Requests to token positions: the subject's last token, the target's tokens, and the random
prefixes that keys and values are averaged over.

Token positions come from the fast tokenizer's character offsets: the subject's last token is
the last token overlapping the subject's characters in the rendered text, so a subject that
merges with a neighbour still has a well-defined position, and one with no token at all (an
empty subject, a text cut by the model's length) is reported, never guessed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from .types import EditRequest, SkippedRequest

log = logging.getLogger(__name__)

SLOT = "{}"
KL_TEMPLATE = "{} is a"       # ROME's "essence" prompt
PREFIX_STARTS = ("The", "Therefore", "Because", "I", "You")


@dataclass(frozen=True)
class Prepared:
    """A request that can be edited: its template (``{}`` once) and the target's token ids."""

    request: EditRequest
    template: str
    target_ids: tuple[int, ...]


@dataclass(frozen=True)
class Encoded:
    ids: tuple[int, ...]
    lookup: int                      # index of the subject's last token
    predict: tuple[int, ...] = ()    # positions whose next-token prediction is a target token


def _template(request: EditRequest) -> tuple[str | None, str | None]:
    count = request.prompt.count(SLOT)
    if count == 1:
        return request.prompt, None
    if count > 1:
        return None, f"prompt holds '{{}}' {count} times (exactly once is needed)"
    if request.subject and request.subject in request.prompt:
        # EasyEdit also accepts the subject written out: its first occurrence is the slot
        return request.prompt.replace(request.subject, SLOT, 1), None
    return None, "subject not in prompt"


def _encode_plain(tokenizer, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def target_ids(tokenizer, rendered: str, target: str) -> tuple[int, ...]:
    """The tokens the model must produce after ``rendered`` to say `` target``: cut from the
    joint tokenisation when the prompt's tokens are its prefix (sentencepiece tokenizers spell a
    leading space differently alone), else the target tokenised on its own."""
    prompt = _encode_plain(tokenizer, rendered)
    joint = _encode_plain(tokenizer, f"{rendered} {target}")
    if joint[:len(prompt)] == prompt and len(joint) > len(prompt):
        return tuple(joint[len(prompt):])
    return tuple(_encode_plain(tokenizer, f" {target}"))


def subject_last_token(tokenizer, text: str, start: int, end: int, *, max_length: int | None = None) -> int | None:
    """Index (with special tokens) of the last token overlapping characters ``start:end``."""
    if end <= start or not text[start:end].strip():
        return None
    enc = tokenizer(text, add_special_tokens=True, return_offsets_mapping=True)
    found = None
    for i, (a, b) in enumerate(enc["offset_mapping"]):
        if b > a and a < end and b > start:
            found = i
    if found is not None and max_length is not None and found >= max_length:
        return None
    return found


def encode(tokenizer, prefix: str, template: str, subject: str, target: tuple[int, ...] = (), *,
           site: str = "subject_last") -> Encoded | None:
    """``prefix + template(subject)`` (+ the target's tokens but the last, for teacher forcing).
    ``site``: where the fact is looked up, the subject's last token or (EasyEdit's ``last``) the
    prompt's last token; None when the subject has no token."""
    text = prefix + template.replace(SLOT, subject, 1)
    start = len(prefix) + template.index(SLOT)
    lookup = subject_last_token(tokenizer, text, start, start + len(subject))
    if lookup is None:
        return None
    ids = list(tokenizer(text, add_special_tokens=True)["input_ids"])
    if site == "last":
        lookup = len(ids) - 1
    predict: tuple[int, ...] = ()
    if target:
        predict = tuple(range(len(ids) - 1, len(ids) - 1 + len(target)))
        ids += list(target[:-1])
    return Encoded(tuple(ids), lookup, predict)


def prepare(tokenizer, request: EditRequest, site: str = "subject_last") -> Prepared | SkippedRequest:
    """Validate and tokenise one request, or say why it is skipped."""
    template, reason = _template(request)
    if template is None:
        return SkippedRequest(request, reason or "bad prompt")
    if not request.target.strip():
        return SkippedRequest(request, "empty target")
    rendered = template.replace(SLOT, request.subject, 1)
    ids = target_ids(tokenizer, rendered, request.target.strip())
    if not ids:
        return SkippedRequest(request, "target tokens not found")
    for probe in (template, KL_TEMPLATE):
        if encode(tokenizer, "", probe, request.subject, site=site) is None:
            return SkippedRequest(request, "subject tokens not found")
    return Prepared(request, template, ids)


def generate_prefixes(model, tokenizer, spec: tuple[tuple[int, int], ...], seed: int) -> list[str]:
    """The bare prompt ("") and short texts the model writes itself, each ended by ". ", as in
    the ROME paper: top-5 sampling from five opening words, ``count`` texts of ``length`` new
    tokens per (length, count). Seeded by ``seed`` alone (torch's global RNG is untouched)."""
    import torch

    device = next(model.parameters()).device
    generator = torch.Generator(device="cpu").manual_seed(seed)
    prefixes = [""]
    for length, count in spec:
        per_start = [count // len(PREFIX_STARTS) + (1 if i < count % len(PREFIX_STARTS) else 0)
                     for i in range(len(PREFIX_STARTS))]
        for start, n in zip(PREFIX_STARTS, per_start):
            if n == 0:
                continue
            ids = torch.tensor([tokenizer(start, add_special_tokens=True)["input_ids"]] * n, device=device)
            # no KV cache: the texts are a few tokens long, and the cache API differs between
            # transformers versions
            with torch.no_grad():
                for _ in range(length):
                    logits = model(input_ids=ids).logits[:, -1, :].float().cpu()
                    top = torch.topk(logits, k=min(5, logits.shape[-1]), dim=-1)
                    choice = torch.multinomial(torch.softmax(top.values, dim=-1), 1, generator=generator)
                    ids = torch.cat([ids, top.indices.gather(1, choice).to(device)], dim=1)
            for row in ids.tolist():
                text = tokenizer.decode(row, skip_special_tokens=True)
                text = " ".join(text.replace("{", " ").replace("}", " ").split())
                prefixes.append(f"{text}. ")
    log.debug("editing prefixes: %s", prefixes)
    return prefixes

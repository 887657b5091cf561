"""A small causal-LM training loop on CPU (or GPU): tokenised examples in, fewer losses out.

Used to train the control model from scratch (``models/control.py``) and to fine-tune a copy
of a model on an event's edit statements (ELKEN's fine-tuning baseline, ``eval/editing.py``).
Only the characters inside an example's ``spans`` carry the loss, so a question's tokens
cost compute but no capacity. Examples are not packed: every one starts at position 0 after
the tokenizer's BOS, exactly like an evaluation prompt, and batches group examples of similar
length so that padding stays small. All randomness (batch order) comes from
``random.Random(f"{seed}:lm-training")``; torch's global RNG is not used.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

log = logging.getLogger(__name__)

IGNORE = -100


@dataclass(frozen=True)
class Tokenised:
    ids: tuple[int, ...]
    labels: tuple[int, ...]


@dataclass(frozen=True)
class TrainConfig:
    epochs: float = 10.0           # may be fractional: the last epoch is cut short
    lr: float = 3e-3
    min_lr_ratio: float = 0.1      # linear decay to lr * min_lr_ratio
    warmup_steps: int = 30
    batch_tokens: int = 4096       # tokens per batch (padding included)
    max_batch: int = 64            # examples per batch at most
    weight_decay: float = 0.0
    clip: float = 1.0
    seed: int = 0
    max_length: int = 512
    bf16: bool = False             # bf16 autocast for the forward pass (weights and optimizer stay fp32):
    #                                about 0.73x the CPU time per step on an avx512_bf16 CPU


@dataclass(frozen=True)
class TrainResult:
    steps: int
    epochs: float
    tokens: int                    # tokens seen (padding excluded)
    seconds: float
    first_loss: float | None
    final_loss: float | None       # mean loss over the last epoch's batches
    losses: tuple[float, ...]      # mean loss per epoch


def tokenise(tokenizer, text: str, spans: Sequence[tuple[int, int]], max_length: int = 512) -> Tokenised:
    """Token ids of ``text`` (with the tokenizer's BOS) and labels that keep only the tokens
    overlapping a span; the rest is ``IGNORE``."""
    enc = tokenizer(text, return_offsets_mapping=True, add_special_tokens=True)
    ids = list(enc["input_ids"])[:max_length]
    labels = []
    for token, (start, end) in zip(ids, enc["offset_mapping"]):
        trained = end > start and any(start < b and end > a for a, b in spans)
        labels.append(token if trained else IGNORE)
    return Tokenised(tuple(ids), tuple(labels))


def _batches(examples: Sequence[Tokenised], config: TrainConfig, rng: random.Random) -> list[list[int]]:
    """Index batches of similar-length examples, in a seeded random order."""
    order = list(range(len(examples)))
    rng.shuffle(order)
    batches: list[list[int]] = []
    window = 64 * config.max_batch
    for start in range(0, len(order), window):
        chunk = sorted(order[start:start + window], key=lambda i: len(examples[i].ids))
        batch: list[int] = []
        width = 0
        for i in chunk:
            n = len(examples[i].ids)
            if batch and (max(width, n) * (len(batch) + 1) > config.batch_tokens or len(batch) >= config.max_batch):
                batches.append(batch)
                batch, width = [], 0
            batch.append(i)
            width = max(width, n)
        if batch:
            batches.append(batch)
    rng.shuffle(batches)
    return batches


def _answer_loss(model, ids, mask, labels):
    """Mean next-token cross-entropy over the labelled positions only. The output projection
    runs on those positions alone (about a quarter of the tokens), which is most of the saving
    for a small model with a large vocabulary; models without a separate decoder fall back to
    the usual full-logits loss."""
    import torch

    decoder = getattr(model, "base_model", None)
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if decoder is None or decoder is model or head is None:
        return model(input_ids=ids, attention_mask=mask, labels=labels).loss
    hidden = decoder(input_ids=ids, attention_mask=mask).last_hidden_state
    targets = labels[:, 1:]
    keep = targets != IGNORE
    logits = head(hidden[:, :-1][keep])
    return torch.nn.functional.cross_entropy(logits.float(), targets[keep])


Examples = Sequence[Tokenised] | Callable[[int], Sequence[Tokenised]]
"""The training examples: one list for every epoch, or a function of the epoch (0, 1, ...)
that gives each epoch its own (e.g. few-shot groupings drawn anew)."""


def _epochs(examples: Examples, config: TrainConfig):
    """(epoch examples, its batches) per epoch; the last one cut short for fractional epochs."""
    rng = random.Random(f"{config.seed}:lm-training")
    whole = math.floor(config.epochs)
    count = whole + (1 if config.epochs > whole else 0)
    for epoch in range(count):
        data = examples(epoch) if callable(examples) else examples
        if not data:
            raise ValueError("nothing to train on")
        batches = _batches(data, config, rng)
        if epoch == whole:
            batches = batches[:max(1, round(len(batches) * (config.epochs - whole)))]
        yield data, batches


def plan_steps(examples: Examples, config: TrainConfig) -> int:
    """How many optimizer steps ``train_lm`` will take (with per-epoch examples: an estimate
    from the first epoch's)."""
    if callable(examples):
        first = examples(0)
        return round(len(_batches(first, config, random.Random(0))) * config.epochs)
    return sum(len(b) for _, b in _epochs(examples, config))


def train_lm(model, examples: Examples, config: TrainConfig, *, pad_id: int,
             progress: Callable[[int, float], None] | None = None) -> TrainResult:
    """Train ``model`` in place on ``examples``; ``progress(steps_done, loss)`` after each step."""
    import torch

    device = next(model.parameters()).device
    total = plan_steps(examples, config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, betas=(0.9, 0.98),
                                  weight_decay=config.weight_decay)

    def lr_at(step: int) -> float:
        if step < config.warmup_steps:
            return config.lr * (step + 1) / config.warmup_steps
        frac = min(1.0, (step - config.warmup_steps) / max(1, total - config.warmup_steps))
        return config.lr * (1.0 - (1.0 - config.min_lr_ratio) * frac)

    model.train()
    t0 = time.perf_counter()
    tokens = 0
    step = 0
    epoch_losses: list[float] = []
    first = None
    for data, batches in _epochs(examples, config):
        losses: list[float] = []
        for batch in batches:
            rows = [data[i] for i in batch]
            width = max(len(r.ids) for r in rows)
            ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
            labels = torch.full((len(rows), width), IGNORE, dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for b, r in enumerate(rows):
                ids[b, :len(r.ids)] = torch.tensor(r.ids)
                labels[b, :len(r.ids)] = torch.tensor(r.labels)
                mask[b, :len(r.ids)] = 1
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=config.bf16):
                loss = _answer_loss(model, ids.to(device), mask.to(device), labels.to(device))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if config.clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip)
            optimizer.step()
            value = float(loss.detach())
            first = value if first is None else first
            losses.append(value)
            tokens += int(mask.sum())
            step += 1
            if progress:
                progress(step, value)
        epoch_losses.append(sum(losses) / len(losses))
    model.eval()
    seconds = time.perf_counter() - t0
    final = epoch_losses[-1] if epoch_losses else None
    log.info("trained %d steps (%.2f epochs, %d tokens) in %.1fs, loss %.3f -> %s", step, config.epochs,
             tokens, seconds, first or float("nan"), final)
    return TrainResult(steps=step, epochs=config.epochs, tokens=tokens, seconds=seconds,
                       first_loss=first, final_loss=final, losses=tuple(epoch_losses))

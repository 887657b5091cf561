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


def _plan(examples: Sequence[Tokenised], config: TrainConfig) -> tuple[list[list[int]], int]:
    """Every batch of the run in order, and the number of batches in one epoch."""
    rng = random.Random(f"{config.seed}:lm-training")
    plan: list[list[int]] = []
    whole = math.floor(config.epochs)
    per_epoch = 1
    for _ in range(whole):
        epoch = _batches(examples, config, rng)
        per_epoch = len(epoch)
        plan += epoch
    if config.epochs > whole:
        extra = _batches(examples, config, rng)
        per_epoch = len(extra)
        plan += extra[:max(1, round(len(extra) * (config.epochs - whole)))]
    return plan, max(1, per_epoch)


def plan_steps(examples: Sequence[Tokenised], config: TrainConfig) -> int:
    """How many optimizer steps ``train_lm`` will take."""
    return len(_plan(examples, config)[0])


def train_lm(model, examples: Sequence[Tokenised], config: TrainConfig, *, pad_id: int,
             progress: Callable[[int, float], None] | None = None) -> TrainResult:
    """Train ``model`` in place on ``examples``; ``progress(steps_done, loss)`` after each step."""
    import torch

    if not examples:
        raise ValueError("nothing to train on")
    device = next(model.parameters()).device
    plan, per_epoch = _plan(examples, config)
    total = len(plan)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, betas=(0.9, 0.98),
                                  weight_decay=config.weight_decay)

    def lr_at(step: int) -> float:
        if step < config.warmup_steps:
            return config.lr * (step + 1) / config.warmup_steps
        frac = (step - config.warmup_steps) / max(1, total - config.warmup_steps)
        return config.lr * (1.0 - (1.0 - config.min_lr_ratio) * frac)

    model.train()
    t0 = time.perf_counter()
    tokens = 0
    losses: list[float] = []
    epoch_losses: list[float] = []
    first = None
    for step, batch in enumerate(plan):
        rows = [examples[i] for i in batch]
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
        out = model(input_ids=ids.to(device), attention_mask=mask.to(device), labels=labels.to(device))
        loss = out.loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if config.clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip)
        optimizer.step()
        value = float(loss.detach())
        first = value if first is None else first
        losses.append(value)
        tokens += int(mask.sum())
        if (step + 1) % per_epoch == 0 or step + 1 == total:
            recent = losses[-per_epoch:]
            epoch_losses.append(sum(recent) / len(recent))
        if progress:
            progress(step + 1, value)
    model.eval()
    seconds = time.perf_counter() - t0
    final = epoch_losses[-1] if epoch_losses else None
    log.info("trained %d steps (%.2f epochs, %d tokens) in %.1fs, loss %.3f -> %s", total,
             total / per_epoch, tokens, seconds, first or float("nan"), final)
    return TrainResult(steps=total, epochs=round(total / per_epoch, 3), tokens=tokens, seconds=seconds,
                       first_loss=first, final_loss=final, losses=tuple(epoch_losses))

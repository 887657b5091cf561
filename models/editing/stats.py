"""The second moment C = E[k kᵀ] of an MLP's keys over a text corpus, cached on disk.

ROME whitens its key with C⁻¹ and MEMIT weighs its update against λC, so that an edit disturbs
the keys the model usually sees as little as possible. C is read once per (model revision,
layer, corpus, sample count) and then comes from the cache: ``<cache_dir>/editing-stats/*.pt``
(platformdirs' user cache for knowforge unless told otherwise). The file records its key and
is checked on read, so a renamed or foreign file is recomputed, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

from knowforge.errors import ConfigError, InputError

from .architectures import MlpLayout

log = logging.getLogger(__name__)

STATS_VERSION = "1"
Corpus = Iterable[str] | Path | str


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("knowforge")) / "editing-stats"


def read_corpus(corpus: Corpus, n_samples: int) -> list[str]:
    """At most ``n_samples`` non-empty texts: from an iterable of strings, or a file (``.jsonl``:
    the ``text`` field of each line; anything else: one text per line)."""
    if isinstance(corpus, (str, Path)):
        path = Path(corpus).expanduser()
        if not path.is_file():
            raise ConfigError(f"stats corpus {path} is not a file")
        texts: list[str] = []
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if len(texts) >= n_samples:
                    break
                if not line.strip():
                    continue
                if path.suffix == ".jsonl":
                    try:
                        text = json.loads(line)["text"]
                    except (json.JSONDecodeError, KeyError, TypeError) as exc:
                        raise InputError(f"a stats corpus line needs a \"text\" field ({exc})",
                                         path=str(path), line=number) from exc
                else:
                    text = line.rstrip("\n")
                if isinstance(text, str) and text.strip():
                    texts.append(text)
        return texts
    texts = []
    for text in corpus:
        if len(texts) >= n_samples:
            break
        if not isinstance(text, str):
            raise ConfigError(f"a stats corpus holds strings, not {type(text).__name__}")
        if text.strip():
            texts.append(text)
    return texts


def corpus_digest(texts: Sequence[str]) -> str:
    digest = hashlib.sha256()
    for text in texts:
        digest.update(hashlib.sha256(text.encode("utf-8")).digest())
    return digest.hexdigest()


def stats_key(*, model_revision: str, model_type: str, weight_name: str, layer: int, n_samples: int,
              max_tokens: int, corpus: str) -> str:
    payload = {"version": STATS_VERSION, "model_revision": model_revision, "model_type": model_type,
               "weight": weight_name, "layer": layer, "n_samples": n_samples, "max_tokens": max_tokens,
               "corpus": corpus}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


class _Stop(Exception):
    """Raised by the last hook: the layers after it are not needed for the statistics."""


def _accumulate(model, tokenizer, layout: MlpLayout, layers: Sequence[int], texts: Sequence[str],
                max_tokens: int, batch_size: int = 16):
    import torch

    device = next(model.parameters()).device
    sums = {layer: torch.zeros(layout.key_size(layer), layout.key_size(layer), dtype=torch.float64,
                               device=device) for layer in layers}
    count = 0
    mask_holder: dict[str, torch.Tensor] = {}
    last = max(layers)

    def hook_for(layer: int):
        def hook(_module, args):
            keys = args[0].detach()
            keys = keys[mask_holder["mask"]].to(torch.float64)
            sums[layer].add_(keys.T @ keys)
            if layer == last:
                raise _Stop
        return hook

    handles = [layout.down(layer).register_forward_pre_hook(hook_for(layer)) for layer in layers]
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    try:
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths: little padding
        for start in range(0, len(order), batch_size):
            rows = [list(tokenizer(texts[i], add_special_tokens=True)["input_ids"])[:max_tokens]
                    for i in order[start:start + batch_size]]
            width = max(len(r) for r in rows)
            ids = torch.full((len(rows), width), pad, dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for b, row in enumerate(rows):
                ids[b, :len(row)] = torch.tensor(row)
                mask[b, :len(row)] = 1
            mask_holder["mask"] = mask.bool().to(device)
            try:
                with torch.no_grad():
                    model(input_ids=ids.to(device), attention_mask=mask.to(device))
            except _Stop:
                pass
            count += int(mask.sum())
    finally:
        for handle in handles:
            handle.remove()
    return {layer: (total / max(count, 1)).float().cpu() for layer, total in sums.items()}, count


def covariance_stats(model, tokenizer, layers: Sequence[int], corpus: Corpus, *, n_samples: int = 100000,
                     max_tokens: int = 256, cache_dir: Path | None = None, model_revision: str = "") -> dict:
    """C = E[k kᵀ] (float32, on the CPU) of the keys of each layer's MLP output projection,
    over the first ``n_samples`` texts of ``corpus`` (each cut at ``max_tokens`` tokens).

    Cached under ``cache_dir`` by model revision, layer, corpus and sample count; with an empty
    ``model_revision`` the model's weights digest stands in for it (hashing a 7B model takes a
    while: pass the revision you know).
    """
    import torch

    layout = MlpLayout(model)
    for layer in layers:
        layout.check_layer(layer)
    texts = read_corpus(corpus, n_samples)
    if not texts:
        raise ConfigError("the stats corpus holds no text: covariance statistics need some")
    revision = model_revision or _weights_fingerprint(model)
    folder = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    digest = corpus_digest(texts)
    keys = {layer: stats_key(model_revision=revision, model_type=layout.model_type,
                             weight_name=layout.weight_name(layer), layer=layer, n_samples=n_samples,
                             max_tokens=max_tokens, corpus=digest) for layer in layers}
    found: dict[int, torch.Tensor] = {}
    for layer, key in keys.items():
        path = folder / f"{key[:24]}.pt"
        if path.is_file():
            try:
                stored = torch.load(path, map_location="cpu", weights_only=True)
            except Exception as exc:  # noqa: BLE001 - an unreadable cache file is recomputed
                log.warning("ignoring unreadable stats cache %s (%s)", path, exc)
                continue
            if stored.get("key") == key:
                found[layer] = stored["mom2"]
    missing = [layer for layer in layers if layer not in found]
    if missing:
        log.info("covariance statistics for layers %s over %d texts", missing, len(texts))
        computed, count = _accumulate(model, tokenizer, layout, missing, texts, max_tokens)
        folder.mkdir(parents=True, exist_ok=True)
        for layer, mom2 in computed.items():
            path = folder / f"{keys[layer][:24]}.pt"
            tmp = path.with_suffix(".tmp")
            torch.save({"key": keys[layer], "mom2": mom2, "tokens": count, "texts": len(texts),
                        "layer": layer, "model_revision": revision}, tmp)
            tmp.replace(path)
            found[layer] = mom2
    return {layer: found[layer] for layer in layers}


def _weights_fingerprint(model) -> str:
    from .editor import weights_digest

    return "sha256:" + weights_digest(model)

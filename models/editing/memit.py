"""MEMIT (Meng et al. 2022b): many facts at once, spread over a range of layers.

Each request gets a target hidden state z at the range's last layer (the output of that
decoder block at the subject's last token). Walking the range from its first layer, each layer
l takes an equal share of what is still missing:

    R = (z − h(current weights)) / (layers left),   ΔW_l = R Kᵀ (λC + K Kᵀ)⁻¹

with K the layer's keys of all requests (averaged over prefixes), C their second moment over a
corpus, and λ ``mom2_update_weight``. Every update is applied before the next layer's keys and
residual are read, as in the paper.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .compute import capture_at_subject, encode_rows, keys_at, optimise_values
from .hparams import EditHparams
from .locate import Prepared
from .types import EditError


def memit_updates(model, tokenizer, layout, hp: EditHparams, items: Sequence[Prepared], prefixes: Sequence[str],
                  covariance: Callable, apply: Callable) -> None:
    """Compute and ``apply(layer, update)`` MEMIT's (out, in) update of every layer in turn."""
    import torch

    z_layer = hp.layers[-1]
    block = layout.block(z_layer)
    targets = []
    for start in range(0, len(items), hp.batch_requests):
        chunk = items[start:start + hp.batch_requests]
        values = optimise_values(model, tokenizer, block, hp, chunk, prefixes)
        targets.append(values.init + values.delta)
    z = torch.cat(targets, dim=0).double()
    bare, _ = encode_rows(tokenizer, items, [""], with_target=False, site=hp.fact_token)
    for i, layer in enumerate(hp.layers):
        keys = keys_at(model, tokenizer, layout, layer, items, prefixes, hp.fact_token).double()          # (n, d_ff)
        current = capture_at_subject(model, tokenizer, bare, block, inputs=False).double()  # (n, d)
        residual = (z.to(current.device) - current) / (len(hp.layers) - i)
        cov = covariance(layer).to(keys.device, torch.float64)
        try:
            adjusted = torch.linalg.solve(hp.mom2_update_weight * cov + keys.T @ keys, keys.T)  # (d_ff, n)
        except RuntimeError as exc:   # torch.linalg.LinAlgError: a singular system
            raise EditError(f"MEMIT's update of layer {layer} has no solution ({exc}); "
                            f"raise mom2_update_weight or read more stats text") from exc
        apply(layer, residual.T @ adjusted.T)

"""ROME (Meng et al. 2022a): one fact as a rank-one update of one layer's MLP output projection.

With k* the key (the projection's input at the subject's last token, averaged over random
prefixes) and delta the optimised change of its output there, the update is

    W' = W + Λ uᵀ,   u = C⁻¹ k*  (or k* itself without the covariance adjustment),
    Λ = delta / (uᵀ k*)

so that W' k* = W k* + delta, while a key orthogonal to u under C is left untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .compute import keys_at, optimise_values
from .hparams import EditHparams
from .locate import Prepared


def rome_update(model, tokenizer, layout, hp: EditHparams, item: Prepared, prefixes: Sequence[str],
                whiten: Callable | None):
    """The (out, in) float64 update of layer ``hp.layers[0]`` for one request.
    ``whiten(layer, k)`` returns C⁻¹k; None leaves the key as it is."""
    layer = hp.layers[0]
    key = keys_at(model, tokenizer, layout, layer, [item], prefixes, hp.fact_token)[0].double()
    u = whiten(layer, key) if whiten is not None else key
    values = optimise_values(model, tokenizer, layout.mlp(layer), hp, [item], prefixes)
    delta = values.delta[0].double().to(key.device)
    denominator = u @ key
    return (delta / denominator)[:, None] @ u[None, :]

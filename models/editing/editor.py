"""``WeightEditor``: ROME or MEMIT applied in place to a transformers causal LM, and undone
exactly.

The editor keeps a copy of every weight it changes, taken before its first change since the
last ``restore()``; restoring copies those tensors back, so the weights are bitwise what they
were (``weights_digest`` proves it). An ``apply`` whose update is not finite is refused as a
whole: the weights go back to what they were before that call and ``EditError`` is raised.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from knowforge.errors import ConfigError

from .architectures import MlpLayout
from .hparams import METHODS, EditHparams, default_hparams
from .locate import Prepared, generate_prefixes, prepare
from .memit import memit_updates
from .rome import rome_update
from .stats import covariance_stats
from .types import EditError, EditRequest, EditResult, SkippedRequest

log = logging.getLogger(__name__)


def weights_digest(model) -> str:
    """sha256 over every parameter's name, dtype, shape and bytes (tied weights once)."""
    import torch

    digest = hashlib.sha256()
    for name, param in model.named_parameters():
        tensor = param.detach().cpu().contiguous().reshape(-1)
        digest.update(f"{name}|{tensor.dtype}|{tuple(param.shape)}\n".encode())
        digest.update(tensor.view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


class WeightEditor:
    """Edits a transformers causal LM's MLP output projections in place."""

    def __init__(self, model, tokenizer, method: Literal["rome", "memit"], *, hparams: EditHparams | None = None,
                 stats_corpus: Iterable[str] | Path | None = None, cache_dir: Path | None = None,
                 model_revision: str = ""):
        if method not in METHODS:
            raise ConfigError(f"unknown editing method {method!r}; use one of {', '.join(METHODS)}")
        self.layout = MlpLayout(model)
        self.model = model
        self.tokenizer = tokenizer
        self.method = method
        self.hparams = hparams if hparams is not None else default_hparams(method, model)
        self.hparams.check(method, self.layout.num_layers)
        self.needs_stats = method == "memit" or self.hparams.mom2_adjustment
        if self.needs_stats and stats_corpus is None:
            raise ConfigError(f"{method.upper()} with these hyperparameters needs covariance statistics: pass "
                              "stats_corpus (texts, or a .txt/.jsonl file), e.g. the model's training text")
        if isinstance(stats_corpus, (str, Path)):
            self.stats_corpus = stats_corpus
        elif stats_corpus is not None:
            self.stats_corpus = list(stats_corpus)   # an iterator is read once; C may be needed later
        else:
            self.stats_corpus = None
        self.cache_dir = cache_dir
        self.model_revision = model_revision
        self._originals: dict[int, object] = {}      # layer -> weight before the first change
        self._prefixes: list[str] | None = None
        self._cov: dict[int, object] = {}
        self._whiten: dict[int, object] = {}

    # -- what an edit needs, computed once per editor --------------------------------------
    def prefixes(self) -> list[str]:
        if self._prefixes is None:
            self._prefixes = generate_prefixes(self.model, self.tokenizer, self.hparams.context_templates,
                                               self.hparams.seed)
        return self._prefixes

    def covariance(self, layer: int):
        if layer not in self._cov:
            wanted = [x for x in self.hparams.layers if x not in self._cov] if layer in self.hparams.layers else [layer]
            found = covariance_stats(self.model, self.tokenizer, wanted, self.stats_corpus,
                                     n_samples=self.hparams.mom2_n_samples, max_tokens=self.hparams.stats_max_tokens,
                                     cache_dir=self.cache_dir, model_revision=self.model_revision)
            self._cov.update(found)
        return self._cov[layer]

    def _whitened(self, layer: int, key):
        """C⁻¹ k, with a ridge of ``mom2_ridge`` times C's mean diagonal, so that a corpus with
        fewer distinct keys than the MLP's width still gives a solvable system."""
        import torch

        cov = self.covariance(layer).to(key.device, torch.float64)
        ridge = self.hparams.mom2_ridge * cov.diagonal().mean().clamp(min=1e-12)
        return torch.linalg.solve(cov + ridge * torch.eye(cov.shape[0], dtype=cov.dtype, device=cov.device), key)

    # -- editing ------------------------------------------------------------------------------
    def _add(self, layer: int, update) -> None:
        """W += update (given as (out, in)) in the stored orientation; refuses non-finite ones."""
        import torch

        if not torch.isfinite(update).all():
            raise EditError(f"the update of layer {layer} ({self.layout.weight_name(layer)}) is not finite")
        weight = self.layout.weight(layer)
        with torch.no_grad():
            weight.add_(self.layout.as_out_in(update).to(weight.device, weight.dtype))
        if not torch.isfinite(weight).all():
            raise EditError(f"the edited weight {self.layout.weight_name(layer)} is not finite")

    def apply(self, requests: Sequence[EditRequest]) -> EditResult:
        """ROME: requests one after another; MEMIT: the batch at once. Weights change in place.
        An update with non-finite values is refused: weights are restored, EditError raised."""
        import torch

        result = EditResult()
        ready: list[Prepared] = []
        for request in requests:
            outcome = prepare(self.tokenizer, request, self.hparams.fact_token)
            if isinstance(outcome, SkippedRequest):
                log.warning("edit skipped: %s", outcome.describe())
                result.skipped.append(outcome)
            else:
                ready.append(outcome)
        if not ready:
            return result
        training = self.model.training
        self.model.eval()
        prefixes = self.prefixes()
        if self.needs_stats:
            for layer in self.hparams.layers:
                self.covariance(layer)   # before any weight of this call changes: C is the base model's
        before = {layer: self.layout.weight(layer).detach().clone() for layer in self.hparams.layers}
        for layer, weight in before.items():
            self._originals.setdefault(layer, weight)
        try:
            if self.method == "rome":
                whiten = self._whitened if self.hparams.mom2_adjustment else None
                for item in ready:
                    update = rome_update(self.model, self.tokenizer, self.layout, self.hparams, item, prefixes, whiten)
                    self._add(self.hparams.layers[0], update)
            else:
                memit_updates(self.model, self.tokenizer, self.layout, self.hparams, ready, prefixes,
                              self.covariance, self._add)
        except Exception as exc:
            with torch.no_grad():
                for layer, weight in before.items():
                    self.layout.weight(layer).copy_(weight)
            if isinstance(exc, EditError):
                raise EditError(f"{self.method.upper()} edit refused, weights restored: {exc}") from exc
            raise
        finally:
            self.model.train(training)
        result.applied.extend(item.request for item in ready)
        return result

    def restore(self) -> None:
        """Exactly the weights from before the first apply() since the last restore (bitwise)."""
        import torch

        with torch.no_grad():
            for layer, weight in self._originals.items():
                self.layout.weight(layer).copy_(weight)
        self._originals = {}

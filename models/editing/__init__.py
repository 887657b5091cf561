"""Model editing that changes weights: ROME and MEMIT for transformers causal LMs.

``WeightEditor(model, tokenizer, "rome" | "memit").apply(requests)`` edits the MLP output
projections in place; ``restore()`` puts back bitwise the weights from before. See
docs/editing.md for the method, the defaults and how the control model's layers were chosen.
"""

from .architectures import ARCHITECTURES, SUPPORTED_ARCHITECTURES, MlpLayout, UnsupportedArchitecture
from .editor import WeightEditor, weights_digest
from .hparams import EditHparams, default_hparams
from .stats import covariance_stats
from .tracing import TraceResult, causal_trace, choose_layers
from .types import EditError, EditRequest, EditResult, SkippedRequest

__all__ = ["ARCHITECTURES", "SUPPORTED_ARCHITECTURES", "EditError", "EditHparams", "EditRequest", "EditResult",
           "MlpLayout", "SkippedRequest", "TraceResult", "UnsupportedArchitecture", "WeightEditor",
           "causal_trace", "choose_layers", "covariance_stats", "default_hparams", "weights_digest"]

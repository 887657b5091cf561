"""Where the MLP output projection of each supported transformers architecture lives.

ROME and MEMIT treat the MLP's output projection ``W_out`` of a layer as a key-value memory:
the key is its input (the MLP's inner activation), the value its output. This table names that
module for every architecture we know, and how its weight is laid out: ``nn.Linear`` stores
``(out, in)``, GPT-2's ``Conv1D`` stores ``(in, out)``, so every update is written through
``MlpLayout.add_update`` and never by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from knowforge.errors import ConfigError


class UnsupportedArchitecture(ConfigError):
    """The model's architecture has no known MLP layout (the message lists the supported ones)."""


@dataclass(frozen=True)
class ArchitectureSpec:
    layers: str          # dotted path from the model to the list of decoder blocks
    mlp: str             # the MLP inside one block
    down: str            # its output projection inside the MLP
    transposed: bool     # weight stored (in, out) (GPT-2's Conv1D) instead of nn.Linear's (out, in)


_LLAMA_LIKE = ArchitectureSpec(layers="model.layers", mlp="mlp", down="down_proj", transposed=False)

ARCHITECTURES: dict[str, ArchitectureSpec] = {
    "llama": _LLAMA_LIKE,
    "mistral": _LLAMA_LIKE,
    "qwen2": _LLAMA_LIKE,
    "qwen3": _LLAMA_LIKE,
    "gpt2": ArchitectureSpec(layers="transformer.h", mlp="mlp", down="c_proj", transposed=True),
    "gptj": ArchitectureSpec(layers="transformer.h", mlp="mlp", down="fc_out", transposed=False),
}
SUPPORTED_ARCHITECTURES: tuple[str, ...] = tuple(sorted(ARCHITECTURES))


def _resolve(root, dotted: str):
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


class MlpLayout:
    """The decoder blocks, MLPs and output projections of one model."""

    def __init__(self, model):
        model_type = getattr(getattr(model, "config", None), "model_type", None)
        spec = ARCHITECTURES.get(model_type or "")
        if spec is None:
            raise UnsupportedArchitecture(
                f"weight editing (ROME/MEMIT) does not know the MLP layout of architecture "
                f"{model_type!r} ({type(model).__name__}); supported: {', '.join(SUPPORTED_ARCHITECTURES)}")
        self.model = model
        self.model_type = model_type
        self.spec = spec
        self.blocks = _resolve(model, spec.layers)
        self.num_layers = len(self.blocks)

    def check_layer(self, layer: int) -> None:
        if not 0 <= layer < self.num_layers:
            raise ConfigError(f"layer {layer} does not exist: the model has layers 0..{self.num_layers - 1}")

    def block(self, layer: int):
        return self.blocks[layer]

    def mlp(self, layer: int):
        return getattr(self.blocks[layer], self.spec.mlp)

    def down(self, layer: int):
        return getattr(self.mlp(layer), self.spec.down)

    def weight_name(self, layer: int) -> str:
        return f"{self.spec.layers}.{layer}.{self.spec.mlp}.{self.spec.down}.weight"

    def weight(self, layer: int):
        return self.down(layer).weight

    def key_size(self, layer: int) -> int:
        """Width of the MLP's inner activation (the key)."""
        w = self.weight(layer)
        return w.shape[0] if self.spec.transposed else w.shape[1]

    def as_out_in(self, delta):
        """An update given as (out, in), in the orientation the stored weight uses."""
        return delta.T if self.spec.transposed else delta

    def matmul(self, layer: int, keys):
        """``W_out @ keys`` for keys shaped (key_size, n), whatever the storage orientation."""
        w = self.weight(layer)
        return (w.T if self.spec.transposed else w) @ keys.to(w.dtype)

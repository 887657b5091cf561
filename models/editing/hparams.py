"""Hyperparameters of ROME and MEMIT, and their defaults per architecture and depth.

The defaults are EasyEdit's (``hparams/ROME/*.yaml``, ``hparams/MEMIT/*.yaml``) where a model
of that architecture and depth has a file there (GPT-2 XL, GPT-J 6B, Llama-2 7B, Mistral 7B,
Qwen2 7B). Other depths get the same layers *relative to depth*, and the small models this
project trains itself (at most 4 layers: the control model, the tests' tiny models) get the
site and layer that causal tracing picked on the tests' fact model and on the demo's control
model alike (docs/editing.md, ``scripts/trace_control.py``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from knowforge.errors import ConfigError

from .architectures import MlpLayout

Method = Literal["rome", "memit"]
METHODS: tuple[str, ...] = ("rome", "memit")


class EditHparams(BaseModel):
    """Everything that shapes an edit. ``layers``: ROME uses exactly one, MEMIT a range whose
    last layer holds the optimised hidden state."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    layers: tuple[int, ...]
    # where the fact is read and written: the subject's last token (the papers), or the
    # prompt's last token (EasyEdit's "last"), where small models keep their facts
    fact_token: Literal["subject_last", "last"] = "subject_last"
    # value optimisation (ROME's v*, MEMIT's z)
    v_num_grad_steps: int = Field(25, ge=1)
    v_lr: float = Field(0.5, gt=0)
    v_weight_decay: float = Field(1e-3, ge=0)
    clamp_norm_factor: float = Field(4.0, gt=0)   # |delta| <= factor * |initial value|
    kl_factor: float = Field(0.0625, ge=0)        # the "essence" term on "{subject} is a"
    early_stop_loss: float = Field(5e-2, ge=0)
    # keys: averaged over the bare prompt and model-generated prefixes of (tokens, count)
    context_templates: tuple[tuple[int, int], ...] = ((5, 10), (10, 10))
    # second moment of the keys, C = E[k k^T]
    mom2_adjustment: bool = True                  # ROME: u = C^-1 k (False: u = k, as EasyEdit's Llama files)
    mom2_ridge: float = Field(1e-6, ge=0)        # ROME: C + ridge * mean(diag C) * I before solving
    mom2_update_weight: float = Field(15000.0, ge=0)   # MEMIT's lambda
    mom2_n_samples: int = Field(100000, ge=1)     # texts of the corpus read for C
    stats_max_tokens: int = Field(256, ge=8)      # tokens per text read for C
    batch_requests: int = Field(32, ge=1)         # MEMIT: requests whose z are optimised together
    seed: int = 0

    @field_validator("layers")
    @classmethod
    def _layers(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if not value:
            raise ValueError("at least one layer")
        if list(value) != sorted(set(value)):
            raise ValueError(f"layers must be increasing and distinct, not {list(value)}")
        return value

    def check(self, method: str, num_layers: int) -> None:
        if method == "rome" and len(self.layers) != 1:
            raise ConfigError(f"ROME edits exactly one layer, not {list(self.layers)}")
        bad = [layer for layer in self.layers if not 0 <= layer < num_layers]
        if bad:
            raise ConfigError(f"layers {bad} do not exist: the model has layers 0..{num_layers - 1}")


# EasyEdit's files: (model_type, depth) -> per method (layers, overrides)
_EASYEDIT: dict[tuple[str, int], dict[str, tuple[tuple[int, ...], dict]]] = {
    ("gpt2", 48): {  # gpt2-xl.yaml
        "rome": ((17,), dict(v_num_grad_steps=20, v_weight_decay=0.5, clamp_norm_factor=4.0, mom2_adjustment=True)),
        "memit": ((13, 14, 15, 16, 17), dict(v_num_grad_steps=20, v_weight_decay=0.5, clamp_norm_factor=0.75,
                                             mom2_update_weight=20000.0)),
    },
    ("gptj", 28): {  # gpt-j-6B.yaml
        "rome": ((5,), dict(v_num_grad_steps=20, v_weight_decay=0.5, clamp_norm_factor=4.0, mom2_adjustment=False)),
        "memit": ((3, 4, 5, 6, 7, 8), dict(v_num_grad_steps=25, v_weight_decay=0.5, clamp_norm_factor=0.75)),
    },
    **{(model_type, depth): {  # llama-7b.yaml, mistral-7b.yaml, qwen2-7b.yaml
        "rome": ((5,), dict(v_num_grad_steps=25, v_weight_decay=1e-3, clamp_norm_factor=4.0, mom2_adjustment=False)),
        "memit": ((4, 5, 6, 7, 8), dict(v_num_grad_steps=25, v_weight_decay=1e-3, clamp_norm_factor=4.0)),
    } for model_type, depth in (("llama", 32), ("mistral", 32), ("qwen2", 28))},
}

# The same layers relative to depth, for other sizes of a family: GPT-2 XL edits at 17/48 of
# its depth, GPT-J and the Llama family at 5/32 (MEMIT: a window of five layers around it).
_RELATIVE = {"gpt2": ((17 / 48), (13 / 48, 17 / 48)), "gptj": ((5 / 28), (3 / 28, 8 / 28))}
_RELATIVE_DEFAULT = ((5 / 32), (4 / 32, 8 / 32))


def _small_model(method: str, depth: int) -> tuple[tuple[int, ...], dict]:
    """Models of at most 4 layers, as this project trains them (docs/editing.md, "Choosing
    layers"): causal tracing finds no effect of the MLP at the subject's last token (0.005 of
    probability restored at layer 0, 0.0 at layer 1, on the tests' two-layer fact model; at
    most 0.019 on the demo's control model); the fact is read at the prompt's last token, so
    the edit goes there (EasyEdit's ``last``), at the last layer, where the control model's
    effect peaks (+0.094 against +0.005 for its statements) and which kept more of the fact
    model's other facts than layer 0 (82% against 66%)."""
    # Keys from the bare prompt alone: at the prompt's last token a prefix changes the key, and
    # C⁻¹ (ROME) or λC (MEMIT) then steer the update away from the bare prompt's key.
    common = dict(fact_token="last", v_num_grad_steps=25, context_templates=())
    if method == "rome":
        # u = (C + 0.1·mean(diag C)·I)⁻¹ k: on the tests' fact model 12 of 12 edits flipped with
        # 97% of the other facts kept, against 88% with u = k and 80% with five prefixes
        return (depth - 1,), dict(common, mom2_adjustment=True, mom2_ridge=0.1)
    return (depth - 1,), dict(common, mom2_update_weight=1.0)


def default_hparams(method: str, model) -> EditHparams:
    """EasyEdit's hyperparameters for this model where they transfer (see the module docstring)."""
    if method not in METHODS:
        raise ConfigError(f"unknown editing method {method!r}; use one of {', '.join(METHODS)}")
    layout = MlpLayout(model)
    depth, family = layout.num_layers, layout.model_type
    known = _EASYEDIT.get((family, depth))
    if known is not None:
        layers, overrides = known[method]
    elif depth <= 4:
        layers, overrides = _small_model(method, depth)
    else:
        rome_at, (lo, hi) = _RELATIVE.get(family, _RELATIVE_DEFAULT)
        if method == "rome":
            layers = (min(depth - 1, round(rome_at * depth)),)
        else:
            first, last = round(lo * depth), min(depth - 1, round(hi * depth))
            layers = tuple(range(first, max(first, last) + 1))
        overrides = (dict(v_weight_decay=0.5, clamp_norm_factor=4.0 if method == "rome" else 0.75)
                     if family in _RELATIVE else dict(v_weight_decay=1e-3, clamp_norm_factor=4.0))
        if method == "rome":
            overrides["mom2_adjustment"] = family == "gpt2"
    if method == "memit" and "context_templates" not in overrides:
        overrides = {**overrides, "context_templates": ((10, 5),)}
    return EditHparams(layers=layers, **overrides)

"""Causal tracing (Meng et al. 2022a, §2): which layer's MLP carries a fact.

Run the prompt clean, then with Gaussian noise added to the subject's token embeddings
(the "corrupted" run, whose probability of the answer drops), then corrupted again while one
layer's MLP output at the subject's last token is put back to its clean value. The recovered
probability of the answer's first token, minus the corrupted one, is that layer's indirect
effect; its average over facts picks the layer ROME edits and the range MEMIT spreads over.
The noise is ``noise_scale`` (the paper's 3) times the standard deviation of the embedding
matrix, drawn from a ``torch.Generator`` seeded with ``seed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .architectures import MlpLayout
from .compute import _output_tensor, _replace_output
from .locate import SLOT, target_ids


@dataclass(frozen=True)
class TraceResult:
    prompt: str
    target: str
    clean: float                    # p(target) with nothing corrupted
    corrupted: float                # p(target) with the subject's embeddings noised
    restored: tuple[float, ...]     # p(target), corrupted but layer l's MLP output restored, per layer

    @property
    def effects(self) -> tuple[float, ...]:
        """Indirect effect per layer: restored minus corrupted."""
        return tuple(r - self.corrupted for r in self.restored)


def causal_trace(model, tokenizer, prompt: str, subject: str, target: str, *, samples: int = 10,
                 noise_scale: float = 3.0, seed: int = 0, site: str = "subject_last") -> TraceResult:
    """Trace one fact; ``prompt`` holds ``{}`` where ``subject`` goes. ``site``: restore the MLP
    output at the subject's last token (the paper's early site) or at the prompt's last token."""
    import torch

    layout = MlpLayout(model)
    device = next(model.parameters()).device
    text = prompt.replace(SLOT, subject, 1)
    start = prompt.index(SLOT)
    end = start + len(subject)
    enc = tokenizer(text, add_special_tokens=True, return_offsets_mapping=True)
    subject_tokens = [i for i, (a, b) in enumerate(enc["offset_mapping"]) if b > a and a < end and b > start]
    if not subject_tokens:
        raise ValueError(f"subject {subject!r} has no tokens in {text!r}")
    last = subject_tokens[-1] if site == "subject_last" else len(enc["input_ids"]) - 1
    answer = target_ids(tokenizer, text, target)[0]
    ids = torch.tensor([enc["input_ids"]] * (samples + 1), device=device)
    embeddings = model.get_input_embeddings()
    sigma = noise_scale * float(embeddings.weight.detach().float().std())
    generator = torch.Generator(device="cpu").manual_seed(seed)
    noise = torch.randn(samples, len(subject_tokens), embeddings.weight.shape[1], generator=generator) * sigma

    def corrupt(_module, _args, output):
        output = output.clone()
        output[1:, subject_tokens[0]:subject_tokens[-1] + 1] += noise.to(output.device, output.dtype)
        return output

    def probability(restore_layer: int | None, clean_mlp=None) -> float:
        handles = [embeddings.register_forward_hook(corrupt)]
        if restore_layer is not None:
            def restore(_module, _args, output):
                hidden = _output_tensor(output).clone()
                hidden[1:, last] = clean_mlp[restore_layer]
                return _replace_output(output, hidden)
            handles.append(layout.mlp(restore_layer).register_forward_hook(restore))
        try:
            with torch.no_grad():
                logits = model(input_ids=ids).logits[:, -1].float()
        finally:
            for handle in handles:
                handle.remove()
        probs = torch.softmax(logits, dim=-1)[:, answer]
        return float(probs[1:].mean()), float(probs[0])

    clean_mlp: dict[int, torch.Tensor] = {}
    handles = []
    for layer in range(layout.num_layers):
        def keep(_module, _args, output, layer=layer):
            clean_mlp[layer] = _output_tensor(output)[0, last].detach().clone()
        handles.append(layout.mlp(layer).register_forward_hook(keep))
    try:
        with torch.no_grad():
            model(input_ids=ids[:1])
    finally:
        for handle in handles:
            handle.remove()
    corrupted, clean = probability(None)
    restored = tuple(probability(layer, clean_mlp)[0] for layer in range(layout.num_layers))
    return TraceResult(prompt=text, target=target, clean=clean, corrupted=corrupted, restored=restored)


def mean_effects(results: Sequence[TraceResult]) -> tuple[float, ...]:
    if not results:
        raise ValueError("no traced facts")
    width = len(results[0].restored)
    return tuple(sum(r.effects[layer] for r in results) / len(results) for layer in range(width))


def choose_layers(results: Sequence[TraceResult], method: str, *, max_span: int = 5) -> tuple[int, ...]:
    """ROME: the layer with the largest mean indirect effect. MEMIT: the contiguous layers
    ending at that peak whose mean effect is at least half the peak's (at most ``max_span``)."""
    effects = mean_effects(results)
    peak = max(range(len(effects)), key=lambda layer: effects[layer])
    if method == "rome":
        return (peak,)
    first = peak
    while first > 0 and peak - first + 1 < max_span and effects[first - 1] >= 0.5 * effects[peak]:
        first -= 1
    return tuple(range(first, peak + 1))

"""The shared computations of ROME and MEMIT: keys at the subject's last token, hidden states,
and the optimisation of the value that makes the model say the target.

Every function runs the model on right-padded batches of ``Encoded`` rows and reads or changes
one module's activation at each row's subject position through a forward hook; the model's
own code is never replaced. Values are optimised as one (requests × width) tensor: each row's
loss depends on its own row of the delta only, and Adam is elementwise, so a batch gives the
same result as one request at a time, in a fraction of the forward passes.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from .hparams import EditHparams
from .locate import KL_TEMPLATE, Encoded, Prepared, encode
from .types import EditError

log = logging.getLogger(__name__)


def _output_tensor(output):
    return output[0] if isinstance(output, tuple) else output


def _replace_output(output, tensor):
    if isinstance(output, tuple):
        return (tensor, *output[1:])
    return tensor


def _pad(rows: Sequence[Encoded], pad_id: int, device):
    import torch

    width = max(len(r.ids) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for b, row in enumerate(rows):
        ids[b, :len(row.ids)] = torch.tensor(row.ids)
        mask[b, :len(row.ids)] = 1
    return ids.to(device), mask.to(device)


def pad_id(tokenizer) -> int:
    for candidate in (tokenizer.pad_token_id, tokenizer.eos_token_id, 0):
        if candidate is not None:
            return int(candidate)
    return 0


def encode_rows(tokenizer, items: Sequence[Prepared], prefixes: Sequence[str], *, with_target: bool,
                site: str = "subject_last") -> tuple[list[Encoded], list[int]]:
    """One row per (request, prefix); raises EditError where a prefix hides the subject."""
    rows: list[Encoded] = []
    owner: list[int] = []
    for n, item in enumerate(items):
        for prefix in prefixes:
            row = encode(tokenizer, prefix, item.template, item.request.subject,
                         item.target_ids if with_target else (), site=site)
            if row is None:
                raise EditError(f"subject tokens of {item.request.key or item.request.subject!r} not found "
                                f"after the prefix {prefix!r}")
            rows.append(row)
            owner.append(n)
    return rows, owner


def capture_at_subject(model, tokenizer, rows: Sequence[Encoded], module, *, inputs: bool, chunk: int = 256):
    """The activation entering (``inputs``) or leaving ``module`` at each row's subject position,
    as a float32 (rows × width) tensor."""
    import torch

    device = next(model.parameters()).device
    found: list[torch.Tensor] = []
    current: dict[str, torch.Tensor] = {}

    if inputs:
        def hook(_module, args):
            current["x"] = args[0].detach()
        handle = module.register_forward_pre_hook(hook)
    else:
        def hook(_module, _args, output):
            current["x"] = _output_tensor(output).detach()
        handle = module.register_forward_hook(hook)
    try:
        for start in range(0, len(rows), chunk):
            part = rows[start:start + chunk]
            ids, mask = _pad(part, pad_id(tokenizer), device)
            with torch.no_grad():
                model(input_ids=ids, attention_mask=mask)
            index = torch.tensor([r.lookup for r in part], device=device)
            found.append(current["x"][torch.arange(len(part), device=device), index].float())
    finally:
        handle.remove()
    return torch.cat(found, dim=0)


def mean_by_owner(values, owner: Sequence[int], n: int):
    import torch

    index = torch.tensor(owner, device=values.device)
    sums = torch.zeros(n, values.shape[1], dtype=values.dtype, device=values.device).index_add_(0, index, values)
    counts = torch.bincount(index, minlength=n).clamp(min=1).to(values.dtype)
    return sums / counts[:, None]


def keys_at(model, tokenizer, layout, layer: int, items: Sequence[Prepared], prefixes: Sequence[str],
            site: str = "subject_last"):
    """k*: the MLP output projection's input at the subject's last token, averaged over the
    prefixes (the bare prompt is the first), one row per request."""
    rows, owner = encode_rows(tokenizer, items, prefixes, with_target=False, site=site)
    values = capture_at_subject(model, tokenizer, rows, layout.down(layer), inputs=True)
    return mean_by_owner(values, owner, len(items))


@dataclass(frozen=True)
class Values:
    init: object    # (n, width): the activation at the bare prompt before the edit
    delta: object   # (n, width): what the edit must add to it
    losses: tuple[float, ...]


def optimise_values(model, tokenizer, module, hp: EditHparams, items: Sequence[Prepared],
                    prefixes: Sequence[str]) -> Values:
    """Find, per request, the vector that, added to ``module``'s output at the subject's last
    token, makes the model continue every prefixed prompt with the target; a KL term keeps the
    next-token distribution after "{subject} is a"'s subject, and a norm penalty and clamp keep
    the vector small (ROME's v*, MEMIT's z, as EasyEdit's compute_v / compute_z)."""
    import torch

    device = next(model.parameters()).device
    n = len(items)
    rewrite, owner = encode_rows(tokenizer, items, prefixes, with_target=True, site=hp.fact_token)
    kl_rows = []
    for item in items:
        row = encode(tokenizer, "", KL_TEMPLATE, item.request.subject, site=hp.fact_token)
        if row is None:
            raise EditError(f"subject tokens of {item.request.key or item.request.subject!r} not found in "
                            f"{KL_TEMPLATE!r}")
        kl_rows.append(row)
    rows = rewrite + kl_rows
    owner_all = torch.tensor(owner + list(range(n)), device=device)
    ids, mask = _pad(rows, pad_id(tokenizer), device)
    lookups = torch.tensor([r.lookup for r in rows], device=device)
    row_index = torch.arange(len(rows), device=device)
    bare = torch.tensor([owner.index(i) for i in range(n)], device=device)   # the "" prefix comes first

    # teacher-forced targets: (row, position, token) triples and which request they belong to
    t_rows, t_pos, t_tok = [], [], []
    for r, (row, who) in enumerate(zip(rewrite, owner)):
        for pos, tok in zip(row.predict, items[who].target_ids):
            t_rows.append(r)
            t_pos.append(pos)
            t_tok.append(tok)
    t_rows_t = torch.tensor(t_rows, device=device)
    t_pos_t = torch.tensor(t_pos, device=device)
    t_tok_t = torch.tensor(t_tok, device=device)
    t_owner = owner_all[t_rows_t]
    target_len = torch.tensor([len(it.target_ids) for it in items], device=device, dtype=torch.float32)
    rows_per_request = torch.bincount(torch.tensor(owner, device=device), minlength=n).float()
    kl_index = torch.arange(len(rewrite), len(rows), device=device)

    decoder = model.base_model
    head = model.get_output_embeddings()
    width = None
    state: dict[str, torch.Tensor] = {}
    delta_holder: dict[str, torch.Tensor] = {}

    def hook(_module, _args, output):
        hidden = _output_tensor(output)
        if "init" not in state:
            state["init"] = hidden[bare, lookups[bare]].detach().float().clone()
        add = torch.zeros_like(hidden)
        add[row_index, lookups] = delta_holder["delta"][owner_all].to(hidden.dtype)
        return _replace_output(output, hidden + add)

    flags = [p.requires_grad for p in model.parameters()]
    for p in model.parameters():
        p.requires_grad_(False)
    handle = module.register_forward_hook(hook)
    losses: list[float] = []
    try:
        width = model.get_input_embeddings().weight.shape[1]
        delta = torch.zeros(n, width, device=device, requires_grad=True)
        delta_holder["delta"] = delta
        optimiser = torch.optim.Adam([delta], lr=hp.v_lr)
        kl_init = None
        active = torch.ones(n, dtype=torch.bool, device=device)
        for step in range(hp.v_num_grad_steps):
            optimiser.zero_grad()
            hidden = decoder(input_ids=ids, attention_mask=mask).last_hidden_state
            logp = torch.log_softmax(head(hidden[t_rows_t, t_pos_t]).float(), dim=-1)
            picked = logp.gather(1, t_tok_t[:, None]).squeeze(1)
            nll = -torch.zeros(n, device=device).index_add(0, t_owner, picked) / target_len / rows_per_request
            kl_logp = torch.log_softmax(head(hidden[kl_index, lookups[kl_index]]).float(), dim=-1)
            if kl_init is None:
                kl_init = kl_logp.detach().clone()
            kl = (kl_logp.exp() * (kl_logp - kl_init)).sum(-1)
            init = state["init"]
            decay = hp.v_weight_decay * delta.norm(dim=1) / init.norm(dim=1).clamp(min=1e-8) ** 2
            per_request = nll + hp.kl_factor * kl + decay
            if not torch.isfinite(per_request).all():
                raise EditError("the value optimisation produced a non-finite loss")
            losses = [round(float(x), 4) for x in per_request.detach()]
            active &= per_request.detach() >= hp.early_stop_loss
            if step == hp.v_num_grad_steps - 1 or not bool(active.any()):
                break
            per_request[active].sum().backward()
            frozen = delta.detach()[~active].clone()
            optimiser.step()
            with torch.no_grad():
                delta[~active] = frozen
                limit = hp.clamp_norm_factor * init.norm(dim=1)
                norms = delta.norm(dim=1)
                scale = torch.where(norms > limit, limit / norms.clamp(min=1e-12), torch.ones_like(norms))
                delta.mul_(scale[:, None])
    finally:
        handle.remove()
        for p, flag in zip(model.parameters(), flags):
            p.requires_grad_(flag)
    log.debug("value losses %s", losses)
    return Values(init=state["init"], delta=delta.detach().clone(), losses=tuple(losses))

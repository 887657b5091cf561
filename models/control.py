"""The control model: a small causal LM trained on the graph's facts up to a cutoff.

It is the positive control of every benchmark: its training set is recorded in the graph as
``(:Model {id, cutoff, seed, config_hash})-[:TRAINED_ON]->(:Fact)``, so a benchmark's
verdicts ("the model knows X", "X is cut off") can be checked against what it was and was not
taught (``knowforge.eval.validity``), and the demo gets real numbers without downloading
weights.

``train_control(store, config, out_dir)``:

1. reads every source fact (``cypher/models/read_source_facts.cypher``);
2. splits them (``control_data.split_facts``: after the cutoff, a seeded hold-out, trained)
   and renders the trained ones (``control_data.build_examples``);
3. trains a byte-level BPE tokenizer on the training texts and a llama-style model from a
   seeded initialisation (``lm_training.train_lm``), on CPU unless told otherwise;
4. writes the model, its tokenizer and ``control.json`` (the card: config, counts, losses)
   to ``out_dir``, and the Model node with one TRAINED_ON edge per trained fact to the graph.

The training set is exactly the set of facts with a TRAINED_ON edge: nothing else is read.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from knowforge.errors import ConfigError
from knowforge.kg.store import Store

from .control_data import (AFTER_CUTOFF, HELD_OUT, TRAINED, DataConfig, SourceFact, epoch_examples,
                           fixed_examples, load_phrasings, split_facts)

log = logging.getLogger(__name__)

CARD_FILE = "control.json"
CARD_VERSION = "1"


class ControlConfig(BaseModel):
    """Everything that defines a control model (its hash is part of the model id)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cutoff: int
    seed: int = 0
    holdout: float = 0.15          # share of pre-cutoff facts held out as unseen controls
    # data
    year_span: int = 12
    timeless_years: int = 0
    instruction_share: float = 0.3
    context_share: float = 0.04    # reading practice in our own counterfactual patterns
    # A data diet (benchmarks/RESULTS.md, helper demo10): the training's cost is tokens x epochs, and
    # these four cut an epoch to 0.79x its tokens with every validity bar of the demo still met; each
    # trained fact keeps its statement, its question and two ChroKnow groupings an epoch. (Before:
    # local_share 0.3, event_practice 500, stable_years 3, changing_passes 1.)
    local_share: float = 0.15      # out-of-scope twins of the reading and event practice
    event_practice: int = 250      # reading practice in ELKEN's event sentences, per epoch
    chrono_passes: int = 2
    stable_years: int | None = 2   # a never-changing fact's ChroKnow blocks at 2 years, not every year
    changing_passes: int = 0       # extra groupings per epoch of the changing facts' blocks
    # model (llama architecture)
    vocab_size: int = 3000
    hidden_size: int = 128
    intermediate_size: int = 512
    num_layers: int = 2
    num_heads: int = 4
    # training
    # 7 epochs of the diet's 274 k tokens: about 0.79x the CPU of the 347 k before it (about 350 s on this
    # AVX2-only machine, two threads; benchmarks/RESULTS.md, helpers demo8 and demo10)
    epochs: float = 7.0
    lr: float = 3e-3
    batch_tokens: int = 1024
    bf16: bool = False             # bf16 autocast while training (fp32 weights; saved in fp32)
    device: str = "cpu"

    def data_config(self) -> DataConfig:
        # The practice options keep their historical field names here (year_span, chrono_passes,
        # event_practice, ...): renaming them would change every config hash, and with it the id
        # of every trained and cached control model, for the same examples.
        return DataConfig(cutoff=self.cutoff, seed=self.seed, holdout=self.holdout,
                          instruction_share=self.instruction_share, context_share=self.context_share,
                          local_share=self.local_share,
                          practice={"chrono": {"year_span": self.year_span, "timeless_years": self.timeless_years,
                                               "passes": self.chrono_passes, "stable_years": self.stable_years,
                                               "changing_passes": self.changing_passes},
                                    "events": {"examples": self.event_practice}})

    def config_hash(self) -> str:
        """sha256 of the config minus ``device`` (where it ran does not change what it is)."""
        payload = self.model_dump(exclude={"device"})
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


class ControlCard(BaseModel):
    """``control.json`` next to the weights: what the model is and what it was taught."""

    model_config = ConfigDict(extra="forbid")

    version: str = CARD_VERSION
    model_id: str
    cutoff: int
    seed: int
    config_hash: str
    facts_hash: str                 # hash of the source facts it was split from
    config: ControlConfig
    counts: dict[str, int] = Field(default_factory=dict)        # membership and example kinds
    practices: list[str] = Field(default_factory=list)          # the methods whose practice it had
    parameters: int = 0
    train: dict = Field(default_factory=dict)                   # steps, epochs, tokens, seconds, losses


def facts_hash(facts: list[SourceFact]) -> str:
    digest = hashlib.sha256()
    for f in sorted(facts, key=lambda f: f.id):
        digest.update(f"{f.id}|{f.object}|{f.start_year}|{f.end_year}|{f.seen_in}\n".encode())
    return digest.hexdigest()


def model_id(config: ControlConfig, graph_hash: str, plugin_practices: list[str] | tuple[str, ...] = ()) -> str:
    """``control-<cutoff>-s<seed>-<8 hex>``: the same config on the same facts, the same id.
    ``plugin_practices``: installed plug-ins whose practice joins the training (they change what
    the model is taught, so they change its id; without any, the id is as it always was)."""
    key = f"{config.config_hash()}:{graph_hash}" + (f":{','.join(plugin_practices)}" if plugin_practices else "")
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    return f"control-{config.cutoff}-s{config.seed}-{digest}"


def read_source_facts(store: Store) -> list[SourceFact]:
    return [SourceFact.from_row(r) for r in store.read("models/read_source_facts")]


def build_tokenizer(texts: list[str], vocab_size: int):
    """A byte-level BPE tokenizer trained on ``texts``, with the tiny model's special tokens
    and chat template, as a ``PreTrainedTokenizerFast``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    from .tiny_model import CHAT_TEMPLATE, SPECIAL_TOKENS

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts, trainer=trainer)
    bos = tok.token_to_id("<s>")
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s> $B",
                                                       special_tokens=[("<s>", bos)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                   unk_token="<unk>", additional_special_tokens=SPECIAL_TOKENS[4:])
    fast.chat_template = CHAT_TEMPLATE
    return fast


def init_model(config: ControlConfig, tokenizer):
    """A llama-style causal LM with seeded weights (torch's global RNG is left as it was)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    lm_config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=config.hidden_size, intermediate_size=config.intermediate_size,
        num_hidden_layers=config.num_layers, num_attention_heads=config.num_heads,
        num_key_value_heads=config.num_heads, max_position_embeddings=2048, tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        model = LlamaForCausalLM(lm_config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


TrainProgress = Callable[[int, int, float], None]
"""Called after each step with (steps done, total steps, loss)."""


@dataclass(frozen=True)
class ControlPlan:
    """What training a control model needs, read from the graph once (``plan_control``): the
    source facts and their split, the model id, and the model to reuse when one exists. Fitting
    it (``fit_control``) reads nothing from the graph, so it can run while the graph changes in
    other ways (the demo generates its benchmarks meanwhile): the model learns the facts as they
    were read here."""

    config: ControlConfig
    out: Path
    facts: tuple[SourceFact, ...]
    membership: dict[str, str]
    graph_hash: str
    model_id: str
    trained_ids: tuple[str, ...]
    cached: Path | None = None        # where a trained model of this id is kept
    reused: ControlCard | None = None  # a model of this id already in ``out`` (copied from the cache if need be)


def plan_control(store: Store, config: ControlConfig, out_dir: str | Path, *, reuse: bool = True,
                 cache_dir: str | Path | None = None) -> ControlPlan:
    """Read the source facts, split them and name the model; with ``reuse``, find a model of that
    id in ``out_dir`` or (copied from there) in ``cache_dir``: ``plan.reused`` is then its card."""
    if config.cutoff < 1000 or config.cutoff > 9999:
        raise ConfigError(f"the cutoff is a year, not {config.cutoff}")
    out = Path(out_dir)
    facts = read_source_facts(store)
    if not facts:
        raise ConfigError("the graph has no source facts to train on (load some: `knowforge load samples`)")
    membership = split_facts(facts, cutoff=config.cutoff, holdout=config.holdout, seed=config.seed)
    graph_hash = facts_hash(facts)
    from .methods import plugin_practices

    mid = model_id(config, graph_hash, plugin_practices())
    trained_ids = tuple(fid for fid, m in sorted(membership.items()) if m == TRAINED)
    cached = Path(cache_dir) / mid if cache_dir is not None else None
    plan = ControlPlan(config=config, out=out, facts=tuple(facts), membership=membership, graph_hash=graph_hash,
                       model_id=mid, trained_ids=trained_ids, cached=cached)
    if not reuse:
        return plan
    existing = read_card(out)
    if existing is not None and existing.model_id == mid and (out / "config.json").is_file():
        log.info("%s is already trained in %s: recording its training set only", mid, out)
        return replace(plan, reused=existing)
    kept = read_card(cached) if cached is not None else None
    if kept is not None and kept.model_id == mid and (cached / "config.json").is_file():
        log.info("%s is cached in %s: copied to %s, not trained again", mid, cached, out)
        shutil.copytree(cached, out, dirs_exist_ok=True)
        return replace(plan, reused=kept)
    return plan


def fit_control(plan: ControlPlan, *, progress: TrainProgress | None = None) -> ControlCard:
    """Train the planned model, write it, its tokenizer and its card to ``plan.out`` and keep a
    copy in the cache; the graph is not touched (``record_model`` does that). Returns its card."""
    import torch

    from .lm_training import TrainConfig, plan_steps, tokenise, train_lm
    from .methods import control_practices

    config, facts, membership, out = plan.config, list(plan.facts), plan.membership, plan.out
    practices = control_practices()
    data_config, phrasings = config.data_config(), load_phrasings()
    fixed = fixed_examples(facts, membership, data_config, phrasings)
    first = epoch_examples(facts, membership, data_config, phrasings, epoch=0, practices=practices)
    examples = fixed + first
    counts = Counter(membership.values())
    log.info("%s: %d facts trained, %d held out, %d after the cutoff; %d examples per epoch", plan.model_id,
             counts[TRAINED], counts[HELD_OUT], counts[AFTER_CUTOFF], len(examples))

    t0 = time.perf_counter()
    tokenizer = build_tokenizer([e.text for e in examples], config.vocab_size)
    fixed_tokens = [tokenise(tokenizer, e.text, e.spans) for e in fixed]
    first_tokens = [tokenise(tokenizer, e.text, e.spans) for e in first]

    def epoch_data(epoch: int):
        drawn = first_tokens if epoch == 0 else [
            tokenise(tokenizer, e.text, e.spans)
            for e in epoch_examples(facts, membership, data_config, phrasings, epoch=epoch, practices=practices)]
        return fixed_tokens + drawn

    model = init_model(config, tokenizer).to(config.device)
    train_config = TrainConfig(epochs=config.epochs, lr=config.lr, batch_tokens=config.batch_tokens,
                               seed=config.seed, bf16=config.bf16)
    total = plan_steps(epoch_data, train_config)
    result = train_lm(model, epoch_data, train_config, pad_id=tokenizer.pad_token_id,
                      progress=(lambda done, loss: progress(done, max(total, done), loss)) if progress else None)
    seconds = time.perf_counter() - t0

    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # our CLI prints its own line; no shard-writing bar
    out.mkdir(parents=True, exist_ok=True)
    model.to("cpu").save_pretrained(out)
    tokenizer.save_pretrained(out)
    card = ControlCard(
        model_id=plan.model_id, cutoff=config.cutoff, seed=config.seed, config_hash=config.config_hash(),
        facts_hash=plan.graph_hash, config=config, practices=sorted(practices),
        counts={"facts": len(facts), TRAINED: counts[TRAINED], HELD_OUT: counts[HELD_OUT],
                AFTER_CUTOFF: counts[AFTER_CUTOFF], "examples": len(examples),
                **{f"examples_{k}": v for k, v in sorted(Counter(e.kind for e in examples).items())},
                "tokens_per_epoch": sum(len(t.ids) for t in fixed_tokens + first_tokens)},
        parameters=sum(p.numel() for p in model.parameters()),
        train={"steps": result.steps, "epochs": result.epochs, "tokens": result.tokens,
               "seconds": round(seconds, 1), "train_seconds": round(result.seconds, 1),
               "first_loss": result.first_loss, "final_loss": result.final_loss,
               "epoch_losses": [round(x, 4) for x in result.losses],
               "torch_threads": torch.get_num_threads()})
    (out / CARD_FILE).write_text(card.model_dump_json(indent=2) + "\n", encoding="utf-8")
    if plan.cached is not None:
        keep_model(out, plan.cached)
    return card


def fit_control_child(plan: ControlPlan, messages, widen) -> None:
    """``fit_control`` as the target of a child process (the demo trains while it generates its
    benchmarks): one torch thread until ``widen`` (a multiprocessing Event) is set, every thread
    torch would use after; ``messages`` (a multiprocessing Queue) gets ``("step", done, total,
    loss)`` at most every half second and for the last step, then ``("card", card json)`` or
    ``("error", text)``. The thread count changes no result: the control model's training gives
    bit-identical weights on one thread and on two (benchmarks/RESULTS.md)."""
    import torch

    wide = torch.get_num_threads()
    torch.set_num_threads(1)
    state = {"wide": False, "sent": 0.0}

    def progress(done: int, total: int, loss: float) -> None:
        if not state["wide"] and widen.is_set():
            torch.set_num_threads(wide)
            state["wide"] = True
        state["last"] = ("step", done, total, loss)
        now = time.monotonic()
        if now - state["sent"] >= 0.5:
            state["sent"] = now
            messages.put(state.pop("last"))

    try:
        card = fit_control(plan, progress=progress)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it as its own error
        messages.put(("error", f"{type(exc).__name__}: {exc}"))
        raise
    if "last" in state:
        _, done, _, loss = state["last"]
        messages.put(("step", done, done, loss))
    messages.put(("card", card.model_dump_json()))


def fit_control_when_planned(plans, messages, widen) -> None:
    """``fit_control_child`` in a child started before its plan exists: it imports what the
    training needs, then fits the plan that ``plans`` (a multiprocessing Queue) brings, or ends on
    None. The demo starts it before the server and the loads, so its imports (about 5 s of CPU)
    are not on the training's path, which begins when the loaded facts are read."""
    import torch  # noqa: F401
    from transformers import LlamaForCausalLM, PreTrainedTokenizerFast  # noqa: F401

    from . import control_data, lm_training  # noqa: F401

    plan = plans.get()
    if plan is not None:
        fit_control_child(plan, messages, widen)


def train_control(store: Store, config: ControlConfig, out_dir: str | Path, *,
                  progress: TrainProgress | None = None, reuse: bool = True,
                  cache_dir: str | Path | None = None) -> ControlCard:
    """Train a control model on the graph's facts, write it to ``out_dir`` and record its
    training set in the graph. Returns its card.

    With ``reuse`` (the default), a model already in ``out_dir`` with the same id (same config,
    same source facts) is not trained again: only its training set is recorded again. With
    ``cache_dir`` too, a model of that id kept under ``cache_dir/<model id>`` is copied to
    ``out_dir`` instead of being trained, and a newly trained one is kept there: the id hashes
    the config and the facts, so a cached model is exactly the one training would make.
    """
    plan = plan_control(store, config, out_dir, reuse=reuse, cache_dir=cache_dir)
    card = plan.reused or fit_control(plan, progress=progress)
    record_model(store, card, list(plan.trained_ids), plan.out)
    return card


def keep_model(model_dir: Path, cached: Path) -> None:
    """Copy a trained model into the cache whole or not at all: a copy that an interruption
    cut short must never pass for the model (written next to it, then renamed)."""
    partial = cached.with_name(cached.name + f".partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(model_dir, partial)
    shutil.rmtree(cached, ignore_errors=True)
    partial.rename(cached)


def record_model(store: Store, card: ControlCard, trained: list[str], path: Path | None = None) -> None:
    """The Model node and exactly one TRAINED_ON edge per trained fact (older edges removed)."""
    props = {"cutoff": card.cutoff, "seed": card.seed, "config_hash": card.config_hash,
             "facts_hash": card.facts_hash, "kind": "control", "path": str(path) if path else None,
             "parameters": card.parameters, "trained_facts": len(trained),
             "held_out_facts": card.counts.get(HELD_OUT, 0), "after_cutoff_facts": card.counts.get(AFTER_CUTOFF, 0),
             "holdout": card.config.holdout, "final_loss": card.train.get("final_loss"),
             "epochs": card.train.get("epochs"), "config_json": card.config.model_dump_json()}
    store.run("models/upsert_model", id=card.model_id, props=props)
    store.run("models/clear_training_set", id=card.model_id)
    store.write("models/link_training_set", [{"fact_id": f} for f in trained], model_id=card.model_id)


def training_set(store: Store, model: str) -> list[str]:
    """Fact ids the model was trained on, from the graph (one query)."""
    return [r["fact_id"] for r in store.read("models/read_training_set", id=model)]


def read_card(model_dir: str | Path) -> ControlCard | None:
    """The control card of a model directory, or None when it is not a control model."""
    path = Path(str(model_dir)).expanduser() / CARD_FILE
    if not path.is_file():
        return None
    return ControlCard.model_validate_json(path.read_text(encoding="utf-8"))

"""A tiny random causal LM with a BPE tokenizer trained on the fly: no download, ever.

Used by tests and by ``knowforge tiny-model OUT_DIR`` to exercise the whole eval path (hf
backend, cache, runner, reports) on a laptop. Same seed, same files: the tokenizer is trained
on a fixed built-in corpus and the weights are drawn from a ``torch.Generator`` seeded with
``seed`` (the global torch RNG is left untouched).
"""

from __future__ import annotations

import itertools
import logging
from pathlib import Path

log = logging.getLogger(__name__)

SPECIAL_TOKENS = ["<pad>", "<s>", "</s>", "<unk>", "<|system|>", "<|user|>", "<|assistant|>"]

# A role marker, the message, then end-of-sequence; the generation prompt opens the assistant turn.
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}<|{{ message['role'] }}|>{{ message['content'] }}"
    "{{ eos_token }}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)

_SUBJECTS = ["Barack Obama", "Angela Merkel", "the river Nile", "Paris", "the company Acme",
             "Marie Curie", "the city of Lyon", "a blue whale", "the club Ajax", "Ada Lovelace"]
_RELATIONS = ["was born in", "is located in", "works for", "was founded in", "is a member of",
              "lives in", "was the head of", "plays for"]
_OBJECTS = ["France", "Germany", "Egypt", "the United States", "1867", "2021", "London",
            "the ocean", "Amsterdam", "1999"]
_QUESTIONS = ["Question: Where was {s} born? Answer: {o}.",
              "Q: Is it true that {s} {r} {o}? A: {yn}.",
              "Which option is right? (A) {o} (B) Berlin (C) 42 (D) none. Answer: {letter}",
              "True or false: {s} {r} {o}. {tf}",
              "In {year}, {s} {r} {o}.",
              "I don't know whether {s} {r} {o}; the answer is unknown."]


def tiny_corpus() -> list[str]:
    """A few hundred fixed English sentences with digits, years, yes/no and letters A-D."""
    lines: list[str] = []
    for k, (s, r, o) in enumerate(itertools.product(_SUBJECTS, _RELATIONS, _OBJECTS)):
        if k % 3:
            continue
        lines.append(f"{s[0].upper()}{s[1:]} {r} {o}.")
        template = _QUESTIONS[k % len(_QUESTIONS)]
        lines.append(template.format(s=s, r=r, o=o, yn="Yes" if k % 2 else "No",
                                     letter="ABCD"[k % 4], tf="True" if k % 2 else "False",
                                     year=1900 + (k * 7) % 125))
    lines += [" ".join(str(d) for d in range(10)), "A B C D", "(A) (B) (C) (D)", "A. B. C. D.",
              "yes no true false right wrong unknown"]
    return lines


def build_tokenizer(vocab_size: int = 512):
    """A byte-level BPE tokenizer trained on ``tiny_corpus()`` as a ``PreTrainedTokenizerFast``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(tiny_corpus(), trainer=trainer)
    bos = tok.token_to_id("<s>")
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s> $B",
                                                       special_tokens=[("<s>", bos)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                   pad_token="<pad>", unk_token="<unk>",
                                   additional_special_tokens=SPECIAL_TOKENS[4:])
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_tiny_model(out_dir: str | Path, *, seed: int = 0, vocab_size: int = 512, arch: str = "llama",
                     hidden_size: int = 64, num_layers: int = 2, init_std: float = 0.2) -> Path:
    """Write a tiny random causal LM and its tokenizer to ``out_dir``; returns ``out_dir``.

    ``init_std`` is larger than a real model's so that next-token distributions are peaked:
    greedy decoding then has clear winners and batched vs one-by-one runs agree.
    """
    import torch
    from transformers import AutoModelForCausalLM, GPT2Config, LlamaConfig

    from knowforge.errors import ConfigError

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(vocab_size)
    ids = {name: tokenizer.convert_tokens_to_ids(name) for name in ("<pad>", "<s>", "</s>")}
    common = dict(vocab_size=len(tokenizer), pad_token_id=ids["<pad>"], bos_token_id=ids["<s>"],
                  eos_token_id=ids["</s>"], tie_word_embeddings=False)
    if arch == "llama":
        config = LlamaConfig(hidden_size=hidden_size, intermediate_size=2 * hidden_size,
                             num_hidden_layers=num_layers, num_attention_heads=4, num_key_value_heads=2,
                             max_position_embeddings=1024, initializer_range=init_std, **common)
    elif arch == "gpt2":
        config = GPT2Config(n_embd=hidden_size, n_layer=num_layers, n_head=4, n_positions=1024,
                            initializer_range=init_std, **common)
    else:
        raise ConfigError(f"unknown tiny-model arch {arch!r}; use 'llama' or 'gpt2'")

    generator = torch.Generator().manual_seed(seed)
    # fork_rng: construction draws from the global RNG; we overwrite every weight anyway.
    with torch.random.fork_rng(devices=[]):
        model = AutoModelForCausalLM.from_config(config)
    with torch.no_grad():
        for name, param in sorted(model.named_parameters()):
            if param.dim() == 1:   # norms and biases
                param.fill_(1.0 if ("norm" in name or ".ln_" in name) and name.endswith("weight") else 0.0)
            else:
                param.normal_(0.0, init_std, generator=generator)
    model.generation_config.pad_token_id = ids["<pad>"]
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # our CLI prints its own line; no shard-writing bar
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    log.info("tiny %s model (%d parameters) written to %s", arch,
             sum(p.numel() for p in model.parameters()), out)
    return out

"""Small causal LMs that know a set of synthetic facts, trained here (for the weight-editing
tests and benchmark): "<person> lives in <city>." with invented people, so the model's greedy
answer to "<person> lives in" is exactly the city it was taught."""

from __future__ import annotations

import random

FIRST = ["Anna", "Boris", "Clara", "Dario", "Elif", "Femi", "Greta", "Hugo", "Ines", "Jonas", "Kira", "Luca"]
LAST = ["Marek", "Novak", "Okafor", "Petrov"]
CITIES = ["Paris", "Berlin", "Madrid", "Rome", "Vienna", "Lisbon", "Oslo", "Dublin"]
TEMPLATE = "{} lives in"
# Other phrasings of the same fact: with several, storing the city once at the person's name
# (where ROME edits) is cheaper for the model than learning it after each phrasing.
PHRASINGS = ["{} lives in", "The home of {} is", "{} has a house in", "Where does {} live? In"]


def facts(seed: int = 0) -> list[tuple[str, str]]:
    """48 (person, city) pairs, each city for six people."""
    rng = random.Random(f"{seed}:editing-facts")
    people = [f"{a} {b}" for a in FIRST for b in LAST]
    cities = [c for c in CITIES for _ in range(len(people) // len(CITIES))]
    rng.shuffle(cities)
    return list(zip(people, cities))


def training_texts(pairs: list[tuple[str, str]], seed: int = 0, phrasings: int = 1) -> list[str]:
    """Each fact alone, and each again after another fact, so a prefix does not hide it."""
    rng = random.Random(f"{seed}:editing-texts")
    alone = [f"{p.format(s)} {o}." for s, o in pairs for p in PHRASINGS[:phrasings]]
    after = [f"{rng.choice(alone)} {text}" for text in alone]
    return alone + after


def build_fact_model(arch: str = "llama", *, seed: int = 0, hidden: int = 64, layers: int = 2,
                     epochs: float = 40.0, vocab_size: int = 400, lr: float = 1e-2,
                     batch_tokens: int = 256, phrasings: int = 1):
    """(model, tokenizer, facts): a ``arch`` model trained on ``training_texts(facts(seed))``."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    from knowforge.models.control import build_tokenizer
    from knowforge.models.lm_training import TrainConfig, tokenise, train_lm

    pairs = facts(seed)
    texts = training_texts(pairs, seed, phrasings)
    tokenizer = build_tokenizer(texts, vocab_size)
    common = dict(vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id,
                  bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        if arch == "llama":
            model = LlamaForCausalLM(LlamaConfig(hidden_size=hidden, intermediate_size=4 * hidden,
                                                 num_hidden_layers=layers, num_attention_heads=4,
                                                 num_key_value_heads=4, max_position_embeddings=256,
                                                 tie_word_embeddings=False, **common))
        elif arch == "gpt2":
            model = GPT2LMHeadModel(GPT2Config(n_embd=hidden, n_layer=layers, n_head=4, n_positions=256,
                                               resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, **common))
        else:
            raise ValueError(arch)
    examples = [tokenise(tokenizer, t, [(0, len(t))]) for t in texts]
    train_lm(model, examples, TrainConfig(epochs=epochs, lr=lr, batch_tokens=batch_tokens, warmup_steps=10, seed=seed),
             pad_id=tokenizer.pad_token_id)
    model.eval()
    return model, tokenizer, pairs


def greedy(model, tokenizer, prompt: str, max_new: int = 2) -> str:
    """The greedy continuation of ``prompt`` (a few tokens), stripped."""
    import torch

    ids = tokenizer(prompt, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        for _ in range(max_new):
            nxt = model(input_ids=ids).logits[0, -1].argmax()
            ids = torch.cat([ids, nxt.view(1, 1)], dim=1)
    return tokenizer.decode(ids[0, -max_new:], skip_special_tokens=True).strip()


def answers(model, tokenizer, pairs) -> list[str]:
    """The first word of the greedy answer to each "<person> lives in"."""
    return [greedy(model, tokenizer, TEMPLATE.format(s)).split(" ")[0].rstrip(".") for s, _ in pairs]

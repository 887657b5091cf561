"""Time and memory of ROME and MEMIT on one GPU, on a randomly initialised model of a 7B shape.

No weights can be downloaded, so the model is a ``LlamaForCausalLM`` of Llama-2-7B's shape
(32 layers, width 4096, MLP 11008, 32,000 tokens; 6.7 B parameters) with random weights, in
bf16 on the GPU. The cost of an edit does not depend on what the model knows: every value
optimisation runs its full step count (a random model never reaches the early-stop loss), so
the figures are those of a trained model of that shape. The tokenizer is a byte-level BPE
trained here on the synthetic corpus; its ids fall inside the model's 32,000 rows.

Phases, each timed on the GPU (``torch.cuda.synchronize``) with its peak memory
(``max_memory_allocated``, reset before each):

- init: the random model on the GPU;
- cov: covariance statistics of MEMIT's five layers (4–8) over ``--stats-texts`` texts of
  ``--stats-tokens`` tokens; the per-text cost is scaled to EasyEdit's 100,000 texts;
- rome: one edit with EasyEdit's Llama defaults (layer 5, no C⁻¹), then restore; also with C⁻¹
  (``mom2_adjustment``, as GPT-2 XL's file has it), reading the cached layer-5 statistics;
- memit: ``--memit-requests`` requests at once over layers 4–8, then restore;
- restore: the edited layers' weights equal, bit for bit, their copies taken before the edit.

Writes ``editing_gpu.json`` to ``--out`` and prints a table.

    python benchmarks/editing_gpu.py --out /tmp/edit-gpu [--layers 32 --hidden 4096 --mlp 11008]
    python benchmarks/editing_gpu.py --smoke       # a 2-layer model on the CPU: checks the script
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _import_editing():
    """knowforge.models.editing, installed or (on a bare machine) from this checkout: the
    checkout's top-level folders are the package's sub-packages (pyproject's package-dir)."""
    try:
        import knowforge.models.editing as editing
    except ImportError:
        sys.path.insert(0, str(ROOT))
        import knowforge
        knowforge.__path__.append(str(ROOT))
        import knowforge.models.editing as editing
    return editing


WORDS = ("river stone city music garden engine letter market winter forest paper window doctor island "
         "silver theory harbor bridge summer village planet signal museum orchard lantern valley").split()


def corpus(n_facts: int, n_texts: int, seed: int = 0) -> tuple[list[tuple[str, str]], list[str]]:
    rng = random.Random(seed)
    syl = ["ka", "lo", "mi", "ren", "sa", "tor", "vi", "do", "ne", "pul", "ra", "zen", "qua", "bel"]
    cities = ["Paris", "Berlin", "Madrid", "Rome", "Vienna", "Lisbon", "Oslo", "Dublin", "Prague", "Warsaw"]
    people: set[str] = set()
    while len(people) < n_facts:
        people.add("".join(rng.choice(syl) for _ in range(2)).title() + " "
                   + "".join(rng.choice(syl) for _ in range(3)).title())
    facts = [(p, rng.choice(cities)) for p in sorted(people)]
    texts = []
    for _ in range(n_texts):
        sentences = []
        for _ in range(30):
            p, c = rng.choice(facts)
            sentences.append(rng.choice([f"{p} lives in {c}.", f"The {rng.choice(WORDS)} of {p} is in {c}.",
                                         " ".join(rng.choice(WORDS) for _ in range(12)) + "."]))
        texts.append(" ".join(sentences))
    return facts, texts


def tokenizer_for(texts: list[str], vocab_size: int):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(texts, trainer=trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["<unk>", "<s>", "</s>", "<pad>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", tok.token_to_id("<s>"))])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                   unk_token="<unk>")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--mlp", type=int, default=11008)
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--stats-texts", type=int, default=2000)
    parser.add_argument("--stats-tokens", type=int, default=256)
    parser.add_argument("--memit-requests", type=int, default=100)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--smoke", action="store_true", help="a 2-layer model on the CPU (checks the script)")
    parser.add_argument("--dtype", choices=("bfloat16", "float16", "float32"), default=None,
                        help="the model's dtype (default: bfloat16 on a GPU, float32 on the CPU); "
                             "'--smoke --dtype bfloat16' checks the GPU's dtype path on the CPU")
    args = parser.parse_args()
    if args.smoke:
        args.layers, args.hidden, args.mlp, args.heads, args.vocab = 2, 64, 128, 4, 1200
        args.stats_texts, args.memit_requests = 20, 8

    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    editing = _import_editing()
    device = "cuda" if torch.cuda.is_available() and not args.smoke else "cpu"
    dtype = getattr(torch, args.dtype) if args.dtype else (torch.bfloat16 if device == "cuda" else torch.float32)
    cuda = device == "cuda"
    out: dict = {"device": torch.cuda.get_device_name() if cuda else "cpu", "torch": torch.__version__,
                 "shape": dict(layers=args.layers, hidden=args.hidden, mlp=args.mlp, heads=args.heads, vocab=args.vocab),
                 "dtype": str(dtype), "phases": {}}

    def phase(name: str, fn):
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        t0 = time.perf_counter()
        value = fn()
        if cuda:
            torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        peak = torch.cuda.max_memory_allocated() / 2**30 if cuda else None
        out["phases"][name] = {"seconds": round(seconds, 3), "peak_gib": None if peak is None else round(peak, 2)}
        print(f"{name:<28} {seconds:9.2f} s   peak {'-' if peak is None else f'{peak:6.1f} GiB'}", flush=True)
        return value

    facts, texts = corpus(2000, args.stats_texts)
    tokenizer = tokenizer_for(texts[:500], min(args.vocab, 8000))
    config = LlamaConfig(vocab_size=args.vocab, hidden_size=args.hidden, intermediate_size=args.mlp,
                         num_hidden_layers=args.layers, num_attention_heads=args.heads, num_key_value_heads=args.heads,
                         max_position_embeddings=2048, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)

    def build():
        torch.manual_seed(0)
        with torch.device(device):
            model = LlamaForCausalLM(config).to(dtype)
        return model.eval()

    model = phase("init", build)
    params = sum(p.numel() for p in model.parameters())
    out["parameters"] = params
    out["weights_gib"] = round(sum(p.numel() * p.element_size() for p in model.parameters()) / 2**30, 2)
    print(f"model: llama {args.layers} layers, width {args.hidden}, MLP {args.mlp}, {params / 1e9:.2f} B parameters, "
          f"{out['weights_gib']} GiB in {dtype}", flush=True)
    cities = sorted({c for _, c in facts})

    def request(i: int):
        person, city = facts[i % len(facts)]
        return editing.EditRequest("{} lives in", person, cities[(cities.index(city) + 1) % len(cities)], key=f"f{i}")

    rome_hp = editing.default_hparams("rome", model).model_copy(
        update={"mom2_n_samples": args.stats_texts, "stats_max_tokens": args.stats_tokens})
    memit_hp = editing.default_hparams("memit", model).model_copy(
        update={"mom2_n_samples": args.stats_texts, "stats_max_tokens": args.stats_tokens})
    out["rome_hparams"] = rome_hp.model_dump(mode="json")
    out["memit_hparams"] = memit_hp.model_dump(mode="json")
    layout = editing.MlpLayout(model) if hasattr(editing, "MlpLayout") else None
    watched = sorted(set(memit_hp.layers) | set(rome_hp.layers))

    def weights_of(layers):
        from knowforge.models.editing.architectures import MlpLayout
        lay = layout or MlpLayout(model)
        return {layer: lay.weight(layer).detach().clone() for layer in layers}

    before = weights_of(watched)
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        revision = f"random-llama-{args.layers}x{args.hidden}"
        memit = editing.WeightEditor(model, tokenizer, "memit", hparams=memit_hp, stats_corpus=texts,
                                     cache_dir=cache, model_revision=revision)
        phase(f"cov: {len(memit_hp.layers)} layers x {args.stats_texts} texts",
              lambda: [memit.covariance(layer) for layer in memit_hp.layers])
        per_text = out["phases"][f"cov: {len(memit_hp.layers)} layers x {args.stats_texts} texts"]["seconds"] / args.stats_texts
        out["cov_100k_texts_estimate_s"] = round(per_text * 100_000, 1)
        out["cov_file_gib"] = round(sum(f.stat().st_size for f in cache.rglob("*") if f.is_file()) / 2**30, 2)

        rome = editing.WeightEditor(model, tokenizer, "rome", hparams=rome_hp, stats_corpus=texts, cache_dir=cache,
                                    model_revision=revision)
        phase("rome: prefixes (once)", rome.prefixes)
        for k in range(3):
            result = phase(f"rome: 1 edit #{k + 1}", lambda k=k: rome.apply([request(k)]))
            assert len(result.applied) == 1, result
            phase(f"rome: restore #{k + 1}", rome.restore)
        rome_c = editing.WeightEditor(model, tokenizer, "rome", hparams=rome_hp.model_copy(update={"mom2_adjustment": True}),
            stats_corpus=texts, cache_dir=cache, model_revision=revision)
        rome_c._prefixes = rome.prefixes()
        result = phase("rome C^-1: 1 edit (cached C)", lambda: rome_c.apply([request(10)]))
        assert len(result.applied) == 1
        rome_c.restore()
        memit._prefixes = None
        phase("memit: prefixes (once)", memit.prefixes)
        result = phase(f"memit: {args.memit_requests} requests", lambda: memit.apply(
            [request(100 + i) for i in range(args.memit_requests)]))
        out["memit_applied"] = len(result.applied)
        phase("memit: restore", memit.restore)
    after = weights_of(watched)
    out["restore_exact"] = all(torch.equal(before[k], after[k]) for k in watched)
    print(f"restore exact on layers {watched}: {out['restore_exact']}", flush=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "editing_gpu.json").write_text(json.dumps(out, indent=2))
    print(json.dumps({k: v for k, v in out.items() if k not in ("rome_hparams", "memit_hparams")}, indent=1))


if __name__ == "__main__":
    main()

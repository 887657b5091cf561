"""CPU seconds of ROME/MEMIT's covariance statistics on the demo's control model, over the first
N texts of its training text, and how far the capped C is from the one over every text.

The demo's ROME and MEMIT read C = E[k kᵀ] of the control model's last MLP layer over its
training text (``control_training_text``: 9,910 texts on the demo's graph). A first demo
computes it once (later ones read the cache); this measures what a cap on the texts
(``mom2_n_samples``) saves and what it changes: the relative Frobenius distance of C_N from
C_all, and the cosine of ROME's update direction C_N⁻¹ k with C_all⁻¹ k for 50 keys (the last token
of the first clause of 50 training texts; the ridge of the control model's defaults). float32 accumulation of the
key products is timed beside float64 (the default).

Needs the graph the model was trained on (NEO4J_URI or the managed Neo4j) and the model folder:

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/editing_stats_sample.py MODEL_DIR [--n 500,1000,2000,4000]

The test suite's smoke run checks the script end to end without a graph or a demo model:
``--tiny`` builds the tiny test model into MODEL_DIR, and ``--corpus FILE`` (one text a line)
stands in for the training text.
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--n", default="500,1000,2000,4000")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--texts", type=int, default=None,
                        help="use only the first N texts of the (shuffled) training text as the whole (a smoke run)")
    parser.add_argument("--tiny", action="store_true", help="build the tiny test model into MODEL_DIR first")
    parser.add_argument("--corpus", default=None, help="a text file (one text a line) instead of the training text")
    args = parser.parse_args()

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from knowforge.eval.events.weight_edit import StatsCorpus, control_training_text
    from knowforge.kg.connection import open_store
    from knowforge.models.editing import default_hparams
    from knowforge.models.editing import stats as stats_module
    from knowforge.models.editing.architectures import MlpLayout

    torch.set_num_threads(args.threads)
    if args.tiny:
        from knowforge.models.tiny_model import build_tiny_model

        build_tiny_model(args.model, seed=0)
    if args.corpus:
        from pathlib import Path

        lines = [line for line in Path(args.corpus).read_text(encoding="utf-8").splitlines() if line.strip()]
        corpus = StatsCorpus(lines, f"file:{args.corpus}", f"{args.corpus} ({len(lines)} texts)")
    else:
        store = open_store()
        corpus = control_training_text(store, args.model)
        store.close()
    model = AutoModelForCausalLM.from_pretrained(args.model).eval()
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    hp = default_hparams("rome", model)
    layer = hp.layers[0]
    layout = MlpLayout(model)
    texts = list(corpus.texts)[:args.texts]
    print(f"{corpus.description}; layer {layer}, key size {layout.key_size(layer)}, ridge {hp.mom2_ridge}, "
          f"torch threads {torch.get_num_threads()}")

    def accumulate(chosen, dtype=torch.float64):
        original = torch.float64
        started = time.process_time()
        if dtype is not original:
            # the same accumulation with the key products in float32
            real_to = torch.Tensor.to

            def to(self, *a, **k):
                if a and a[0] is torch.float64 and self.dim() == 2 and self.dtype is torch.float32:
                    return self
                return real_to(self, *a, **k)
            torch.Tensor.to = to
            try:
                found, tokens = stats_module._accumulate(model, tokenizer, layout, [layer], chosen, hp.stats_max_tokens)
            finally:
                torch.Tensor.to = real_to
        else:
            found, tokens = stats_module._accumulate(model, tokenizer, layout, [layer], chosen, hp.stats_max_tokens)
        return found[layer].double(), tokens, time.process_time() - started

    full, tokens, seconds = accumulate(texts)
    print(f"all {len(texts)} texts: {tokens:,} tokens, {seconds:.1f} CPU s (float64 products)")
    # keys of subjects' last tokens: the inputs of the layer's down projection at that position
    keys = []

    def grab(_module, inputs):
        keys.append(inputs[0][0, -1].detach().double())
    handle = layout.down(layer).register_forward_pre_hook(grab)
    with torch.no_grad():
        for text in texts[:50]:
            ids = tokenizer(text.split(",")[0].split(":")[0])["input_ids"][:hp.stats_max_tokens]
            model(input_ids=torch.tensor([ids]))
    handle.remove()
    k = torch.stack(keys).T

    def direction(c):
        ridge = hp.mom2_ridge * c.diagonal().mean()
        return torch.linalg.solve(c + ridge * torch.eye(c.shape[0], dtype=c.dtype), k)

    reference = direction(full)
    print(f"{'texts':>6} {'tokens':>9} {'CPU s':>7} {'vs all':>7} {'|C_N - C|/|C|':>14} {'cos(C_N^-1 k, C^-1 k)':>22}")
    for n in [int(v) for v in args.n.split(",")] + [len(texts)]:
        cov, tokens_n, secs = (full, tokens, seconds) if n == len(texts) else accumulate(texts[:n])
        cos = torch.nn.functional.cosine_similarity(direction(cov), reference, dim=0)
        print(f"{n:>6} {tokens_n:>9,} {secs:>7.1f} {secs / seconds:>6.2f}x {float((cov - full).norm() / full.norm()):>14.4f} "
              f"{float(cos.mean()):>11.4f} (min {float(cos.min()):.4f})")
    cov32, _, secs32 = accumulate(texts, torch.float32)
    print(f"float32 products, all texts: {secs32:.1f} CPU s ({secs32 / seconds:.2f}x), "
          f"|C32 - C|/|C| {float((cov32 - full).norm() / full.norm()):.2e}")


if __name__ == "__main__":
    main()

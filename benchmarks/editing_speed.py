"""CPU seconds of one ROME edit and of MEMIT with 100 requests on the control model's shape.

The model is a llama of the control model's shape (``ControlConfig``: 2 layers, width 128, MLP
512, 3,000 tokens) with a tokenizer trained here on synthetic "<person> lives in <city>." texts,
which are also the covariance corpus. Its weights are random: the time of an edit does not
depend on what the model knows (every value optimisation runs its full step count unless it
converges early, which a random model does not). "cold" includes computing the covariance
statistics (and the random prefixes); "warm" reads them from the cache a first editor wrote.
CPU seconds (``time.process_time``) are reported, which the load of a shared machine moves far
less than wall time; targets (issue 32): ROME < 1 s, MEMIT(100) < 30 s.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/editing_speed.py [--repeats 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path


def _texts(n: int, seed: int = 0) -> tuple[list[tuple[str, str]], list[str]]:
    rng = random.Random(f"{seed}:editing-speed")
    syllables = ["ka", "lo", "mi", "ren", "sa", "tor", "vi", "do", "ne", "pul", "ra", "zen"]
    cities = ["Paris", "Berlin", "Madrid", "Rome", "Vienna", "Lisbon", "Oslo", "Dublin", "Prague", "Warsaw"]
    people = set()
    while len(people) < n:
        name = "".join(rng.choice(syllables) for _ in range(2)).title() + " " + \
            "".join(rng.choice(syllables) for _ in range(3)).title()
        people.add(name)
    facts = [(p, rng.choice(cities)) for p in sorted(people)]
    texts = [f"{p} lives in {c}." for p, c in facts] + [f"The home of {p} is {c}." for p, c in facts]
    return facts, texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--memit-requests", type=int, default=100)
    args = parser.parse_args()

    import torch

    from knowforge.models.control import ControlConfig, build_tokenizer, init_model
    from knowforge.models.editing import EditRequest, WeightEditor, default_hparams, weights_digest

    torch.set_num_threads(args.threads)
    config = ControlConfig(cutoff=2020)
    facts, texts = _texts(1000)
    tokenizer = build_tokenizer(texts, config.vocab_size)
    model = init_model(config, tokenizer).eval()
    print(f"model: llama, {config.num_layers} layers, width {config.hidden_size}, MLP {config.intermediate_size}, "
          f"{len(tokenizer)} tokens, {sum(p.numel() for p in model.parameters()):,} parameters; "
          f"torch threads {torch.get_num_threads()}")
    cities = sorted({c for _, c in facts})

    def request(i: int) -> EditRequest:
        person, city = facts[i]
        return EditRequest("{} lives in", person, cities[(cities.index(city) + 1) % len(cities)], key=f"f{i}")

    digest = weights_digest(model)
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        for method, n in (("rome", 1), ("memit", args.memit_requests)):
            hp = default_hparams(method, model)
            print(f"{method}: layers {list(hp.layers)}, {hp.v_num_grad_steps} steps, "
                  f"prefixes {list(hp.context_templates)}, covariance {'yes' if method == 'memit' or hp.mom2_adjustment else 'no'}")
            for phase in ("cold", "warm"):
                times = []
                for r in range(args.repeats if phase == "warm" else 1):
                    folder = cache / f"{method}-cold-{r}" if phase == "cold" else cache / method
                    editor = WeightEditor(model, tokenizer, method, hparams=hp, stats_corpus=texts, cache_dir=folder)
                    requests = [request((r * n + i) % len(facts)) for i in range(n)]
                    t0 = time.process_time()
                    result = editor.apply(requests)
                    times.append(time.process_time() - t0)
                    editor.restore()
                    assert weights_digest(model) == digest and len(result.applied) == n
                    if phase == "cold":
                        # the warm runs read the statistics this editor cached
                        (cache / method).mkdir(parents=True, exist_ok=True)
                        for f in folder.glob("*.pt"):
                            (cache / method / f.name).write_bytes(f.read_bytes())
                label = f"{method.upper()}({n}) {phase}"
                print(f"{label:<16}: median {statistics.median(times):7.3f} CPU s  "
                      f"(runs: {', '.join(f'{t:.3f}' for t in times)})")


if __name__ == "__main__":
    main()

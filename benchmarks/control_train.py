"""The control model's training cost: the default config against a candidate (``--set``).

Both configs are trained cold (no reuse, no cache) with ``train_control`` on the same graph, one
after the other in this process, each into a throw-away folder; the script prints, per config,
its steps, tokens, wall and CPU seconds (``time.process_time``: this process, every torch thread
counted), its last epoch's loss, and the ratios candidate / default. On a shared machine the CPU ratio is the figure to
trust; wall follows it only on idle cores.

The graph: the configured server (``NEO4J_URI`` or the managed one), as it is (both models are
recorded in it, as ``train-control`` records them); or, with
``--start-neo4j``, a throw-away managed server in a temporary home with every bundled sample
loaded (the demo also loads WordNet words and NewTerm's slice, about a sixth more facts).

    .venv/bin/python benchmarks/control_train.py --start-neo4j --set epochs=3 --set lr=6e-3 \
        [--fraction 1] [--threads 2]

Before training, each config's first epoch is counted by kind of example (tokens, and in brackets
those that carry the loss), with one tokenizer for both: a data diet's saving is exact before
any training. ``--fraction F`` trains each config for F times its epochs (a quick look at the per-step cost:
the steps are the same kind, only fewer). A cheaper config is only half the answer: what the
cheaper model still separates is measured by the demo's validity report (docs/control.md).
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from pathlib import Path

from _throwaway import throwaway_store


@contextlib.contextmanager
def graph(start: bool):
    """An open store: the configured server's, or a throw-away one with the bundled samples."""
    from knowforge.kg.connection import open_store
    from knowforge.kg.loaders.registry import load_source
    from knowforge.kg.loaders.samples import sample_paths

    if not start:
        with open_store() as store:
            yield store
        return
    with throwaway_store() as (store, _):
        for source, paths in sample_paths().items():
            load_source(store, source, paths)
        yield store


def train(store, config, out: Path) -> dict:
    from knowforge.models.control import train_control

    wall, cpu = time.perf_counter(), time.process_time()
    card = train_control(store, config, out, reuse=False)
    return {"steps": card.train["steps"], "tokens": card.train["tokens"], "epochs": card.train["epochs"],
            "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
            "final_loss": card.train["final_loss"], "id": card.model_id}


def epoch_tokens(store, configs: dict) -> dict[str, dict[str, tuple[int, int]]]:
    """Per config, its first epoch's tokens and labelled tokens by kind of example, all with one
    tokenizer (the first config's), so that the configs' data can be compared without training."""
    from knowforge.models.control import build_tokenizer, read_source_facts
    from knowforge.models.control_data import epoch_examples, fixed_examples, load_phrasings, split_facts
    from knowforge.models.lm_training import IGNORE, tokenise
    from knowforge.models.methods import control_practices

    facts, phrasings, practices = read_source_facts(store), load_phrasings(), control_practices()
    tokenizer, out = None, {}
    for name, config in configs.items():
        membership = split_facts(facts, cutoff=config.cutoff, holdout=config.holdout, seed=config.seed)
        data = config.data_config()
        examples = (fixed_examples(facts, membership, data, phrasings)
                    + epoch_examples(facts, membership, data, phrasings, epoch=0, practices=practices))
        tokenizer = tokenizer or build_tokenizer([e.text for e in examples], config.vocab_size)
        kinds: dict[str, list[int]] = {}
        for e in examples:
            t = tokenise(tokenizer, e.text, e.spans)
            row = kinds.setdefault(e.kind, [0, 0])
            row[0] += len(t.ids)
            row[1] += sum(1 for label in t.labels if label != IGNORE)
        out[name] = {k: (v[0], v[1]) for k, v in sorted(kinds.items())}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start-neo4j", action="store_true", help="a throw-away managed Neo4j with the samples")
    parser.add_argument("--cutoff", type=int, default=2020)
    parser.add_argument("--fraction", type=float, default=1.0, help="train F times each config's epochs")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--set", dest="changes", action="append", default=[], metavar="KEY=VALUE",
                        help="a field of the candidate's ControlConfig (repeatable), e.g. --set epochs=3")
    args = parser.parse_args()
    if args.fraction <= 0:
        parser.error(f"--fraction must be above 0, not {args.fraction}")
    changes = {}
    for change in args.changes:
        key, sep, value = change.partition("=")
        if not sep:
            parser.error(f"--set takes KEY=VALUE, not {change!r}")
        changes[key.strip()] = value.strip()

    import torch

    from knowforge.models.control import ControlConfig

    if args.threads:
        torch.set_num_threads(args.threads)
    default = ControlConfig(cutoff=args.cutoff)
    try:   # validated like train-control's --set (a field name and a value of its type)
        candidate = ControlConfig.model_validate({**default.model_dump(), **changes})
    except ValueError as exc:
        parser.error(f"bad --set: {exc}")
    configs = {name: c.model_copy(update={"epochs": c.epochs * args.fraction})
               for name, c in (("default", default), ("candidate", candidate))}
    print(f"torch threads: {torch.get_num_threads()}; fraction of each config's epochs: {args.fraction:g}")
    results = {}
    with graph(args.start_neo4j) as store, tempfile.TemporaryDirectory() as tmp:
        for name, kinds in epoch_tokens(store, configs).items():
            total = sum(t for t, _ in kinds.values())
            print(f"{name:9s}: {total:,} tokens an epoch ({sum(lab for _, lab in kinds.values()):,} labelled): "
                  + ", ".join(f"{k} {t:,} ({lab:,})" for k, (t, lab) in kinds.items()), flush=True)
        for name, config in configs.items():
            r = results[name] = train(store, config, Path(tmp) / name)
            print(f"{name:9s}: epochs {r['epochs']:g}, lr {config.lr:g}, batch_tokens {config.batch_tokens}: "
                  f"{r['steps']:,} steps, {r['tokens']:,} tokens, wall {r['wall']:.1f} s, CPU {r['cpu']:.1f} s, "
                  f"final loss {r['final_loss']:.3f} ({r['id']})", flush=True)
    p, c = results["default"], results["candidate"]
    print(f"candidate: {', '.join(f'{k}={v}' for k, v in changes.items()) or 'the default'}")
    print(f"ratio candidate / default: steps {c['steps'] / p['steps']:.2f}x, tokens {c['tokens'] / p['tokens']:.2f}x, "
          f"wall {c['wall'] / p['wall']:.2f}x, CPU {c['cpu'] / p['cpu']:.2f}x")
    print(f"CPU per 1k tokens: default {1000 * p['cpu'] / p['tokens']:.3f} s, "
          f"candidate {1000 * c['cpu'] / c['tokens']:.3f} s")


if __name__ == "__main__":
    main()

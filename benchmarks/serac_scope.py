"""Cost of SERAC's scope classifier (``--solver serac``) at ELKEN's size, on the CPU.

Synthetic normalised embeddings stand in for MiniLM's (384 dimensions): ``--events`` training
events with ``--questions`` questions (a third of them out of scope), the pairs ``scope_pairs``
builds, the logistic regression ``fit_logistic`` trains, and ``ScopeClassifier.best`` judging
every question against a memory of ``--memory`` edits. Baseline in the same process: the dense
retriever's top-1 (one matrix product and an argmax), which ``best`` adds the |u-v| term to.
With ``--minilm`` the bundled all-MiniLM-L6-v2's encoding rate is measured too.

``--release FILE`` (repeatable; an ELKEN release file such as the training samples in
../shared/formats/elken/) measures the held-out pair accuracy of the MiniLM classifier on real
ELKEN events, cross-fitted over ``--folds`` parts (every event held out once), per part, beside
the paper's 69.1% (facts) and 55% (tendency).

    .venv/bin/python benchmarks/serac_scope.py [--events 1000] [--questions 10000] [--memory 500] [--minilm]
    .venv/bin/python benchmarks/serac_scope.py --events 0 --release train_fact_sample.json --release train_sample.json
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--questions", type=int, default=10000)
    parser.add_argument("--memory", type=int, default=500)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--minilm", action="store_true")
    parser.add_argument("--release", action="append", default=[])
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    if args.events:
        synthetic(args)
    for path in args.release:
        release_accuracy(Path(path), args.folds)


def release_accuracy(path: Path, folds: int) -> None:
    from knowforge.eval.events.serac import (PAPER_ACCURACY, Encoder, Questions, SeracArgs, Tally, Training,
                                             fit_or_load, fold_split)
    from knowforge.generators.events.elken_release import read_elken_release

    items = read_elken_release(path, benchmark="events:bench").items
    table = Questions.of(items)
    start = time.perf_counter()
    encoder = Encoder(None)
    q, e = encoder.encode(table.texts), encoder.encode(table.events.texts)
    tallies = {p: Tally() for p in ("fact", "tendency")}
    files: list[dict] = []
    n = len(table.events.ids)
    with tempfile.TemporaryDirectory() as tmp:
        for k, fold in enumerate(fold_split(n, folds, 0)):
            plan = Training(sorted(set(range(n)) - set(fold)), fold, [])
            fit_or_load(table, q, e, q @ e.T, plan, SeracArgs(), encoder, Path(tmp), 0, f"fold {k + 1}", tallies, files)
    took = time.perf_counter() - start
    print(f"{path.name}: {n} events, {len(items)} questions, {folds}-fold cross-fitting, MiniLM ({took:.0f}s "
          "with the encoder's load)")
    for part, tally in tallies.items():
        if not tally.n():
            continue
        est = tally.estimate()
        kinds = ", ".join(f"{k} {tally.estimate(k).estimate:.3f} (n={tally.n(k)})" for k in tally.kinds)
        print(f"  {part:8}: held-out pair accuracy {est.estimate:.3f} [{est.ci[0]:.3f}, {est.ci[1]:.3f}] over "
              f"{tally.n()} pairs (paper {PAPER_ACCURACY[part]:.3f}); by kind: {kinds}")


def synthetic(args) -> None:
    import torch  # noqa: F401  (imported before the clock starts: sentence-transformers has it loaded)

    from knowforge.eval.events.editing import Memory
    from knowforge.eval.events.serac import Encoder, Questions, ScopeClassifier, fit_logistic, pair_features, scope_pairs

    rng = np.random.default_rng(0)
    events = rng.normal(size=(args.events, args.dim)).astype(np.float32)
    events /= np.linalg.norm(events, axis=1, keepdims=True)
    own = rng.integers(0, args.events, args.questions)
    q = events[own] + rng.normal(size=(args.questions, args.dim)).astype(np.float32) / np.sqrt(args.dim)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    inside = tuple(bool(k % 3) for k in range(args.questions))
    table = Questions(tuple(f"q{k}" for k in range(args.questions)), tuple(int(e) for e in own), inside,
                      ("fact",) * args.questions,
                      Memory(tuple(f"e{k}" for k in range(args.events)), tuple(f"t{k}" for k in range(args.events))))
    sim = q @ events.T
    t_pairs, pairs = timed(lambda: scope_pairs(table, range(args.questions), range(args.events), sim,
                                               random.Random(0), 2))
    qs = np.array([p.question for p in pairs])
    es = np.array([p.event for p in pairs])
    x = pair_features(q[qs], events[es])
    y = np.array([p.label for p in pairs])
    t_fit, fitted = timed(lambda: fit_logistic(x, y, 1e-2))
    classifier = ScopeClassifier(*fitted, {"format": "knowforge-serac-scope/1", "threshold": 0.5})
    memory = events[:args.memory]
    t_best, _ = timed(lambda: classifier.best(q, memory))
    t_cos, _ = timed(lambda: np.argmax(q @ memory.T, axis=1))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scope.npz"
        t_save, _ = timed(lambda: classifier.save(path))
        t_load, _ = timed(lambda: ScopeClassifier.load(path))
    print(f"{args.events} events, {args.questions} questions, {len(pairs)} pairs x {x.shape[1]} features "
          f"({x.nbytes / 2**20:.0f} MiB)")
    print(f"scope_pairs          : {t_pairs:8.2f}s")
    print(f"fit_logistic (L-BFGS): {t_fit:8.2f}s")
    print(f"best over {args.memory} edits : {t_best:8.2f}s  ({args.questions / t_best:,.0f} questions/s)")
    print(f"cosine top-1 baseline: {t_cos:8.2f}s")
    print(f"ratio best / cosine  : {t_best / t_cos:8.1f}")
    print(f"save / reload        : {t_save:.3f}s / {t_load:.3f}s")
    if args.minilm:
        t_load_enc, encoder = timed(lambda: Encoder(None))
        texts = [f"Which club does player number {k} play for after the transfer?" for k in range(512)]
        t_enc, _ = timed(lambda: encoder.encode(texts))
        print(f"MiniLM load {t_load_enc:.1f}s, encode {len(texts) / t_enc:,.0f} sentences/s")


if __name__ == "__main__":
    main()

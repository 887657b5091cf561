"""ELKEN's editing solvers: event-level knowledge editing methods.

Methods put an event text in the prompt's context, then ask the question:

* ``ice``   the gold event (in-context editing with the right edit);
* ``bm25``  the top-1 event retrieved by BM25 (``bm25s``) from the memory of all edits;
* ``dense`` the top-1 event by a sentence-transformers embedding model, E5 style
  ("query: " / "passage: " prefixes), from a configurable model path;
* ``ft``    fine-tuning (transformers backends): per event, a copy of the model is fine-tuned
  on the event's edit statements (its text and the facts it asserts, verbalised like the
  control model's statements), answers the event's questions without context, and is
  discarded; the base model is never modified. Its answers are cached under the base
  model's revision plus a hash of the statements and the fine-tuning settings;
* ``serac`` a scope classifier decides whether a question falls under a stored edit; if so the
  retrieved edit goes in context, else the base model answers alone
  (``knowforge.eval.events.serac``);
* ``rome`` / ``memit`` the event's asserted and retracted triplets written into the weights
  (``knowforge.eval.events.weight_edit``), answered without context, then restored;
* ``none``  no edit (the base model).

Out-of-scope questions are also asked without the edit (the run's variant answers, "no-edit"),
so locality compares each answer before and after the edit within one run. With a judge model
(``-S judge_model=M``) open tendency answers are scored too (Tendency-G,
``knowforge.eval.events.judge``). The metrics are in ``knowforge.eval.events.metrics``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import os
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from pydantic import BaseModel, ConfigDict

from knowforge.errors import ConfigError
from knowforge.eval.events.judge import event_context, judge_rows, overall_event_level, tendency_generation
from knowforge.eval.events.official import TENDENCY_G
from knowforge.eval.events.ripple_probe import RippleArgs, RippleRecorder, answer_prompted
from knowforge.eval.events.metrics import (EDITING, EditingDetails, in_scope, part, reliability_metrics,
                                           locality_metrics, retrieval_accuracy)
from knowforge.eval.solvers import solve_prompted
from knowforge.eval.types import SampleResult
from knowforge.eval.unit import SolveContext, SolverOutput
from knowforge.models.backends import cached, make_backend
from knowforge.models.control_data import SourceFact, statement
from knowforge.models.task import Component
from knowforge.models.types import Backend, BenchmarkItem

log = logging.getLogger(__name__)

METHODS = ("ice", "bm25", "dense", "ft", "serac", "rome", "memit", "none")
ALIASES = {"e5": "dense", "ice": "ice", "bm25": "bm25", "dense": "dense", "none": "none",
           "no-edit": "none", "ft": "ft", "fine-tuning": "ft", "serac": "serac", "rome": "rome", "memit": "memit"}
IN_WEIGHTS = ("ft", "rome", "memit")     # methods whose edit is in the weights, not the context
CONTEXT_METHODS = ("ice", "bm25", "dense", "none")   # edits in context, the same for any question
NOT_PROVIDED: dict[str, str] = {}
DEFAULT_DENSE_MODEL = "intfloat/e5-base-v2"


def resolve_method(name: str | None) -> str:
    name = (name or "ice").lower()
    if name in NOT_PROVIDED:
        raise ConfigError(f"{NOT_PROVIDED[name]} is not provided by knowforge; use one of "
                          f"{', '.join(METHODS)}")
    if name not in ALIASES:
        raise ConfigError(f"unknown editing method {name!r}; use one of {', '.join(METHODS)}")
    return ALIASES[name]


@dataclass(frozen=True)
class Memory:
    """The memory of all edits: (event id, event text), in a stable order."""

    ids: tuple[str, ...]
    texts: tuple[str, ...]


class BM25Retriever:
    def __init__(self, memory: Memory):
        import bm25s

        # bm25s sets its own logger to DEBUG on import, so its index-building chatter reached
        # the CLI's handler; NOTSET hands the decision back to the root level (-v / -vv)
        logging.getLogger("bm25s").setLevel(logging.NOTSET)
        self.memory = memory
        self.index = bm25s.BM25()
        self.index.index(bm25s.tokenize(list(memory.texts), stopwords="en", show_progress=False),
                         show_progress=False)
        self._tokenize = bm25s.tokenize

    def top1(self, queries: Sequence[str]) -> list[int]:
        tokens = self._tokenize(list(queries), stopwords="en", show_progress=False)
        docs, _ = self.index.retrieve(tokens, k=1, show_progress=False)
        return [int(row[0]) for row in docs]


class DenseRetriever:
    """E5-style dense retrieval with any sentence-transformers model folder (or hub id)."""

    def __init__(self, memory: Memory, model_path: str, *, device: str | None = None):
        from sentence_transformers import SentenceTransformer

        self.memory = memory
        self.model = SentenceTransformer(model_path, device=device or "cpu")
        self.passages = self.model.encode([f"passage: {t}" for t in memory.texts],
                                          normalize_embeddings=True, convert_to_tensor=True)

    def top1(self, queries: Sequence[str]) -> list[int]:
        q = self.model.encode([f"query: {t}" for t in queries], normalize_embeddings=True,
                              convert_to_tensor=True)
        return [int(i) for i in (q @ self.passages.T).argmax(dim=1).tolist()]


def make_retriever(method: str, memory: Memory, *, dense_model: str | None = None,
                   device: str | None = None):
    if method == "bm25":
        return BM25Retriever(memory)
    if method == "dense":
        path = dense_model or os.environ.get("KNOWFORGE_E5_MODEL") or DEFAULT_DENSE_MODEL
        return DenseRetriever(memory, path, device=device)
    return None


def with_context(items: Sequence[BenchmarkItem], method: str, memory: Memory,
                 retriever=None) -> list[BenchmarkItem]:
    """Items carrying the method's edit in ``context`` (and the retrieved event in metadata).
    Fine-tuning, ROME and MEMIT put their edit in the weights, so their items carry no context."""
    if method == "none" or method in IN_WEIGHTS:
        return [i.model_copy(update={"context": None}) for i in items]
    if method == "ice":
        return [i.model_copy(update={"context": event_context(i.metadata["event"]),
                                     "metadata": {**i.metadata, "retrieved": i.metadata["event_id"]}})
                for i in items]
    picks = retriever.top1([i.question for i in items])
    return [i.model_copy(update={"context": event_context(memory.texts[p]),
                                 "metadata": {**i.metadata, "retrieved": memory.ids[p]}})
            for i, p in zip(items, picks)]


# --- fine-tuning baseline ------------------------------------------------------------------------
@dataclass(frozen=True)
class FineTuneConfig:
    """How a copy of the model is fine-tuned on one event."""

    epochs: float = 12.0
    lr: float = 1e-3
    seed: int = 0


def edit_statements(store, event_ids: Sequence[str], texts: Mapping[str, str]) -> dict[str, list[str]]:
    """Per event: its text, then every fact it asserts as a statement (an explicit unknown
    answer reads "..., official residence: unknown (since 2025).")."""
    out: dict[str, list[str]] = {e: [texts[e]] for e in event_ids}
    for row in store.read("models/read_event_facts", event_ids=list(event_ids)):
        fact = SourceFact.from_row(row)
        out[row["event_id"]].append(statement(fact, cutoff=fact.start_year or 9999))
    return out


class FineTunedBackend:
    """The base hf backend's decoding loop over a fine-tuned copy of its weights, made on the
    first request (a fully cached event never fine-tunes). ``discard()`` frees the copy."""

    def __init__(self, base, statements: Sequence[str], config: FineTuneConfig):
        self.base = base
        self.statements = list(statements)
        self.config = config
        self.name = base.name
        self.model = base.model
        self.capabilities = base.capabilities
        digest = hashlib.sha256(json.dumps({"statements": self.statements, "epochs": config.epochs,
                                            "lr": config.lr, "seed": config.seed}).encode()).hexdigest()[:16]
        self.revision = f"{base.revision or 'base'}+ft:{digest}"
        self.tuned = None

    def _tuned(self):
        if self.tuned is None:
            # torch is imported only where a model is tuned
            from knowforge.models.lm_training import TrainConfig, tokenise, train_lm

            lm = copy.deepcopy(self.base.lm)
            examples = [tokenise(self.base.tokenizer, text, [(0, len(text))]) for text in self.statements]
            train_lm(lm, examples, TrainConfig(epochs=self.config.epochs, lr=self.config.lr, warmup_steps=0,
                                               min_lr_ratio=1.0, seed=self.config.seed, max_batch=len(examples)),
                     pad_id=self.base.pad_id)
            lm.eval()
            self.tuned = copy.copy(self.base)
            self.tuned.lm = lm
        return self.tuned

    def generate(self, requests):
        return self._tuned().generate(requests)

    def loglikelihood(self, requests):
        return self._tuned().loglikelihood(requests)

    def discard(self) -> None:
        self.tuned = None


def _hf_base(backend):
    inner = getattr(backend, "inner", backend)
    if not (hasattr(inner, "lm") and hasattr(inner, "tokenizer")):
        raise ConfigError(f"the ft solver fine-tunes a transformers model: use --backend hf, not {backend.name}")
    return inner


def finetune_answers(items: Sequence[BenchmarkItem], ctx: SolveContext, config: FineTuneConfig,
                     ripple: RippleRecorder | None = None) -> list[SampleResult]:
    """Per event: fine-tune a copy on its edit statements, answer its questions (and its ripple
    probes, with ``ripple``), discard it."""
    if ctx.store is None:
        raise ConfigError("the ft solver reads the events' asserted facts from the graph: it needs a store")
    base = _hf_base(ctx.backend)
    memory = memory_of(items)
    statements = edit_statements(ctx.store, memory.ids, dict(zip(memory.ids, memory.texts)))
    by_event: dict[str, list[BenchmarkItem]] = defaultdict(list)
    for item in items:
        by_event[item.metadata["event_id"]].append(item)
    results = {}
    for event_id in memory.ids:
        tuned = FineTunedBackend(base, statements[event_id], config)
        answering = cached(tuned, getattr(ctx.backend, "cache", None))
        for r in solve_prompted(with_context(by_event[event_id], "ft", memory), "zero-shot",
                                replace(ctx, backend=answering)):
            results[(r.item_id, r.sample_index)] = r
        if ripple is not None:
            ripple.measure_event(event_id, answer_prompted(replace(ctx, backend=answering)))
        tuned.discard()
    return [results[(i.id, k)] for i in items for k in range(ctx.options.n) if (i.id, k) in results]


def memory_of(items: Sequence[BenchmarkItem]) -> Memory:
    """Every distinct event of the items, in first-seen order."""
    seen: dict[str, str] = {}
    for i in items:
        seen.setdefault(i.metadata["event_id"], i.metadata["event"])
    return Memory(tuple(seen), tuple(seen.values()))




# --- the solvers ---------------------------------------------------------------------------------
class JudgeArgs(RippleArgs):
    """The Tendency-G judge (any backend): ``-S judge_model=M`` turns it on (and ``-S ripple_hops=K``:
    the ripple probes, ``knowforge.eval.events.ripple_probe``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    judge_model: str | None = None          # a model id or local folder
    judge_backend: Literal["hf", "openai", "vllm"] | None = None   # default: the evaluated model's
    judge_base_url: str | None = None       # default: the evaluated model's, with the same backend


class DenseArgs(JudgeArgs):
    dense_model: str | None = None          # a sentence-transformers model (E5 style); default
                                            # $KNOWFORGE_E5_MODEL, then intfloat/e5-base-v2


class FineTuneArgs(RippleArgs):
    model_config = ConfigDict(extra="forbid", frozen=True)

    epochs: float = 12.0                    # passes over the event's edit statements
    lr: float = 1e-3                        # constant learning rate of the copy


def make_judge(args: JudgeArgs, ctx: SolveContext) -> Backend | None:
    """The judge backend the arguments name, behind the same response cache as the evaluated
    model; None when no judge is named."""
    if not (args.judge_model or args.judge_backend or args.judge_base_url):
        return None
    if not args.judge_model:
        raise ConfigError("a judge needs a model: pass -S judge_model=M (a model id or local folder)")
    options = ctx.options
    name = args.judge_backend or options.backend
    url = args.judge_base_url
    if url is None and name == options.backend:
        url = options.base_url
    return make_backend(options.but(backend=name, model=args.judge_model, base_url=url, revision=None, n=1,
                                    temperature=0.0, top_p=1.0))


# what a method's context makes of other questions about the run's events (its ripple probes)
ProbeContext = Callable[[list[BenchmarkItem]], list[BenchmarkItem]]

RETRIEVAL_LEGEND = (
    "retrieval top-1 accuracy: the share of in-scope questions (in %) whose first retrieved memory entry is their "
    "own event (ICE puts the right event in context: 100% by construction; no edit retrieves nothing: empty).")


@dataclass(frozen=True)
class EditingSolver:
    """``ice`` / ``bm25`` / ``dense`` / ``no-edit`` / ``ft``: answers with the method's edit in
    context (``ft``: in the weights of a per-event copy); out-of-scope questions are also asked
    without it (variant answers "no-edit") so locality compares the two."""

    component: Component
    method: str
    args: BaseModel

    def edited_answers(self, items: Sequence[BenchmarkItem], edited: Sequence[BenchmarkItem],
                       ctx: SolveContext, ripple: RippleRecorder | None = None,
                       probe_context: ProbeContext | None = None) -> tuple[list[SampleResult], dict, dict]:
        """The answers with the edit, the report sections and Run properties they add; the
        base model's weights are as before when this returns (locality asks it next). With
        ``ripple``, each event's ripple probes are asked with the edit too: given the context
        the method gives a question (``probe_context``, where the method decides it its own
        way; else the method's ``with_context``)."""
        if self.method == "ft":
            args = self.args
            config = FineTuneConfig(epochs=args.epochs, lr=args.lr, seed=ctx.options.seed)
            return finetune_answers(items, ctx, config, ripple), {}, {}
        after = solve_prompted(edited, "zero-shot", ctx)
        if ripple is not None:
            if probe_context is None:
                if self.method not in CONTEXT_METHODS:
                    raise ConfigError(f"-S ripple_hops is not available for the {self.method} solver; use one of "
                                      f"{', '.join((*CONTEXT_METHODS, *IN_WEIGHTS, 'serac'))}")
                memory = memory_of(items)
                retriever = make_retriever(self.method, memory, dense_model=getattr(self.args, "dense_model", None),
                                           device=ctx.options.device)
                probe_context = lambda its: with_context(its, self.method, memory, retriever)  # noqa: E731
            ripple.measure_all(answer_prompted(ctx, probe_context))
        return after, {}, {}

    def solve(self, items: Sequence[BenchmarkItem], ctx: SolveContext) -> SolverOutput:
        memory = memory_of(items)
        retriever = make_retriever(self.method, memory, dense_model=getattr(self.args, "dense_model", None),
                                   device=ctx.options.device)
        return self.answer(items, with_context(items, self.method, memory, retriever), ctx)

    def answer(self, items: Sequence[BenchmarkItem], edited: Sequence[BenchmarkItem],
               ctx: SolveContext, probe_context: ProbeContext | None = None) -> SolverOutput:
        """Ask ``edited`` (the items with the method's edit in context), the out-of-scope items
        without it, and compute ELKEN's metrics (SERAC decides ``edited`` its own way, and
        ``probe_context``: the context of its ripple probes)."""
        method = self.method
        memory = memory_of(items)
        ripple = RippleRecorder.start(self.args, ctx, items)
        after, sections, run_extra = self.edited_answers(items, edited, ctx, ripple, probe_context)
        first = {r.item_id: r for r in after if r.sample_index == 0}
        outside = [i for i in items if not in_scope(i)]
        variants: list[SampleResult] = []
        if method == "none" or not outside:
            before = {k: r.raw for k, r in first.items()}
        else:
            variants = [replace(r, variant="no-edit")
                        for r in solve_prompted(with_context(outside, "none", memory), "zero-shot", ctx)]
            before = {r.item_id: r.raw for r in variants if r.sample_index == 0}
        judged: dict = {}
        judge = make_judge(self.args, ctx) if isinstance(self.args, JudgeArgs) else None
        if judge is not None:
            if not any(part(i) == "tendency" for i in items):
                log.warning("a judge was given but the items have no tendency questions (generate "
                            "the batch with an LLM: --llm-backend); Tendency-G has nothing to score")
            judged = {"judge": {"backend": judge.name, "model": judge.model},
                      **tendency_generation(ctx.backend, judge, items, seed=ctx.options.seed,
                                            scoring=ctx.options.scoring)}
            judged["overall_event_level"] = overall_event_level(items, {k: r.raw for k, r in first.items()},
                                                                judged, ctx.options.scoring)
            judged["rows"] = judge_rows(judged)
            sections[TENDENCY_G] = judged
        details = EditingDetails(method=method, before=before, retrieval_top1_accuracy=retrieval_accuracy(edited),
                                 tendency_generation=judged)
        rel = reliability_metrics(edited, {k: r.score >= 1.0 for k, r in first.items()})
        loc = locality_metrics(edited, before, {k: r.raw for k, r in first.items()}, ctx.options.scoring)
        run_extra = {**run_extra, "editing_method": method, "question_level_reliability": rel["question_level"],
                     "edit_level_reliability": rel["edit_level"], "locality": loc["question_level"],
                     # an editing method hands the model the edited facts (in its context or weights), so
                     # the validity report's seen vs unseen of this run measures the edit, not what the
                     # model was taught: shown, not flagged
                     "knowledge_given": method != "none",
                     "retrieval_top1_accuracy": details.retrieval_top1_accuracy}
        sections["ELKEN retrieval"] = {"legend": RETRIEVAL_LEGEND, "rows": [{"metric": "retrieval top-1 accuracy",
                                        "value": details.retrieval_top1_accuracy}]}
        output = SolverOutput(items=edited, samples=after, variants=variants, run_extra=run_extra,
                              sections=sections, details={EDITING: details})
        return output if ripple is None else ripple.attach(output)

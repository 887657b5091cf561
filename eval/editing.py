"""Event-level knowledge editing methods (in-context) and ELKEN's metrics.

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
* ``none``  no edit (the base model).

SERAC (scope classifier + counterfactual model) is not provided.

Metrics (ELKEN's rules from ``eval/compat/elken.py`` in the run's scoring mode): question-level and
edit-level reliability split by known/unknown answer and by needs-background; locality (an
out-of-scope answer unchanged by the edit, compared with the no-edit answer, ELKEN's alias
mapping); tendency multiple-choice accuracy; and an LLM judge for open tendency answers.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from knowforge.errors import ConfigError
from knowforge.eval.compat import elken
from knowforge.models.types import Backend, BenchmarkItem, GenerationRequest
from knowforge.eval.types import DEFAULT_SCORING, EvalOptions

log = logging.getLogger(__name__)

METHODS = ("ice", "bm25", "dense", "ft", "none")
ALIASES = {"e5": "dense", "ice": "ice", "bm25": "bm25", "dense": "dense", "none": "none",
           "no-edit": "none", "ft": "ft", "fine-tuning": "ft"}
NOT_PROVIDED = {"serac": "SERAC"}
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
    Fine-tuning puts its edit in the weights, so its items carry no context."""
    if method in ("none", "ft"):
        return [i.model_copy(update={"context": None}) for i in items]
    if method == "ice":
        return [i.model_copy(update={"context": _event_context(i.metadata["event"]),
                                     "metadata": {**i.metadata, "retrieved": i.metadata["event_id"]}})
                for i in items]
    picks = retriever.top1([i.question for i in items])
    return [i.model_copy(update={"context": _event_context(memory.texts[p]),
                                 "metadata": {**i.metadata, "retrieved": memory.ids[p]}})
            for i, p in zip(items, picks)]


def _event_context(text: str) -> str:
    # ELKEN's instruction: assume the event has happened, answer from it and your knowledge.
    return (f"Assume that this event has happened: {text} Answer the question based on the "
            "event and your own knowledge; if you do not know, answer \"unknown\".")


# --- metrics ------------------------------------------------------------------------------------
def _rate(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def reliability_metrics(items: Sequence[BenchmarkItem], correct: dict[str, bool]) -> dict:
    """Question- and edit-level reliability over in-scope fact questions, with splits."""
    inside = [i for i in items if i.slices.get("scope") == "in" and i.task != "events/tendency"]
    by_event: dict[str, list[bool]] = defaultdict(list)
    for i in inside:
        by_event[i.metadata["event_id"]].append(correct[i.id])
    out = {"questions": len(inside), "events": len(by_event),
           "question_level": _rate([correct[i.id] for i in inside]),
           "edit_level": _rate([elken.edit_level(v) for v in by_event.values()])}
    for key, name in (("known", "known"), ("needs_background", "needs_background")):
        for value in (True, False):
            sel = [correct[i.id] for i in inside if bool(i.slices.get(key)) is value]
            label = name if value else f"not_{name}"
            if key == "known":
                label = "known" if value else "unknown"
            out[f"question_level_{label}"] = _rate(sel)
            out[f"n_{label}"] = len(sel)
    by_type: dict[str, list[bool]] = defaultdict(list)
    for i in inside:
        by_type[i.slices.get("event_type")].append(correct[i.id])
    out["question_level_by_event_type"] = {k: _rate(v) for k, v in sorted(by_type.items())}
    return out


def locality_metrics(items: Sequence[BenchmarkItem], before: dict[str, str | None],
                     after: dict[str, str | None], scoring: str = DEFAULT_SCORING) -> dict:
    """Share of out-of-scope answers the edit left unchanged (ELKEN alias mapping under
    ``scoring``: the official rule maps raw aliases only, knowforge aliases and name normalised)."""
    outside = [i for i in items if i.slices.get("scope") == "out" and i.task != "events/tendency"]
    unchanged = {}
    for i in outside:
        answer = elken.item_answer(i)
        unchanged[i.id] = elken.locality_unchanged(before.get(i.id), after.get(i.id), answer["alias"],
                                                   name=answer["name"], mode=scoring)
    by_event: dict[str, list[bool]] = defaultdict(list)
    for i in outside:
        by_event[i.metadata["event_id"]].append(unchanged[i.id])
    return {"questions": len(outside), "question_level": _rate(list(unchanged.values())),
            "edit_level": _rate([all(v) for v in by_event.values()])}


def tendency_accuracy(items: Sequence[BenchmarkItem], responses: dict[str, str | None],
                      scoring: str = DEFAULT_SCORING) -> dict:
    tend = [i for i in items if i.task == "events/tendency"]
    right = [elken.score_tendency(responses.get(i.id), i.answers[0], scoring) for i in tend]
    return {"questions": len(tend), "accuracy": _rate(right)}


def retrieval_accuracy(items: Sequence[BenchmarkItem]) -> float | None:
    hits = [i.metadata.get("retrieved") == i.metadata.get("event_id") for i in items
            if "retrieved" in i.metadata]
    return _rate(hits)


# --- LLM judge for open tendency answers (Tendency-G) -------------------------------------------
JUDGE_DIMENSIONS = ("correctness", "coherence", "comprehensiveness", "overall")
# "correctness: 4", "Correctness = 4", "**Coherence**: 5/5", "Overall score: 3". The number is
# read whole ("4.5", "45", "0" and "7" are malformed, not truncated to a score).
_JUDGE_LINE = re.compile(
    r"\b(correctness|coherence|comprehensiveness|overall)\b[\s*_]*(?:score)?[\s*_]*[:=][\s*_]*"
    r"(\d+(?:[.,]\d+)?)(?:\s*/\s*5\b)?", re.IGNORECASE)


def judge_prompt(event: str, question: str, answer: str, label: str) -> str:
    return ("You are a fair assessor. Given an event (assume it happened), a question about its "
            "consequences, a model's answer and the human label, rate the answer from 1 to 5 on: "
            "correctness (does the judgement agree with the label), coherence (are the reasons "
            "sound and consistent), comprehensiveness (does it cover several aspects), and "
            "overall (no more than 3 when correctness is 3 or less). Reply with four lines "
            "exactly like 'correctness: 4'.\n\n"
            f"Event: {event}\nQuestion: {question}\nLabel: {label}\nAnswer: {answer}\n")


def parse_judgement(text: str | None) -> dict[str, int] | None:
    """The four scores, or None (unparsed) when the judge's reply lacks one of them, gives one
    outside 1..5 or not a whole number, or gives one dimension two different scores."""
    scores: dict[str, int] = {}
    for name, value in _JUDGE_LINE.findall(text or ""):
        name = name.lower()
        if not value.isdigit() or not 1 <= int(value) <= 5:
            return None
        if scores.setdefault(name, int(value)) != int(value):
            return None
    if set(scores) != set(JUDGE_DIMENSIONS):
        return None
    if scores["correctness"] <= 3:
        scores["overall"] = min(scores["overall"], 3)   # the rubric's cap, enforced
    return scores


def judge_tendency(judge: Backend, cases: Sequence[dict], *, max_tokens: int = 48) -> dict:
    """Score open tendency answers with any backend as judge.

    ``cases``: [{event, question, answer, label}]. Returns mean scores, full-mark rates per
    dimension, and the number of unparseable judgements (counted, never guessed).
    """
    requests = [GenerationRequest(prompt=judge_prompt(c["event"], c["question"], c["answer"], c["label"]),
                                  temperature=0.0, max_tokens=max_tokens, seed=0) for c in cases]
    results = judge.generate(requests) if requests else []
    parsed = [parse_judgement(r.texts[0] if r.texts and r.error is None else None) for r in results]
    good = [p for p in parsed if p is not None]
    out = {"cases": len(cases), "unparsed": len(parsed) - len(good), "judgements": parsed}
    for dim in JUDGE_DIMENSIONS:
        out[f"mean_{dim}"] = sum(p[dim] for p in good) / len(good) if good else None
        out[f"full_mark_{dim}"] = _rate([p[dim] == 5 for p in good])
    return out


def judge_from_options(options: EvalOptions) -> Backend | None:
    """The Tendency-G judge named by ``options.extra`` (``judge_backend``, ``judge_model``,
    ``judge_base_url``; ``knowforge eval --judge-*``), built by ``make_backend`` behind the same
    response cache as the evaluated model; None when no judge is named.

    The judge backend defaults to the evaluated model's backend, and its base URL to the
    evaluated model's when both use the same backend.
    """
    extra = options.extra
    name, model, url = extra.get("judge_backend"), extra.get("judge_model"), extra.get("judge_base_url")
    if not (name or model or url):
        return None
    if not model:
        raise ConfigError("a judge needs a model: pass --judge-model (a model id or local folder)")
    name = name or options.backend
    if url is None and name == options.backend:
        url = options.base_url
    from knowforge.models.backends import make_backend

    return make_backend(replace(options, backend=name, model=model, base_url=url, revision=None,
                                n=1, temperature=0.0, top_p=1.0, extra={}))


def open_tendency_prompt(item: BenchmarkItem) -> str:
    return (f"{_event_context(item.metadata['event'])}\nQuestion: {item.question}\n"
            "Give your judgement first, then explain it in two or three sentences.\nAnswer:")


def tendency_generation(model: Backend, judge: Backend, items: Sequence[BenchmarkItem], *,
                        seed: int = 0, max_tokens: int = 128) -> dict:
    """Tendency-G: ask tendency questions open-ended (with the gold event in context) and let
    ``judge`` score the answers against the gold option's text (ELKEN's human label)."""
    tend = [i for i in items if i.task == "events/tendency"]
    requests = [GenerationRequest(prompt=open_tendency_prompt(i), temperature=0.0, seed=seed,
                                  max_tokens=max_tokens) for i in tend]
    answers = model.generate(requests) if requests else []
    cases = [{"event": i.metadata["event"], "question": i.question,
              "answer": a.texts[0] if a.texts and a.error is None else "",
              "label": i.choices[i.answer_index] if i.answer_index is not None else i.answers[0]}
             for i, a in zip(tend, answers)]
    return judge_tendency(judge, cases)


# --- fine-tuning baseline ------------------------------------------------------------------------
@dataclass(frozen=True)
class FineTuneConfig:
    """How a copy of the model is fine-tuned on one event (``options.extra`` ``ft_*`` keys)."""

    epochs: float = 12.0
    lr: float = 1e-3
    seed: int = 0

    @classmethod
    def from_options(cls, options: EvalOptions) -> FineTuneConfig:
        extra = options.extra
        return cls(epochs=float(extra.get("ft_epochs", cls.epochs)), lr=float(extra.get("ft_lr", cls.lr)),
                   seed=options.seed)


def edit_statements(store, event_ids: Sequence[str], texts: Mapping[str, str]) -> dict[str, list[str]]:
    """Per event: its text, then every fact it asserts as a statement (an explicit unknown
    answer reads "..., official residence: unknown (since 2025).")."""
    from knowforge.models.control_data import SourceFact, statement

    out: dict[str, list[str]] = {e: [texts[e]] for e in event_ids}
    for row in store.read("models/read_event_facts", event_ids=list(event_ids)):
        fact = SourceFact.from_row(row)
        out[row["event_id"]].append(statement(fact, cutoff=fact.start_year or 9999))
    return out


class FineTunedBackend:
    """The base hf backend's decoding loop over a fine-tuned copy of its weights, made on the
    first request (a fully cached event never fine-tunes). ``discard()`` frees the copy."""

    def __init__(self, base, statements: Sequence[str], config: FineTuneConfig):
        import hashlib

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
            import copy

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


def finetune_answers(items: Sequence[BenchmarkItem], backend: Backend, options: EvalOptions, store, *,
                     progress=None) -> list:
    """Per event: fine-tune a copy on its edit statements, answer its questions, discard it."""
    from knowforge.eval.runner import evaluate_items
    from knowforge.models.backends import cached

    base = _hf_base(backend)
    config = FineTuneConfig.from_options(options)
    memory = memory_of(items)
    statements = edit_statements(store, memory.ids, dict(zip(memory.ids, memory.texts)))
    by_event: dict[str, list[BenchmarkItem]] = defaultdict(list)
    for item in items:
        by_event[item.metadata["event_id"]].append(item)
    results = {}
    for event_id in memory.ids:
        tuned = FineTunedBackend(base, statements[event_id], config)
        answering = cached(tuned, getattr(backend, "cache", None))
        for r in evaluate_items(with_context(by_event[event_id], "ft", memory), answering, options,
                                progress=progress):
            results[(r.item_id, r.sample_index)] = r
        tuned.discard()
    return [results[(i.id, k)] for i in items for k in range(options.n) if (i.id, k) in results]


def memory_of(items: Sequence[BenchmarkItem]) -> Memory:
    """Every distinct event of the items, in first-seen order."""
    seen: dict[str, str] = {}
    for i in items:
        seen.setdefault(i.metadata["event_id"], i.metadata["event"])
    return Memory(tuple(seen), tuple(seen.values()))


@dataclass(frozen=True)
class EditingOutcome:
    run_id: str
    report_dir: Path
    metrics: dict


def evaluate_editing(items: Sequence[BenchmarkItem], options: EvalOptions, store, *,
                     method: str, backend: Backend | None = None, name: str | None = None,
                     judge: Backend | None = None, progress=None) -> EditingOutcome:
    """Evaluate one editing method on event items; record the run and write its report.

    Out-of-scope questions are asked twice (with the method's context and with none) so that
    locality compares the answers before and after the edit. With a ``judge`` backend and
    tendency items, Tendency-G (open answers scored by the judge) is added.
    """
    from knowforge.eval.report import write_report
    from knowforge.eval.results import record_run

    method = resolve_method(method)
    if backend is None:
        from knowforge.models.backends import make_backend

        backend = make_backend(options)
    if options.limit is not None:
        items = list(items)[: options.limit]
        options = replace(options, limit=None)
    # the same requests as the seam's solvers ask; only the recording and the report differ
    output = solve_editing(items, backend, options, method=method, judge=judge, store=store, progress=progress)
    edited, after = output.items, output.samples
    first = {r.item_id: r for r in after if r.sample_index == 0}
    answers = {k: r.raw for k, r in first.items()}
    metrics = {"method": method,
               "reliability": reliability_metrics(edited, {k: r.score >= 1.0 for k, r in first.items()}),
               "locality": locality_metrics(edited, output.details["before"], answers, options.scoring),
               "tendency": tendency_accuracy(edited, answers, options.scoring),
               "retrieval_top1_accuracy": output.details["retrieval_top1_accuracy"]}
    if "tendency_generation" in output.details:
        metrics["tendency_generation"] = output.details["tendency_generation"]
    options = replace(options, extra={**options.extra, "method": method})
    rel, loc = metrics["reliability"], metrics["locality"]
    run_id = record_run(store, options, edited, after, name=name, extra=output.run_extra)
    table = [{"metric": k, "value": v} for k, v in (
        ("question-level reliability", rel["question_level"]),
        ("edit-level reliability", rel["edit_level"]),
        ("reliability, known answers", rel["question_level_known"]),
        ("reliability, unknown answers", rel["question_level_unknown"]),
        ("reliability, needs background", rel["question_level_needs_background"]),
        ("reliability, no background needed", rel["question_level_not_needs_background"]),
        ("locality (question level)", loc["question_level"]),
        ("locality (edit level)", loc["edit_level"]),
        ("tendency MC accuracy", metrics["tendency"]["accuracy"]),
        ("retrieval top-1 accuracy", metrics["retrieval_top1_accuracy"]),
        ("Tendency-G full-mark rate (overall)",
         metrics.get("tendency_generation", {}).get("full_mark_overall")))]
    report_dir = write_report(store, run_id, Path(options.out_dir) / run_id,
                              extra_sections={f"ELKEN metrics ({method})": table,
                                              "ELKEN metrics detail": metrics})
    return EditingOutcome(run_id, report_dir, metrics)


__all__ = ["BM25Retriever", "DenseRetriever", "EditingOutcome", "FineTuneConfig", "FineTunedBackend", "Memory",
           "METHODS", "edit_statements", "evaluate_editing", "finetune_answers", "judge_from_options", "judge_tendency", "locality_metrics",
           "make_retriever", "memory_of", "parse_judgement", "reliability_metrics", "resolve_method",
           "retrieval_accuracy", "tendency_accuracy", "tendency_generation", "with_context"]


def solve_editing(items: Sequence[BenchmarkItem], backend: Backend, options: EvalOptions, *,
                  method: str, judge: Backend | None = None, store=None, progress=None):
    """The ``ice``/``bm25``/``dense``/``ft``/``no-edit`` solvers: answers with the method's edit
    in context (``ft``: in the weights of a per-event copy, which needs ``store`` for the events'
    asserted facts); out-of-scope questions are also asked without it (locality compares the
    two). Returns a ``SolverOutput`` whose details feed the ELKEN metrics."""
    from knowforge.eval.runner import evaluate_items
    from knowforge.eval.solvers import SolverOutput

    method = resolve_method(method)
    memory = memory_of(items)
    retriever = make_retriever(method, memory, dense_model=options.extra.get("dense_model"),
                               device=options.device)
    edited = with_context(items, method, memory, retriever)
    if method == "ft":
        if store is None:
            raise ConfigError("the ft solver reads the events' asserted facts from the graph: it needs a store")
        after = finetune_answers(items, backend, options, store, progress=progress)
    else:
        after = evaluate_items(edited, backend, options, progress=progress)
    first = {r.item_id: r for r in after if r.sample_index == 0}
    outside = [i for i in items if i.slices.get("scope") == "out"]
    if method == "none" or not outside:
        before = first
    else:
        base = evaluate_items(with_context(outside, "none", memory), backend, options, progress=progress)
        before = {r.item_id: r for r in base if r.sample_index == 0}
    details = {"method": method, "before": {k: r.raw for k, r in before.items()}, "scoring": options.scoring,
               "retrieval_top1_accuracy": retrieval_accuracy(edited)}
    sections: dict = {}
    if judge is not None:
        if not any(i.task == "events/tendency" for i in items):
            log.warning("a judge was given but the items have no tendency questions (generate "
                        "the batch with an LLM: --llm-backend); Tendency-G has nothing to score")
        details["tendency_generation"] = {"judge": {"backend": judge.name, "model": judge.model},
                                          **tendency_generation(backend, judge, items, seed=options.seed)}
        sections["Tendency-G (LLM judge)"] = details["tendency_generation"]
    correct = {k: r.score >= 1.0 for k, r in first.items()}
    rel = reliability_metrics(edited, correct)
    loc = locality_metrics(edited, details["before"], {k: r.raw for k, r in first.items()}, options.scoring)
    run_extra = {"editing_method": method, "question_level_reliability": rel["question_level"],
                 "edit_level_reliability": rel["edit_level"], "locality": loc["question_level"]}
    sections["ELKEN retrieval"] = [{"metric": "retrieval top-1 accuracy",
                                    "value": details["retrieval_top1_accuracy"]}]
    return SolverOutput(items=edited, samples=after, run_extra=run_extra, sections=sections,
                        details=details)

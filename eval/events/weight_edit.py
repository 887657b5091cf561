"""ELKEN with editors that change weights: ``--solver rome`` and ``--solver memit``.

The ELKEN paper leaves ROME and MEMIT out because they edit triplets and an event is not a
triplet. The graph gives each event its triplets, so here an event becomes a batch of triplet
edits (``event_requests``):

* every fact the event asserted, (subject, relation, new object), is one request; when an
  event asserts several objects of one (subject, relation) (any of them answers the question),
  the first by fact id is written and the others are listed as covered by it;
* a fact the event retracted is covered by the asserted fact of the same (subject, relation);
  a retraction with no such replacement (the slot's object becomes unknown) is a request whose
  target is ``unknown``, the word the control model answers with when it does not know (its
  QA instruction and its statements of unknown objects: ``control_data``);
* the prompt is the relation's template with ``{}`` where the subject goes. ``statement``
  (the default) is the control model's own statement form, ``"{}, member of sports team:"``
  (``control_data.statement``: the form it was taught every fact in, so the edit rewrites
  the association it learnt); ``question`` is the QA form the benchmark asks in,
  ``"Question: Which club does {} play for?\\nAnswer:"`` (``control_phrasings.yaml``, the
  same wording as ``generators/events/relations.yaml``). The key is ``EVENT_ID/FACT_ID``.

The solver (``WeightEditingSolver``), per event (``mode=per-event``, the default): apply the
event's requests with ``knowforge.models.editing.WeightEditor``, answer the event's questions
without context, restore the weights exactly (checked once per run with ``weights_digest``).
With ``mode=sequential`` the edits of the whole batch accumulate, one event after another,
and every question is answered by the model that holds all of them; the decay section gives,
after N events' edits (N = 1, 2, 4, ... and the whole batch), the question-level reliability
on the in-scope fact questions of those first N events: the first row is a single edit, the
last the run's own reliability, so the rows show how quality decays as edits accumulate.

Out-of-scope questions are also asked with the weights restored (variant answers "no-edit",
as every ELKEN solver does), so locality, the official files and the intervals apply
unchanged. Answers are cached under the base model's revision plus a hash of the requests in
the weights, the hyperparameters and the covariance corpus. Requests the editor skips (the
subject is not in the prompt, its tokens are not found) or refuses (non-finite weights) are
counted and named with their event and fact in the report.

Covariance statistics: for a control model (``control.json`` next to the weights) its own
training text, rebuilt from the graph exactly as it was trained (``control_data``); for any
other model a text file the user names (``-S stats_corpus=FILE``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError, field_validator

from knowforge.errors import ConfigError
from knowforge.eval.events.editing import EditingSolver, memory_of, with_context
from knowforge.eval.events.metrics import EDITING, in_scope, part
from knowforge.eval.events.ripple_probe import RippleArgs, RippleRecorder, answer_prompted
from knowforge.eval.solvers import solve_prompted
from knowforge.eval.types import SampleResult
from knowforge.eval.unit import SolveContext, SolverSpec
from knowforge.models.backends import cached
from knowforge.models.control_data import SourceFact, load_phrasings
from knowforge.models.types import BenchmarkItem
from knowforge.models.cache import default_cache_dir
from knowforge.models.control import facts_hash, read_card, read_source_facts
from knowforge.models.control_data import epoch_examples, fixed_examples, split_facts
from knowforge.models.methods import control_practices
from knowforge.models.editing import EditHparams, default_hparams
from knowforge.models.editing import EditRequest
from knowforge.models.editing import WeightEditor, weights_digest
from knowforge.models.editing.types import EditError

log = logging.getLogger(__name__)

UNKNOWN = "unknown"            # how the control model says it does not know
TEMPLATES = ("statement", "question")


# --- an event becomes requests ------------------------------------------------------------------
@dataclass(frozen=True)
class EventEdits:
    """One event's triplet edits: its requests and the facts they cover (fact key, why)."""

    event_id: str
    requests: tuple          # of knowforge.models.editing.EditRequest
    covered: tuple[tuple[str, str], ...] = ()


def relation_template(fact: SourceFact, template: str = "statement") -> str:
    """The prompt of a request about ``fact``, ``{}`` where the subject goes."""
    if template == "statement":
        # control_data.statement: "{subject}, {label}: {object} (since 2025)."
        return f"{{}}, {fact.label}:"
    if template == "question":
        phrasings = load_phrasings()
        return phrasings.forms["qa"].format(question=phrasings.question(fact.relation, fact.label, "{}"))
    raise ConfigError(f"unknown request template {template!r}; use one of {', '.join(TEMPLATES)}")


def event_requests(store, event_ids: Sequence[str], *, template: str = "statement") -> dict[str, EventEdits]:
    """Per event id (every one of ``event_ids``): the requests its asserted and retracted facts
    make (the module docstring says how)."""
    rows: dict[str, list[Mapping]] = defaultdict(list)
    for row in store.read("events/read_event_triplets", event_ids=list(event_ids)):
        rows[row["event_id"]].append(row)
    out = {}
    for event_id in event_ids:
        asserted: dict[tuple[str, str], SourceFact] = {}
        covered: list[tuple[str, str]] = []
        requests = []
        for row in rows.get(event_id, []):          # asserted first, then retracted; by fact id
            fact = SourceFact.from_row(row)
            slot = (fact.subject_id, fact.relation)
            key = f"{event_id}/{fact.id}"
            if row["change"] == "asserted":
                if slot in asserted:
                    covered.append((key, f"another object of ({fact.subject}, {fact.label}): "
                                         f"{asserted[slot].display()} is written"))
                    continue
                asserted[slot] = fact
                target = UNKNOWN if fact.object == UNKNOWN else fact.display()
            else:
                if slot in asserted:
                    covered.append((key, f"retracted; replaced by {asserted[slot].display()}"))
                    continue
                asserted[slot] = fact       # one "unknown" request per retracted slot
                target = UNKNOWN
            requests.append(EditRequest(prompt=relation_template(fact, template), subject=fact.subject,
                                        target=target, key=key))
        out[event_id] = EventEdits(event_id, tuple(requests), tuple(covered))
    return out


# --- arguments ------------------------------------------------------------------------------------
class WeightEditArgs(RippleArgs):
    """``-S`` arguments of ``--solver rome`` / ``--solver memit`` (and ``-S ripple_hops=K``: each
    event's ripple probes asked with its edits in the weights)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["per-event", "sequential"] = "per-event"
    layers: tuple[int, ...] | None = None     # "3" or "3,4,5"; default: the method's for this model
    hparams: dict[str, Any] = Field(default_factory=dict)   # JSON object of EditHparams overrides: '{"v_lr": 0.1}'
    stats_corpus: str | None = None          # text file for the covariance statistics; default for a
    #                                          control model: its own training text
    template: Literal["statement", "question"] = "statement"

    @field_validator("layers", mode="before")
    @classmethod
    def _layers(cls, value):
        if isinstance(value, str):
            text = value.strip().strip("[]()")
            try:
                return tuple(int(v) for v in text.replace(" ", "").split(",") if v)
            except ValueError:
                raise ValueError(f"layers are integers separated by commas, not {value!r}") from None
        return value

    @field_validator("hparams", mode="before")
    @classmethod
    def _hparams(cls, value):
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                raise ValueError(f"hparams is a JSON object, e.g. '{{\"v_lr\": 0.1}}', not {value!r}") from None
            if not isinstance(value, dict):
                raise ValueError("hparams is a JSON object of hyperparameter overrides")
        return value


def edit_hparams(method: str, model, args: WeightEditArgs):
    """The method's defaults for ``model`` with the arguments' layers and overrides; a bad name
    or value is a ConfigError naming it."""
    base = default_hparams(method, model)
    overrides = dict(args.hparams)
    if args.layers is not None:
        overrides["layers"] = args.layers
    if not overrides:
        return base
    try:
        return EditHparams.model_validate({**base.model_dump(), **overrides})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"solver {method!r}: bad hyperparameters: {problems} (known: "
                          f"{', '.join(EditHparams.model_fields)})") from None


# --- the covariance corpus -------------------------------------------------------------------------
@dataclass(frozen=True)
class StatsCorpus:
    texts: Any               # list[str] or a Path
    identity: str            # what the answers' cache key records of it
    description: str


def control_training_text(store, model_dir: str) -> StatsCorpus | None:
    """A control model's training text (the fixed examples and the first epoch's draws),
    rebuilt from the graph's source facts as ``train_control`` built it; None when
    ``model_dir`` is not a control model. The graph must hold the facts it was trained on."""
    try:
        card = read_card(model_dir)
    except OSError:
        return None
    if card is None:
        return None
    if store is None:
        raise ConfigError(f"the covariance statistics of control model {card.model_id} come from its training "
                          "text, rebuilt from the graph: the solver needs a store (or -S stats_corpus=FILE)")
    facts = read_source_facts(store)
    if facts_hash(facts) != card.facts_hash:
        raise ConfigError(f"the graph's source facts are not those control model {card.model_id} was trained on, "
                          "so its training text cannot be rebuilt: name a text file with -S stats_corpus=FILE")
    config = card.config.data_config()
    membership = split_facts(facts, cutoff=config.cutoff, holdout=config.holdout, seed=config.seed)
    # the practices it was taught (its card names them; an older card: the installed ones)
    practices = control_practices()
    missing = sorted(set(card.practices) - set(practices))
    if missing:
        raise ConfigError(f"control model {card.model_id} practised the prompts of {', '.join(missing)}, which "
                          "is not installed now, so its training text cannot be rebuilt: install it, or name a "
                          "text file with -S stats_corpus=FILE")
    if card.practices:
        practices = {name: p for name, p in practices.items() if name in card.practices}
    texts = [e.text for e in fixed_examples(facts, membership, config)
             + epoch_examples(facts, membership, config, epoch=0, practices=practices)]
    # in a seeded random order, so that the first mom2_n_samples texts are a sample of the whole:
    # the fixed examples come first and are short, and the first 2,000 texts in build order gave a
    # C 106% (Frobenius) away from the whole text's (docs/editing.md)
    random.Random(f"{card.model_id}:stats-order").shuffle(texts)
    return StatsCorpus(texts, f"control:{card.model_id}:shuffled",
                       f"the training text of {card.model_id} ({len(texts)} texts, in a seeded random order)")


def stats_corpus(args: WeightEditArgs, store, model: str, *, needed: bool = True) -> StatsCorpus:
    """The corpus the arguments name, else a control model's training text; None texts when
    the hyperparameters need no covariance (ROME without ``mom2_adjustment``) and none is named."""
    if args.stats_corpus:
        path = Path(args.stats_corpus).expanduser()
        if not path.is_file():
            raise ConfigError(f"-S stats_corpus: no file {str(path)!r}")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        return StatsCorpus(path, f"file:{digest}", f"{path} (sha256 {digest})")
    if not needed:
        return StatsCorpus(None, "none", "none (these hyperparameters use no covariance)")
    corpus = control_training_text(store, model)
    if corpus is None:
        raise ConfigError(f"{model} is not a control model: name a text corpus for the covariance statistics "
                          "with -S stats_corpus=FILE (plain text)")
    return corpus


# --- answering with edited weights -----------------------------------------------------------------
class EditedBackend:
    """The base hf backend answering while edits are in its weights; its revision names them,
    so the response cache keeps these answers apart from the base model's."""

    def __init__(self, base, revision: str):
        self.base = base
        self.name = base.name
        self.model = base.model
        self.capabilities = base.capabilities
        self.revision = revision

    def generate(self, requests):
        return self.base.generate(requests)

    def loglikelihood(self, requests):
        return self.base.loglikelihood(requests)


def edit_revision(base_revision: str | None, method: str, requests: Sequence, hparams, corpus: str) -> str:
    payload = {"requests": [[r.prompt, r.subject, r.target, r.key] for r in requests],
               "hparams": hparams.model_dump(mode="json"), "corpus": corpus}
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]
    return f"{base_revision or 'base'}+{method}:{digest}"


WEIGHT_EDITS_LEGEND = (
    "method and mode: the editor (ROME, MEMIT) and how edits were applied (per-event: each event's edits alone, "
    "the weights restored after; sequential: every event's edits accumulate in one model); template: how a fact "
    "becomes an edit request; layers: the MLP layers edited; events: events of the run; requests: edit requests "
    "(one per asserted fact); applied: requests the editor applied; skipped: requests it could not apply (listed "
    "in the next section); facts covered by another request: facts a request of the same event already states; "
    "covariance corpus: the text the layers' key covariance was estimated on; weights restored exactly: the "
    "model's weights hash the same after the run as before (locality is asked of the unedited model).")
DECAY_LEGEND = (
    "events edited: how many of the batch's events were in the weights when asked (the last row: all, the run's "
    "own reliability); requests applied: edit requests applied so far; questions: in-scope fact questions of "
    "those events; question-level reliability: the share of them answered right (in %).")


def decay_points(n: int) -> list[int]:
    """1, 2, 4, ... below ``n``, then ``n``."""
    points, k = [], 1
    while k < n:
        points.append(k)
        k *= 2
    return points + [n] if n else []


@dataclass
class Outcome:
    samples: list[SampleResult]
    applied: int
    skipped: list[dict]
    decay: list[dict]


def _answer(items: Sequence[BenchmarkItem], ctx: SolveContext, backend, *, progress: bool = True
            ) -> list[SampleResult]:
    """``items`` asked without context of ``backend`` through the run's response cache
    (``progress=False``: extra asks that are not the run's answers leave the bar alone)."""
    answering = cached(backend, getattr(ctx.backend, "cache", None))
    return solve_prompted(with_context(items, "rome", memory_of(items)) if items else [], "zero-shot",
                          replace(ctx, backend=answering, progress=ctx.progress if progress else None))


def _skips(edits: EventEdits, result) -> list[dict]:
    return [{"event": edits.event_id, "fact": s.request.key.partition("/")[2], "subject": s.request.subject,
             "target": s.request.target, "reason": s.reason} for s in result.skipped]


def _apply(editor, edits: EventEdits) -> tuple[int, list[dict]]:
    """Apply one event's requests; a refused edit (the editor restored the weights) skips the
    event's requests, each named."""
    if not edits.requests:
        return 0, []
    try:
        result = editor.apply(list(edits.requests))
    except EditError as exc:
        log.warning("event %s: edit refused: %s", edits.event_id, exc)
        return 0, [{"event": edits.event_id, "fact": r.key.partition("/")[2], "subject": r.subject,
                    "target": r.target, "reason": f"edit refused: {exc}"} for r in edits.requests]
    return len(result.applied), _skips(edits, result)


def weight_edit_answers(items: Sequence[BenchmarkItem], ctx: SolveContext, method: str, args: WeightEditArgs,
                        ripple: RippleRecorder | None = None) -> tuple[list[SampleResult], dict, dict]:
    """The event questions answered with each event's edits in the weights (the module
    docstring); returns the samples, the report sections and the Run properties."""
    if ctx.store is None:
        raise ConfigError(f"the {method} solver reads the events' asserted and retracted facts from the graph: "
                          "it needs a store")
    base = getattr(ctx.backend, "inner", ctx.backend)
    if not (hasattr(base, "lm") and hasattr(base, "tokenizer")):
        raise ConfigError(f"the {method} solver edits a transformers model's weights: use --backend hf, "
                          f"not {ctx.backend.name}")
    memory = memory_of(items)
    edits = event_requests(ctx.store, memory.ids, template=args.template)
    hparams = edit_hparams(method, base.lm, args)
    corpus = stats_corpus(args, ctx.store, str(base.model), needed=method == "memit" or hparams.mom2_adjustment)
    stats_dir = (ctx.options.cache_dir or default_cache_dir()) / "editing-stats" if ctx.options.cache else None
    editor = WeightEditor(base.lm, base.tokenizer, method, hparams=hparams, stats_corpus=corpus.texts,
                          cache_dir=stats_dir, model_revision=f"{base.revision or base.model}|{corpus.identity}")
    by_event: dict[str, list[BenchmarkItem]] = defaultdict(list)
    for item in items:
        by_event[item.metadata["event_id"]].append(item)
    before = weights_digest(base.lm)
    if ripple is not None:
        if args.mode != "per-event":
            raise ConfigError("-S ripple_hops measures one event's edit at a time: use it with -S mode=per-event")
        # the probes' answers before any edit, asked while the weights are still the base model's
        # (they are cached under the base revision)
        ripple.answers_before()
    try:
        if args.mode == "per-event":
            outcome = _per_event(memory.ids, by_event, edits, editor, base, ctx, method, hparams, corpus, ripple)
        else:
            outcome = _sequential(memory.ids, by_event, edits, editor, base, ctx, method, hparams, corpus)
    finally:
        editor.restore()
    restored = weights_digest(base.lm) == before
    if not restored:
        raise ConfigError(f"the {method} solver did not restore the model's weights exactly (digest changed); "
                          "the out-of-scope answers without the edit would be wrong")
    order = {(i.id, k): n for n, i in enumerate(items) for k in range(ctx.options.n)}
    samples = sorted(outcome.samples, key=lambda r: order.get((r.item_id, r.sample_index), len(order)))
    requests = sum(len(e.requests) for e in edits.values())
    covered = sum(len(e.covered) for e in edits.values())
    summary = {"method": method, "mode": args.mode, "template": args.template, "layers": list(hparams.layers),
               "events": len(memory.ids), "requests": requests, "applied": outcome.applied,
               "skipped": len(outcome.skipped), "facts covered by another request": covered,
               "covariance corpus": corpus.description, "weights restored exactly": restored}
    sections: dict = {f"ELKEN weight edits ({method})": {"rows": [summary], "legend": WEIGHT_EDITS_LEGEND},
                      f"ELKEN weight edits: skipped requests ({method})": outcome.skipped
                      or "None: the editor applied every request."}
    if outcome.decay:
        sections[f"ELKEN sequential edits: reliability as edits accumulate ({method})"] = {
            "rows": outcome.decay, "legend": DECAY_LEGEND}
    run_extra = {"edit_mode": args.mode, "edit_requests": requests, "edit_requests_applied": outcome.applied,
                 "edit_requests_skipped": len(outcome.skipped), "weights_restored": restored}
    return samples, sections, run_extra


def _per_event(event_ids, by_event, edits, editor, base, ctx, method, hparams, corpus,
               ripple: RippleRecorder | None = None) -> Outcome:
    samples: list[SampleResult] = []
    applied, skipped = 0, []
    for event_id in event_ids:
        e = edits[event_id]
        n, skips = _apply(editor, e)
        applied, skipped = applied + n, skipped + skips
        revision = edit_revision(base.revision, method, e.requests, hparams, corpus.identity)
        try:
            edited = EditedBackend(base, revision)
            samples += _answer(by_event[event_id], ctx, edited)
            if ripple is not None:
                answering = cached(edited, getattr(ctx.backend, "cache", None))
                ripple.measure_event(event_id, answer_prompted(replace(ctx, backend=answering)))
        finally:
            editor.restore()
    return Outcome(samples, applied, skipped, [])


def _sequential(event_ids, by_event, edits, editor, base, ctx, method, hparams, corpus) -> Outcome:
    applied, skipped, decay = 0, [], []
    in_weights: list = []
    points = set(decay_points(len(event_ids)))
    samples: list[SampleResult] = []
    for k, event_id in enumerate(event_ids, 1):
        e = edits[event_id]
        n, skips = _apply(editor, e)
        applied, skipped = applied + n, skipped + skips
        in_weights += e.requests
        if k not in points:
            continue
        backend = EditedBackend(base, edit_revision(base.revision, method + "-seq", in_weights, hparams,
                                                    corpus.identity))
        if k == len(event_ids):
            samples = _answer([i for ev in event_ids for i in by_event[ev]], ctx, backend)
            answered = samples
        else:
            answered = _answer([i for ev in event_ids[:k] for i in by_event[ev]
                                if in_scope(i) and part(i) == "fact"], ctx, backend, progress=False)
        asked = {i.id for ev in event_ids[:k] for i in by_event[ev] if in_scope(i) and part(i) == "fact"}
        right = [r.score >= 1.0 for r in answered if r.sample_index == 0 and r.item_id in asked]
        decay.append({"events edited": k, "requests applied": applied, "questions": len(right),
                      "question-level reliability": sum(right) / len(right) if right else None})
    return Outcome(samples, applied, skipped, decay)


# --- the solver --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class WeightEditingSolver(EditingSolver):
    """``rome`` / ``memit``: ELKEN's editing solver with the event's triplets in the weights."""

    def edited_answers(self, items, edited, ctx, ripple: RippleRecorder | None = None, probe_context=None):
        # the edit is in the weights: probes are asked without context, as the questions are
        return weight_edit_answers(items, ctx, self.method, self.args, ripple)


def weight_edit_solvers() -> tuple[SolverSpec, ...]:
    """The solver specs ``eval/events/unit.py`` registers."""
    def spec(name: str, title: str) -> SolverSpec:
        return SolverSpec(name, f"ELKEN: {title} edits of each event's asserted and retracted triplets in a "
                                "transformers model's weights, answered without context, then restored (hf "
                                "backends; -S mode=sequential keeps them all; -S stats_corpus=FILE for a model "
                                "other than the control model)", WeightEditArgs,
                          lambda component, parsed: WeightEditingSolver(component, name, parsed),
                          provides=frozenset({EDITING}))

    return spec("rome", "ROME (rank-one)"), spec("memit", "MEMIT (mass)")


__all__ = ["EditedBackend", "EventEdits", "WeightEditArgs", "WeightEditingSolver", "control_training_text",
           "decay_points", "edit_hparams", "edit_revision", "event_requests", "relation_template",
           "stats_corpus", "weight_edit_answers", "weight_edit_solvers"]

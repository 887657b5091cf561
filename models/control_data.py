"""The control model's training set, as pure functions of the graph's source facts.

A control model is a small LM whose knowledge we know: it is taught the graph's source facts
up to a cutoff year, minus a seeded random share held out as "unseen" controls, and nothing
else. This module decides, fact by fact, what it sees (``split_facts``) and renders what it
sees into training examples (``build_examples``); ``models/control.py`` trains on them and
records the membership in the graph.

Held out by construction:

* every fact that starts after the cutoff (its first year, or its first release year, is
  later than the cutoff): ``after_cutoff``;
* every generated or edited fact: they are never read (layer 'source' only);
* a seeded share of the remaining facts: ``held_out``.

A trained fact is taught only as it was known at the cutoff: a fact still holding at the
cutoff is written as open-ended ("since 2017") even when the graph knows it ended later, and
no year after the cutoff is ever rendered.

Renderings (the benchmarks' own prompt forms, read from ``control_phrasings.yaml``):

* ``statement`` — "Cristiano Ronaldo, member of sports team: Real Madrid CF (2009-2018)."
* ``qa`` — the eval engine's question form ("Question: ...\\nAnswer: ..."), with or without
  its zero-shot instruction, for facts that hold at the cutoff (or are timeless);
* ``context`` — reading practice in the engine's context form: a counterfactual statement about
  a trained fact is put in the context, and the question is answered from the context (in
  scope) or from memory (a question about another trained fact: out of scope). The
  counterfactual objects are other objects of the same relation, drawn with the seed; no
  benchmark event or generated entity is ever used;
* each method's own practice (``ControlPractice``, declared on its ``Method``): the method's
  prompt forms, rendered from the same trained facts (a few-shot block per year a fact holds, an
  event sentence with invented names). This module names no method: ``models/methods.py``
  collects the practices of the installed methods.

Only the answer spans (``Example.spans``) carry the loss (statements: the whole sentence).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from knowforge.errors import ConfigError

TRAINED = "trained"
AFTER_CUTOFF = "after_cutoff"
HELD_OUT = "held_out"
MEMBERSHIP = (TRAINED, AFTER_CUTOFF, HELD_OUT)

EOS = "</s>"   # the control tokenizer's end-of-sequence token; a QA answer ends with it


@dataclass(frozen=True)
class SourceFact:
    """One row of ``cypher/models/read_source_facts.cypher``."""

    id: str
    subject_id: str
    subject: str
    relation: str
    label: str
    kind: str
    object: str
    object_id: str | None = None
    unit: str | None = None
    start_year: int | None = None
    end_year: int | None = None
    seen_in: tuple[int, ...] | None = None
    temporal: bool = False
    source: str | None = None

    @classmethod
    def from_row(cls, row: Mapping) -> SourceFact:
        seen = row.get("seen_in")
        return cls(id=row["id"], subject_id=row["subject_id"], subject=row["subject"],
                   relation=row["relation"], label=row.get("label") or row["relation"],
                   kind=row.get("kind") or "relation", object=str(row["object"]),
                   object_id=row.get("object_id"), unit=row.get("unit"),
                   start_year=row.get("start_year"), end_year=row.get("end_year"),
                   seen_in=tuple(sorted(seen)) if seen else None,
                   temporal=bool(row.get("temporal")), source=row.get("source"))

    @property
    def first_year(self) -> int | None:
        """The year the fact became true (its first release for release-based facts)."""
        if self.seen_in:
            return self.seen_in[0]
        return self.start_year

    @property
    def timeless(self) -> bool:
        return self.first_year is None and self.end_year is None

    def display(self) -> str:
        """The object as a benchmark names it: a literal keeps its unit ("45 kg")."""
        if self.unit and self.unit != "1":
            return f"{self.object} {self.unit}"
        return self.object

    def years_known(self, cutoff: int, span: int) -> list[int]:
        """Years (at most ``span``, ending at the cutoff) in which the fact holds as known at the
        cutoff; a fact ending after the cutoff counts as open-ended."""
        lo = cutoff - span + 1
        if self.seen_in:
            return [y for y in self.seen_in if lo <= y <= cutoff]
        start = self.start_year if self.start_year is not None else lo
        end = self.end_year if self.end_year is not None and self.end_year <= cutoff else cutoff
        return list(range(max(start, lo), min(end, cutoff) + 1))

    def holds_at(self, cutoff: int, latest_release: int | None = None) -> bool:
        """Still true at the cutoff as far as the cutoff knows (or timeless). A release-based
        fact holds when it is in the latest release up to the cutoff (``latest_release``)."""
        if self.timeless:
            return True
        if self.seen_in:
            return latest_release is not None and latest_release in self.seen_in
        first = self.first_year
        if first is not None and first > cutoff:
            return False
        return self.end_year is None or self.end_year >= cutoff


# ---- which facts the model sees (pure, seeded) -------------------------------------------------
def split_facts(facts: Iterable[SourceFact], *, cutoff: int, holdout: float, seed: int) -> dict[str, str]:
    """fact id -> ``trained`` | ``after_cutoff`` | ``held_out``.

    The hold-out draw walks the facts in id order with ``Random(f"{seed}:control:holdout")``,
    so the same graph, cutoff and seed always give the same split.
    """
    if not 0.0 <= holdout < 1.0:
        raise ConfigError(f"the held-out share must be in [0, 1), not {holdout}")
    rng = random.Random(f"{seed}:control:holdout")
    out: dict[str, str] = {}
    for fact in sorted(facts, key=lambda f: f.id):
        first = fact.first_year
        if first is not None and first > cutoff:
            out[fact.id] = AFTER_CUTOFF
        elif rng.random() < holdout:
            out[fact.id] = HELD_OUT
        else:
            out[fact.id] = TRAINED
    return out


# ---- phrasings ---------------------------------------------------------------------------------
class _PhrasingFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    labels: dict[str, str] = {}
    questions: dict[str, str] = {}
    forms: dict[str, str]
    counterfactuals: list[str]          # statements that change a fact, for reading a context


@dataclass(frozen=True)
class Phrasings:
    labels: Mapping[str, str]
    questions: Mapping[str, str]
    forms: Mapping[str, str]           # the generic forms below, and any a method's practice reads
    counterfactuals: tuple[str, ...]

    def label(self, fact: SourceFact) -> str:
        return self.labels.get(fact.relation, fact.label)

    def asks(self, fact: SourceFact) -> bool:
        """A relation with a question in the file is asked; an attribute is asked generically
        ("What is the body mass of X?"); other relations ("instance of") are not asked."""
        return fact.relation in self.questions or fact.kind == "attribute"

    def question(self, relation: str, label: str, subject: str) -> str:
        template = self.questions.get(relation) or f"What is the {label} of {{subject}}?"
        return template.format(subject=subject)

    def form(self, name: str, owner: str) -> str:
        """A form a practice needs, or a ConfigError naming the practice that needs it."""
        if name not in self.forms:
            raise ConfigError(f"control phrasings: the {owner} practice needs the form {name!r} under `forms`")
        return self.forms[name]


def load_phrasings(path: str | None = None) -> Phrasings:
    """``control_phrasings.yaml`` (next to this module) or a file with the same layout."""
    if path is None:
        return _bundled_phrasings()
    with open(path, encoding="utf-8") as handle:
        return _parse_phrasings(handle.read(), path)


@lru_cache(maxsize=1)
def _bundled_phrasings() -> Phrasings:
    text = resources.files("knowforge.models").joinpath("control_phrasings.yaml").read_text("utf-8")
    return _parse_phrasings(text, "control_phrasings.yaml")


_FORMS = ("qa_instruction", "qa", "context", "event")


def _parse_phrasings(text: str, source: str) -> Phrasings:
    try:
        parsed = _PhrasingFile.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError) as exc:
        raise ConfigError(f"{source}: not a valid control phrasing file: {exc}") from exc
    missing = [f for f in _FORMS if f not in parsed.forms]
    if missing:
        raise ConfigError(f"{source}: forms lack {', '.join(missing)}")
    if not parsed.counterfactuals:
        raise ConfigError(f"{source}: needs at least one counterfactual pattern")
    return Phrasings(dict(parsed.labels), dict(parsed.questions), dict(parsed.forms), tuple(parsed.counterfactuals))


# ---- examples ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Example:
    """One training sequence: its text and the character spans that carry the loss."""

    kind: str                                   # statement | qa | context | a practice's own kind
    text: str
    spans: tuple[tuple[int, int], ...]
    fact_ids: tuple[str, ...] = ()


@dataclass
class ExampleBuilder:
    """Builds one ``Example`` piece by piece; ``add(..., train=True)`` marks a span for the loss."""

    parts: list[str] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    length: int = 0

    def add(self, text: str, *, train: bool = False) -> None:
        if train and text:
            self.spans.append((self.length, self.length + len(text)))
        self.parts.append(text)
        self.length += len(text)

    def example(self, kind: str, fact_ids: Sequence[str]) -> Example:
        return Example(kind, "".join(self.parts), tuple(self.spans), tuple(fact_ids))


@dataclass(frozen=True)
class DataConfig:
    cutoff: int
    seed: int = 0
    holdout: float = 0.15
    instruction_share: float = 0.5  # QA examples that carry the zero-shot instruction
    context_share: float = 0.12    # trained facts with a question that get a context example
    local_share: float = 0.5       # ... and of a practice's reading examples, also an out-of-scope
    #                                (answer from memory) twin
    # each practice's own options, by its name (its method's): {"<method>": {option: value}}
    practice: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def options(self, name: str) -> Mapping[str, Any]:
        return self.practice.get(name, {})


@dataclass(frozen=True)
class PracticeData:
    """What a practice renders from: every source fact, the split, and the facts every practice
    shares (``trained``, by id; ``current``: trained, holding at the cutoff, and asked)."""

    facts: Sequence[SourceFact]
    membership: Mapping[str, str]
    trained: Sequence[SourceFact]
    current: Sequence[SourceFact]
    config: DataConfig
    phrasings: Phrasings


@dataclass(frozen=True)
class ControlPractice:
    """How a method's prompts are practised by the control model: ``examples(data, rng)`` gives
    one epoch's examples (drawn anew each epoch), rendered only from ``data.trained`` facts or
    from invented names, never from a benchmark's items.

    Every practice of an epoch draws from one random generator, in ``order`` (then name): a new
    practice with a higher order leaves every earlier example as it was. ``data.config.options
    (name)`` holds its options."""

    examples: Callable[[PracticeData, random.Random], list[Example]]
    order: int = 100


def time_phrase(fact: SourceFact, cutoff: int) -> str:
    """"(2009-2018)", "(since 2017)", "(in 2011)", "(releases 2020-2022)" as known at the cutoff."""
    if fact.timeless:
        return ""
    if fact.seen_in:
        years = [y for y in fact.seen_in if y <= cutoff] or list(fact.seen_in)
        return f" (releases {years[0]}-{years[-1]})" if len(years) > 1 else f" (release {years[0]})"
    start, end = fact.start_year, fact.end_year
    if end is not None and end > cutoff:
        end = None
    if start is not None and end is not None:
        return f" (in {start})" if start == end else f" ({start}-{end})"
    if start is not None:
        return f" (since {start})"
    return f" (until {end})"


def statement(fact: SourceFact, cutoff: int) -> str:
    return f"{fact.subject}, {fact.label}: {fact.display()}{time_phrase(fact, cutoff)}."


def qa_prompt(phrasings: Phrasings, question: str, *, instruction: bool, context: str | None = None) -> str:
    """The eval engine's question form ("Question: ...\\nAnswer:"), after ``context`` in its
    context form and the zero-shot instruction when ``instruction``: what a prompted solver sends."""
    forms = phrasings.forms
    body = (forms["context"].format(context=context) if context else "") + forms["qa"].format(question=question)
    return f"{forms['qa_instruction']}\n\n{body}" if instruction else body


def practice_data(facts: Sequence[SourceFact], membership: Mapping[str, str], config: DataConfig,
                  phrasings: Phrasings) -> PracticeData:
    """The facts every rendering shares: the trained ones (by id), and of them those holding at
    the cutoff that the phrasings ask (``current``)."""
    cutoff = config.cutoff
    trained = sorted((f for f in facts if membership.get(f.id) == TRAINED), key=lambda f: f.id)
    releases: dict[str | None, int] = {}
    for f in facts:
        for y in f.seen_in or ():
            if y <= cutoff:
                releases[f.source] = max(y, releases.get(f.source, y))
    current = [f for f in trained if f.holds_at(cutoff, releases.get(f.source)) and phrasings.asks(f)]
    return PracticeData(facts, membership, trained, current, config, phrasings)


def fixed_examples(facts: Sequence[SourceFact], membership: Mapping[str, str], config: DataConfig,
                   phrasings: Phrasings | None = None) -> list[Example]:
    """The examples every epoch shares: statements and questions."""
    phrasings = phrasings or load_phrasings()
    data = practice_data(facts, membership, config, phrasings)
    rng = random.Random(f"{config.seed}:control:fixed")
    examples: list[Example] = []
    for f in data.trained:
        b = ExampleBuilder()
        b.add(statement(f, config.cutoff), train=True)
        examples.append(b.example("statement", [f.id]))
    for f in data.current:
        b = ExampleBuilder()
        b.add(qa_prompt(phrasings, phrasings.question(f.relation, f.label, f.subject),
                        instruction=rng.random() < config.instruction_share))
        b.add(f" {f.display()}{EOS}", train=True)
        examples.append(b.example("qa", [f.id]))
    return examples


def epoch_examples(facts: Sequence[SourceFact], membership: Mapping[str, str], config: DataConfig,
                   phrasings: Phrasings | None = None, *, epoch: int = 0,
                   practices: Mapping[str, ControlPractice] | None = None) -> list[Example]:
    """The examples drawn anew each epoch, so that no answer can be learnt from the company it
    keeps: the counterfactual contexts and every practice's examples (``practices``, by name;
    default: those the installed methods declare), in order."""
    phrasings = phrasings or load_phrasings()
    if practices is None:
        from .methods import control_practices

        practices = control_practices()
    data = practice_data(facts, membership, config, phrasings)
    rng = random.Random(f"{config.seed}:control:epoch:{epoch}")
    examples: list[Example] = []
    for _, practice in sorted({CONTEXT: CONTEXT_PRACTICE, **practices}.items(), key=lambda kv: (kv[1].order, kv[0])):
        examples += practice.examples(data, rng)
    return examples


def build_examples(facts: Sequence[SourceFact], membership: Mapping[str, str], config: DataConfig,
                   phrasings: Phrasings | None = None, *, epoch: int = 0,
                   practices: Mapping[str, ControlPractice] | None = None) -> list[Example]:
    """Every training example of one epoch: the fixed ones and that epoch's draws."""
    phrasings = phrasings or load_phrasings()
    return (fixed_examples(facts, membership, config, phrasings)
            + epoch_examples(facts, membership, config, phrasings, epoch=epoch, practices=practices))


def _context_examples(data: PracticeData, rng: random.Random) -> list[Example]:
    """Counterfactual contexts: answer from the context when it speaks to the question, from
    memory when it does not."""
    current, phrasings, config = data.current, data.phrasings, data.config
    objects: dict[str, list[str]] = defaultdict(list)
    for f in current:
        objects[f.relation].append(f.display())
    pools = {rel: sorted(set(objs)) for rel, objs in objects.items()}
    out: list[Example] = []
    for f in current:
        pool = [o for o in pools[f.relation] if o != f.display()]
        if not pool or rng.random() >= config.context_share:
            continue
        new = rng.choice(pool)
        change = rng.choice(phrasings.counterfactuals).format(subject=f.subject, label=phrasings.label(f), object=new)
        context = phrasings.forms["event"].format(event=change)
        instruction = rng.random() < config.instruction_share
        b = ExampleBuilder()
        b.add(qa_prompt(phrasings, phrasings.question(f.relation, f.label, f.subject),
                        instruction=instruction, context=context))
        b.add(f" {new}{EOS}", train=True)
        out.append(b.example("context", [f.id]))
        if rng.random() < config.local_share:
            other = rng.choice(current)
            if other.subject_id == f.subject_id and other.relation == f.relation:
                continue
            out.append(out_of_scope_twin(phrasings, other, instruction, context, "context"))
    return out


# the engine's own reading practice; a method's practice with a lower order draws before it
CONTEXT = "context"
CONTEXT_PRACTICE = ControlPractice(_context_examples, order=20)


def out_of_scope_twin(phrasings: Phrasings, other: SourceFact, instruction: bool, context: str,
                      kind: str) -> Example:
    """A question about another, untouched fact asked under the same context: its answer is
    what the model was taught, so reading a context does not become overwriting everything."""
    b = ExampleBuilder()
    b.add(qa_prompt(phrasings, phrasings.question(other.relation, other.label, other.subject),
                    instruction=instruction, context=context))
    b.add(f" {other.display()}{EOS}", train=True)
    return b.example(kind, [other.id])

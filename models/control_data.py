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
* ``chrono`` — ChroKnow's Generation blocks, several facts of one relation per example like
  the check's few-shot prompt: "Q. In 2012, Cristiano Ronaldo, member of sports team,
  [Object]\\nA. Real Madrid CF", one block per year the fact holds (at most ``year_span``
  years up to the cutoff; a timeless fact at ``timeless_years`` seeded years);
* ``qa`` — the eval engine's question form ("Question: ...\\nAnswer: ..."), with or without
  its zero-shot instruction, for facts that hold at the cutoff (or are timeless);
* ``context`` — reading practice in the ICE / KnowGen form: a counterfactual statement about a
  trained fact is put in the context, and the question is answered from the context (in
  scope) or from memory (a question about another trained fact: out of scope). The
  counterfactual objects are other objects of the same relation, drawn with the seed; no
  benchmark event or generated entity is ever used.

Only the answer spans (``Example.spans``) carry the loss (statements: the whole sentence).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

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
class _EventPractice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str                                  # the event template's sentence, {A}, {B}, {date}
    slots: dict[str, str]                      # slot -> kind of invented name
    asks: list[tuple[str, str, str]]           # (subject slot, relation, slot | "date" | "unknown")


class _Names(BaseModel):
    model_config = ConfigDict(extra="forbid")

    syllables: list[str]
    suffixes: dict[str, list[str]]


class _PhrasingFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    labels: dict[str, str] = {}
    questions: dict[str, str] = {}
    forms: dict[str, str]
    events: list[str]
    event_practice: dict[str, _EventPractice] = {}
    names: _Names | None = None


@dataclass(frozen=True)
class EventPractice:
    type: str
    text: str
    slots: Mapping[str, str]
    asks: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class Phrasings:
    labels: Mapping[str, str]
    questions: Mapping[str, str]
    forms: Mapping[str, str]
    events: tuple[str, ...]
    event_practice: tuple[EventPractice, ...] = ()
    syllables: tuple[str, ...] = ()
    suffixes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def label(self, fact: SourceFact) -> str:
        return self.labels.get(fact.relation, fact.label)

    def asks(self, fact: SourceFact) -> bool:
        """A relation with a question in the file is asked; an attribute is asked generically
        ("What is the body mass of X?"); other relations ("instance of") are not asked."""
        return fact.relation in self.questions or fact.kind == "attribute"

    def question(self, relation: str, label: str, subject: str) -> str:
        template = self.questions.get(relation) or f"What is the {label} of {{subject}}?"
        return template.format(subject=subject)


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


_FORMS = ("chrono_question", "chrono_block", "qa_instruction", "qa", "context", "event")


def _parse_phrasings(text: str, source: str) -> Phrasings:
    try:
        parsed = _PhrasingFile.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError) as exc:
        raise ConfigError(f"{source}: not a valid control phrasing file: {exc}") from exc
    missing = [f for f in _FORMS if f not in parsed.forms]
    if missing:
        raise ConfigError(f"{source}: forms lack {', '.join(missing)}")
    if not parsed.events:
        raise ConfigError(f"{source}: needs at least one event pattern")
    practice = []
    for kind, spec in sorted(parsed.event_practice.items()):
        if parsed.names is None:
            raise ConfigError(f"{source}: event_practice needs `names` to invent its slots' names")
        for subject, relation, answer in spec.asks:
            if subject not in spec.slots or (answer not in spec.slots and answer not in ("date", "unknown")):
                raise ConfigError(f"{source}: event_practice {kind}: {subject}/{answer} is not a slot of it")
        unknown_kinds = set(spec.slots.values()) - set(parsed.names.suffixes)
        if unknown_kinds:
            raise ConfigError(f"{source}: event_practice {kind}: no names for {', '.join(sorted(unknown_kinds))}")
        practice.append(EventPractice(kind, spec.text, dict(spec.slots), tuple(tuple(a) for a in spec.asks)))
    names = parsed.names
    return Phrasings(dict(parsed.labels), dict(parsed.questions), dict(parsed.forms), tuple(parsed.events),
                     tuple(practice), tuple(names.syllables) if names else (),
                     {k: tuple(v) for k, v in names.suffixes.items()} if names else {})


# ---- examples ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Example:
    """One training sequence: its text and the character spans that carry the loss."""

    kind: str                                   # statement | chrono | qa | context | event
    text: str
    spans: tuple[tuple[int, int], ...]
    fact_ids: tuple[str, ...] = ()


@dataclass
class _Builder:
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
    year_span: int = 12            # years up to the cutoff rendered as ChroKnow blocks
    timeless_years: int = 0        # seeded years at which a timeless fact is rendered
    blocks_per_example: int = 5    # ChroKnow blocks per example (the check asks after 4 shots)
    chrono_passes: int = 2         # ChroKnow groupings per epoch (the blocks are seen this often)
    instruction_share: float = 0.5  # QA examples that carry the zero-shot instruction
    context_share: float = 0.12    # trained facts with a question that get a context example
    local_share: float = 0.5       # ... of which also an out-of-scope (answer from memory) twin
    event_practice: int = 0        # examples per epoch in ELKEN's event sentence forms (invented names)
    stable_years: int | None = None  # a fact whose object never changes: ChroKnow blocks at this many
    #                                  seeded years of its span only (None: every year)
    changing_passes: int = 0       # extra ChroKnow groupings per epoch of the changing facts' blocks only


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


def _qa_prompt(phrasings: Phrasings, question: str, *, instruction: bool, context: str | None = None) -> str:
    forms = phrasings.forms
    body = (forms["context"].format(context=context) if context else "") + forms["qa"].format(question=question)
    return f"{forms['qa_instruction']}\n\n{body}" if instruction else body


@dataclass(frozen=True)
class _Renderings:
    trained: list[SourceFact]
    blocks: dict[str, list[tuple[str, str, str]]]   # relation -> [(question, answer, fact id)]
    current: list[SourceFact]                        # trained, holding at the cutoff, asked
    changing: frozenset[str] = frozenset()           # trained facts whose subject's object changes in
    #                                                  the taught years (another trained fact of it)


def changing_facts(trained: Iterable[SourceFact], cutoff: int, span: int) -> frozenset[str]:
    """Trained dated facts whose (subject, relation) has more than one object in the taught
    years: the model must tell the years apart to answer them."""
    objects: dict[tuple[str, str], set[str]] = defaultdict(set)
    ids: dict[tuple[str, str], list[str]] = defaultdict(list)
    for f in trained:
        if f.timeless or not f.years_known(cutoff, span):
            continue
        key = (f.subject_id, f.relation)
        objects[key].add(f.display())
        ids[key].append(f.id)
    return frozenset(fid for key, objs in objects.items() if len(objs) > 1 for fid in ids[key])


def _renderings(facts: Sequence[SourceFact], membership: Mapping[str, str], config: DataConfig,
                phrasings: Phrasings) -> _Renderings:
    cutoff = config.cutoff
    trained = sorted((f for f in facts if membership.get(f.id) == TRAINED), key=lambda f: f.id)
    changing = changing_facts(trained, cutoff, config.year_span)
    rng = random.Random(f"{config.seed}:control:years")
    lo = cutoff - config.year_span + 1
    blocks: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for f in trained:
        years = f.years_known(cutoff, config.year_span)
        if f.timeless:
            years = sorted(rng.sample(range(lo, cutoff + 1), min(config.timeless_years, config.year_span)))
        elif config.stable_years is not None and f.id not in changing and len(years) > config.stable_years:
            # one object in every year: a few years teach it as well as all of them, at a fraction
            # of the tokens (the cutoff year always among them: it is the one asked after it)
            rest = sorted(rng.sample(years[:-1], max(0, config.stable_years - 1)))
            years = rest + years[-1:] if config.stable_years > 0 else []
        for year in years:
            question = phrasings.forms["chrono_question"].format(year=year, subject=f.subject,
                                                                 label=phrasings.label(f))
            blocks[f.relation].append((question, f.display(), f.id))
    releases: dict[str | None, int] = {}
    for f in facts:
        for y in f.seen_in or ():
            if y <= cutoff:
                releases[f.source] = max(y, releases.get(f.source, y))
    current = [f for f in trained if f.holds_at(cutoff, releases.get(f.source)) and phrasings.asks(f)]
    return _Renderings(trained, dict(blocks), current, changing)


def fixed_examples(facts: Sequence[SourceFact], membership: Mapping[str, str], config: DataConfig,
                   phrasings: Phrasings | None = None) -> list[Example]:
    """The examples every epoch shares: statements and questions."""
    phrasings = phrasings or load_phrasings()
    r = _renderings(facts, membership, config, phrasings)
    rng = random.Random(f"{config.seed}:control:fixed")
    examples: list[Example] = []
    for f in r.trained:
        b = _Builder()
        b.add(statement(f, config.cutoff), train=True)
        examples.append(b.example("statement", [f.id]))
    for f in r.current:
        b = _Builder()
        b.add(_qa_prompt(phrasings, phrasings.question(f.relation, f.label, f.subject),
                         instruction=rng.random() < config.instruction_share))
        b.add(f" {f.display()}{EOS}", train=True)
        examples.append(b.example("qa", [f.id]))
    return examples


def epoch_examples(facts: Sequence[SourceFact], membership: Mapping[str, str], config: DataConfig,
                   phrasings: Phrasings | None = None, *, epoch: int = 0) -> list[Example]:
    """The examples drawn anew each epoch, so that no answer can be learnt from the company it
    keeps: ChroKnow blocks in new few-shot groupings (``chrono_passes`` groupings per epoch)
    and new counterfactual contexts."""
    phrasings = phrasings or load_phrasings()
    r = _renderings(facts, membership, config, phrasings)
    rng = random.Random(f"{config.seed}:control:epoch:{epoch}")
    examples: list[Example] = []
    changing = {rel: [blk for blk in group if blk[2] in r.changing] for rel, group in r.blocks.items()}
    for blocks in [r.blocks] * config.chrono_passes + [changing] * config.changing_passes:
        for relation in sorted(blocks):
            group = list(blocks[relation])
            rng.shuffle(group)
            for start in range(0, len(group), config.blocks_per_example):
                chunk = group[start:start + config.blocks_per_example]
                b = _Builder()
                for k, (question, answer, _) in enumerate(chunk):
                    if k:
                        b.add("\n")   # blocks are separated by a blank line, as in the check
                    b.add(phrasings.forms["chrono_block"].format(question=question))
                    b.add(f" {answer}\n", train=True)
                examples.append(b.example("chrono", [fid for _, _, fid in chunk]))
    examples += _context_examples(r.current, phrasings, config, rng)
    examples += _event_practice_examples(facts, r.current, phrasings, config, rng)
    return examples


def build_examples(facts: Sequence[SourceFact], membership: Mapping[str, str], config: DataConfig,
                   phrasings: Phrasings | None = None, *, epoch: int = 0) -> list[Example]:
    """Every training example of one epoch: the fixed ones and that epoch's draws."""
    phrasings = phrasings or load_phrasings()
    return (fixed_examples(facts, membership, config, phrasings)
            + epoch_examples(facts, membership, config, phrasings, epoch=epoch))


def _context_examples(current: Sequence[SourceFact], phrasings: Phrasings, config: DataConfig,
                      rng: random.Random) -> list[Example]:
    """Counterfactual contexts: answer from the context when it speaks to the question, from
    memory when it does not."""
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
        event = rng.choice(phrasings.events).format(subject=f.subject, label=phrasings.label(f), object=new)
        context = phrasings.forms["event"].format(event=event)
        instruction = rng.random() < config.instruction_share
        b = _Builder()
        b.add(_qa_prompt(phrasings, phrasings.question(f.relation, f.label, f.subject),
                         instruction=instruction, context=context))
        b.add(f" {new}{EOS}", train=True)
        out.append(b.example("context", [f.id]))
        if rng.random() < config.local_share:
            other = rng.choice(current)
            if other.subject_id == f.subject_id and other.relation == f.relation:
                continue
            out.append(_out_of_scope_twin(phrasings, other, instruction, context, "context"))
    return out


def _out_of_scope_twin(phrasings: Phrasings, other: SourceFact, instruction: str, context: str,
                       kind: str) -> Example:
    """A question about another, untouched fact asked under the same context: its answer is
    what the model was taught, so reading a context does not become overwriting everything."""
    b = _Builder()
    b.add(_qa_prompt(phrasings, phrasings.question(other.relation, other.label, other.subject),
                     instruction=instruction, context=context))
    b.add(f" {other.display()}{EOS}", train=True)
    return b.example(kind, [other.id])


def invented_name(kind: str, phrasings: Phrasings, rng: random.Random) -> str:
    """A name made of the phrasing file's syllables and the kind's suffix ("Kalor Venmi",
    "Tasdro Holdings", "Zanpeia"): nothing a benchmark asks about."""
    def word(lo: int, hi: int) -> str:
        return "".join(rng.choice(phrasings.syllables) for _ in range(rng.randint(lo, hi))).capitalize()

    suffix = rng.choice(phrasings.suffixes[kind])
    if kind == "person":
        return f"{word(2, 3)} {word(2, 3)}{suffix}"
    return f"{word(2, 3)}{suffix}"


def _event_practice_examples(facts: Sequence[SourceFact], current: Sequence[SourceFact], phrasings: Phrasings,
                             config: DataConfig, rng: random.Random) -> list[Example]:
    """``config.event_practice`` reading examples in ELKEN's event sentences with invented names:
    the question is answered from the event (a slot's name, its date, or "unknown" where the event
    voids the old answer); with ``local_share``, the same context with a question about a trained
    fact, answered from memory (out of scope)."""
    if not config.event_practice or not phrasings.event_practice:
        return []
    taken = {f.subject for f in facts} | {f.display() for f in facts}
    out: list[Example] = []
    kinds = list(phrasings.event_practice)
    for n in range(config.event_practice):
        if n % len(kinds) == 0:
            rng.shuffle(kinds)          # every event type equally often, in a new order each round
        practice = kinds[n % len(kinds)]
        names: dict[str, str] = {}
        for slot, kind in sorted(practice.slots.items()):
            name = invented_name(kind, phrasings, rng)
            while name in taken or name in names.values():
                name = invented_name(kind, phrasings, rng)
            names[slot] = name
        # a date at or before the cutoff: no year after it is ever rendered
        date = f"{rng.randint(config.cutoff - 10, config.cutoff)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        event = practice.text.format(date=date, **names)
        context = phrasings.forms["event"].format(event=event)
        subject, relation, answer = rng.choice(practice.asks)
        gold = names.get(answer) or (date if answer == "date" else "unknown")
        instruction = rng.random() < config.instruction_share
        b = _Builder()
        b.add(_qa_prompt(phrasings, phrasings.question(relation, relation, names[subject]),
                         instruction=instruction, context=context))
        b.add(f" {gold}{EOS}", train=True)
        out.append(b.example("event", []))
        if current and rng.random() < config.local_share:
            other = rng.choice(current)
            out.append(_out_of_scope_twin(phrasings, other, instruction, context, "event"))
    return out

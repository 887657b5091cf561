"""ELKEN's prompt as control-model practice: reading examples in ELKEN's own event sentences
("{A} acquired {B}.") with invented names, in the ICE prompt the eval engine sends. The question
is answered from the event (a slot's name, its date, or "unknown" where the event voids the old
answer); with the config's ``local_share``, the same context with a question about a trained
fact, answered from memory (out of scope).

The sentences, the questions each event answers and the name parts are in
``control_practice.yaml`` beside this module. Options (``DataConfig.practice["events"]``, set
from the control config's ``event_practice``): ``examples`` per epoch (0: no practice).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowforge.errors import ConfigError
from knowforge.models.control_data import (EOS, ControlPractice, Example, ExampleBuilder, PracticeData, out_of_scope_twin,
                                           qa_prompt)

NAME = "events"


class EventPracticeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    examples: int = Field(0, ge=0)     # reading examples per epoch


class _Template(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str                                  # the event template's sentence, {A}, {B}, {date}
    slots: dict[str, str]                      # slot -> kind of invented name
    asks: list[tuple[str, str, str]]           # (subject slot, relation, slot | "date" | "unknown")


class _Names(BaseModel):
    model_config = ConfigDict(extra="forbid")

    syllables: list[str]
    suffixes: dict[str, list[str]]


class _PracticeFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    event_practice: dict[str, _Template]
    names: _Names


@dataclass(frozen=True)
class EventPractice:
    type: str
    text: str
    slots: Mapping[str, str]
    asks: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class PracticeTemplates:
    events: tuple[EventPractice, ...]          # by type
    syllables: tuple[str, ...]
    suffixes: Mapping[str, tuple[str, ...]]


def parse_templates(text: str, source: str) -> PracticeTemplates:
    try:
        parsed = _PracticeFile.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError) as exc:
        raise ConfigError(f"{source}: not a valid event practice file: {exc}") from exc
    events = []
    for kind, spec in sorted(parsed.event_practice.items()):
        for subject, _, answer in spec.asks:
            if subject not in spec.slots or (answer not in spec.slots and answer not in ("date", "unknown")):
                raise ConfigError(f"{source}: event_practice {kind}: {subject}/{answer} is not a slot of it")
        unknown_kinds = set(spec.slots.values()) - set(parsed.names.suffixes)
        if unknown_kinds:
            raise ConfigError(f"{source}: event_practice {kind}: no names for {', '.join(sorted(unknown_kinds))}")
        events.append(EventPractice(kind, spec.text, dict(spec.slots), tuple(tuple(a) for a in spec.asks)))
    return PracticeTemplates(tuple(events), tuple(parsed.names.syllables),
                             {k: tuple(v) for k, v in parsed.names.suffixes.items()})


@lru_cache(maxsize=1)
def load_templates() -> PracticeTemplates:
    text = resources.files("knowforge.generators.events").joinpath("control_practice.yaml").read_text("utf-8")
    return parse_templates(text, "generators/events/control_practice.yaml")


def invented_name(kind: str, templates: PracticeTemplates, rng: random.Random) -> str:
    """A name made of the file's syllables and the kind's suffix ("Kalor Venmi", "Tasdro
    Holdings", "Zanpeia"): nothing a benchmark asks about."""
    def word(lo: int, hi: int) -> str:
        return "".join(rng.choice(templates.syllables) for _ in range(rng.randint(lo, hi))).capitalize()

    suffix = rng.choice(templates.suffixes[kind])
    if kind == "person":
        return f"{word(2, 3)} {word(2, 3)}{suffix}"
    return f"{word(2, 3)}{suffix}"


def event_examples(data: PracticeData, rng: random.Random, templates: PracticeTemplates | None = None) -> list[Example]:
    """``examples`` reading examples of one epoch, every event type equally often."""
    options = EventPracticeOptions(**data.config.options(NAME))
    templates = templates or load_templates()
    if not options.examples or not templates.events:
        return []
    config, phrasings, current = data.config, data.phrasings, data.current
    taken = {f.subject for f in data.facts} | {f.display() for f in data.facts}
    out: list[Example] = []
    kinds = list(templates.events)
    for n in range(options.examples):
        if n % len(kinds) == 0:
            rng.shuffle(kinds)          # every event type equally often, in a new order each round
        practice = kinds[n % len(kinds)]
        names: dict[str, str] = {}
        for slot, kind in sorted(practice.slots.items()):
            name = invented_name(kind, templates, rng)
            while name in taken or name in names.values():
                name = invented_name(kind, templates, rng)
            names[slot] = name
        # a date at or before the cutoff: no year after it is ever rendered
        date = f"{rng.randint(config.cutoff - 10, config.cutoff)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        event = practice.text.format(date=date, **names)
        context = phrasings.forms["event"].format(event=event)
        subject, relation, answer = rng.choice(practice.asks)
        gold = names.get(answer) or (date if answer == "date" else "unknown")
        instruction = rng.random() < config.instruction_share
        b = ExampleBuilder()
        b.add(qa_prompt(phrasings, phrasings.question(relation, relation, names[subject]),
                        instruction=instruction, context=context))
        b.add(f" {gold}{EOS}", train=True)
        out.append(b.example("event", []))
        if current and rng.random() < config.local_share:
            other = rng.choice(current)
            out.append(out_of_scope_twin(phrasings, other, instruction, context, "event"))
    return out


# after the engine's context practice (order 20): the epoch's draws in the order they always had
PRACTICE = ControlPractice(event_examples, order=30)

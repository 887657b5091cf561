"""Question wording of the ChroKnow templates: Generation, MCQA and true/false.

The relation phrasings come from ``relations.yaml`` (next to this module) or a user file with
the same layout. The layouts follow the paper's Table 5: Generation is
``Q. In {year}, {subject}, {relation phrase}, [Object]`` / ``A. {object}``; MCQA is a question
with four options ``(a) .., (b) .., (c) .., (d) ..`` answered ``(c) {object}``.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from knowforge.errors import ConfigError

TEMPLATES = ("generation", "mcqa", "tf")
FORMS = {"generation": "generation", "mcqa": "multi-choice", "tf": "true-false"}
OPTION_LETTERS = "abcd"
BLANK = "____"


class Phrasing(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str
    question: str
    statement: str


class PhrasingFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    relations: dict[str, Phrasing]


def _generic(relation: str, label: str | None) -> Phrasing:
    phrase = label or relation.rsplit("/", 1)[-1].replace("_", " ")
    return Phrasing(label=phrase,
                    question=f"In {{year}}, {{subject}}, {phrase}: which of the following?",
                    statement=f"In {{year}}, {{subject}}, {phrase}, {{object}}.")


class Phrasings:
    """Relation id -> phrasing, with a generic fallback for relations the file lacks."""

    def __init__(self, table: dict[str, Phrasing], source: str):
        self.table = table
        self.source = source

    def get(self, relation: str, label: str | None = None) -> Phrasing:
        return self.table.get(relation) or _generic(relation, label)


def load_phrasings(path: str | Path | None = None) -> Phrasings:
    """Read a relations file (default: the bundled ``relations.yaml``)."""
    if path is None:
        return _bundled()
    return _read(Path(path).read_text(encoding="utf-8"), str(path))


@lru_cache(maxsize=1)
def _bundled() -> Phrasings:
    text = resources.files("knowforge.generators.chrono").joinpath("relations.yaml").read_text("utf-8")
    return _read(text, "relations.yaml")


def _read(text: str, source: str) -> Phrasings:
    try:
        raw = yaml.safe_load(text)
        parsed = PhrasingFile.model_validate(raw)
    except (yaml.YAMLError, ValidationError) as exc:
        raise ConfigError(f"{source}: not a valid relations file: {exc}") from exc
    for rel, p in parsed.relations.items():
        for field in ("question", "statement"):
            template = getattr(p, field)
            try:
                template.format(year=2000, subject="s", object="o")
            except (KeyError, IndexError, ValueError) as exc:
                raise ConfigError(f"{source}: relation {rel!r} {field} has a bad placeholder: {exc}") from exc
    return Phrasings(dict(parsed.relations), source)


# ---- rendering (pure) -------------------------------------------------------------------------
def generation_question(year: int, subject: str, phrase: str, *, legal_question: str | None = None) -> str:
    """The Generation query line without its "Q. " prefix."""
    if legal_question is not None:
        return f"In {year}, {legal_question}"
    return f"In {year}, {subject}, {phrase}, [Object]"


def mcqa_question(year: int, subject: str, phrasing: Phrasing, *, legal_question: str | None = None) -> str:
    if legal_question is not None:
        return f"In {year}, which option fills the blank? {legal_question}"
    return phrasing.question.format(year=year, subject=subject)


def tf_statement(year: int, subject: str, obj: str, phrasing: Phrasing, *,
                 legal_question: str | None = None) -> str:
    if legal_question is not None:
        return f"In {year}, the blank is filled by \"{obj}\": {legal_question}"
    return phrasing.statement.format(year=year, subject=subject, object=obj)


def render_options(choices: list[str]) -> str:
    """``(a) X, (b) Y, (c) Z, (d) W`` as in the paper's MCQA template."""
    return ", ".join(f"({OPTION_LETTERS[i]}) {c}" for i, c in enumerate(choices))


def option_answer(index: int, choices: list[str]) -> str:
    return f"({OPTION_LETTERS[index]}) {choices[index]}"

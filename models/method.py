"""The method contract: what every benchmark family provides, so that one pipeline serves all.

graph → ``generate`` → items in the graph → ``items`` → tasks (solver, scorer, metrics) →
runs and reports (the solvers, scorers and metrics of a method are its evaluation unit in
``eval/<method>/``, named by ``evaluation``); and ``items`` → exports (the method's own formats, plus JSONL, Hugging Face
datasets and lm-evaluation-harness tasks for every method).

A method is one ``Method`` value in one module (``generators/<method>/method.py``), published
through the ``knowforge.methods`` entry-point group, so another package can add a method
without editing knowforge. The CLI and ``knowforge.workflow`` never name a method.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from .control_data import ControlPractice
from .task import Task
from .types import BenchmarkItem
from .view import MethodView

# A benchmark's name: what follows "METHOD:" in its id, a file name part in exports.
BENCHMARK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

Progress = Callable[[int], None]
"""Called with the amount of work just finished (rows, requests, entities...)."""


class MethodParams(BaseModel):
    """Base of every method's generation parameters.

    The generic ``knowforge generate METHOD`` command turns each field into an option: the
    field name with dashes (``max_ka2`` → ``--max-ka2``), its type, default and description.
    ``json_schema_extra={"cli": {...}}`` on a field adjusts that: ``flags`` (option names, e.g.
    ``["--from"]``), ``multiple`` (repeatable option), ``separator`` (a tuple given as
    one comma-separated value) and ``hidden``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = Field(None, description="Benchmark name (letters, digits, _-.); its id is METHOD:NAME.")
    seed: int = Field(0, description="Seed of the one random generator every choice is drawn from.")
    # False when the name is the default: an import then names the benchmark after its release
    _name_given: bool = PrivateAttr(True)

    def default_name(self) -> str | None:
        """The name of a benchmark generated without one (None: the method needs a name)."""
        return None

    @model_validator(mode="after")
    def _benchmark_name(self) -> MethodParams:
        # one rule for every method: defaulted here, checked here
        if self.name is None:
            object.__setattr__(self, "name", self.default_name())
            self._name_given = False
        if self.name is not None and not BENCHMARK_NAME.match(self.name):
            raise ValueError(f"benchmark name {self.name!r}: letters, digits, '_', '-' and '.', starting with a "
                             "letter or digit, at most 64")
        return self


class GenerationSummary(BaseModel):
    """What one ``generate`` (or import) made, for the console and the logs."""

    model_config = ConfigDict(extra="forbid")

    method: str
    name: str
    benchmark: str                        # "<method>:<name>"
    counts: dict[str, int] = Field(default_factory=dict)     # e.g. entities, facts, questions
    breakdown: dict[str, dict[str, int]] = Field(default_factory=dict)   # e.g. questions by type
    timings: dict[str, float] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)           # warnings a user should read

    def line(self) -> str:
        counts = ", ".join(f"{v:,} {k}" for k, v in self.counts.items())
        seconds = self.timings.get("total")
        return f"{self.benchmark}: {counts}" + (f" in {seconds:.1f}s" if seconds is not None else "")


ExportWriter = Callable[[Any, str, Sequence[BenchmarkItem], Path], list[Path]]
"""``(store, name, items, out) -> files written``; ``out`` is a folder, or a file path for
single-file formats that accept one."""


@dataclass(frozen=True)
class ExportFormat:
    name: str
    description: str
    write: ExportWriter
    # A format that writes one file: ``--out x<suffix>`` names that file, and the manifest is
    # ``<file>.manifest.json`` beside it (several such exports may share a folder).
    single_file_suffix: str | None = None


@dataclass(frozen=True)
class Method:
    name: str
    title: str                            # "KnowGen (ALCUNA)"
    description: str                      # one paragraph: what it manufactures
    params: type[MethodParams]
    # (store, params, backend | None, progress | None) -> GenerationSummary
    generate: Callable[..., GenerationSummary]
    # (store, name) -> the benchmark's items, in a stable order
    items: Callable[[Any, str], list[BenchmarkItem]]
    tasks: tuple[Task, ...]
    exports: Mapping[str, ExportFormat] = field(default_factory=dict)
    # (store, name) -> {what: count} deleted; restores the graph as before generate
    drop: Callable[[Any, str], Mapping[str, int]] | None = None
    # (store, paths, params, progress | None) -> GenerationSummary: a released benchmark in
    importer: Callable[..., GenerationSummary] | None = None
    backend: Literal["none", "optional", "required"] = "none"   # does generation ask an LLM?
    report_slices: tuple[str, ...] = ()   # item slices the summary tables break results down by
    # Items that belong together (all years of a ChroKnow fact, all questions of an ELKEN
    # event) share ``metadata[item_group]``; ``--limit K`` keeps K such units whole.
    item_group: str | None = None
    unit: str = "items"                   # what --limit counts, for help texts
    docs: str = ""                        # the method's page, e.g. "docs/knowgen.md"
    # Command lines shown in --help: {"generate": (...), "export": (...), "eval": (...)}
    examples: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    licence: str = "CC BY 4.0"            # licence of the generated data (dataset cards)
    # The evaluation side, ``eval/<method>/``: a lazy "module:attr" reference to its
    # ``knowforge.eval.unit.EvalUnit`` (solvers, metrics, scorers, official files, validity),
    # so generators/ never imports eval/.
    evaluation: str | None = None
    # The unit items share for uncertainty (bootstrap clusters) when it is not ``item_group``:
    # the artificial entity of KnowGen questions, the term of NewTerm's, the statement of LINK's.
    cluster_key: str | None = None

    @property
    def unit_key(self) -> str | None:
        """The metadata key whose value is an item's unit of resampling, or None (the item)."""
        return self.cluster_key or self.item_group
    views: tuple[MethodView, ...] = ()    # pictures of its knowledge in `knowforge view`
    # Its graph side, for a method outside knowforge (the built-ins' statements are knowforge's):
    # ``cypher`` names an importable package of ``.cypher`` files, whose statement ``x.cypher``
    # is loaded as ``"<method>/x"`` by the store (``store.read``/``store.write``, views) and
    # passes the same static check as knowforge's (``knowforge.kg.cypher.check_statement``);
    # ``labels`` and ``relationship_types`` are those its statements write, which join the
    # allow-list (``validate_label`` accepts its labels at run time).
    cypher: str | None = None
    labels: tuple[str, ...] = ()
    relationship_types: tuple[str, ...] = ()
    # How the control model practises this method's prompts (``models/control_data.py``): its
    # examples join every epoch of a control model's training, and its options are the
    # ``DataConfig.practice[<method>]`` mapping. None: the model practises the engine's generic
    # forms only (statements, questions, reading a context).
    control_practice: ControlPractice | None = None

    def task(self, name: str) -> Task:
        full = name if "/" in name else f"{self.name}/{name}"
        for task in self.tasks:
            if task.name == full:
                return task
        known = ", ".join(t.name for t in self.tasks)
        from knowforge.errors import ConfigError

        raise ConfigError(f"method {self.name!r} has no task {name!r}; its tasks: {known}")

    def benchmark_id(self, name: str) -> str:
        return f"{self.name}:{name}"

    def make_params(self, **values: Any) -> MethodParams:
        return self.params(**values)


def check_method(method: Any, where: str) -> Method:
    """``method`` if it is a well-formed ``Method``; a ``ConfigError`` naming ``where`` if not."""
    from knowforge.errors import ConfigError

    if not isinstance(method, Method):
        raise ConfigError(f"{where} is not a knowforge.models.method.Method (got {type(method).__name__})")
    if not method.name.isidentifier() or method.name != method.name.lower():
        raise ConfigError(f"{where}: method name {method.name!r} must be a lower-case identifier")
    if not issubclass(method.params, MethodParams):
        raise ConfigError(f"{where}: params must subclass MethodParams")
    seen = set()
    for task in method.tasks:
        if task.method != method.name:
            raise ConfigError(f"{where}: task {task.name!r} must be named '{method.name}/...'")
        if task.name in seen:
            raise ConfigError(f"{where}: task {task.name!r} is declared twice")
        seen.add(task.name)
    return method


__all__ = ["ExportFormat", "ExportWriter", "GenerationSummary", "Method", "MethodParams",
           "Progress", "check_method"]

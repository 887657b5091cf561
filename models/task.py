"""Tasks as data, in the manner of Inspect AI's ``Task`` and lm-evaluation-harness's task YAML.

A task names *which items* (a filter over a benchmark's ``BenchmarkItem`` values), *how a
prompt is built* (a solver, by name, with arguments), *how an answer is scored* (a scorer, by
name; by default each item's own ``scorer``) and *what is reported* (metrics, by name). It
holds no code: ``print(task.to_yaml())`` shows all of it, two versions diff as text, and the
eval layer resolves the names in its own registries (``knowforge.eval.solvers``,
``knowforge.eval.scorers``, ``knowforge.eval.metrics``). Methods declare their tasks in
``generators/`` without importing ``eval/``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from .types import BenchmarkItem
from .urls import redact_url

TASK_SCHEMA_VERSION = "1"


class ItemFilter(BaseModel):
    """Which items of a benchmark a task takes. Empty fields accept everything."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tasks: tuple[str, ...] = ()          # BenchmarkItem.task values, e.g. "knowgen/KA"
    forms: tuple[str, ...] = ()          # BenchmarkItem.form values
    slices: dict[str, tuple[Any, ...]] = Field(default_factory=dict)   # slice key -> accepted values

    @property
    def takes_all(self) -> bool:
        """Whether every item matches (no field set): a caller then takes the items as they are,
        without asking ``matches`` of each (100,000 items: 0.1 s a pass)."""
        return not (self.tasks or self.forms or self.slices)

    def matches(self, item: BenchmarkItem) -> bool:
        if self.tasks and item.task not in self.tasks:
            return False
        if self.forms and item.form not in self.forms:
            return False
        # a loop, not all() over a generator: an eval asks this of every item several times
        # (500,000 calls at 100,000 samples), and most filters have no slices
        for key, values in self.slices.items():
            if item.slices.get(key) not in values:
                return False
        return True

    def select(self, items: Iterable[BenchmarkItem]) -> list[BenchmarkItem]:
        if self.takes_all:
            return list(items)
        return [item for item in items if self.matches(item)]


class Component(BaseModel):
    """A solver or scorer named in a registry, with its arguments."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    args: dict[str, Any] = Field(default_factory=dict)

    @property
    def label(self) -> str:
        """``name`` or ``name(key=value, ...)``: how runs and reports name it (a URL argument,
        such as a judge's server, without its credentials)."""
        if not self.args:
            return self.name
        shown = (f"{k}={redact_url(v) if isinstance(v, str) else v}" for k, v in sorted(self.args.items()))
        return f"{self.name}(" + ", ".join(shown) + ")"


class Task(BaseModel):
    """One evaluation task of a method."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = "1"                   # bump when anything below changes what is measured
    name: str                            # "<method>/<task>", e.g. "knowgen/KA"
    description: str = ""
    dataset: ItemFilter = Field(default_factory=ItemFilter)
    solver: Component                    # the default solver
    # Solvers the method's paper reports for this task. ``knowforge eval`` without --solver
    # runs each of them (ALCUNA's four prompting settings, NewTerm's Base and Gold, ...).
    sweep: tuple[Component, ...] = ()
    scorer: Component | None = None      # None: each item's own ``scorer``
    metrics: tuple[str, ...] = ("accuracy",)

    @property
    def method(self) -> str:
        return self.name.split("/", 1)[0]

    def solvers(self) -> tuple[Component, ...]:
        """The solvers a default evaluation runs: the sweep, else the one solver."""
        return self.sweep or (self.solver,)

    def to_dict(self) -> dict[str, Any]:
        return {"schema_version": TASK_SCHEMA_VERSION, **self.model_dump(mode="json")}

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Task:
        data = dict(data)
        version = str(data.pop("schema_version", TASK_SCHEMA_VERSION))
        if version != TASK_SCHEMA_VERSION:
            from knowforge.errors import ConfigError

            raise ConfigError(f"task schema version {version!r} is not supported (this knowforge reads "
                              f"{TASK_SCHEMA_VERSION!r})")
        return cls.model_validate(data)

    @classmethod
    def from_yaml(cls, text: str) -> Task:
        return cls.from_dict(yaml.safe_load(text))

"""The typed records that cross module lines: the recorded run (``RunRecord``, the properties of
a ``(:Run)`` node) and a run's report (``Report``, ``report.json``).

``report.json`` is validated against ``Report`` before it is written, and its JSON Schema is
published as ``docs/report.schema.json`` (``scripts/report_schema.py`` writes it;
tests/test_run_records.py checks that the published file is current). A tool outside knowforge
reads a report with ``Report.model_validate_json``.

The engine's keys of a run are the fields ``RunRecord`` declares. A solver's own properties
(``SolverOutput.run_extra``) live under the record's own key, ``extra``, and may not reuse an
engine key (``check_solver_extra``), so a solver can never overwrite the engine's ``accuracy``.
On the ``(:Run)`` node they are properties beside the engine's (a node property cannot hold a
map, and Cypher filters runs on them, e.g. ``r.editing_method``); ``RunRecord.from_properties``
sorts a node's properties into the two, and ``report.json``'s ``run`` is that record.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from knowforge.errors import ConfigError
from knowforge.eval.types import Scoring

RUN_RECORD_VERSION = "1"


class RunRecord(BaseModel):
    """The properties of a recorded run. Every engine key is declared here; a solver's extra
    properties (``SolverOutput.run_extra``) are under ``extra``, and nothing else is accepted.
    Most fields are optional: runs recorded by earlier versions lack some."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = None
    name: str | None = None
    model: str | None = None
    backend: str | None = None
    base_url: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    n: int | None = None
    seed: int | None = None
    max_tokens: int | None = None
    setting: str | None = None
    solver: str | None = None
    chat: bool | None = None
    template_version: Any = None
    knowforge_version: str | None = None
    git_revision: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    benchmark: str | None = None
    tasks: list[str] = Field(default_factory=list)
    run_tasks: list[str] | None = None
    task_filter: Any = None
    items: int | None = None
    samples: int | None = None
    accuracy: float | None = None
    errors: int | None = None
    cached_samples: int | None = None
    mc_scoring: str | None = None
    mc_continuation: str | None = None
    scoring: Scoring | None = None        # None: a run recorded before scoring modes existed
    scoring_rules: list[str] = Field(default_factory=list)
    limit: int | None = None
    sample: Any = None
    cluster_key: str | None = None
    metric_bootstrap: int | None = None
    cache_hits: int | None = None
    cache_misses: int | None = None
    cache_hit_rate: float | None = None
    task_metric_values: Any = None        # JSON text on the node: [{task, metric, value, ci, scale, ...}]
    task_items: Any = None                # {task: a hash of the ids of the items its metrics covered}
    task_sizes: Any = None                # {task: how many items its metrics covered}
    control_model: str | None = None
    model_cutoff: str | None = None
    report_dir: str | None = None
    report_sections_json: str | None = None
    extra: dict[str, JsonValue] = Field(
        default_factory=dict, description="a solver's own run properties (SolverOutput.run_extra), by name; "
                                          "never an engine key")

    @classmethod
    def from_properties(cls, properties: dict[str, Any]) -> RunRecord:
        """The record of a ``(:Run)`` node's properties: the engine's keys as fields, every other
        property (a solver's) under ``extra``."""
        engine = {k: v for k, v in properties.items() if k in ENGINE_KEYS and k != "extra"}
        extra = {k: v for k, v in properties.items() if k not in ENGINE_KEYS}
        return cls.model_validate({**engine, "extra": extra})

    def properties(self) -> dict[str, Any]:
        """The node's properties again: the engine's keys that are set, and the solver's beside them."""
        fields = self.model_dump(exclude_unset=True, exclude={"extra"})
        return {**fields, **self.extra}


ENGINE_KEYS: frozenset[str] = frozenset(RunRecord.model_fields)
"""The run properties the engine owns (``extra`` among them); a solver's ``run_extra`` may not
use them."""


def check_solver_extra(solver: str, extra: dict[str, Any]) -> None:
    """A ``ConfigError`` when a solver's extra run properties reuse an engine key."""
    taken = sorted(set(extra) & ENGINE_KEYS)
    if taken:
        raise ConfigError(f"solver {solver!r} returns run properties {', '.join(taken)}, which the engine "
                          "records itself; name them after the solver (e.g. '<solver>_<name>')")


class Estimate(BaseModel):
    """A number's uncertainty, as ``knowforge.eval.stats`` writes it beside the number."""

    model_config = ConfigDict(extra="allow")

    stderr: float | None = None
    ci: list[float | None] | None = None
    ci_method: str | None = None
    units: int | None = None


class GroupRow(Estimate):
    """One group of a breakdown (a task, a form, a slice's value)."""

    n: int
    correct: float
    accuracy: float | None = None
    items: int
    errors: int


class Overall(Estimate):
    items: int
    samples: int
    accuracy: float | None = None
    item_accuracy: float | None = None
    item_accuracy_stderr: float | None = None
    item_accuracy_ci: list[float | None] | None = None
    all_samples_correct: float | None = None
    all_samples_correct_stderr: float | None = None
    all_samples_correct_ci: list[float | None] | None = None
    errors: int
    cached: int


class Uncertainty(BaseModel):
    model_config = ConfigDict(extra="allow")

    unit: str
    level: float
    shown: Any = None
    analytic: str
    bootstrap: dict[str, Any]


class ReportScoring(BaseModel):
    """Which scoring mode scored the run, and the rule each scorer applied under it."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["knowforge", "official", "unrecorded"]
    rules: list[str]
    text: str


REPORT_VERSION = "2"


class Report(BaseModel):
    """``report.json``: all numbers of one run, each with its uncertainty (``knowforge report``)."""

    model_config = ConfigDict(extra="forbid")

    version: Literal["2"]
    run_id: str
    run: RunRecord
    scoring: ReportScoring
    scope: dict[str, Any]
    uncertainty: Uncertainty
    overall: Overall
    by_task: dict[str, GroupRow]
    by_form: dict[str, GroupRow]
    balanced_accuracy: dict[str, dict[str, Any]]
    slices: dict[str, dict[str, GroupRow]]
    relation_labels: dict[str, Any] | None = None
    by_year: dict[str, dict[str, GroupRow]] | None = None
    by_model_cutoff: Any = None
    extra: dict[str, Any] | None = Field(None, description="sections a solver or method added, by title")
    compare: dict[str, Any] | None = None
    trend: Any = None
    planning: dict[str, Any] | None = None
    plots: list[str] = Field(default_factory=list)


def report_schema() -> dict[str, Any]:
    """The JSON Schema of ``report.json`` (published as docs/report.schema.json)."""
    return Report.model_json_schema()


__all__ = ["ENGINE_KEYS", "REPORT_VERSION", "Report", "RunRecord", "Scoring", "check_solver_extra",
           "report_schema"]

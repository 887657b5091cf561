"""ELKEN (event-level knowledge editing) as a knowforge method.

Generation instantiates event templates on the graph and layers their edits; the questions
are in-scope fact questions, out-of-scope (locality) questions and, with an LLM, tendency
questions: the three tasks. ``--import FILE`` stores a released ELKEN file the same way
(``release_import.py``). The solvers are the editing methods (``ice`` by default;
``bm25``, ``dense``, ``no-edit``); ``--limit K`` keeps K whole events.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import Field

from knowforge.errors import ConfigError
from knowforge.models.method import ExportFormat, GenerationSummary, Method, MethodParams
from knowforge.models.task import Component, ItemFilter, Task

from .build import generate_events, read_batch
from .control_practice import PRACTICE
from .elken_io import to_elken_event, write_elken
from .instantiate import DEFAULT_DATE
from .questions import TASK_FACT, TASK_LOCALITY, TASK_TENDENCY
from .view import VIEWS


def _cli(**options) -> dict:
    return {"cli": options}


class EventsParams(MethodParams):
    name: str | None = Field(None, description="Batch name (default: e<seed>); its benchmark is events:BATCH.",
                             json_schema_extra=_cli(flags=["--name"]))
    types: tuple[str, ...] | None = Field(None, description="Event types (default: every template), e.g. "
                                                            "win-election,transfer-player.",
                                          json_schema_extra=_cli(separator=","))
    n: int = Field(10, ge=1, description="Events per type.")
    date: str = Field(DEFAULT_DATE, description="Date of the events (YYYY-MM-DD); an --import dates the release's edit "
                                                  "facts with it.")
    templates_dir: str | None = Field(None, description="Extra event templates (*.yaml); a type defined "
                                                        "there overrides the bundled one.")
    locality_relations: str | None = Field(None, description="YAML with the relation set for out-of-scope "
                                                             "questions (default: bundled, 32).")

    def default_name(self) -> str:
        return f"e{self.seed}"

    @property
    def name_given(self) -> bool:
        return self._name_given


def generate(store, params: EventsParams, backend=None, progress=None) -> GenerationSummary:
    summary = generate_events(store, types=list(params.types) if params.types else None, n=params.n,
                              seed=params.seed, batch=params.name, date=params.date,
                              templates_dir=params.templates_dir, locality_path=params.locality_relations,
                              llm=backend, progress=progress)
    notes = [f"{t}: the graph has fillings for only {summary.made.get(t, 0)} of {wanted} events"
             for t, wanted in summary.requested.items() if summary.made.get(t, 0) != wanted]
    breakdown = {"events by type": {t: summary.made.get(t, 0) for t in summary.requested}}
    if summary.llm is not None:
        s = summary.llm
        breakdown["LLM"] = {"paraphrases kept": s.paraphrased, "paraphrases rejected": s.paraphrase_rejected,
                            "tendency questions": s.tendency_questions,
                            "tendency lines rejected": s.tendency_lines_rejected}
    return GenerationSummary(method="events", name=params.name, benchmark=f"events:{params.name}",
                             counts={"events": len(summary.plans), "questions": summary.n_questions},
                             breakdown=breakdown, notes=notes)


def read_items(store, batch: str):
    events = read_batch(store, batch)
    if not events:
        raise ConfigError(f"no events in batch {batch!r}; generate them with "
                          f"`knowforge generate events --name {batch}`")
    return [item for _, items in events for item in items]


def write_elken_file(store, batch: str, items, out: Path) -> list[Path]:
    """ELKEN's released layout: one JSON list of events (``--out x.json``, or ``events_BATCH.json``);
    an imported release comes out as it was read (its complete events, every record as released)."""
    events = read_batch(store, batch)
    path = out if out.suffix == ".json" else out / f"events_{batch}.json"
    return [write_elken(path, [to_elken_event(e["type"], e["text"], its,
                                              json.loads(e["release_extra_json"]) if e.get("release_extra_json")
                                              else None)
                               for e, its in events])]


def drop(store, batch: str) -> dict[str, int]:
    """Unstack a generated or imported batch (it must be on top of the stack)."""
    from .release_import import drop_release

    return drop_release(store, batch)


def import_elken_release(store, paths, params: EventsParams, progress=None) -> GenerationSummary:
    from .release_import import import_release

    return import_release(store, paths, params, progress)


TASKS = (
    Task(name=TASK_FACT, description="in-scope questions whose answers the event changes (or makes unknown)",
         dataset=ItemFilter(tasks=(TASK_FACT,)), solver=Component(name="ice"),
         metrics=("accuracy", "edit_reliability")),
    Task(name=TASK_LOCALITY, description="out-of-scope questions the event must leave unchanged",
         dataset=ItemFilter(tasks=(TASK_LOCALITY,)), solver=Component(name="ice"), metrics=("locality",)),
    Task(name=TASK_TENDENCY, description="future trends after the event, three options (made with an LLM)",
         dataset=ItemFilter(tasks=(TASK_TENDENCY,)), solver=Component(name="ice"),
         metrics=("tendency_accuracy", "tendency_edit_level", "tendency_locality")),
)

METHOD = Method(
    name="events",
    title="ELKEN (event-level knowledge editing)",
    description="Events instantiated from declarative templates on the graph, whose impacted "
                "triplets ripple through many facts; edits are layered (source facts untouched); "
                "in-scope, out-of-scope and tendency questions test an editing method.",
    params=EventsParams,
    generate=generate,
    items=read_items,
    tasks=TASKS,
    exports={"elken": ExportFormat("elken", "ELKEN's released JSON (a list of events with fact and "
                                   "tendency QAs)", write_elken_file, single_file_suffix=".json")},
    drop=drop,
    importer=import_elken_release,
    backend="optional",
    report_slices=("event_type", "scope", "known"),
    item_group="event_id",
    unit="events",
    evaluation="knowforge.eval.events.unit:UNIT",
    licence="CC BY-NC-SA 4.0",
    docs="docs/events.md",
    examples={"generate": ("knowforge generate events --types win-election,transfer-player --n 20 --seed 0",
                           "knowforge generate events --n 3 --name e1 --backend openai \\\n"
                           "      --base-url http://127.0.0.1:8000/v1 --model M     # paraphrases + tendency",
                           "knowforge generate events --import data/original/test.json   # events:elken-test",
                           "knowforge generate events --drop e1                  # unstack the batch"),
              "export": ("knowforge export events --name e0 --format elken --out exports/events.json",
                         "knowforge export events --name e0 --format lm-eval --out exports/e0-lm-eval")},
    views=VIEWS,
    control_practice=PRACTICE,
)

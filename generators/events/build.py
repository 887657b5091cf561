"""``knowforge generate events``: plan → questions → apply (layer) → store the questions.

Events of one batch are all planned against the graph as it stands before the batch (each
event is a separate counterfactual edit, as in ELKEN), then layered in order on top of
whatever is already applied. Questions are built before applying, so locality answers are
the unedited ones.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from knowforge.models.types import Backend, BenchmarkItem
from knowforge.kg.store import Store
from knowforge.models.questions import source_graph_hash, write_benchmark, write_questions

from .instantiate import DEFAULT_DATE, EventPlan, plan_events
from .layering import apply_events
from .llm import LLMStats, paraphrase_events, tendency_items
from .questions import build_items
from .templates import load_templates

log = logging.getLogger(__name__)


@dataclass
class EventsSummary:
    batch: str
    plans: list[EventPlan] = field(default_factory=list)
    items: dict[str, list[BenchmarkItem]] = field(default_factory=dict)
    requested: dict[str, int] = field(default_factory=dict)
    made: dict[str, int] = field(default_factory=dict)
    rejected: dict[str, int] = field(default_factory=dict)
    llm: LLMStats | None = None

    @property
    def n_questions(self) -> int:
        return sum(len(v) for v in self.items.values())


def generate_events(store: Store, *, types: list[str] | None, n: int, seed: int, batch: str,
                    date: str = DEFAULT_DATE, templates_dir: str | None = None,
                    locality_path: str | None = None, llm: Backend | None = None,
                    progress: Callable[[int], None] | None = None) -> EventsSummary:
    """Plan, (optionally) paraphrase and add tendency questions with ``llm``, layer, store."""
    templates = load_templates(templates_dir)
    types = types or list(templates)
    report = plan_events(store, templates, types, n, seed=seed, batch=batch, date=date,
                         progress=progress)
    benchmark = f"events:{batch}"
    stats = None
    plans = report.plans
    if llm is not None:
        stats = LLMStats()
        plans = paraphrase_events(llm, plans, seed=seed, stats=stats)
    items = build_items(store, plans, benchmark=benchmark, seed=seed,
                        locality_path=locality_path)
    if llm is not None:
        for event_id, extra in tendency_items(llm, plans, benchmark=benchmark, seed=seed,
                                              stats=stats).items():
            items[event_id] = items[event_id] + extra
    # the builder's order (in-scope, locality, tendency) survives the graph round trip
    items = {k: [i.model_copy(update={"metadata": {**i.metadata, "order": n}})
                 for n, i in enumerate(v)] for k, v in items.items()}
    report.plans = plans
    apply_events(store, report.plans)
    write_benchmark(store, method="events", name=batch, seed=seed,
                    params={"types": types, "n": n, "seed": seed, "batch": batch, "date": date,
                            "templates_dir": templates_dir, "locality_relations": locality_path,
                            "llm": None if llm is None else {"backend": llm.name, "model": llm.model}},
                    source_hash=source_graph_hash(store))
    write_questions(store, [i for plan in report.plans for i in items[plan.id]],
                    event_ids={i.id: plan.id for plan in report.plans for i in items[plan.id]})
    log.info("batch %s: %d events, %d questions", batch, len(report.plans),
             sum(len(v) for v in items.values()))
    return EventsSummary(batch, report.plans, items, report.requested, report.made,
                         report.rejected, stats)


def read_batch(store: Store, batch: str) -> list[tuple[dict, list[BenchmarkItem]]]:
    """The events of a batch (stacking order) with their items, as stored in the graph."""
    events = store.read("events/read_batch_events", batch=batch)
    questions: dict[str, list[BenchmarkItem]] = {}
    for rec in store.read("events/read_batch_questions", batch=batch):
        questions.setdefault(rec["event_id"], []).append(
            BenchmarkItem.model_validate_json(rec["item_json"]))
    out = []
    for event in events:
        event = dict(event)
        event["plan"] = json.loads(event.pop("payload"))
        items = questions.get(event["id"], [])
        out.append((event, sorted(items, key=lambda i: i.metadata.get("order", 0))))
    return out

"""KnowGen (ALCUNA) as a knowforge method: parameters, generation, items, exports and tasks.

ALCUNA evaluates every question type (Knowledge Understanding, Differentiation, Association)
under four prompting settings; each type is a task here, and the four settings are the
tasks' sweep, so ``knowforge eval --benchmark knowgen:B`` reports what the paper reports.
``--import dataset/`` stores a released ALCUNA dataset as a batch (``release_import.py``).
"""

from __future__ import annotations

from knowforge.models.method import ExportFormat, GenerationSummary, Method
from knowforge.models.task import Component, ItemFilter, Task

from .drop import drop_batch
from .export import read_items, write_alcuna, write_jsonl
from .generate import generate_batch
from .params import KnowGenParams
from .view import VIEWS

SETTINGS = ("vanilla", "chain-of-thought", "zero-shot", "few-shot")
TYPE_TITLES = {"KU": "Knowledge Understanding: the entity's own properties, with its knowledge in context",
               "KD": "Knowledge Differentiation: what differs from the parent (varied values, dropped "
                     "properties answered 'unknown')",
               "KA": "Knowledge Association: multi-hop chains through existing entities"}


def generate(store, params: KnowGenParams, backend=None, progress=None) -> GenerationSummary:
    summary = generate_batch(store, params, progress=(lambda stage, n, total: progress(n)) if progress else None)
    return GenerationSummary(method="knowgen", name=params.batch, benchmark=params.benchmark,
                             counts={"entities": summary.entities, "facts": summary.facts,
                                     "questions": summary.questions},
                             breakdown={"questions by type": summary.by_type}, timings=summary.timings)


def import_alcuna(store, paths, params: KnowGenParams, progress=None) -> GenerationSummary:
    from .release_import import import_release

    return import_release(store, paths, params, progress)


def drop(store, name: str) -> dict[str, int]:
    result = drop_batch(store, name)
    return {"nodes": result.nodes_deleted, "relationships": result.relationships_deleted}


TASKS = tuple(
    Task(name=f"knowgen/{qtype}", description=title, dataset=ItemFilter(tasks=(f"knowgen/{qtype}",)),
         solver=Component(name="zero-shot"), sweep=tuple(Component(name=s) for s in SETTINGS),
         metrics=("accuracy", "balanced_accuracy"))
    for qtype, title in TYPE_TITLES.items())

METHOD = Method(
    name="knowgen",
    title="KnowGen (ALCUNA)",
    description="Artificial entities made from real ones in a class of the graph by heredity, "
                "variation, dropout and extension of a parent's facts, with KU/KD/KA questions in "
                "boolean, fill-in-blank and multi-choice form.",
    params=KnowGenParams,
    generate=generate,
    items=read_items,
    tasks=TASKS,
    exports={"alcuna": ExportFormat("alcuna", "ALCUNA's meta_data.jsonl + id2question.json", write_alcuna),
             "jsonl": ExportFormat("jsonl", "our item JSONL (items.jsonl) + entities.jsonl", write_jsonl)},
    drop=drop,
    importer=import_alcuna,
    report_slices=("type", "form", "difference", "hop_count"),
    evaluation="knowforge.eval.knowgen.unit:UNIT",
    cluster_key="entity_name",
    docs="docs/knowgen.md",
    examples={"generate": ("knowforge generate knowgen --n 1000 --seed 1 --name alcuna1",
                           "knowforge generate knowgen --class Camelidae --n 20 --seed 0",
                           "knowforge generate knowgen --class-label Concept --parent-rel isa --n 50",
                           "knowforge generate knowgen --import ALCUNA/dataset/ --name alcuna",
                           "knowforge generate knowgen --drop alcuna1"),
              "export": ("knowforge export knowgen --name alcuna1 --format alcuna --out exports/alcuna1",
                         "knowforge export knowgen --name alcuna1 --format hf --out exports/alcuna1-hf")},
    views=VIEWS,
)

"""The graph side of the plug-in method: arithmetic questions stored in the graph, each sum also
as a node of its own label (``:TinySum``, written by its own named Cypher in ``cypher/``) that
its view ``sum`` draws. Its
evaluation side (``evaluation.py``) is named by reference, as a built-in method names
``eval/<m>/``."""

from __future__ import annotations

import json
import random
from pathlib import Path

from pydantic import Field

from knowforge.api import (BenchmarkItem, Component, ExportFormat, GenerationSummary, ItemFilter, Mark, Method,
                           MethodParams, MethodView, Task, ViewTable, read_items, source_graph_hash, write_benchmark,
                           write_questions)


class TinyParams(MethodParams):
    name: str = Field("t", description="Benchmark name.")
    size: int = Field(4, ge=1, description="Questions to make.")
    forms: tuple[str, ...] = Field(("generation", "boolean"), description="Question forms.",
                                   json_schema_extra={"cli": {"separator": ","}})


def generate(store, params: TinyParams, backend=None, progress=None) -> GenerationSummary:
    rng = random.Random(f"{params.seed}:tiny")
    items, pairs = [], []
    for i in range(params.size):
        a, b = rng.randint(1, 9), rng.randint(1, 9)
        pairs.append((a, b))
        form = params.forms[i % len(params.forms)]
        if form == "boolean":
            shown = a + b + (i % 2)
            items.append(BenchmarkItem(id=f"tiny:{params.name}:{i}", benchmark=f"tiny:{params.name}",
                                       task="tiny/add", form="boolean", question=f"Is {a} + {b} = {shown}?",
                                       answers=["yes" if shown == a + b else "no"], scorer="boolean",
                                       slices={"kind": "check"}))
        else:
            items.append(BenchmarkItem(id=f"tiny:{params.name}:{i}", benchmark=f"tiny:{params.name}",
                                       task="tiny/add", form="generation", question=f"What is {a} + {b}?",
                                       answers=[str(a + b)], scorer="tiny-sum", slices={"kind": "sum"}))
    write_benchmark(store, method="tiny", name=params.name, seed=params.seed, params=params.model_dump(),
                    source_hash=source_graph_hash(store))
    write_questions(store, items)
    # its own label, through its own named statement (kf_tiny/cypher/write_sums.cypher)
    store.write("tiny/write_sums", [{"id": f"sum:{i.id}", "question": i.id, "a": a, "b": b}
                                    for i, (a, b) in zip(items, pairs, strict=True) if i.form == "generation"])
    if progress:
        progress(len(items))
    return GenerationSummary(method="tiny", name=params.name, benchmark=f"tiny:{params.name}",
                             counts={"questions": len(items)})


def write_sums(store, name, items, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "sums.json"
    path.write_text(json.dumps([{"q": i.question, "a": i.answers[0]} for i in items], indent=1) + "\n")
    return [path]


METHOD = Method(
    name="tiny", title="Tiny sums", description="One-digit additions, for testing the method seam.",
    params=TinyParams, generate=generate, items=lambda store, name: read_items(store, f"tiny:{name}"),
    tasks=(Task(name="tiny/add", dataset=ItemFilter(tasks=("tiny/add",)), solver=Component(name="zero-shot"),
                metrics=("accuracy", "balanced_accuracy", "tiny_sum_accuracy")),),
    exports={"sums": ExportFormat("sums", "a JSON list of {q, a}", write_sums)},
    report_slices=("kind",),
    evaluation="kf_tiny.evaluation:UNIT",
    cypher="kf_tiny.cypher",
    labels=("TinySum",),
    relationship_types=("ADDS_UP",),
    views=(MethodView(name="sum", title="A sum", description="A sum and the question it adds up to.", key="sum",
                      graph="tiny/view_sum", keys="tiny/view_sum_keys",
                      node_marks=(Mark("sum", "#1f77b4", "the sum", "round-rectangle"),
                                  Mark("question", "#ff7f0e", "its question")),
                      edge_marks=(Mark("adds", "#333333", "adds up to"),),
                      tables=(ViewTable("Its numbers", "tiny/view_sum_numbers"),)),
           MethodView(name="numbers", title="A sum's numbers", description="The numbers of a sum, as a table.",
                      key="sum", graph="", keys="tiny/view_sum_keys", node_marks=(), drawing="table",
                      tables=(ViewTable("Its numbers", "tiny/view_sum_numbers"),))),
)

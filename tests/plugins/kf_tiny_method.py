"""A third-party method, as another package would write one: arithmetic questions stored in the
graph. tests/test_method_seam.py installs it through a ``knowforge.methods`` entry point and
runs it through the CLI without any change to knowforge."""

from __future__ import annotations

import json
import random
from pathlib import Path

from pydantic import Field

from pydantic import BaseModel, ConfigDict

from knowforge.eval.metrics import accuracy, register_metric
from knowforge.eval.solvers import PromptSolver, SolverSpec, register_solver
from knowforge.models.method import ExportFormat, GenerationSummary, Method, MethodParams
from knowforge.models.questions import read_items, source_graph_hash, write_benchmark, write_questions
from knowforge.models.task import Component, ItemFilter, Task
from knowforge.models.types import BenchmarkItem


class TinyParams(MethodParams):
    name: str = Field("t", description="Benchmark name.")
    size: int = Field(4, ge=1, description="Questions to make.")
    forms: tuple[str, ...] = Field(("generation", "boolean"), description="Question forms.",
                                   json_schema_extra={"cli": {"separator": ","}})


def generate(store, params: TinyParams, backend=None, progress=None) -> GenerationSummary:
    rng = random.Random(f"{params.seed}:tiny")
    items = []
    for i in range(params.size):
        a, b = rng.randint(1, 9), rng.randint(1, 9)
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
                                       answers=[str(a + b)], scorer="exact", slices={"kind": "sum"}))
    write_benchmark(store, method="tiny", name=params.name, seed=params.seed, params=params.model_dump(),
                    source_hash=source_graph_hash(store))
    write_questions(store, items)
    if progress:
        progress(len(items))
    return GenerationSummary(method="tiny", name=params.name, benchmark=f"tiny:{params.name}",
                             counts={"questions": len(items)})


def write_sums(store, name, items, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "sums.json"
    path.write_text(json.dumps([{"q": i.question, "a": i.answers[0]} for i in items], indent=1) + "\n")
    return [path]


class HintArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    hint: str = "Add the two numbers."


class HintSolver:
    """A plug-in solver: the zero-shot prompt with a hint line in front of every question."""

    def __init__(self, component, args: HintArgs):
        self.component, self.args = component, args

    def solve(self, items, backend, options, *, progress=None):
        hinted = [i.model_copy(update={"question": f"{self.args.hint}\n{i.question}"}) for i in items]
        return PromptSolver(self.component, "zero-shot").solve(hinted, backend, options, progress=progress)


def sum_accuracy(items, samples, details):
    """A plug-in metric: accuracy on the generation ("sum") items only."""
    sums = {i.id for i in items if i.slices.get("kind") == "sum"}
    return accuracy(s.score for s in samples if s.item_id in sums and s.sample_index == 0)


# a plug-in adds solvers and metrics when its module is imported (the method registry imports it)
register_solver(SolverSpec("tiny-hint", "zero-shot with a hint line (-S hint=TEXT)", HintArgs, HintSolver))
register_metric("tiny_sum_accuracy", sum_accuracy)

METHOD = Method(
    name="tiny", title="Tiny sums", description="One-digit additions, for testing the method seam.",
    params=TinyParams, generate=generate, items=lambda store, name: read_items(store, f"tiny:{name}"),
    tasks=(Task(name="tiny/add", dataset=ItemFilter(tasks=("tiny/add",)), solver=Component(name="zero-shot"),
                metrics=("accuracy", "balanced_accuracy", "tiny_sum_accuracy")),),
    exports={"sums": ExportFormat("sums", "a JSON list of {q, a}", write_sums)},
    report_slices=("kind",),
)

"""NewTerm as a knowforge method: yearly benchmarks of new dictionary terms.

``knowforge generate newterm --year Y`` builds Y's benchmark from the terms first seen in Y
(the term list in the graph), with related terms from the lexical graph (WordNet) and an LLM
for sentences, the filter and the guesses; ``--import FOLDER`` reads a NewTerm release. Each
year's benchmark stays in the graph as ``newterm:<year>``.

Tasks: COMA, COST and CSJ (and the human-filtered ``*_clean`` sets of a release), each under
the ``newterm`` solver: the Base and Gold settings with the three official phrasings,
greedy, pooled — with CSJ's balanced accuracy and the Base/Gold gap as metrics.
"""

from __future__ import annotations

from pathlib import Path

from knowforge.errors import ConfigError
from knowforge.models.method import ExportFormat, GenerationSummary, Method
from knowforge.models.questions import read_items
from knowforge.models.task import Component, ItemFilter, Task

from .generate import generate_newterm
from .graph import drop_benchmark, read_release_records
from .importer import import_release
from .params import NewTermParams
from .release import write_files
from .view import VIEWS

TITLES = {"COMA": "Choice Of Multiple Alternatives: the most plausible cause or effect of a sentence "
                  "using the new term (4 options)",
          "COST": "Choice Of Similar Terms: fill the blank with the new term or one of its related terms "
                  "(4 options)",
          "CSJ": "Common Sense Judgement: is a sentence using the new term coherent? (balanced accuracy)"}
# newterm_score is the run's own setting pooled over the phrasings (CSJ: balanced accuracy);
# base, gold and the gap (Base - Gold) come from the run that asked both (the Gold run)
METRICS = ("accuracy", "newterm_score", "newterm_base", "newterm_gold", "newterm_gap", "newterm_breakdown")
SWEEP = (Component(name="newterm", args={"setting": "base"}), Component(name="newterm", args={"setting": "gold"}))


def generate(store, params: NewTermParams, backend=None, progress=None) -> GenerationSummary:
    return generate_newterm(store, params, backend, progress)


def items(store, name: str):
    """The items of ``newterm:NAME``; ``NAME1+NAME2+...`` joins several benchmarks (years) into
    one evaluation, so its year breakdown shows the trend."""
    return [item for part in _names(name) for item in read_items(store, f"newterm:{part}")]


def _names(name: str) -> list[str]:
    parts = [p.strip() for p in name.split("+")]
    if not all(parts):
        raise ConfigError(f"bad benchmark name {name!r}: NAME or NAME1+NAME2")
    return parts


def _single(name: str) -> str:
    if "+" in name:
        raise ConfigError(f"{name!r} joins several benchmarks for evaluation; export or drop them one at a time")
    return name


def write_release(store, name: str, items_, out: Path) -> list[Path]:
    """NewTerm's released layout: COMA.jsonl, COST.jsonl, CSJ.jsonl (and *_clean, when imported),
    new_terms.jsonl and term_generation.jsonl, keys sorted, as the official scripts write them."""
    return write_files(out, items_, read_release_records(store, f"newterm:{_single(name)}"))


def drop(store, name: str) -> dict[str, int]:
    return drop_benchmark(store, _single(name))


def _task(task: str, variant: str) -> Task:
    name = f"newterm/{task}{'_clean' if variant == 'clean' else ''}"
    title = TITLES[task] + (" — the release's human-filtered set" if variant == "clean" else "")
    return Task(name=name, description=title, dataset=ItemFilter(tasks=(name,)), solver=SWEEP[1], sweep=SWEEP,
                metrics=METRICS)


TASKS = tuple(_task(task, variant) for variant in ("raw", "clean") for task in ("COMA", "COST", "CSJ"))

METHOD = Method(
    name="newterm",
    title="NewTerm",
    description="Yearly benchmarks of terms newly added to dictionaries: terms of a year from the graph, "
                "selected by novelty (not a WordNet lemma), frequency (wordfreq) and deducing difficulty; "
                "related terms from the lexical graph (synonyms, antonyms, hypernyms/hyponyms, similar-to, "
                "spelling neighbours), topped up by an LLM; COMA, COST and CSJ items written and filtered by "
                "an LLM; evaluated without (Base) and with (Gold) the term's meaning.",
    params=NewTermParams,
    generate=generate,
    items=items,
    tasks=TASKS,
    exports={"newterm": ExportFormat("newterm", "NewTerm's released layout (COMA/COST/CSJ.jsonl, *_clean, "
                                                "new_terms.jsonl, term_generation.jsonl)", write_release)},
    drop=drop,
    importer=import_release,
    backend="required",
    report_slices=("category", "year"),
    unit="items",
    evaluation="knowforge.eval.newterm.unit:UNIT",
    cluster_key="term",
    docs="docs/newterm.md",
    examples={"generate": ("knowforge generate newterm --year 2024 --backend openai --base-url "
                           "http://127.0.0.1:8000/v1 --model M",
                           "knowforge generate newterm --year 2024 --n 50 --similarity rapidfuzz --backend hf "
                           "--model out/tiny",
                           "knowforge generate newterm --import benchmark_2022/",
                           "knowforge generate newterm --drop 2024"),
              "export": ("knowforge export newterm --name 2024 --format newterm --out exports/newterm_2024",
                         "knowforge export newterm --name 2022 --format hf --out exports/newterm_2022-hf"),
              "eval": ("knowforge eval --benchmark newterm:2024 --backend vllm --model Qwen/Qwen2.5-7B-Instruct",
                       "knowforge eval --benchmark newterm:2022+2024 --task COMA --solver newterm -S setting=gold "
                       "--backend hf --model out/tiny")},
    licence="CC BY 4.0",
    views=VIEWS,
)

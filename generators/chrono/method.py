"""ChroKnow (ChroKnowBench, ChroKnowledge's check, ChroKnowPrompt) as a knowforge method.

Items are per (fact, year, template); the three templates (generation, MCQA, true/false) are
the tasks. The default solver is the sampling-based knowledge check; ``--solver chronoprompt``
adds ChroKnowPrompt on the Partial Known facts. ``--limit K`` keeps K whole facts (all their
years), because a fact's chronological category needs every year.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Literal

from pydantic import Field

from knowforge.models.method import ExportFormat, GenerationSummary, Method, MethodParams
from knowforge.models.task import Component, ItemFilter, Task

from .build import (DOMAINS, ChronoConfig, build_benchmark, drop_benchmark, import_benchmark, load_items,
                    write_chroknowbench)
from .control_practice import PRACTICE
from .templates import TEMPLATES
from .view import VIEWS


def _cli(**options) -> dict:
    return {"cli": options}


class ChronoParams(MethodParams):
    domain: Literal["general", "biomedical", "legal", "commonsense", "math"] | None = Field(
        None, description="Which domain to build (required unless --import is given).")
    name: str | None = Field(None, description="Benchmark name; its id is chrono:NAME (default: the domain).")
    from_year: int | None = Field(None, description="First year (defaults: general/legal 2010, biomedical "
                                                    "2020, invariant 2020).", json_schema_extra=_cli(flags=["--from"]))
    to_year: int | None = Field(None, description="Last year (defaults: general/legal 2023, biomedical and "
                                                  "invariant 2024).", json_schema_extra=_cli(flags=["--to"]))
    relations: tuple[str, ...] | None = Field(None, description="Relation ids (default: the domain's set).",
                                              json_schema_extra=_cli(separator=","))
    templates: tuple[str, ...] = Field(TEMPLATES, description="Templates: generation, mcqa, tf.",
                                       json_schema_extra=_cli(separator=","))
    fewshot_pool: int | None = Field(None, description="Exemplars held out per relation (default: 4 "
                                                       "general, 8 other domains).")
    max_per_relation: int | None = Field(None, description="Cap of records per relation and state.")
    min_years: int = Field(2, description="Years with an object a time-variant record needs.")
    balance: bool = Field(True, description="Balance dynamic and static records per relation.")
    distractors: Literal["graph", "llm"] = Field("graph", description="MCQA distractors from the graph, "
                                                                      "or made by an LLM (--backend/--model) "
                                                                      "and verified.")
    relations_file: str | None = Field(None, description="Your own relation phrasings (layout of "
                                                         "generators/chrono/relations.yaml).")

    def default_name(self) -> str | None:
        return self.domain

    def to_config(self) -> ChronoConfig:
        from knowforge.errors import ConfigError

        if self.domain is None:
            raise ConfigError("--domain is required (or --import FILES)")
        return ChronoConfig(domain=self.domain, name=self.name, from_year=self.from_year, to_year=self.to_year,
                            relations=self.relations, seed=self.seed, fewshot_pool=self.fewshot_pool,
                            max_per_relation=self.max_per_relation, min_years=self.min_years,
                            balance=self.balance, templates=self.templates, distractors=self.distractors,
                            relations_file=self.relations_file)


def _summary(result, name: str) -> GenerationSummary:
    test = [r for r in result.records if r.split == "test"]
    states = {c: sum(r.change == c for r in test) for c in ("dynamic", "static", "invariant")}
    return GenerationSummary(method="chrono", name=name, benchmark=result.benchmark_id,
                             counts={"facts": len(test), "few-shot exemplars": len(result.records) - len(test),
                                     "items": len(result.items)},
                             breakdown={"facts by temporal state": {k: v for k, v in states.items() if v}})


def generate(store, params: ChronoParams, backend=None, progress=None) -> GenerationSummary:
    if params.distractors == "llm" and backend is None:
        from knowforge.errors import ConfigError

        raise ConfigError("--distractors llm needs a model: pass --backend and --model")
    config = params.to_config()
    result = build_benchmark(store, config, backend=backend, progress=progress)
    return _summary(result, config.benchmark_id.split(":", 1)[1])


MAX_LISTED = 20


def import_files(store, paths, params: ChronoParams, progress=None) -> GenerationSummary:
    """ChroKnowBench files or folders as ``chrono:NAME`` (default ``imported``): every line read
    or listed with its file, line and reason; the variants met are counted."""
    name = params.name or "imported"
    result = import_benchmark(store, [str(p) for p in paths], name=name, seed=params.seed,
                              templates=params.templates, relations_file=params.relations_file, progress=progress)
    summary = _summary(result, name)
    report = result.report
    summary.counts.update({"lines skipped": sum(report.lines_skipped.values()), "duplicate lines": report.duplicates})
    summary.breakdown["records by file"] = {Path(f).name: n for f, n in report.files.items()}
    summary.breakdown["items by template"] = dict(Counter(i.slices["template"] for i in result.items))
    if report.lines_skipped:
        summary.breakdown["lines skipped"] = dict(report.lines_skipped)
    if report.variants:
        summary.breakdown["variants met (accepted)"] = dict(sorted(report.variants.items()))
    notes = [f"not a ChroKnowBench file, left out: {f}" for f in report.files_skipped]
    notes += report.problems[:MAX_LISTED]
    if len(report.problems) > MAX_LISTED:
        notes.append(f"... and {len(report.problems) - MAX_LISTED} more (all in the benchmark's import_report_json)")
    notes += report.variants.notes()
    summary.notes.extend(notes)
    return summary


def drop(store, name: str) -> dict[str, int]:
    return drop_benchmark(store, name.split(":", 1)[1] if name.startswith("chrono:") else name)


TASK_TITLES = {"generation": "complete 'In {year}, {subject}, {relation}, ___' with the object of that year",
               "mcqa": "pick the object of that year among four options",
               "tf": "judge a (subject, relation, object, year) statement true or false"}

TASKS = tuple(
    Task(name=f"chrono/{template}", description=title, dataset=ItemFilter(tasks=(f"chrono/{template}",)),
         solver=Component(name="chrono-check"),
         metrics=("accuracy", "chrono_categories", "chronoprompt_gain"))
    for template, title in TASK_TITLES.items())

METHOD = Method(
    name="chrono",
    title="ChroKnowBench + ChroKnowPrompt",
    description="Time-stamped facts from the graph's qualifiers (general: Wikidata, biomedical: UMLS "
                "releases, legal: CFR editions, invariant: CSKG and Math-KG), asked per year; the "
                "sampling-based knowledge check sorts facts into Known, Cut-off, Partial Known and "
                "Unknown, and ChroKnowPrompt traverses neighbouring years.",
    params=ChronoParams,
    generate=generate,
    items=load_items,
    tasks=TASKS,
    exports={"chroknowbench": ExportFormat("chroknowbench", "ChroKnowBench's layout "
                                           "(TimeVariant_<Domain>_Dynamic.jsonl, ...)", write_chroknowbench)},
    importer=import_files,
    drop=drop,
    backend="optional",
    report_slices=("domain", "change", "year"),
    item_group="record_id",
    unit="facts",
    evaluation="knowforge.eval.chrono.unit:UNIT",
    docs="docs/chrono.md",
    examples={"generate": ("knowforge generate chrono --domain general --from 2010 --to 2023 --seed 0",
                           "knowforge generate chrono --domain biomedical --name bio --seed 1",
                           "knowforge generate chrono --domain legal --templates generation,mcqa",
                           "knowforge generate chrono --import ChroKnowBench/ --name released",
                           "knowforge generate chrono --drop released"),
              "export": ("knowforge export chrono --name general --format chroknowbench --out exports/chrono",
                         "knowforge export chrono --name chrono:bio --format jsonl --out exports/")},
    views=VIEWS,
    control_practice=PRACTICE,
)

__all__ = ["DOMAINS", "METHOD", "ChronoParams"]

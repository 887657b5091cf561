"""LINK / LINT (long-tail inferential knowledge) as a knowforge method.

Generation instantiates symbolic rules by LINK's knowledge beam search, with the graph
answering every predicate it holds (``generate``); each statement becomes an inferred fact
with DERIVED_FROM chains to the facts it rests on, and 13 entailment-probe questions. One
task, ``link/entailment``, runs the probe (solver ``link-probe``: LINT's first-word rule) and
reports per-template accuracy, the all-13 "known" rate, head vs long tail and the relative
drop, by domain, rule and how many premises came from the graph. ``--limit K`` keeps K whole
statements (all 13 questions). ``--import`` stores LINT-style JSONL (``release_import.py``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from knowforge.errors import ConfigError
from knowforge.models.method import ExportFormat, GenerationSummary, Method
from knowforge.models.questions import read_benchmark, read_items
from knowforge.models.task import Component, ItemFilter, Task
from knowforge.models.types import BenchmarkItem

from .generate import drop_link, generate_link, read_statements
from .params import LinkParams
from .statements import TASK, statements_by_rule
from .view import VIEWS


def _scorer(params: LinkParams):
    if not params.scorer_model:
        return None
    from knowforge.models.backends import make_backend
    from knowforge.models.config import BackendConfig

    backend = params.scorer_backend or ("openai" if params.scorer_base_url else "hf")
    return make_backend(BackendConfig(backend=backend, model=params.scorer_model, base_url=params.scorer_base_url,
                                      seed=params.seed))


def generate(store, params: LinkParams, backend=None, progress=None) -> GenerationSummary:
    result = generate_link(store, params, knowledge=backend, scorer=_scorer(params), progress=progress)
    stats = result.stats
    by_dist = {d: sum(1 for s in result.statements if s.distribution == d) for d in params.distributions}
    breakdown = {"statements by rule": {f"{r} {d}": n for r, ds in statements_by_rule(result.statements).items()
                                        for d, n in ds.items()},
                 "requests": {"generate": stats.generate_requests, "loglikelihood": stats.loglikelihood_requests,
                              "graph queries": stats.graph_queries, "errors": stats.errors}}
    if stats.counts:
        breakdown["search"] = {k: v for k, v in sorted(stats.counts.items()) if not k.endswith(":values")}
    notes = [f"rule {rid} skipped: {why}" for rid, why in sorted(result.skipped.items())]
    notes += [f"rule file problem: {p}" for p in result.problems]
    delta = result.delta
    if delta.get("overall") is not None:
        per_rule = ", ".join(f"{rid} {row['delta']:+.3f}" for rid, row in delta["rules"].items()
                             if row["delta"] is not None)
        notes.append(f"distribution check ({delta['measure']}): delta = mean(head) - mean(long tail) = "
                     f"{delta['overall']:+.3f} over {sum(1 for r in delta['rules'].values() if r['delta'] is not None)}"
                     f" rules ({per_rule})")
    notes += [f"grounding {g}" for g in result.grounding]
    counts = {"rules": len(result.rules_searched), **{f"{d} statements": n for d, n in by_dist.items()},
              "inferred facts": result.facts, "questions": result.items}
    return GenerationSummary(method="link", name=params.name, benchmark=params.benchmark, counts=counts,
                             breakdown=breakdown, timings={"total": result.seconds}, notes=notes)


def items(store, name: str) -> list[BenchmarkItem]:
    return read_items(store, f"link:{name}")


def write_lint(store, name: str, items: Sequence[BenchmarkItem], out: Path) -> list[Path]:
    """LINT-style JSONL: ``lint_head.jsonl`` and ``lint_longtail.jsonl``, one statement a line
    (schema in docs/link.md), sorted keys, in statement order."""
    records = read_statements(store, name)
    if not records and read_benchmark(store, f"link:{name}") is None:
        raise ConfigError(f"no LINK benchmark link:{name!r} in the graph")
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for distribution in ("head", "longtail"):
        # an imported line may lack rule or rank (read_lint_release fills in the distribution)
        mine = sorted((r for r in records if r["distribution"] == distribution),
                      key=lambda r: (str(r.get("rule") or ""), r.get("rank") if isinstance(r.get("rank"), int) else 0))
        if not mine:
            continue
        path = out / f"lint_{distribution}.jsonl"
        path.write_text("".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in mine),
                        encoding="utf-8")
        paths.append(path)
    return paths


def drop(store, name: str) -> dict[str, int]:
    return drop_link(store, name)


def import_lint(store, paths, params: LinkParams, progress=None) -> GenerationSummary:
    from .release_import import import_release

    return import_release(store, paths, params, progress)


METRICS = ("accuracy", "link_templates", "link_known", "link_head_tail", "link_by_domain", "link_by_rule",
           "link_by_graph_premises")

TASKS = (
    # version 2: scored by the link-probe scorer in the run's mode (official: the first token)
    Task(name=TASK, version="2", description="LINT's entailment probe: 13 templates per statement (premise -> conclusion, "
                                "its negation and question); a statement is known when all 13 are right",
         dataset=ItemFilter(tasks=(TASK,)), solver=Component(name="link-probe"),
         scorer=Component(name="link-probe"), metrics=METRICS),
)

METHOD = Method(
    name="link",
    title="LINK / LINT (long-tail inferential knowledge)",
    description="Symbolic rules instantiated by LINK's knowledge beam search, the graph answering every "
                "predicate it holds and a model the rest (critic, reranker), in head and long-tail sets; "
                "each conclusion is an inferred fact chained to its premises, probed with LINT's 13 "
                "entailment templates.",
    params=LinkParams,
    generate=generate,
    items=items,
    tasks=TASKS,
    exports={"lint": ExportFormat("lint", "LINT-style JSONL: lint_head.jsonl and lint_longtail.jsonl, one statement "
                                          "a line (rule, bindings, premise, conclusion, provenance)", write_lint)},
    drop=drop,
    importer=import_lint,
    backend="optional",
    report_slices=("template", "distribution", "domain", "grounding"),
    item_group="statement_id",
    unit="statements",
    evaluation="knowforge.eval.link.unit:UNIT",
    licence="CC BY 4.0",
    docs="docs/link.md",
    examples={"generate": ("knowforge generate link --n 100 --distribution both        # the rules the graph grounds",
                           "knowforge generate link --rules my_rules.yaml --n 100 --distribution longtail --name lt1",
                           "knowforge generate link --rule outcome_allergy_dish --rule outcome_allergy_menu \\\n"
                           "      --chain-depth 2 --name chain",
                           "knowforge generate link --backend openai --base-url http://127.0.0.1:8000/v1 --model M \\\n"
                           "      --scorer-model S --n 50                          # rules the graph lacks",
                           "knowforge generate link --import exports/lint --name lint   # LINT-style JSONL",
                           "knowforge generate link --drop lt1"),
              "export": ("knowforge export link --name lk0 --format lint --out exports/lint",
                         "knowforge export link --name lk0 --format hf --out exports/lk0-hf")},
    views=VIEWS,
)

__all__ = ["LinkParams", "METHOD"]

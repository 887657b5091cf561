"""Solvers: how the items of a task become requests and answers (Inspect AI's "solver").

A task names its solver; the registry turns the name (and typed arguments) into an object with
one batch method, ``solve(items, ctx) -> SolverOutput``. Batch, not per-item, because every
backend is batch-first (vLLM wants thousands of prompts at once). Every solver composes the one
ask-and-score step (``knowforge.eval.ask``); it supplies only how to render a request and how
to read and score its answer.

The generic solvers are the four prompting settings (``vanilla``, ``zero-shot``,
``few-shot``, ``chain-of-thought``); a method declares its own in its ``eval/<method>/`` unit
(``knowforge methods --solvers`` lists them all). A solver's arguments are a pydantic model,
so a bad ``--solver-arg`` fails before anything is asked.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from knowforge.errors import ConfigError
from knowforge.eval.ask import Ask, ask_and_score, ask_choices
from knowforge.eval.mc_likelihood import LIKELIHOOD_SETTINGS, build_choice_question
from knowforge.eval.prompts import render_requests
from knowforge.eval.registry import registry, solver_spec
from knowforge.eval.scorers import final_answer
from knowforge.eval.types import EvalOptions, SampleResult, parse_key_values
from knowforge.eval.unit import SolveContext, Solver, SolverOutput
from knowforge.models.gc_pause import paused_gc
from knowforge.models.task import Component
from knowforge.models.types import BenchmarkItem

log = logging.getLogger(__name__)


def prompt_asks(items: Sequence[BenchmarkItem], setting: str, options: EvalOptions) -> list[Ask]:
    """One request per item under a prompting setting (``knowforge.eval.prompts``)."""
    read = final_answer if setting == "chain-of-thought" else None
    items = list(items)
    return [Ask(item, request, read=read) for item, request in zip(items, render_requests(items, setting, options))]


def solve_prompted(items: Sequence[BenchmarkItem], setting: str, ctx: SolveContext) -> list[SampleResult]:
    """Ask every item under ``setting`` and score the answers; with ``--mc-scoring likelihood``
    multiple-choice, boolean and true/false items are scored by the likelihood of each option."""
    options = ctx.options
    items = list(items)
    by_id: dict[str, list[SampleResult]] = {}
    generated = items
    if options.mc_scoring == "likelihood":
        if options.chat:
            raise ConfigError("likelihood scoring scores options after a plain prompt; drop --chat "
                              "(chat messages have no text context to continue)")
        if setting not in LIKELIHOOD_SETTINGS:
            # a reasoning prompt does not end where an option can follow: generate everything
            log.warning("setting %r: multiple-choice items are generated, not scored by likelihood", setting)
        else:
            questions = [q for q in (build_choice_question(i, setting, options.mc_continuation) for i in items)
                         if q is not None]
            for sample in ask_choices(questions, ctx.backend, progress=ctx.progress):
                by_id[sample.item_id] = [sample]
            generated = [i for i in items if i.id not in by_id]
    with paused_gc():           # every item's prompt (knowforge.models.gc_pause)
        asks = prompt_asks(generated, setting, options)
    samples = ask_and_score(asks, ctx.backend, scoring=options.scoring, progress=ctx.progress)
    with paused_gc():           # a list per item: with the collector on, 100,000 of them started a full collection
        if not by_id and len({i.id for i in items}) == len(items):
            # every item generated, each id once: the samples are in item order already
            return samples
        for sample in samples:
            by_id.setdefault(sample.item_id, []).append(sample)
        return [s for item in items for s in by_id.get(item.id, [])]


def likelihood_summary(results: Sequence[SampleResult]) -> dict | None:
    """Items scored by likelihood with their acc and acc_norm (lm-eval's two numbers), or None."""
    scored = [r.metadata for r in results if r.metadata and r.metadata.get("mc_scoring") == "likelihood"]
    if not scored:
        return None
    return {"items": len(scored), "acc": sum(m["acc"] for m in scored) / len(scored),
            "acc_norm": sum(m["acc_norm"] for m in scored) / len(scored)}


@dataclass(frozen=True)
class PromptSolver:
    """One request per item under a prompting setting."""

    component: Component
    setting: str

    def solve(self, items: Sequence[BenchmarkItem], ctx: SolveContext) -> SolverOutput:
        samples = solve_prompted(items, self.setting, ctx)
        run_extra: dict[str, Any] = {}
        sections: dict[str, Any] = {}
        likelihood = likelihood_summary(samples)
        if likelihood is not None:
            run_extra.update({"mc_likelihood_items": likelihood["items"], "mc_acc": likelihood["acc"],
                              "mc_acc_norm": likelihood["acc_norm"]})
            sections["Multiple choice by likelihood"] = [likelihood]
        return SolverOutput(items=list(items), samples=samples, run_extra=run_extra, sections=sections)


def parse_solver_args(pairs: Sequence[str]) -> dict[str, Any]:
    """The ``--solver-arg`` pairs as a dict (``parse_key_values``)."""
    return parse_key_values(pairs, "--solver-arg")


def make_solver(component: Component) -> Solver:
    spec = solver_spec(component.name)
    try:
        args = spec.args.model_validate(component.args)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'args'}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"solver {component.name!r}: bad arguments: {problems}") from exc
    canonical = Component(name=component.name, args=args.model_dump(exclude_defaults=True))
    return spec.build(canonical, args)


def describe_solvers() -> list[dict[str, Any]]:
    """Name, owner, description and arguments (with defaults) of every solver, for
    ``knowforge methods --solvers``."""
    reg = registry()
    rows = []
    for name, spec in sorted(reg.solvers.items()):
        # a required argument has no default to show: "required" says the task must set it
        fields = {k: "required" if f.is_required() else f.get_default(call_default_factory=True)
                  for k, f in spec.args.model_fields.items()}
        rows.append({"name": name, "owner": reg.owner("solver", name), "description": spec.description,
                     "args": fields})
    return rows


__all__ = ["PromptSolver", "describe_solvers", "likelihood_summary", "make_solver", "parse_solver_args",
           "prompt_asks", "solve_prompted"]

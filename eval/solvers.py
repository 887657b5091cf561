"""Solvers: how the items of a task become requests and answers (Inspect AI's "solver").

A task names its solver; this registry turns the name (and typed arguments) into an object
with one batch method, ``solve(items, backend, options, progress) -> SolverOutput``. Batch,
not per-item, because every backend is batch-first (vLLM wants thousands of prompts at once).

=====================  =========================================================================
solver                 what it asks
=====================  =========================================================================
vanilla                the question only (ALCUNA's settings)
zero-shot              an instruction for the item's form, then the question
few-shot               instruction + the item's own exemplars
chain-of-thought       think step by step, final line "Answer: ..."
chrono-check           ChroKnowledge's sampling-based knowledge check (greedy + sampled answers
                       with random 4-shot sets per fact and year); chronological categories
chronoprompt           the check, then ChroKnowPrompt on Partial Known facts (``span``)
ice / bm25 / dense     ELKEN editing: the gold event, or the top-1 retrieved event, in context;
                       out-of-scope questions also asked without it (locality)
no-edit                ELKEN's unedited baseline
ft                     ELKEN's fine-tuning baseline (transformers backends): per event, a copy
                       of the model tuned on the event's edit statements answers, then is
                       discarded (``-S epochs=12 -S lr=1e-3``); reads the graph (``needs_store``)
newterm                NewTerm's Base or Gold setting (``-S setting=base|gold``): the three
                       official phrasings, greedy, pooled; the Gold run also reports the gap
link-probe             LINT's entailment probe: each of a statement's 13 template items as it is,
                       scored by the first token of the reply (``-S scoring=robust``: any yes/no)
=====================  =========================================================================

Methods add solvers by name here only when the prompt-building is generic; a solver's
arguments are a pydantic model, so a bad ``--solver-arg`` fails before anything is asked.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from knowforge.errors import ConfigError
from knowforge.eval.link_probe import LinkProbeSolver, ProbeArgs
from knowforge.eval.runner import DEFAULT_CHUNK_SIZE, SampleResult, evaluate_items
from knowforge.eval.types import EvalOptions
from knowforge.models.task import Component
from knowforge.models.types import Backend, BenchmarkItem

log = logging.getLogger(__name__)

SolverProgress = Callable[[int], None]


@dataclass(frozen=True)
class SolverOutput:
    """What a solver hands back to the task runner."""

    items: list[BenchmarkItem]            # the items as asked (an editing solver adds context)
    samples: list[SampleResult]           # scored answers, in item order
    run_extra: dict[str, Any] = field(default_factory=dict)     # properties of the Run
    sections: dict[str, Any] = field(default_factory=dict)      # extra report sections
    details: dict[str, Any] = field(default_factory=dict)       # inputs of solver-specific metrics
    # (run_dir, run_id): plots and files written after the engine's report
    finalize: Callable[[Path, str], None] | None = None


class Solver(Protocol):
    component: Component

    def solve(self, items: Sequence[BenchmarkItem], backend: Backend, options: EvalOptions, *,
              progress: SolverProgress | None = None) -> SolverOutput: ...


class NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class SolverSpec:
    name: str
    description: str
    args: type[BaseModel]
    build: Callable[[Component, BaseModel], Solver]


# --- prompt settings -----------------------------------------------------------------------------
@dataclass(frozen=True)
class PromptSolver:
    """One request per item under a prompting setting (``knowforge.eval.prompts``)."""

    component: Component
    setting: str

    def solve(self, items, backend, options, *, progress=None,
              chunk_size: int = DEFAULT_CHUNK_SIZE) -> SolverOutput:
        options = replace(options, extra={**options.extra, "setting": self.setting})
        samples = evaluate_items(items, backend, options, setting=self.setting, progress=progress,
                                 chunk_size=chunk_size)
        run_extra: dict[str, Any] = {"setting": self.setting}
        sections: dict[str, Any] = {}
        likelihood = likelihood_summary(samples)
        if likelihood is not None:
            run_extra.update({"mc_likelihood_items": likelihood["items"], "mc_acc": likelihood["acc"],
                              "mc_acc_norm": likelihood["acc_norm"]})
            sections["Multiple choice by likelihood"] = [likelihood]
        return SolverOutput(items=list(items), samples=samples, run_extra=run_extra, sections=sections)


def likelihood_summary(results: Sequence[SampleResult]) -> dict | None:
    """Items scored by likelihood with their acc and acc_norm (lm-eval's two numbers), or None."""
    scored = [r.metadata for r in results if r.metadata and r.metadata.get("mc_scoring") == "likelihood"]
    if not scored:
        return None
    return {"items": len(scored), "acc": sum(m["acc"] for m in scored) / len(scored),
            "acc_norm": sum(m["acc_norm"] for m in scored) / len(scored)}


# --- ChroKnow --------------------------------------------------------------------------------------
class ChronoCheckArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    shot_sets: int = 5                    # random 4-shot exemplar sets per (fact, year, template)
    samples: int = 1                      # sampled (temperature 0.7) answers per exemplar set


class ChronoPromptArgs(ChronoCheckArgs):
    span: Literal["total", "previous", "both"] = "total"


@dataclass(frozen=True)
class ChronoSolver:
    """The knowledge check (and ChroKnowPrompt on Partial Known facts when ``span`` is set)."""

    component: Component
    args: ChronoCheckArgs
    span: str | None = None

    def solve(self, items, backend, options, *, progress=None) -> SolverOutput:
        from knowforge.eval.chrono_eval import solve_chrono

        return solve_chrono(items, backend, options, shot_sets=self.args.shot_sets,
                            samples=self.args.samples, span=self.span, progress=progress)


# --- ELKEN editing ---------------------------------------------------------------------------------
class DenseArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    dense_model: str | None = None        # a sentence-transformers model (E5 style); default
                                          # $KNOWFORGE_E5_MODEL, then intfloat/e5-base-v2


@dataclass(frozen=True)
class EditingSolver:
    component: Component
    method: str
    args: BaseModel

    def solve(self, items, backend, options, *, progress=None) -> SolverOutput:
        from knowforge.eval.editing import judge_from_options, solve_editing

        dense_model = getattr(self.args, "dense_model", None)
        if dense_model:
            options = replace(options, extra={**options.extra, "dense_model": dense_model})
        return solve_editing(items, backend, options, method=self.method,
                             judge=judge_from_options(options), progress=progress)


class FineTuneArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    epochs: float = 12.0                  # passes over the event's edit statements
    lr: float = 1e-3                      # constant learning rate of the copy


@dataclass(frozen=True)
class FineTuneSolver:
    """ELKEN's fine-tuning baseline: per event, a copy of a transformers model is fine-tuned on
    the event's edit statements (read from the graph, hence ``needs_store``), answers without
    context, and is discarded."""

    component: Component
    args: FineTuneArgs
    needs_store = True

    def solve(self, items, backend, options, *, progress=None, store=None) -> SolverOutput:
        from knowforge.eval.editing import solve_editing

        options = replace(options, extra={**options.extra, "ft_epochs": self.args.epochs, "ft_lr": self.args.lr})
        return solve_editing(items, backend, options, method="ft", store=store, progress=progress)


# --- NewTerm --------------------------------------------------------------------------------------
def _newterm(component: Component, args: BaseModel) -> Solver:
    from knowforge.eval.newterm_eval import NewTermSolver

    return NewTermSolver(component, args)


def _newterm_args() -> type[BaseModel]:
    from knowforge.eval.newterm_eval import NewTermArgs

    return NewTermArgs


def _prompt(setting: str, description: str) -> SolverSpec:
    return SolverSpec(setting, description, NoArgs,
                      lambda component, _args: PromptSolver(component, setting))


def _editing(name: str, method: str, description: str) -> SolverSpec:
    return SolverSpec(name, description, DenseArgs if method == "dense" else NoArgs,
                      lambda component, args: EditingSolver(component, method, args))


SOLVERS: dict[str, SolverSpec] = {spec.name: spec for spec in (
    _prompt("vanilla", "the question only"),
    _prompt("zero-shot", "an instruction for the item's form, then the question"),
    _prompt("few-shot", "instruction + the item's own exemplars"),
    _prompt("chain-of-thought", "think step by step; the last line 'Answer: ...' is scored"),
    SolverSpec("chrono-check", "ChroKnowledge's sampling-based knowledge check and categories",
               ChronoCheckArgs, lambda component, args: ChronoSolver(component, args)),
    SolverSpec("chronoprompt", "the knowledge check, then ChroKnowPrompt on Partial Known facts",
               ChronoPromptArgs, lambda component, args: ChronoSolver(component, args, span=args.span)),
    _editing("ice", "ice", "ELKEN: the gold event in context"),
    _editing("bm25", "bm25", "ELKEN: the top-1 event retrieved by BM25 from all edits"),
    _editing("dense", "dense", "ELKEN: the top-1 event retrieved by a dense (E5-style) encoder"),
    _editing("no-edit", "none", "ELKEN: the unedited model"),
    SolverSpec("ft", "ELKEN: fine-tuning baseline, a copy of a transformers model tuned per event (hf backends)",
               FineTuneArgs, lambda component, args: FineTuneSolver(component, args)),
    SolverSpec("newterm", "NewTerm: Base or Gold (-S setting=base|gold), three official phrasings pooled",
               _newterm_args(), _newterm),
    SolverSpec("link-probe", "LINT's entailment probe: the 13 templates per statement, first-token scoring",
               ProbeArgs, lambda component, args: LinkProbeSolver(component, args)),
)}


def register_solver(spec: SolverSpec) -> None:
    """Add a solver (a method package may call this when its module is imported)."""
    SOLVERS[spec.name] = spec


def parse_solver_args(pairs: Sequence[str]) -> dict[str, Any]:
    """``["span=both", "shot_sets=3"]`` → {"span": "both", "shot_sets": "3"}; the solver's
    argument model converts and checks the values."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--solver-arg {pair!r} is not KEY=VALUE")
        out[key.strip().replace("-", "_")] = value
    return out


def make_solver(component: Component) -> Solver:
    spec = SOLVERS.get(component.name)
    if spec is None:
        raise ConfigError(f"unknown solver {component.name!r}; known: {', '.join(sorted(SOLVERS))}")
    try:
        args = spec.args.model_validate(component.args)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'args'}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"solver {component.name!r}: bad arguments: {problems}") from exc
    canonical = Component(name=component.name, args=args.model_dump(exclude_defaults=True))
    return spec.build(canonical, args)


def describe_solvers() -> list[dict[str, Any]]:
    """Name, description and arguments (with defaults) of every solver, for ``knowforge methods``."""
    rows = []
    for name, spec in sorted(SOLVERS.items()):
        # a required argument has no default to show: "required" says the task must set it
        fields = {k: "required" if f.is_required() else f.default for k, f in spec.args.model_fields.items()}
        rows.append({"name": name, "description": spec.description, "args": fields})
    return rows


__all__ = ["SOLVERS", "Solver", "SolverOutput", "SolverSpec", "describe_solvers", "make_solver",
           "parse_solver_args", "register_solver"]

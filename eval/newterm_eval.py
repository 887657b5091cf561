"""NewTerm evaluation: the Base and Gold settings with the three official phrasings per task,
greedy, pooled (the paper's accuracy over 3·N answers; CSJ as balanced accuracy).

The phrasings and system prompts below are part of the benchmark's definition (the paper's
Tables 14-16, as the released ``utils.build_prompt`` writes them) and are kept word for word,
trailing spaces and the missing space after the COST question of phrasing 2 included. Gold
prefixes the system prompt with ``Given that "{term}" means "{meaning}". ``. Answers are
parsed by the official rules (``knowforge.eval.compat.newterm``, through the items' scorers).

The ``newterm`` solver runs one setting (``setting=base`` or ``gold``); a task sweeps both,
so ``knowforge eval`` records a Base run and a Gold run. The Gold run also asks the Base
prompts (``compare``; answered from the response cache when the Base run came first) to
report the gap Base − Gold per task, per term category and per year, with a plot of Base vs
Gold by year. ``knowforge eval --benchmark newterm:2022+2023+2024`` evaluates several years'
benchmarks in one run, so the year table and plot show the trend.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from knowforge.errors import BackendError, ConfigError
from knowforge.eval.metrics import balanced_accuracy
from knowforge.eval.runner import SampleResult
from knowforge.eval.scorers import score_item
from knowforge.eval.types import EvalOptions
from knowforge.models.cache import generation_key
from knowforge.models.task import Component
from knowforge.models.types import Backend, BenchmarkItem, GenerationRequest

log = logging.getLogger(__name__)

PHRASINGS = 3
CHOICE_SYSTEM = ('Please answer the following question by printing exactly one option from "A", "B", "C", '
                 '"D", without explanation.')
CSJ_SYSTEMS = ('Please answer the following question by printing "YES" or "NO", without explanation.',
               'Please answer the following question by printing "Correct" or "Incorrect", without explanation.',
               'Please answer the following question by printing "Acceptable" or "Unacceptable", without '
               'explanation.')
GOLD_PREFIX = 'Given that "{term}" means "{meaning}". '
SETTINGS = ("base", "gold")
PLOT = "newterm_base_vs_gold_by_year.png"


def base_task(item: BenchmarkItem) -> str:
    """COMA, COST or CSJ (``newterm/COST_clean`` → COST)."""
    return item.task.split("/", 1)[-1].split("_", 1)[0]


def _options(choices: Sequence[str]) -> str:
    return "".join(f"\n{letter}. {choice}" for letter, choice in zip("ABCD", choices))


def user_prompt(item: BenchmarkItem, phrasing: int) -> str:
    """Phrasing ``phrasing`` (0, 1, 2) of an item, as released."""
    q, task = item.question, base_task(item)
    if task == "COMA":
        split = item.metadata.get("split") or item.slices.get("split")
        if split not in ("cause", "effect"):
            raise ConfigError(f"COMA item {item.id} has no split (cause/effect)")
        connective = "because" if split == "cause" else "so"
        message = (f"Exercise: choose the most plausible alternative.\n\n{q} {connective}...",
                   f"{q}\n\nI am hesitating among these options. Help me choose the more likely {split}:",
                   f"{q} {'This happened because' if split == 'cause' else 'As a consequence'}...\n"
                   "Help me pick the more plausible option:")[phrasing]
        return message + _options(item.choices) + "\nAnswer: "
    if task == "COST":
        c = list(item.choices)
        if len(c) != 4:
            raise ConfigError(f"COST item {item.id} needs 4 choices, has {len(c)}")
        return (f"{q}\nReplace the _ in the above sentence with the correct option:\nA. {c[0]}\nB. {c[1]}\n"
                f"C. {c[2]}\nD. {c[3]}\nAnswer: ",
                f"{q}In the previous sentence, does _ refer to A. {c[0]}, B. {c[1]}, C. {c[2]}, or D. {c[3]}?\n"
                "Answer: ",
                f"Fill in the _ in the below sentence:\n{q}\nChoices:\nA. {c[0]}\nB. {c[1]}\nC. {c[2]}\n"
                f"D. {c[3]}\nAnswer: ")[phrasing]
    if task == "CSJ":
        return ('Does the following sentence coherent and align with general understanding? Please answer "YES" '
                f'or "NO".\n{q}\nAnswer: ',
                f"{q}\nIs this example in line with commonsense and grammatically correct?\nAnswer: ",
                'The following sentence is either "Acceptable", meaning it fits the commonsense, or '
                f'"Unacceptable". Which is it?\n{q}\nAnswer: ')[phrasing]
    raise ConfigError(f"item {item.id} is not a NewTerm COMA, COST or CSJ item ({item.task})")


def system_prompt(item: BenchmarkItem, phrasing: int, setting: str) -> str:
    system = CSJ_SYSTEMS[phrasing] if base_task(item) == "CSJ" else CHOICE_SYSTEM
    if setting == "gold":
        term, meaning = item.metadata.get("term"), item.metadata.get("meaning")
        if not term or not meaning:
            raise ConfigError(f"item {item.id} has no term/meaning for the Gold setting")
        system = GOLD_PREFIX.format(term=term, meaning=meaning) + system
    return system


def render(item: BenchmarkItem, phrasing: int, setting: str, options: EvalOptions) -> GenerationRequest:
    """One greedy request: chat messages with ``--chat``, else system and user as one prompt."""
    system, user = system_prompt(item, phrasing, setting), user_prompt(item, phrasing)
    common = dict(n=1, temperature=options.temperature, top_p=options.top_p, seed=options.seed,
                  max_tokens=options.max_tokens)
    if options.extra.get("chat"):
        return GenerationRequest(messages=(("system", system), ("user", user)), **common)
    return GenerationRequest(prompt=f"{system}\n\n{user}", **common)


@dataclass(frozen=True)
class Answer:
    item_id: str
    phrasing: int
    gold: bool | None          # CSJ's gold; None for choice items
    parsed: str | None
    score: float


def ask(items: Sequence[BenchmarkItem], backend: Backend, options: EvalOptions, setting: str,
        progress=None) -> tuple[list[SampleResult], list[Answer]]:
    """Every item under every phrasing of ``setting``: samples (``sample_index`` = phrasing)."""
    requests = [(item, p, render(item, p, setting, options)) for item in items for p in range(PHRASINGS)]
    samples, answers = [], []
    cache = getattr(backend, "cache", None)
    chunk = 256
    for start in range(0, len(requests), chunk):
        part = requests[start:start + chunk]
        results = backend.generate([r for _, _, r in part])
        if len(results) != len(part):
            raise BackendError(f"backend {backend.name} answered {len(results)} of {len(part)} requests")
        for (item, phrasing, request), result in zip(part, results):
            prompt = request.prompt if request.prompt is not None else "\n".join(
                f"[{role}] {content}" for role, content in request.messages or ())
            gold = bool(item.metadata["gold"]) if base_task(item) == "CSJ" and "gold" in item.metadata else None
            cached = bool(result.cached[0]) if result.cached else False
            key = (generation_key(backend.name, backend.model, getattr(backend, "revision", None), request, 0)
                   if cache is not None else None)
            if result.error is not None or not result.texts:
                samples.append(SampleResult(item.id, phrasing, None, None, 0.0, error=result.error or "no answer",
                                            cached=cached, prompt=prompt, cache_key=key))
                answers.append(Answer(item.id, phrasing, gold, None, 0.0))
                continue
            raw = result.texts[0]
            score = score_item(item, raw)
            samples.append(SampleResult(item.id, phrasing, raw, score.answer, float(score.value), cached=cached,
                                        finish_reason=result.finish_reasons[0] if result.finish_reasons else None,
                                        prompt=prompt, explanation=score.explanation, cache_key=key))
            answers.append(Answer(item.id, phrasing, gold, score.answer, float(score.value)))
        if progress:
            progress(len(part))
    return samples, answers


# --- scores ------------------------------------------------------------------------------------

def task_score(answers: Sequence[Answer]) -> float | None:
    """Pooled over phrasings: accuracy, or CSJ's balanced accuracy (a missing answer is wrong)."""
    if not answers:
        return None
    if all(a.gold is not None for a in answers):
        preds = [None if a.parsed is None else a.parsed == "true" for a in answers]
        return balanced_accuracy([a.gold for a in answers], preds)
    return sum(a.score for a in answers) / len(answers)


def breakdown(items: Sequence[BenchmarkItem], by_setting: dict[str, list[Answer]]) -> dict[str, list[dict]]:
    """Base, Gold and the gap (Base − Gold) per task (``COMA``, ``COMA_clean``, ...), per (task,
    category) and per (task, year)."""
    info = {i.id: (i.task.split("/", 1)[-1], str(i.slices.get("category") or i.metadata.get("category")),
                   i.slices.get("year")) for i in items}
    out: dict[str, list[dict]] = {}
    for name, key in (("task", lambda t, c, y: (t,)), ("category", lambda t, c, y: (t, c)),
                      ("year", lambda t, c, y: (t, y))):
        groups: dict[tuple, dict[str, list[Answer]]] = defaultdict(lambda: defaultdict(list))
        for setting, answers in by_setting.items():
            for a in answers:
                if a.item_id in info:
                    groups[key(*info[a.item_id])][setting].append(a)
        rows = []
        for k in sorted(groups, key=lambda k: tuple(str(x) for x in k)):
            base, gold = task_score(groups[k].get("base", [])), task_score(groups[k].get("gold", []))
            row = {"task": k[0]}
            if name != "task":
                row[name] = k[1]
            row.update(items=len({a.item_id for s in groups[k].values() for a in s}), base=base, gold=gold,
                       gap=(base - gold) if base is not None and gold is not None else None)
            rows.append(row)
        out[name] = rows
    return out


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}"


def section_rows(rows: Sequence[dict]) -> list[dict]:
    """Rows for the markdown report: scores in percent, the gap in points."""
    return [{**{k: v for k, v in r.items() if k not in ("base", "gold", "gap")},
             "Base": _pct(r["base"]), "Gold": _pct(r["gold"]),
             "gap (Base - Gold)": "-" if r["gap"] is None else f"{100 * r['gap']:+.2f}"} for r in rows]


def plot_by_year(path: Path, rows: Sequence[dict]) -> Path | None:
    """Base and Gold (solid and dashed) by year, one colour per task."""
    points = [r for r in rows if r.get("year") is not None]
    if not points:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for index, task in enumerate(sorted({r["task"] for r in points})):
        mine = sorted((int(r["year"]), r) for r in points if r["task"] == task)
        colour = f"C{index}"
        for setting, style in (("base", "-"), ("gold", "--")):
            xy = [(y, 100 * r[setting]) for y, r in mine if r[setting] is not None]
            if xy:
                ax.plot([p[0] for p in xy], [p[1] for p in xy], style, marker="o", color=colour,
                        label=f"{task} {setting.capitalize()}")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("year")
    ax.set_ylabel("score (%)")
    ax.set_ylim(-2, 102)
    ax.set_title("NewTerm: Base vs Gold by year")
    ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --- the solver --------------------------------------------------------------------------------

class NewTermArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    setting: Literal["base", "gold"]
    # ask the other setting too and report the gap (default: in the Gold run)
    compare: bool | None = None


@dataclass(frozen=True)
class NewTermSolver:
    component: Component
    args: NewTermArgs

    def solve(self, items, backend, options: EvalOptions, *, progress=None):
        from knowforge.eval.solvers import SolverOutput

        if options.n != 1:
            raise ConfigError("NewTerm asks each item once per phrasing (three samples, pooled): use --n 1")
        if options.mc_scoring != "generate":
            raise ConfigError("NewTerm scores generated answers with the official parsing: drop --mc-scoring")
        setting = self.args.setting
        compare = self.args.compare if self.args.compare is not None else setting == "gold"
        samples, answers = ask(items, backend, options, setting, progress)
        by_setting = {setting: answers}
        if compare:
            other = "base" if setting == "gold" else "gold"
            by_setting[other] = ask(items, backend, options, other, progress)[1]
        table = breakdown(items, by_setting)
        details = {"newterm": {"setting": setting, "answers": by_setting}}
        run_extra: dict[str, Any] = {"newterm_setting": setting, "newterm_compare": compare}
        for row in table["task"]:
            for key in ("base", "gold", "gap"):
                if row[key] is not None:
                    run_extra[f"newterm_{row['task'].lower()}_{key}"] = row[key]
        sections: dict[str, Any] = {}
        if compare:
            sections["NewTerm: Base vs Gold by task (CSJ: balanced accuracy)"] = section_rows(table["task"])
            sections["NewTerm: Base vs Gold by term category"] = section_rows(table["category"])
            sections["NewTerm: Base vs Gold by year"] = section_rows(table["year"])
            sections["NewTerm: plot"] = f"![Base vs Gold by year](plots/{PLOT})"
        else:
            sections[f"NewTerm: {setting.capitalize()} by task (CSJ: balanced accuracy)"] = section_rows(table["task"])

        def finalize(run_dir: Path, run_id: str) -> None:
            if compare:
                plot_by_year(Path(run_dir) / "plots" / PLOT, table["year"])

        return SolverOutput(items=list(items), samples=samples, run_extra=run_extra, sections=sections,
                            details=details, finalize=finalize)


# --- task metrics (registered in knowforge.eval.metrics) -------------------------------------

def _answers(details: dict, setting: str, items: Sequence[BenchmarkItem]) -> list[Answer] | None:
    data = details.get("newterm")
    if data is None or setting not in data["answers"]:
        return None
    ids = {i.id for i in items}
    return [a for a in data["answers"][setting] if a.item_id in ids]


def metric_score(items, samples, details) -> float | None:
    """This run's setting, pooled over phrasings (CSJ: balanced accuracy)."""
    data = details.get("newterm")
    return task_score(_answers(details, data["setting"], items) or []) if data else None


def metric_base(items, samples, details) -> float | None:
    answers = _answers(details, "base", items)
    return task_score(answers) if answers else None


def metric_gold(items, samples, details) -> float | None:
    answers = _answers(details, "gold", items)
    return task_score(answers) if answers else None


def metric_gap(items, samples, details) -> float | None:
    base, gold = metric_base(items, samples, details), metric_gold(items, samples, details)
    return base - gold if base is not None and gold is not None else None


def metric_breakdown(items, samples, details) -> dict | None:
    data = details.get("newterm")
    if data is None:
        return None
    ids = {i.id for i in items}
    mine = {s: [a for a in answers if a.item_id in ids] for s, answers in data["answers"].items()}
    table = breakdown(items, mine)
    return {"category": table["category"], "year": table["year"]}


__all__ = ["CHOICE_SYSTEM", "CSJ_SYSTEMS", "GOLD_PREFIX", "NewTermArgs", "NewTermSolver", "breakdown",
           "metric_base", "metric_breakdown", "metric_gap", "metric_gold", "metric_score", "render",
           "system_prompt", "task_score", "user_prompt"]

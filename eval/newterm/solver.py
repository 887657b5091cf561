"""NewTerm evaluation: the Base and Gold settings with the three official phrasings per task,
greedy, pooled (the paper's accuracy over 3·N answers; CSJ as balanced accuracy). Answers
are scored by the items' NewTerm scorers in the run's scoring mode.

The phrasings and system prompts below are part of the benchmark's definition (the paper's
Tables 14-16, as the released ``utils.build_prompt`` writes them) and are kept word for word,
trailing spaces and the missing space after the COST question of phrasing 2 included. Gold
prefixes the system prompt with ``Given that "{term}" means "{meaning}". ``. Answers are
parsed by the items' NewTerm scorers (``knowforge.eval.newterm.rules``) in the run's scoring mode.

The ``newterm`` solver runs one setting (``setting=base`` or ``gold``); a task sweeps both,
so ``knowforge eval`` records a Base run and a Gold run. The Gold run also asks the Base
prompts (``compare``; answered from the response cache when the Base run came first) to
report the gap Base − Gold per task (those answers are recorded as the run's variant answers), per term category and per year, with a plot of Base vs
Gold by year. ``knowforge eval --benchmark newterm:2022+2023+2024`` evaluates several years'
benchmarks in one run, so the year table and plot show the trend.

With ``--mc-scoring likelihood`` (not the paper's protocol, which generates) each phrasing is
scored as lm-evaluation-harness scores multiple choice: the same official prompt, then the
log-likelihood of each answer the system prompt asks for (the letters A-D for COMA and COST;
the phrasing's own pair for CSJ: YES/NO, Correct/Incorrect, Acceptable/Unacceptable), the most
likely one being the model's answer. A small model that never writes a parseable letter then
still gives a number that can be told from chance.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import numpy as np

from pydantic import BaseModel, ConfigDict

from knowforge.errors import ConfigError
from knowforge.eval.ask import Ask, ask_and_score, ask_choices
from knowforge.eval.mc_likelihood import ChoiceQuestion
from knowforge.eval.metric_stats import chance_of, format_number, totals_intervals
from knowforge.eval.metrics import balanced_accuracy
from knowforge.eval.stats import child_seed, paired_difference, paired_permutation
from knowforge.eval.svg_plot import PALETTE, Panel, Series, chart, percent_point
from knowforge.eval.types import EvalOptions, SampleResult
from knowforge.eval.unit import MetricInput, SolveContext, SolverOutput, Statistic, Totals, UnitCopy
from knowforge.models.task import Component
from knowforge.models.types import BenchmarkItem, GenerationRequest

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
PLOT = "newterm_base_vs_gold_by_year.svg"


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
    if options.chat:
        return GenerationRequest(messages=(("system", system), ("user", user)), **common)
    return GenerationRequest(prompt=f"{system}\n\n{user}", **common)


@dataclass(frozen=True)
class Answer:
    item_id: str
    phrasing: int
    gold: bool | None          # CSJ's gold; None for choice items
    parsed: str | None
    score: float


def asks(items: Sequence[BenchmarkItem], options: EvalOptions, setting: str,
         variant: str | None = None) -> list[Ask]:
    """Every item under every phrasing of ``setting``; a sample's index is its phrasing."""
    return [Ask(item, render(item, p, setting, options), first_index=p, variant=variant)
            for item in items for p in range(PHRASINGS)]


CSJ_WORDS = (("YES", "NO"), ("Correct", "Incorrect"), ("Acceptable", "Unacceptable"))   # per phrasing


def choice_question(item: BenchmarkItem, phrasing: int, setting: str, options: EvalOptions) -> ChoiceQuestion:
    """One phrasing of an item as a likelihood question (``--mc-scoring likelihood``): the
    official prompt, whose trailing space becomes the delimiter of each continuation (lm-eval's
    " " before a target), then the answer the system prompt asks for: the letter of each choice
    (COMA, COST), or the phrasing's two words (CSJ: YES/NO, Correct/Incorrect,
    Acceptable/Unacceptable), recorded as true/false."""
    context = render(item, phrasing, setting, options).prompt.rstrip(" ")
    if base_task(item) == "CSJ":
        words = CSJ_WORDS[phrasing]
        return ChoiceQuestion(item, words, ("true", "false"), words, 0 if item.metadata["gold"] else 1, context)
    letters = tuple("ABCD"[:len(item.choices)])
    if item.answer_index is None or not 0 <= item.answer_index < len(letters):
        raise ConfigError(f"NewTerm item {item.id} has no gold choice (answer_index)")
    return ChoiceQuestion(item, tuple(item.choices), letters, letters, item.answer_index, context)


def ask_by_likelihood(items: Sequence[BenchmarkItem], options: EvalOptions, settings: Sequence[tuple[str, str | None]],
                      ctx: SolveContext) -> list[SampleResult]:
    """Every item under every phrasing of each (setting, variant), scored by the likelihood of
    its answers; a sample's index is its phrasing, as when answers are generated."""
    if options.chat:
        raise ConfigError("likelihood scoring scores answers after a plain prompt; drop --chat")
    keys = [(item, p, variant) for setting, variant in settings for item in items for p in range(PHRASINGS)]
    questions = [choice_question(item, p, setting, options)
                 for setting, _ in settings for item in items for p in range(PHRASINGS)]
    scored = ask_choices(questions, ctx.backend, progress=ctx.progress)
    return [replace(sample, sample_index=p, variant=variant) for sample, (_, p, variant) in zip(scored, keys)]


def answers_of(items: Sequence[BenchmarkItem], samples: Sequence[SampleResult]) -> list[Answer]:
    """The pooled answers of scored samples (one per item and phrasing)."""
    by_id = {i.id: i for i in items}
    out = []
    for s in samples:
        item = by_id[s.item_id]
        gold = bool(item.metadata["gold"]) if base_task(item) == "CSJ" and "gold" in item.metadata else None
        out.append(Answer(s.item_id, s.sample_index, gold, None if s.error else s.parsed,
                          0.0 if s.error else s.score))
    return out


# --- scores ------------------------------------------------------------------------------------

def task_score(answers: Sequence[Answer]) -> float | None:
    """Pooled over phrasings: accuracy, or CSJ's balanced accuracy (a missing answer is wrong)."""
    if not answers:
        return None
    if all(a.gold is not None for a in answers):
        preds = [None if a.parsed is None else a.parsed == "true" for a in answers]
        return balanced_accuracy([a.gold for a in answers], preds)
    return sum(a.score for a in answers) / len(answers)


GROUPINGS = {"task": lambda t, c, y: (t,), "category": lambda t, c, y: (t, c), "year": lambda t, c, y: (t, y)}


def _item_info(items: Sequence[BenchmarkItem]) -> dict[str, tuple[str, str, Any]]:
    """item id -> (task, category, year): what the breakdown groups by."""
    return {i.id: (i.task.split("/", 1)[-1], str(i.slices.get("category") or i.metadata.get("category")),
                   i.slices.get("year")) for i in items}


def breakdown(items: Sequence[BenchmarkItem], by_setting: dict[str, list[Answer]]) -> dict[str, list[dict]]:
    """Base, Gold and the gap (Base − Gold) per task (``COMA``, ``COMA_clean``, ...), per (task,
    category) and per (task, year)."""
    info = _item_info(items)
    out: dict[str, list[dict]] = {}
    for name, key in GROUPINGS.items():
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


# --- the scores as sums, for the engine's array bootstrap (MetricSpec.totals) -----------------------
# A cell (the answers of one group in one setting) has four columns: for choice items the score
# sum and the count (then two zeros); for CSJ the right answers and the count of each gold class
# (true, then false). task_score is then a statistic of the cell's column totals.
CELL = 4


def _cell_statistic(start: int | None, judgement: bool) -> Statistic:
    """task_score of one cell from its column totals (NaN where it has no answer, as task_score's
    None): accuracy, or the balanced accuracy over the gold classes present."""
    def statistic(totals: np.ndarray) -> np.ndarray:
        if start is None:
            return np.full(totals.shape[:-1], np.nan)
        c = totals[..., start:start + CELL]
        if not judgement:
            return c[..., 0] / c[..., 1]
        present = (c[..., 1] > 0).astype(float) + (c[..., 3] > 0).astype(float)
        recall = np.where(c[..., 1] > 0, c[..., 0] / np.maximum(c[..., 1], 1), 0.0) + \
            np.where(c[..., 3] > 0, c[..., 2] / np.maximum(c[..., 3], 1), 0.0)
        return np.where(present > 0, recall / np.maximum(present, 1), np.nan)
    return statistic


def _gap_statistic(base: Statistic, gold: Statistic) -> Statistic:
    return lambda totals: base(totals) - gold(totals)


def answer_totals(items: Sequence[BenchmarkItem], by_setting: dict[str, list[Answer]],
                  cells: Sequence[tuple[Any, str]]) -> tuple[list[str], np.ndarray, dict[tuple[Any, str], Statistic]]:
    """Per-item column totals of ``cells`` ((group, setting); group ``None`` = all the items),
    and each cell's task_score statistic. ``by_setting`` answers are grouped as ``breakdown``
    groups them (a group is a (name, key) pair of GROUPINGS)."""
    info = _item_info(items)
    wanted = {cell for cell in cells}
    index: dict[tuple[Any, str], int] = {}
    judgement: dict[tuple[Any, str], bool] = {}
    rows: dict[str, dict[int, list[float]]] = {}
    for setting, answers in by_setting.items():
        for a in answers:
            if a.item_id not in info:
                continue
            groups = [None] + [(name, key(*info[a.item_id])) for name, key in GROUPINGS.items()]
            for group in groups:
                cell = (group, setting)
                if cell not in wanted:
                    continue
                start = index.setdefault(cell, CELL * len(index))
                judgement[cell] = judgement.get(cell, True) and a.gold is not None
                row = rows.setdefault(a.item_id, {}).setdefault(start, [0.0] * CELL)
                if a.gold is None:
                    row[0] += a.score
                    row[1] += 1
                else:
                    right = a.parsed is not None and (a.parsed == "true") == a.gold
                    row[0 if a.gold else 2] += right
                    row[1 if a.gold else 3] += 1
    ids = list(rows)
    counts = np.zeros((len(ids), CELL * len(index)))
    for r, item_id in enumerate(ids):
        for start, values in rows[item_id].items():
            counts[r, start:start + CELL] = values
    stats = {cell: _cell_statistic(index.get(cell), judgement.get(cell, False)) for cell in cells}
    return ids, counts, stats


def breakdown_totals(items: Sequence[BenchmarkItem], by_setting: dict[str, list[Answer]],
                     table: dict[str, list[dict]]) -> Totals:
    """``breakdown``'s numbers (``table``: its value, or a part of it) as sums: every row's Base,
    Gold and gap, named as ``metric_stats.numeric_leaves`` names them."""
    named = []
    for name, rows in table.items():
        for row in rows:
            key = (row["task"],) if name == "task" else (row["task"], row[name])
            label = "[" + ", ".join(f"{f}={row[f]}" for f in ROW_FIELDS if f in row) + "]"
            named.append(((name, label), (name, key)))
    cells = [(group, setting) for _, group in named for setting in ("base", "gold")]
    ids, counts, stats = answer_totals(items, by_setting, cells)
    leaves: dict[tuple[str, ...], Statistic] = {}
    for path, group in named:
        base, gold = stats[(group, "base")], stats[(group, "gold")]
        leaves[(*path, "base")], leaves[(*path, "gold")] = base, gold
        leaves[(*path, "gap")] = _gap_statistic(base, gold)
    return Totals(ids, counts, leaves)


SCORES = ("base", "gold", "gap")
ROW_FIELDS = ("task", "category", "year")       # what names a row of the breakdown


def with_intervals(table: dict[str, list[dict]], items: Sequence[BenchmarkItem], detail: NewTermAnswers,
                   unit_key: str | None, *, resamples: int, seed: int) -> dict[str, list[dict]]:
    """The breakdown with each score's 95% interval (``base_ci``, ``gold_ci``, ``gap_ci``): the
    engine's cluster bootstrap over the run's units, with its draws (``metric_stats
    .totals_intervals``), so these intervals are those of the task metrics of the same items.
    Base and Gold answers of a term are resampled together: the gap's interval is a paired one."""
    totals = breakdown_totals(items, detail.answers, table)
    estimates = totals_intervals(totals, table, items, unit_key, rows=ROW_FIELDS, resamples=resamples, seed=seed)
    out = {}
    for name, rows in table.items():
        out[name] = []
        for row in rows:
            label = "[" + ", ".join(f"{f}={row[f]}" for f in ROW_FIELDS if f in row) + "]"
            extra = {}
            for score in SCORES:
                est = estimates.get((name, label, score))
                extra[f"{score}_ci"] = list(est.ci) if est is not None and est.ci else None
            out[name].append({**row, **extra})
    return out


def gap_tests(items: Sequence[BenchmarkItem], by_setting: dict[str, list[Answer]], *, resamples: int,
              seed: int) -> dict[str, dict]:
    """Per task (``COMA_clean``): the paired test of Base − Gold (``gap_test``), with the seed
    the engine gives the task's ``newterm_gap`` test, so both report the same p-value."""
    out = {}
    for task in sorted({i.task for i in items}):
        mine = [i for i in items if i.task == task]
        ids = {i.id for i in mine}
        base = [a for a in by_setting.get("base", ()) if a.item_id in ids]
        gold = [a for a in by_setting.get("gold", ()) if a.item_id in ids]
        if base and gold:
            out[task.split("/", 1)[-1]] = gap_test(mine, base, gold, resamples=max(resamples, 2),
                                                   seed=child_seed(seed, "test", task, "newterm_gap"))
    return out


COLUMNS_LEGEND = (
    "task: NewTerm's task (COMA: the cause or effect of a sentence that uses the term, one of four; COST: the word "
    "that fills the blank, the term among related terms; CSJ: does a sentence use the term sensibly, yes or no; "
    "_clean: the human-checked subset of a release); category, year: the term's category and year; items: "
    "questions; Base: the model asked as "
    "it is; Gold: the same questions with the term's meaning in the prompt; gap (Base - Gold): Base minus Gold, "
    "in points (how much the missing meaning costs). Scores in %, ± half the width of the 95% interval: a cluster "
    "bootstrap over terms. Chance: 25% (one of four choices), CSJ 50% (balanced accuracy).")
COMPARE_LEGEND = (
    "The bootstrap resamples a term's Base and Gold answers together, so the gap's interval is a paired one. "
    "p: Base vs Gold paired by term (a sign-flip test of the terms' score sums, McNemar when every term is one "
    "right/wrong answer; CSJ: a permutation test swapping a term's Base and Gold answers); test: which.")


def section_rows(rows: Sequence[dict], tests: dict[str, dict] | None = None) -> list[dict]:
    """Rows for the markdown report: each score in % ± half its 95% interval (the gap in
    points, signed), and the gap's p-value where a test was made."""
    out = []
    for r in rows:
        row = {k: v for k, v in r.items() if k not in SCORES and not k.endswith("_ci")}
        row.update({"Base": format_number(r["base"], r.get("base_ci")),
                    "Gold": format_number(r["gold"], r.get("gold_ci")),
                    "gap (Base - Gold)": format_number(r["gap"], r.get("gap_ci"), signed=True)})
        if tests is not None:
            test = tests.get(r["task"]) or {}
            p = test.get("p_value")
            row["p"] = "-" if p is None else ("<0.001" if p < 0.001 else f"{p:.3f}")
            row["test"] = test.get("test") or test.get("note") or "-"
        out.append(row)
    return out


def plot_by_year(path: Path, rows: Sequence[dict]) -> Path | None:
    """Base and Gold (solid and dashed) by year, one colour per task, with the 95% interval of
    each point as an error bar (``with_intervals``); the series of one year sit a little apart,
    so that their error bars do not hide each other."""
    points = [r for r in rows if r.get("year") is not None]
    if not points:
        return None
    tasks = sorted({r["task"] for r in points})
    series = []
    for index, task in enumerate(tasks):
        mine = sorted((int(r["year"]), r) for r in points if r["task"] == task)
        for setting in ("base", "gold"):
            series.append(Series(f"{task} {setting.capitalize()}", [
                percent_point(year, r[setting], r.get(f"{setting}_ci")) for year, r in mine],
                kind="line", dashed=setting == "gold", color=PALETTE[index % len(PALETTE)]))
    panel = Panel("NewTerm: Base vs Gold by year (95% intervals)", series, ylabel="score (%)", xlabel="year",
                  legend=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(chart(panel), encoding="utf-8")
    return path


# --- the solver --------------------------------------------------------------------------------

class NewTermArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    setting: Literal["base", "gold"]
    # ask the other setting too and report the gap (default: in the Gold run)
    compare: bool | None = None


ANSWERS = "newterm-answers"      # the solver detail NewTerm's metrics read


@dataclass(frozen=True)
class NewTermAnswers:
    """The run's setting and the pooled answers of each setting it asked."""

    setting: str
    answers: dict[str, list[Answer]]

    @cached_property
    def _by_item(self) -> dict[str, dict[str, list[Answer]]]:
        out: dict[str, dict[str, list[Answer]]] = {s: defaultdict(list) for s in self.answers}
        for setting, answers in self.answers.items():
            for a in answers:
                out[setting][a.item_id].append(a)
        return out

    def remap(self, copies: Sequence[UnitCopy]) -> NewTermAnswers:
        """Both settings' answers of the resampled items, so Base and Gold stay paired."""
        by_item = self._by_item
        return NewTermAnswers(self.setting, {
            setting: [a if new == old else replace(a, item_id=new)
                      for c in copies for old, new in c.ids.items() for a in by_item[setting].get(old, ())]
            for setting in self.answers})


@dataclass(frozen=True)
class NewTermSolver:
    component: Component
    args: NewTermArgs

    def solve(self, items, ctx: SolveContext) -> SolverOutput:
        options = ctx.options
        if options.n != 1:
            raise ConfigError("NewTerm asks each item once per phrasing (three samples, pooled): use --n 1")
        setting = self.args.setting
        compare = self.args.compare if self.args.compare is not None else setting == "gold"
        other = "base" if setting == "gold" else "gold"
        # the other setting's answers are variants of the same questions, asked in memory
        if options.mc_scoring == "likelihood":
            scored = ask_by_likelihood(items, options, [(setting, None)] + ([(other, other)] if compare else []),
                                       ctx)
        else:
            asked = asks(items, options, setting) + (asks(items, options, other, variant=other) if compare else [])
            scored = ask_and_score(asked, ctx.backend, scoring=options.scoring, progress=ctx.progress)
        samples = [s for s in scored if s.variant is None]
        variants = [s for s in scored if s.variant is not None]
        by_setting = {setting: answers_of(items, samples)}
        if compare:
            by_setting[other] = answers_of(items, variants)
        detail = NewTermAnswers(setting, by_setting)
        table = with_intervals(breakdown(items, by_setting), items, detail, ctx.unit_key,
                               resamples=options.bootstrap, seed=options.seed)
        tests = gap_tests(items, by_setting, resamples=options.bootstrap, seed=options.seed) if compare else None
        run_extra: dict[str, Any] = {"newterm_setting": setting, "newterm_compare": compare}
        for row in table["task"]:
            for key in ("base", "gold", "gap"):
                if row[key] is not None:
                    run_extra[f"newterm_{row['task'].lower()}_{key}"] = row[key]
        sections: dict[str, Any] = {}
        if compare:
            sections["NewTerm: Base vs Gold by task (CSJ: balanced accuracy)"] = section_rows(table["task"], tests)
            sections["NewTerm: how to read these tables"] = f"{COLUMNS_LEGEND} {COMPARE_LEGEND}"
            sections["NewTerm: Base vs Gold by term category"] = section_rows(table["category"])
            sections["NewTerm: Base vs Gold by year"] = section_rows(table["year"])
            sections["NewTerm: plot"] = f"![Base vs Gold by year](plots/{PLOT})"
        else:
            sections[f"NewTerm: {setting.capitalize()} by task (CSJ: balanced accuracy)"] = {
                "rows": section_rows(table["task"]), "legend": COLUMNS_LEGEND
                + f" Only the {setting.capitalize()} setting was asked (-S compare=false): the other column is empty."}

        def finalize(run_dir: Path, run_id: str) -> None:
            if compare:
                plot_by_year(Path(run_dir) / "plots" / PLOT, table["year"])

        return SolverOutput(items=list(items), samples=samples, variants=variants, run_extra=run_extra,
                            sections=sections, details={ANSWERS: detail}, finalize=finalize)


# --- task metrics ----------------------------------------------------------------------------

def _answers(data: MetricInput, setting: str) -> list[Answer] | None:
    detail: NewTermAnswers | None = data.detail
    if detail is None or setting not in detail.answers:
        return None
    ids = {i.id for i in data.items}
    return [a for a in detail.answers[setting] if a.item_id in ids]


def metric_score(data: MetricInput) -> float | None:
    """This run's setting, pooled over phrasings (CSJ: balanced accuracy)."""
    if data.detail is None:
        return None
    return task_score(_answers(data, data.detail.setting) or [])


def metric_base(data: MetricInput) -> float | None:
    answers = _answers(data, "base")
    return task_score(answers) if answers else None


def metric_gold(data: MetricInput) -> float | None:
    answers = _answers(data, "gold")
    return task_score(answers) if answers else None


def metric_gap(data: MetricInput) -> float | None:
    base, gold = metric_base(data), metric_gold(data)
    return base - gold if base is not None and gold is not None else None


def _setting_totals(data: MetricInput, settings: Sequence[str]) -> tuple[list[str], np.ndarray, dict]:
    detail: NewTermAnswers | None = data.detail
    answers = {} if detail is None else {s: _answers(data, s) or [] for s in settings if s in detail.answers}
    return answer_totals(data.items, answers, [(None, s) for s in settings])


def totals_score(data: MetricInput) -> Totals:
    """metric_score as sums (the run's own setting)."""
    setting = data.detail.setting if data.detail is not None else "base"
    ids, counts, stats = _setting_totals(data, [setting])
    return Totals(ids, counts, {(): stats[(None, setting)]})


def totals_base(data: MetricInput) -> Totals:
    ids, counts, stats = _setting_totals(data, ["base"])
    return Totals(ids, counts, {(): stats[(None, "base")]})


def totals_gold(data: MetricInput) -> Totals:
    ids, counts, stats = _setting_totals(data, ["gold"])
    return Totals(ids, counts, {(): stats[(None, "gold")]})


def totals_gap(data: MetricInput) -> Totals:
    """Base − Gold as sums: both settings' answers of a term resampled together (paired)."""
    ids, counts, stats = _setting_totals(data, ["base", "gold"])
    return Totals(ids, counts, {(): _gap_statistic(stats[(None, "base")], stats[(None, "gold")])})


def totals_breakdown(data: MetricInput) -> Totals:
    detail: NewTermAnswers | None = data.detail
    value = metric_breakdown(data) or {}
    ids = {i.id for i in data.items}
    mine = {} if detail is None else {s: [a for a in answers if a.item_id in ids] for s, answers in detail.answers.items()}
    return breakdown_totals(data.items, mine, value)


def unit_of(item: BenchmarkItem) -> str:
    """The unit of NewTerm's intervals and tests: the term (``Method.cluster_key``)."""
    return str(item.metadata.get("term") or item.id)


def gap_test(items: Sequence[BenchmarkItem], base: Sequence[Answer], gold: Sequence[Answer], *, seed: int = 0,
             resamples: int = 1000) -> dict[str, Any]:
    """Base − Gold of the same items (both settings asked in one run), paired by term: for
    accuracy (COMA, COST) ``stats.paired_difference`` over each term's score sums (McNemar when
    every term is one right/wrong answer in both settings, else a sign-flip test); for CSJ's
    balanced accuracy a paired permutation test that swaps a term's Base and Gold answers."""
    unit = {i.id: unit_of(i) for i in items}
    terms = sorted({unit[a.item_id] for a in (*base, *gold) if a.item_id in unit})
    per_base: dict[str, list[Answer]] = defaultdict(list)
    per_gold: dict[str, list[Answer]] = defaultdict(list)
    for a in base:
        if a.item_id in unit:
            per_base[unit[a.item_id]].append(a)
    for a in gold:
        if a.item_id in unit:
            per_gold[unit[a.item_id]].append(a)
    shared = [t for t in terms if per_base.get(t) and per_gold.get(t)]
    if not shared:
        return {"note": "no term answered in both settings"}
    out: dict[str, Any] = {"paired": True, "units_paired": len(shared)}
    if all(a.gold is not None for t in shared for a in (*per_base[t], *per_gold[t])):
        result = paired_permutation([(per_base[t], per_gold[t]) for t in shared],
                                    lambda b, g: _difference(task_score, b, g), resamples=resamples, seed=seed)
        out.update(p_value=result.p_value, test="permutation (Base/Gold swapped within terms)")
        return out
    sizes = [len(per_base[t]) for t in shared]
    if sizes != [len(per_gold[t]) for t in shared]:
        out["note"] = "the settings answered different numbers of prompts: no paired test"
        return out
    result = paired_difference([sum(a.score for a in per_base[t]) for t in shared],
                               [sum(a.score for a in per_gold[t]) for t in shared], sizes, resamples=2, seed=seed)
    out.update(p_value=result.p_value, test=result.test)
    return out


def _difference(score, base_units, gold_units) -> float | None:
    base = score([a for u in base_units for a in u])
    gold = score([a for u in gold_units for a in u])
    return None if base is None or gold is None else base - gold


def gap_p_value(data: MetricInput, *, seed: int = 0, resamples: int = 1000) -> dict:
    """The test of ``newterm_gap`` (the metric's own path, ``()``)."""
    base, gold = _answers(data, "base"), _answers(data, "gold")
    if not base or not gold:
        return {}
    return {(): gap_test(data.items, base, gold, seed=seed, resamples=resamples)}


def chance(data: MetricInput) -> float | None:
    """Random guessing: one of four choices (COMA, COST), balanced accuracy 1/2 (CSJ)."""
    return chance_of(data.items)


def metric_breakdown(data: MetricInput) -> dict | None:
    detail: NewTermAnswers | None = data.detail
    if detail is None:
        return None
    ids = {i.id for i in data.items}
    mine = {s: [a for a in answers if a.item_id in ids] for s, answers in detail.answers.items()}
    table = breakdown(data.items, mine)
    return {"category": table["category"], "year": table["year"]}


__all__ = ["ANSWERS", "CHOICE_SYSTEM", "CSJ_SYSTEMS", "GOLD_PREFIX", "NewTermAnswers", "NewTermArgs", "NewTermSolver",
           "answers_of", "asks", "breakdown", "chance", "gap_test", "metric_base", "metric_breakdown", "metric_gap",
           "metric_gold", "metric_score", "render", "totals_base", "totals_breakdown",
           "totals_gap", "totals_gold", "totals_score", "system_prompt", "task_score", "gap_p_value", "unit_of", "user_prompt"]

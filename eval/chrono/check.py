"""ChroKnowledge's sampling-based knowledge check: requests, one batched run, categories.

For every item (one fact at one year under one template) and each of its five few-shot sets
(``item.metadata["shot_sets"]``) the check asks one greedy request (temperature 0) and one
sampled request (temperature 0.7, ``samples`` completions), with a fixed seed. All requests
of a run go to ``backend.generate`` in large chunks, ordered so that prompts sharing a shot
set (the same relation, year and set index) are adjacent — vLLM's prefix cache then computes
each exemplar prefix once. Identical requests (a small exemplar pool repeats a set) are sent
once, by the one ask-and-score step (``knowforge.eval.ask``), which scores every answer with the
``chrono-check`` scorer (ChroKnowledge's rule: the object a completion names fuzzy-matches an
object of the year). The categorisation itself is pure (``knowforge.eval.chrono.categories``).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from knowforge.errors import ConfigError
from knowforge.eval.ask import Ask, ask_and_score
from knowforge.eval.chrono.categories import (FACT_CATEGORIES, KNOWN, RIGHT, THRESHOLD, YEAR_CATEGORIES,
                                              classify_timeline, classify_year, fuzzy_in)
from knowforge.eval.metric_stats import grouped_totals, rounded, row_label
from knowforge.eval.scorers import extract_choice_letter, extract_yes_no, first_line
from knowforge.eval.stats import cluster_mean
from knowforge.eval.types import SampleResult, Score
from knowforge.eval.unit import CannotResample, Statistic, Totals, UnitCopy
from knowforge.models.types import Backend, BenchmarkItem, GenerationRequest

log = logging.getLogger(__name__)

GREEDY, SAMPLED = 0.0, 0.7
OPTION_LETTERS = "abcd"
CHECK_SCORER = "chrono-check"
KNOWN_SHARE = "Known %"             # the category table's share of Known facts


@dataclass(frozen=True)
class CheckConfig:
    shot_sets: int = 5            # few-shot sets per (fact, year)
    samples: int = 1              # completions per sampled request
    temperature: float = SAMPLED
    seed: int = 0
    max_tokens: int = 50          # the paper's setting
    threshold: int = THRESHOLD
    chunk_size: int = 1024


@dataclass(frozen=True)
class YearCheck:
    item_id: str
    record_id: str
    template: str
    year: int
    domain: str
    relation: str
    change: str
    golds: tuple[str, ...]
    greedy: tuple[str, ...]
    sampled: tuple[str, ...]
    category: str


@dataclass(frozen=True)
class FactCheck:
    record_id: str
    template: str
    domain: str
    relation: str
    change: str
    subject: str
    categories: dict[int, str]
    category: str


@dataclass
class CheckResult:
    years: list[YearCheck]
    facts: list[FactCheck]
    samples: list[SampleResult]
    requests: int = 0             # requests sent (identical ones once)
    errors: int = 0
    extra: dict = field(default_factory=dict)

    def remap(self, copies: Sequence[UnitCopy]) -> CheckResult:
        """The check of the resampled items: each copy's years under their new item ids, and
        the facts (record, template) of its records, each copy's record ids renamed so that a
        record drawn twice counts twice."""
        years = defaultdict(list)
        for y in self.years:
            years[y.item_id].append(y)
        facts = defaultdict(list)
        for f in self.facts:
            facts[f.record_id].append(f)
        out_years: list[YearCheck] = []
        out_facts: list[FactCheck] = []
        for c in copies:
            records: dict[str, None] = {}
            for old, new in c.ids.items():
                for y in years.get(old, ()):
                    records[y.record_id] = None
                    out_years.append(y if not c.tag else replace(y, item_id=new, record_id=c.rename(y.record_id)))
            for rid in records:
                out_facts += [f if not c.tag else replace(f, record_id=c.rename(rid)) for f in facts.get(rid, ())]
        return CheckResult(out_years, out_facts, [], self.requests, self.errors, self.extra)


# ---- prompts and parsing (pure) --------------------------------------------------------------
def item_template(item: BenchmarkItem) -> str:
    return item.slices.get("template") or item.task.split("/")[-1]


def render_query(item: BenchmarkItem) -> str:
    """The item as the last question of a prompt (MCQA with its options on the next line)."""
    if item.choices:
        options = ", ".join(f"({OPTION_LETTERS[i]}) {c}" for i, c in enumerate(item.choices))
        return f"{item.question}\n{options}"
    return item.question


def render_check_prompt(item: BenchmarkItem, shots: Sequence[dict]) -> str:
    """``Q. ..`` / ``A. ..`` exemplars, then the item's question and an open ``A.``."""
    blocks = [f"Q. {s['question']}\nA. {s['answer']}" for s in shots]
    blocks.append(f"Q. {render_query(item)}\nA.")
    return "\n\n".join(blocks)


def parse_check_answer(item: BenchmarkItem, text: str | None) -> str:
    """The object a completion names: MCQA letters map to their option, true/false to words."""
    line = first_line(text)
    for prefix in ("A.", "A:", "Answer:"):
        if line.startswith(prefix):
            line = line[len(prefix):].strip()
    template = item_template(item)
    if template == "mcqa" and item.choices:
        letter = extract_choice_letter(line, len(item.choices))
        if letter is not None and "ABCD".index(letter) < len(item.choices):
            return item.choices["ABCD".index(letter)]
        return line
    if template == "tf":
        value = extract_yes_no(line)
        return "" if value is None else ("true" if value else "false")
    return line


def score_check(item: BenchmarkItem, response: str) -> Score:
    """ChroKnowledge's rule: the object the completion names matches an object of the year
    (``token_set_ratio >= 70``); the ``chrono-check`` scorer in both modes (it is the released
    rule)."""
    parsed = parse_check_answer(item, response)
    right = fuzzy_in(parsed, item.answers, THRESHOLD)
    return Score(value=1.0 if right else 0.0, answer=parsed,
                 explanation=f"{'matches' if right else 'does not match'} an object of the year "
                             f"(token_set_ratio >= {THRESHOLD})")


def shot_sets_of(item: BenchmarkItem, n: int) -> list[list[dict]]:
    sets = item.metadata.get("shot_sets") or [item.few_shot]
    if len(sets) < n:
        raise ConfigError(f"item {item.id} has {len(sets)} few-shot sets; the check asks for {n}")
    return list(sets[:n])


def build_check_asks(items: Sequence[BenchmarkItem], config: CheckConfig) -> list[Ask]:
    """Every greedy and sampled request of the check, ordered so that shared prefixes are
    adjacent. A greedy answer of set k is sample k of its item; the sampled answers of set k
    follow the greedy ones (``shot_sets + k * samples`` onwards)."""
    keyed = []
    for item in items:
        for k, shots in enumerate(shot_sets_of(item, config.shot_sets)):
            prompt = render_check_prompt(item, shots)
            order = (item_template(item), str(item.slices.get("relation")), int(item.slices.get("year", 0)), k, item.id)
            keyed.append((order, 0, Ask(item, GenerationRequest(
                prompt=prompt, n=1, temperature=GREEDY, seed=config.seed, max_tokens=config.max_tokens, stop=("\n",)),
                first_index=k, scorer=CHECK_SCORER, tags={"decoding": "greedy", "shot_set": k})))
            keyed.append((order, 1, Ask(item, GenerationRequest(
                prompt=prompt, n=config.samples, temperature=config.temperature, seed=config.seed,
                max_tokens=config.max_tokens, stop=("\n",)),
                first_index=config.shot_sets + k * config.samples, scorer=CHECK_SCORER,
                tags={"decoding": "sampled", "shot_set": k})))
    keyed.sort(key=lambda x: (x[0], x[1]))
    return [a for _, _, a in keyed]


# ---- categorisation over collected answers (pure) ----------------------------------------------
def categorise(items: Sequence[BenchmarkItem], greedy: dict[str, list[str]], sampled: dict[str, list[str]],
               threshold: int = THRESHOLD) -> tuple[list[YearCheck], list[FactCheck]]:
    years: list[YearCheck] = []
    for item in items:
        golds = tuple(item.answers)
        g, s = greedy.get(item.id, []), sampled.get(item.id, [])
        years.append(YearCheck(
            item_id=item.id, record_id=item.metadata.get("record_id", item.id), template=item_template(item),
            year=int(item.slices["year"]), domain=str(item.slices.get("domain")),
            relation=str(item.slices.get("relation")), change=str(item.slices.get("change")),
            golds=golds, greedy=tuple(g), sampled=tuple(s), category=classify_year(g, s, golds, threshold)))
    grouped: dict[tuple[str, str], list[YearCheck]] = defaultdict(list)
    for y in years:
        grouped[(y.record_id, y.template)].append(y)
    subjects = {i.metadata.get("record_id", i.id): str(i.metadata.get("subject", "")) for i in items}
    facts = []
    for (rid, template), ys in sorted(grouped.items()):
        cats = {y.year: y.category for y in sorted(ys, key=lambda y: y.year)}
        first = ys[0]
        facts.append(FactCheck(record_id=rid, template=template, domain=first.domain, relation=first.relation,
                               change=first.change, subject=subjects.get(rid, ""), categories=cats,
                               category=classify_timeline(cats)))
    return years, facts


# ---- the batched run -------------------------------------------------------------------------
def run_knowledge_check(items: Sequence[BenchmarkItem], backend: Backend, config: CheckConfig = CheckConfig(),
                        *, scoring: str = "knowforge", progress: Callable[[int], None] | None = None) -> CheckResult:
    """Ask every request in chunks of ``config.chunk_size`` and categorise the answers."""
    asks = build_check_asks(items, config)
    scored = ask_and_score(asks, backend, scoring=scoring, progress=progress, chunk_size=config.chunk_size)
    by_item: dict[str, list[SampleResult]] = defaultdict(list)
    for sample in scored:
        by_item[sample.item_id].append(sample)
    greedy: dict[str, list[str]] = defaultdict(list)
    sampled: dict[str, list[str]] = defaultdict(list)
    samples: list[SampleResult] = []
    for item in items:
        mine = sorted(by_item[item.id], key=lambda r: r.sample_index)
        samples.extend(mine)
        for r in mine:
            kind = sampled if r.sample_index >= config.shot_sets else greedy
            kind[item.id].append(r.parsed or "")
    years, facts = categorise(list(items), greedy, sampled, config.threshold)
    errors = sum(1 for r in samples if r.error)
    if errors:
        log.warning("%d of %d knowledge-check answers failed; they count as wrong", errors, len(samples))
    return CheckResult(years=years, facts=facts, samples=samples, requests=len({a.request for a in asks}),
                       errors=errors, extra={"requests_before_dedup": len(asks)})


# ---- summaries ---------------------------------------------------------------------------------
def year_curves(result: CheckResult) -> dict[str, dict[int, dict[str, float]]]:
    """"<template>/<change>" -> year -> {n, correct, known, correct_ci, known_ci} (known =
    correct or partial). A fact appears once per year and template, so the facts of a point are
    independent: each share has lm-eval's analytic standard error and its normal 95% interval
    (``stats.cluster_mean``; none below two facts)."""
    acc: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for y in result.years:
        acc[f"{y.template}/{y.change}"][y.year].append(y.category)
    out: dict[str, dict[int, dict[str, float]]] = {}
    for key, per_year in sorted(acc.items()):
        out[key] = {}
        for year, cats in sorted(per_year.items()):
            correct = cluster_mean([float(c == "correct") for c in cats])
            known = cluster_mean([float(c in RIGHT) for c in cats])
            out[key][year] = {"n": len(cats), "correct": correct.estimate, "known": known.estimate,
                              "correct_ci": list(correct.ci) if correct.ci else None,
                              "known_ci": list(known.ci) if known.ci else None}
    return out


def category_table(result: CheckResult) -> list[dict]:
    """One row per (domain, template, change): fact counts and shares of each category."""
    groups: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for f in result.facts:
        groups[(f.domain, f.template, f.change)].append(f.category)
    rows = []
    for (domain, template, change), cats in sorted(groups.items()):
        row = {"domain": domain, "template": template, "change": change, "facts": len(cats)}
        for c in FACT_CATEGORIES:
            row[c] = sum(x == c for x in cats)
        row[KNOWN_SHARE] = round(100 * row[KNOWN] / len(cats), 1)
        rows.append(row)
    return rows


def percent_at(column: int, count: int, digits: int = 1, minus: int | None = None) -> Statistic:
    """The statistic ``round(100 * totals[column] / totals[count], digits)`` (less
    ``totals[minus]`` in the numerator: a gain), rounded as the tables round their shares."""
    def share(totals: np.ndarray) -> np.ndarray:
        top = totals[..., column] if minus is None else totals[..., column] - totals[..., minus]
        return rounded(100 * top / totals[..., count], digits)
    return share


def category_totals(result: CheckResult, templates: Collection[str] | None = None) -> Totals:
    """``category_table``'s Known % as sums (of the rows of ``templates``; None: all): each
    fact adds (Known, 1) to its (domain, template, change) row, on its first year's item and
    reading all its years' items (``Totals.reads``: a fact's category reads them together, so
    it is a sum over records when the run's unit is the record)."""
    items_of: dict[tuple[str, str], list[str]] = defaultdict(list)
    for y in result.years:
        items_of[(y.record_id, y.template)].append(y.item_id)
    rows, reads, leaves = [], [], {}
    for f in result.facts:
        if templates is not None and f.template not in templates:
            continue
        ids = items_of.get((f.record_id, f.template))
        if not ids:
            raise CannotResample(f"fact {f.record_id} ({f.template}) has no year in the check")
        label = row_label({"domain": f.domain, "template": f.template, "change": f.change})
        leaves[(label, KNOWN_SHARE)] = (label, percent_at(0, 1))
        rows.append((ids[0], label, (float(f.category == KNOWN), 1.0)))
        reads.append(ids)
    return grouped_totals(rows, 2, leaves, reads)


def year_category_counts(result: CheckResult) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(lambda: {c: 0 for c in YEAR_CATEGORIES})
    for y in result.years:
        out[y.template][y.category] += 1
    return {k: dict(v) for k, v in sorted(out.items())}

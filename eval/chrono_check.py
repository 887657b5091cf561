"""ChroKnowledge's sampling-based knowledge check: requests, one batched run, categories.

For every item (one fact at one year under one template) and each of its five few-shot sets
(``item.metadata["shot_sets"]``) the check asks one greedy request (temperature 0) and one
sampled request (temperature 0.7, ``samples`` completions), with a fixed seed. All requests
of a run go to ``backend.generate`` in large chunks, ordered so that prompts sharing a shot
set (the same relation, year and set index) are adjacent — vLLM's prefix cache then computes
each exemplar prefix once. Identical requests (a small exemplar pool repeats a set) are sent
once. The categorisation itself is pure (``chrono_categories``).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from knowforge.errors import BackendError, ConfigError
from knowforge.eval.chrono_categories import (RIGHT, THRESHOLD, YEAR_CATEGORIES, classify_timeline,
                                              classify_year, fuzzy_in)
from knowforge.eval.runner import SampleResult
from knowforge.eval.scorers import extract_choice_letter, extract_yes_no, first_line
from knowforge.models.types import Backend, BenchmarkItem, GenerationRequest

log = logging.getLogger(__name__)

GREEDY, SAMPLED = 0.0, 0.7
OPTION_LETTERS = "abcd"


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


def shot_sets_of(item: BenchmarkItem, n: int) -> list[list[dict]]:
    sets = item.metadata.get("shot_sets") or [item.few_shot]
    if len(sets) < n:
        raise ConfigError(f"item {item.id} has {len(sets)} few-shot sets; the check asks for {n}")
    return list(sets[:n])


def build_check_requests(items: Sequence[BenchmarkItem], config: CheckConfig
                         ) -> list[tuple[tuple[str, int, bool], GenerationRequest]]:
    """[((item_id, set_index, sampled), request)], ordered so shared prefixes are adjacent."""
    keyed = []
    for item in items:
        for k, shots in enumerate(shot_sets_of(item, config.shot_sets)):
            prompt = render_check_prompt(item, shots)
            order = (item_template(item), str(item.slices.get("relation")), int(item.slices.get("year", 0)), k, item.id)
            keyed.append((order, (item.id, k, False), GenerationRequest(
                prompt=prompt, n=1, temperature=GREEDY, seed=config.seed,
                max_tokens=config.max_tokens, stop=("\n",))))
            keyed.append((order, (item.id, k, True), GenerationRequest(
                prompt=prompt, n=config.samples, temperature=config.temperature, seed=config.seed,
                max_tokens=config.max_tokens, stop=("\n",))))
    keyed.sort(key=lambda x: (x[0], x[1][2]))
    return [(key, req) for _, key, req in keyed]


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
                        *, progress: Callable[[int], None] | None = None) -> CheckResult:
    """Ask every request in chunks of ``config.chunk_size`` and categorise the answers."""
    by_id = {i.id: i for i in items}
    keyed = build_check_requests(items, config)
    # identical requests (a small exemplar pool repeats a shot set) are asked once
    unique = list(dict.fromkeys(req for _, req in keyed))
    answered: dict[GenerationRequest, object] = {}
    for start in range(0, len(unique), max(1, config.chunk_size)):
        chunk = unique[start:start + config.chunk_size]
        answers = backend.generate(chunk)
        if len(answers) != len(chunk):
            raise BackendError(f"backend {backend.name} returned {len(answers)} results for {len(chunk)} requests")
        answered.update(zip(chunk, answers))
        if progress:
            progress(len(chunk))
    greedy: dict[str, list[str]] = defaultdict(list)
    sampled: dict[str, list[str]] = defaultdict(list)
    raw = {key: (req, answered[req]) for key, req in keyed}
    errors = sum(1 for _, ans in raw.values() if ans.error is not None)
    samples: list[SampleResult] = []
    for item in items:
        index = 0
        for sampled_kind in (False, True):
            for k in range(config.shot_sets):
                req, ans = raw[(item.id, k, sampled_kind)]
                texts = ans.texts or ("",)
                for j, text in enumerate(texts):
                    parsed = parse_check_answer(item, text)
                    (sampled if sampled_kind else greedy)[item.id].append(parsed)
                    cached = bool(ans.cached[j]) if j < len(ans.cached) else False
                    samples.append(SampleResult(
                        item_id=item.id, sample_index=index, raw=text, parsed=parsed,
                        score=1.0 if fuzzy_in(parsed, item.answers, config.threshold) else 0.0,
                        error=ans.error, cached=cached,
                        finish_reason=ans.finish_reasons[j] if j < len(ans.finish_reasons) else None,
                        prompt=req.prompt or "",
                        explanation=f"{'sampled' if sampled_kind else 'greedy'} set {k}"))
                    index += 1
    years, facts = categorise(list(by_id.values()), greedy, sampled, config.threshold)
    if errors:
        log.warning("%d of %d knowledge-check requests failed; their answers count as wrong", errors, len(keyed))
    return CheckResult(years=years, facts=facts, samples=samples, requests=len(unique), errors=errors,
                       extra={"requests_before_dedup": len(keyed)})


# ---- summaries ---------------------------------------------------------------------------------
def year_curves(result: CheckResult) -> dict[str, dict[int, dict[str, float]]]:
    """"<template>/<change>" -> year -> {n, correct, known} (known = correct or partial)."""
    acc: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for y in result.years:
        acc[f"{y.template}/{y.change}"][y.year].append(y.category)
    out: dict[str, dict[int, dict[str, float]]] = {}
    for key, per_year in sorted(acc.items()):
        out[key] = {year: {"n": len(cats), "correct": sum(c == "correct" for c in cats) / len(cats),
                           "known": sum(c in RIGHT for c in cats) / len(cats)}
                    for year, cats in sorted(per_year.items())}
    return out


def category_table(result: CheckResult) -> list[dict]:
    """One row per (domain, template, change): fact counts and shares of each category."""
    from knowforge.eval.chrono_categories import FACT_CATEGORIES

    groups: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for f in result.facts:
        groups[(f.domain, f.template, f.change)].append(f.category)
    rows = []
    for (domain, template, change), cats in sorted(groups.items()):
        row = {"domain": domain, "template": template, "change": change, "facts": len(cats)}
        for c in FACT_CATEGORIES:
            row[c] = sum(x == c for x in cats)
        row["Known %"] = round(100 * row["Known"] / len(cats), 1)
        rows.append(row)
    return rows


def year_category_counts(result: CheckResult) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(lambda: {c: 0 for c in YEAR_CATEGORIES})
    for y in result.years:
        out[y.template][y.category] += 1
    return {k: dict(v) for k, v in sorted(out.items())}

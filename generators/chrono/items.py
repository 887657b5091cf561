"""Records -> ``BenchmarkItem`` values, one per (record, year, template). Pure and seeded.

Every item carries what the knowledge check needs, so ``eval/`` never reads records:
``metadata["shot_sets"]`` holds the five few-shot sets (four exemplars each) of its
(relation, year), drawn from the held-out few-shot records of the same relation. The five
sets are shared by all facts of a (relation, year), so the prompts of one set share their
whole exemplar prefix (vLLM's prefix cache reuses it). ``few_shot`` is the first set.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence

from knowforge.models.types import BenchmarkItem
from knowforge.generators.chrono.records import ChronoRecord
from knowforge.generators.chrono.templates import (FORMS, TEMPLATES, Phrasings, generation_question,
                                                   load_phrasings, mcqa_question, option_answer,
                                                   render_options, tf_statement)

SHOT_SETS = 5
SHOTS = 4
SCORERS = {"generation": "fuzzy", "mcqa": "multi-choice", "tf": "boolean"}


def _rng(seed: int, *parts) -> random.Random:
    return random.Random(":".join(str(p) for p in (seed, *parts)))


def _gold(record: ChronoRecord, year: int, seed: int) -> str:
    return _rng(seed, "gold", record.id, year).choice(sorted(record.objects[year]))


def _mcqa(record: ChronoRecord, year: int, seed: int, tag: str) -> tuple[list[str], int]:
    gold = _gold(record, year, seed)
    choices = [gold, *record.distractors.get(year, record.distractor)[:3]]
    _rng(seed, tag, record.id, year).shuffle(choices)
    return choices, choices.index(gold)


def _tf(record: ChronoRecord, year: int, seed: int, tag: str) -> tuple[str, bool]:
    wrong = record.distractors.get(year, record.distractor)
    truth = not wrong or _rng(seed, tag, record.id, year).random() < 0.5
    obj = _gold(record, year, seed) if truth else wrong[0]
    return obj, truth


def _phrase(record: ChronoRecord, phrasings: Phrasings):
    return phrasings.get(record.relation, record.relation_label)


def render_item_text(record: ChronoRecord, year: int, template: str, seed: int, phrasings: Phrasings,
                     tag: str = "item") -> tuple[str, list[str], int | None, list[str]]:
    """(question, choices, answer_index, answers) of one record at one year."""
    p = _phrase(record, phrasings)
    legal = record.question if record.kind == "legal" else None
    golds = sorted(record.objects[year])
    if template == "generation":
        return generation_question(year, record.subject, p.label, legal_question=legal), [], None, golds
    if template == "mcqa":
        choices, idx = _mcqa(record, year, seed, f"{tag}-mcqa")
        return mcqa_question(year, record.subject, p, legal_question=legal), choices, idx, golds
    if template == "tf":
        obj, truth = _tf(record, year, seed, f"{tag}-tf")
        return tf_statement(year, record.subject, obj, p, legal_question=legal), [], None, ["true" if truth else "false"]
    raise ValueError(f"unknown template {template!r}")


def render_exemplar(record: ChronoRecord, year: int, template: str, seed: int,
                    phrasings: Phrasings) -> dict[str, str]:
    """One few-shot exemplar {question, answer} (the record's nearest year with objects)."""
    year, _ = record.objects_near(year)
    question, choices, idx, answers = render_item_text(record, year, template, seed, phrasings, tag="shot")
    if template == "generation":
        return {"question": question, "answer": _gold(record, year, seed)}
    if template == "mcqa":
        return {"question": f"{question}\n{render_options(choices)}",
                "answer": option_answer(idx, choices)}
    return {"question": question, "answer": answers[0]}


def shot_sets(pool: Sequence[ChronoRecord], relation: str, year: int, template: str, seed: int,
              phrasings: Phrasings, n_sets: int = SHOT_SETS, shots: int = SHOTS) -> list[list[dict[str, str]]]:
    """``n_sets`` seeded samples of ``shots`` exemplars from ``pool`` for one (relation, year)."""
    pool = sorted(pool, key=lambda r: r.id)
    if not pool:
        return [[] for _ in range(n_sets)]
    sets = []
    for k in range(n_sets):
        picked = _rng(seed, "shots", relation, year, k).sample(pool, min(shots, len(pool)))
        sets.append([render_exemplar(r, year, template, seed, phrasings) for r in picked])
    return sets


def build_items(records: Iterable[ChronoRecord], *, benchmark: str, seed: int,
                templates: Sequence[str] = TEMPLATES, phrasings: Phrasings | None = None,
                n_sets: int = SHOT_SETS, shots: int = SHOTS) -> list[BenchmarkItem]:
    """Items of every test record; few-shot records only feed the exemplar pools.

    A relation with no held-out record borrows the few-shot pool of its whole domain.
    """
    phrasings = phrasings or load_phrasings()
    records = sorted(records, key=lambda r: r.id)
    pools: dict[tuple[str, str], list[ChronoRecord]] = defaultdict(list)
    domain_pools: dict[str, list[ChronoRecord]] = defaultdict(list)
    for r in records:
        if r.split == "fewshot":
            pools[(r.domain, r.relation)].append(r)
            domain_pools[r.domain].append(r)
    cache: dict[tuple, list[list[dict[str, str]]]] = {}
    items: list[BenchmarkItem] = []
    for r in records:
        if r.split != "test":
            continue
        pool = pools.get((r.domain, r.relation)) or domain_pools.get(r.domain, [])
        for template in templates:
            for year in r.years:
                key = (r.domain, r.relation, year, template)
                if key not in cache:
                    cache[key] = shot_sets(pool, r.relation, year, template, seed, phrasings, n_sets, shots)
                sets = cache[key]
                question, choices, idx, answers = render_item_text(r, year, template, seed, phrasings)
                items.append(BenchmarkItem(
                    id=f"{benchmark}:{r.id}:{year}:{template}",
                    benchmark=benchmark,
                    task=f"chrono/{template}",
                    form=FORMS[template],
                    question=question,
                    choices=choices,
                    answers=answers,
                    answer_index=idx,
                    scorer=SCORERS[template],
                    few_shot=sets[0],
                    fact_ids=list(r.fact_ids.get(year, [])),
                    entity_ids=[r.subject_id] if r.subject_id else [],
                    slices={"domain": r.domain, "relation": r.relation, "year": year,
                            "change": r.change, "template": template},
                    metadata={"record_id": r.id, "subject": r.subject, "relation_label": r.relation_label,
                              "kind": r.kind, "golds": sorted(r.objects[year]), "years": r.years,
                              "shot_sets": sets},
                ))
    return items

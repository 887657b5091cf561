"""ChroKnow's Generation prompt as control-model practice: few-shot blocks of one relation,
"Q. In 2012, Cristiano Ronaldo, member of sports team, [Object]\\nA. Real Madrid CF", one block
per year a trained fact holds (at most ``year_span`` years up to the cutoff; a timeless fact at
``timeless_years`` seeded years), several blocks per example like the check's few-shot prompt,
grouped anew each epoch (``passes`` groupings) so that no answer is learnt from its company.

Options (``DataConfig.practice["chrono"]``, set from the control config's ``year_span``,
``timeless_years``, ``chrono_passes``, ``stable_years`` and ``changing_passes``): see
``ChronoPracticeOptions``.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from knowforge.models.control_data import ControlPractice, Example, ExampleBuilder, PracticeData, SourceFact

NAME = "chrono"


class ChronoPracticeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    year_span: int = Field(12, ge=1)           # years up to the cutoff rendered as blocks
    timeless_years: int = Field(0, ge=0)       # seeded years at which a timeless fact is rendered
    blocks_per_example: int = Field(5, ge=1)   # blocks per example (the check asks after 4 shots)
    passes: int = Field(2, ge=0)               # groupings per epoch (the blocks are seen this often)
    # a fact whose object never changes: blocks at this many seeded years of its span only
    # (None: every year; the cutoff year is always among them)
    stable_years: int | None = Field(None, ge=0)
    changing_passes: int = Field(0, ge=0)      # extra groupings per epoch of the changing facts only


def changing_facts(trained: Iterable[SourceFact], cutoff: int, span: int) -> frozenset[str]:
    """Trained dated facts whose (subject, relation) has more than one object in the taught
    years: the model must tell the years apart to answer them."""
    objects: dict[tuple[str, str], set[str]] = defaultdict(set)
    ids: dict[tuple[str, str], list[str]] = defaultdict(list)
    for f in trained:
        if f.timeless or not f.years_known(cutoff, span):
            continue
        key = (f.subject_id, f.relation)
        objects[key].add(f.display())
        ids[key].append(f.id)
    return frozenset(fid for key, objs in objects.items() if len(objs) > 1 for fid in ids[key])


def year_blocks(data: PracticeData, options: ChronoPracticeOptions,
                changing: frozenset[str]) -> dict[str, list[tuple[str, str, str]]]:
    """relation -> [(question, answer, fact id)]: a block per year each trained fact is taught."""
    cutoff, phrasings = data.config.cutoff, data.phrasings
    question_form = phrasings.form("chrono_question", NAME)
    rng = random.Random(f"{data.config.seed}:control:years")
    lo = cutoff - options.year_span + 1
    blocks: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for f in data.trained:
        years = f.years_known(cutoff, options.year_span)
        if f.timeless:
            years = sorted(rng.sample(range(lo, cutoff + 1), min(options.timeless_years, options.year_span)))
        elif options.stable_years is not None and f.id not in changing and len(years) > options.stable_years:
            # one object in every year: a few years teach it as well as all of them, at a fraction
            # of the tokens (the cutoff year always among them: it is the one asked after it)
            rest = sorted(rng.sample(years[:-1], max(0, options.stable_years - 1)))
            years = rest + years[-1:] if options.stable_years > 0 else []
        for year in years:
            question = question_form.format(year=year, subject=f.subject, label=phrasings.label(f))
            blocks[f.relation].append((question, f.display(), f.id))
    return dict(blocks)


def block_examples(data: PracticeData, rng: random.Random) -> list[Example]:
    """One epoch's groupings of the year blocks into few-shot examples."""
    options = ChronoPracticeOptions(**data.config.options(NAME))
    block_form = data.phrasings.form("chrono_block", NAME)
    changing = changing_facts(data.trained, data.config.cutoff, options.year_span)
    blocks = year_blocks(data, options, changing)
    changing_blocks = {rel: [blk for blk in group if blk[2] in changing] for rel, group in blocks.items()}
    examples: list[Example] = []
    for grouping in [blocks] * options.passes + [changing_blocks] * options.changing_passes:
        for relation in sorted(grouping):
            group = list(grouping[relation])
            rng.shuffle(group)
            for start in range(0, len(group), options.blocks_per_example):
                chunk = group[start:start + options.blocks_per_example]
                b = ExampleBuilder()
                for k, (question, answer, _) in enumerate(chunk):
                    if k:
                        b.add("\n")   # blocks are separated by a blank line, as in the check
                    b.add(block_form.format(question=question))
                    b.add(f" {answer}\n", train=True)
                examples.append(b.example("chrono", [fid for _, _, fid in chunk]))
    return examples


# before the engine's context practice (order 20): the epoch's draws in the order they always had
PRACTICE = ControlPractice(block_examples, order=10)

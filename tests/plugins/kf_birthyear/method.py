"""The graph side of the plug-in method: questions on people's birth years. ``generate`` reads
the people with a date of birth through the method's own named statement
(``birthyear/read_people``), draws some with a seeded generator, writes the questions and, for
each, a node of the method's own label (``:BirthYearProbe``, through ``birthyear/write_probes``)
that ties the question to the person and to the fact it was read from; the view ``person``
draws them. Its evaluation side (``evaluation.py``) is named by reference, as a built-in method
names ``eval/<m>/``."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from pydantic import Field

from knowforge.api import (EOS, BenchmarkItem, Component, ControlPractice, Example, ExampleBuilder, ExportFormat,
                           GenerationSummary, ItemFilter, Mark, Method, MethodParams, MethodView, PracticeData, Task,
                           ViewTable, qa_prompt, read_items, source_graph_hash, write_benchmark, write_questions)

DATE_OF_BIRTH = "P569"
_YEAR = re.compile(r"^([+-]?)(\d{1,4})")


class BirthYearParams(MethodParams):
    name: str = Field("b", description="Benchmark name.")
    size: int = Field(4, ge=1, description="People to ask about.")
    forms: tuple[str, ...] = Field(("generation", "boolean"), description="Question forms.",
                                   json_schema_extra={"cli": {"separator": ","}})


def birth_year(value: str) -> int | None:
    """The year of a date as the loader stores it ("1961-08-04", "-0470" for 471 BCE)."""
    found = _YEAR.match(value or "")
    if found is None:
        return None
    year = int(found.group(2))
    return -year if found.group(1) == "-" else year


def plan(people: list[dict], params: BirthYearParams) -> list[tuple[dict, int]]:
    """Who is asked about: ``size`` people with a readable year (one fact each), drawn with the
    run's seed from the graph's stable order."""
    first: dict[str, tuple[dict, int]] = {}
    for row in people:
        year = birth_year(row["value"])
        if year is not None and row["id"] not in first:
            first[row["id"]] = (row, year)
    chosen = list(first.values())
    random.Random(f"{params.seed}:birthyear").shuffle(chosen)
    return chosen[:params.size]


def generate(store, params: BirthYearParams, backend=None, progress=None) -> GenerationSummary:
    benchmark = f"birthyear:{params.name}"
    chosen = plan(store.read("birthyear/read_people", relation=DATE_OF_BIRTH), params)
    if not chosen:
        raise ValueError(f"no person with a date of birth ({DATE_OF_BIRTH}) in the graph: load one first "
                         "(knowforge load wikidata ...)")
    rng = random.Random(f"{params.seed}:birthyear:shown")
    items, probes = [], []
    for i, (person, year) in enumerate(chosen):
        form = params.forms[i % len(params.forms)]
        century = f"{year // 100 * 100}s"
        item_id = f"{benchmark}:{i}"
        if form == "boolean":
            shown = year if rng.random() < 0.5 else year + rng.choice((-3, -1, 1, 3))
            items.append(BenchmarkItem(id=item_id, benchmark=benchmark, task="birthyear/year", form="boolean",
                                       question=f"Was {person['name']} born in {shown}?",
                                       answers=["yes" if shown == year else "no"], scorer="boolean",
                                       slices={"century": century}))
        else:
            items.append(BenchmarkItem(id=item_id, benchmark=benchmark, task="birthyear/year", form="generation",
                                       question=f"In what year was {person['name']} born?", answers=[str(year)],
                                       scorer="birthyear-year", slices={"century": century}))
        probes.append({"id": f"probe:{item_id}", "question": item_id, "person": person["id"],
                       "fact": person["fact"], "year": year})
    write_benchmark(store, method="birthyear", name=params.name, seed=params.seed, params=params.model_dump(),
                    source_hash=source_graph_hash(store))
    write_questions(store, items)
    store.write("birthyear/write_probes", probes)
    if progress:
        progress(len(items))
    return GenerationSummary(method="birthyear", name=params.name, benchmark=benchmark,
                             counts={"questions": len(items), "people": len(probes)})


def write_years(store, name, items, out: Path) -> list[Path]:
    """years.json: each question with its gold, the layout the "released script" reads."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "years.json"
    path.write_text(json.dumps([{"id": i.id, "q": i.question, "a": i.answers[0]} for i in items], indent=1) + "\n",
                    encoding="utf-8")
    return [path]


def practice(data: PracticeData, rng: random.Random) -> list[Example]:
    """The control model practises this method's question on the birth years it is taught:
    "Question: In what year was Ada Lovelace born?\nAnswer: 1815", one in ``share`` of them an
    epoch (the method's option, ``DataConfig.practice["birthyear"]``)."""
    share = float(data.config.options("birthyear").get("share", 0.5))
    out = []
    for fact in data.trained:
        year = birth_year(fact.object) if fact.relation == DATE_OF_BIRTH else None
        if year is None or rng.random() >= share:
            continue
        b = ExampleBuilder()
        b.add(qa_prompt(data.phrasings, f"In what year was {fact.subject} born?", instruction=False))
        b.add(f" {year}{EOS}", train=True)
        out.append(b.example("birthyear", [fact.id]))
    return out


METHOD = Method(
    name="birthyear", title="Birth years", description="When were people born: read from the graph's P569 facts.",
    params=BirthYearParams, generate=generate, items=lambda store, name: read_items(store, f"birthyear:{name}"),
    tasks=(Task(name="birthyear/year", dataset=ItemFilter(tasks=("birthyear/year",)),
                solver=Component(name="zero-shot"),
                metrics=("accuracy", "balanced_accuracy", "birthyear:year_error", "birthyear:accuracy")),),
    exports={"years": ExportFormat("years", "a JSON list of {id, q, a}", write_years)},
    report_slices=("century",),
    evaluation="kf_birthyear.evaluation:UNIT",
    cypher="kf_birthyear.cypher",
    labels=("BirthYearProbe",),
    relationship_types=("PROBES", "BORN_AS", "READ_FROM"),
    views=(MethodView(name="person", title="A person's birth year",
                      description="A person, the date of birth the questions were read from, and the questions.",
                      key="person", graph="birthyear/view_person", keys="birthyear/view_person_keys",
                      node_marks=(Mark("person", "#1f77b4", "the person", "round-rectangle"),
                                  Mark("fact", "#2ca02c", "the date of birth", "diamond"),
                                  Mark("question", "#ff7f0e", "a question")),
                      edge_marks=(Mark("born", "#333333", "date of birth"), Mark("asks", "#999999", "asks", "dashed")),
                      tables=(ViewTable("Questions", "birthyear/view_person_questions"),)),),
    control_practice=ControlPractice(practice),
)

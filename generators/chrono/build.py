"""Build a ChroKnow benchmark from the graph: plan records (pure), then write them.

1. read the (subject, relation) pairs of the domain and their facts (two batched reads) and
   the object timelines (``kg.temporal.object_timelines``, gap filling included);
2. ``plan_records`` (pure, seeded): per-year object sets, dynamic/static/invariant, legal
   blanks, few-shot hold-out per relation, balance of dynamic vs static per relation;
3. ``assign_distractors`` (pure, seeded) from the graph's objects, or an LLM with verification;
4. ``build_items`` (pure) and one batched write of the benchmark, its records and items.
"""

from __future__ import annotations

import json
import logging
import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from knowforge.errors import ConfigError, KnowforgeError
from knowforge.models.undo import undone_on_failure
from knowforge.models.types import Backend, BenchmarkItem
from knowforge.generators.chrono.distractors import (DistractorTask, choose_distractors,
                                                     llm_distractors)
from knowforge.generators.chrono.items import build_items
from knowforge.generators.chrono.legal import changed_blank, static_blank
from knowforge.generators.chrono.records import ChronoRecord
from knowforge.generators.chrono.templates import TEMPLATES, Phrasings, load_phrasings, mcqa_question
from knowforge.kg.records import stable_id
from knowforge.kg.store import Store
from knowforge.kg.temporal import classify_change, object_timelines
from knowforge.models.questions import read_benchmark as read_benchmark_node
from knowforge.models.questions import read_items as read_stored_items
from knowforge.models.questions import source_graph_hash, write_questions
from knowforge.models.questions import write_benchmark as write_benchmark_node

log = logging.getLogger(__name__)

BUILD_VERSION = "1"
GENERAL_RELATIONS = ("P39", "P54", "P108", "P69", "P463", "P1308", "P169", "P1037")
UMLS_RELATIONS = ("isa", "inverse_isa", "direct_procedure_site_of", "has_direct_procedure_site",
                  "may_prevent", "may_be_prevented_by", "may_treat", "may_be_treated_by", "induces",
                  "causative_agent_of", "has_mechanism_of_action", "has_physiologic_effect")


@dataclass(frozen=True)
class DomainSpec:
    name: str
    kind: str                         # "variant", "invariant", "legal"
    from_year: int
    to_year: int
    relations: tuple[str, ...] | None
    sources: tuple[str, ...] | None
    fewshot_pool: int                 # exemplars held out per relation (paper: 4 general, 8 others)


DOMAINS = {
    "general": DomainSpec("general", "variant", 2010, 2023, GENERAL_RELATIONS, ("wikidata",), 4),
    "biomedical": DomainSpec("biomedical", "variant", 2020, 2024, UMLS_RELATIONS, ("umls",), 8),
    "legal": DomainSpec("legal", "legal", 2010, 2023, ("text",), ("cfr",), 8),
    "commonsense": DomainSpec("commonsense", "invariant", 2020, 2024, None, ("cskg",), 8),
    "math": DomainSpec("math", "invariant", 2020, 2024, None, ("mathkg",), 8),
}


@dataclass(frozen=True)
class ChronoConfig:
    domain: str
    name: str | None = None           # benchmark id is "chrono:<name>" (default: the domain)
    from_year: int | None = None
    to_year: int | None = None
    relations: tuple[str, ...] | None = None
    seed: int = 0
    fewshot_pool: int | None = None
    max_per_relation: int | None = None   # cap per (relation, temporal state)
    min_years: int = 2                     # a time-variant record needs this many years
    balance: bool = True
    templates: tuple[str, ...] = TEMPLATES
    distractors: str = "graph"             # "graph" | "llm"
    relations_file: str | None = None

    @property
    def spec(self) -> DomainSpec:
        try:
            return DOMAINS[self.domain]
        except KeyError:
            raise ConfigError(f"unknown domain {self.domain!r}; choose one of {', '.join(DOMAINS)}") from None

    @property
    def benchmark_id(self) -> str:
        return f"chrono:{self.name or self.domain}"

    def frame(self) -> tuple[int, int]:
        spec = self.spec
        lo, hi = self.from_year or spec.from_year, self.to_year or spec.to_year
        if lo > hi:
            raise ConfigError(f"--from {lo} is after --to {hi}")
        return lo, hi


@dataclass(frozen=True)
class Pair:
    subject_id: str
    subject: str
    relation: str
    relation_label: str | None
    labels: tuple[str, ...]


@dataclass
class BuildResult:
    benchmark_id: str
    records: list[ChronoRecord]
    items: list[BenchmarkItem]
    stats: dict[str, int] = field(default_factory=dict)


def _rng(seed: int, *parts) -> random.Random:
    return random.Random(":".join(str(p) for p in (seed, *parts)))


# ---- planning (pure) --------------------------------------------------------------------------
def _frame_years(timeline: dict[int, list[str]], lo: int, hi: int) -> dict[int, list[str]]:
    return {y: sorted(set(timeline.get(y, []))) for y in range(lo, hi + 1)}


def plan_variant(pair: Pair, timeline: dict[int, list[str]], facts: Sequence[dict], domain: str,
                 min_years: int) -> ChronoRecord | None:
    objects = {y: objs for y, objs in timeline.items() if objs}
    if len(objects) < min_years:
        return None
    return ChronoRecord(
        id=stable_id("cr:", domain, pair.subject_id, pair.relation), domain=domain,
        subject=pair.subject, subject_id=pair.subject_id, relation=pair.relation,
        relation_label=pair.relation_label, objects=objects, change=classify_change(timeline),
        fact_ids={y: sorted({f["fact_id"] for f in facts if f["object"] in objs}) for y, objs in objects.items()},
        subject_labels=list(pair.labels))


def plan_invariant(pair: Pair, facts: Sequence[dict], domain: str, years: Sequence[int]) -> ChronoRecord | None:
    objs = sorted({f["object"] for f in facts if f["object"]})
    if not objs:
        return None
    ids = sorted({f["fact_id"] for f in facts})
    return ChronoRecord(
        id=stable_id("cr:", domain, pair.subject_id, pair.relation), domain=domain,
        subject=pair.subject, subject_id=pair.subject_id, relation=pair.relation,
        relation_label=pair.relation_label, objects={y: list(objs) for y in years},
        change="invariant", fact_ids={y: ids for y in years}, subject_labels=list(pair.labels))


def plan_legal(pair: Pair, timeline: dict[int, list[str]], facts: Sequence[dict], years: Sequence[int],
               seed: int, skipped: dict[str, int]) -> ChronoRecord | None:
    texts = {}
    for y in years:
        versions = timeline.get(y, [])
        if len(versions) != 1:
            skipped["legal_not_in_every_year" if not versions else "legal_ambiguous_year"] += 1
            return None
        texts[y] = versions[0]
    change = classify_change({y: [t] for y, t in texts.items()})
    if change == "dynamic":
        blank = changed_blank(texts)
    else:
        blank = static_blank(texts[years[0]], years, _rng(seed, "legal-blank", pair.subject_id))
    if blank is None:
        skipped["legal_large_change" if change == "dynamic" else "legal_no_blank"] += 1
        return None
    by_text = defaultdict(list)
    for f in facts:
        by_text[f["object"]].append(f["fact_id"])
    return ChronoRecord(
        id=stable_id("cr:", "legal", pair.subject_id, pair.relation), domain="legal", kind="legal",
        subject=pair.subject, subject_id=pair.subject_id, relation=pair.relation,
        relation_label=pair.relation_label, question=blank.question, question_type=blank.question_type,
        objects=blank.answers, change=change,
        fact_ids={y: sorted(by_text.get(texts[y], [])) for y in years}, subject_labels=list(pair.labels))


def split_and_balance(records: Iterable[ChronoRecord], *, seed: int, fewshot_pool: int, balance: bool,
                      max_per_relation: int | None) -> list[ChronoRecord]:
    """Hold out few-shot exemplars per relation, then balance dynamic vs static per relation.

    A relation with n records holds out min(pool, n // 4) of them (at least one when n >= 2),
    taken from its larger temporal state first.
    Balancing keeps min(#dynamic, #static) of each state; a relation that has only one state
    keeps it whole (there is nothing to balance it against). ``max_per_relation`` caps each
    (relation, state).
    """
    by_rel: dict[str, list[ChronoRecord]] = defaultdict(list)
    for r in sorted(records, key=lambda r: r.id):
        by_rel[r.relation].append(r)
    out: list[ChronoRecord] = []
    for rel in sorted(by_rel):
        recs = list(by_rel[rel])
        rng = _rng(seed, "split", rel)
        rng.shuffle(recs)
        n_hold = min(fewshot_pool, max(1, len(recs) // 4)) if len(recs) >= 2 else 0
        states: dict[str, list[ChronoRecord]] = defaultdict(list)
        for r in recs:
            states[r.change].append(r)
        # exemplars come from the larger state first, so the smaller one survives to balance
        for _ in range(n_hold):
            largest = max(sorted(states), key=lambda s: len(states[s]))
            out.append(states[largest].pop(0).model_copy(update={"split": "fewshot"}))
        cap = None
        if balance and len(states.get("dynamic", [])) and len(states.get("static", [])):
            cap = min(len(states["dynamic"]), len(states["static"]))
        if max_per_relation is not None:
            cap = max_per_relation if cap is None else min(cap, max_per_relation)
        for state in sorted(states):
            chosen = states[state] if cap is None else states[state][:cap]
            out.extend(chosen)
    return sorted(out, key=lambda r: r.id)


def assign_distractors(records: Sequence[ChronoRecord], pairs_objects: dict[tuple[str, str], set[str]],
                       pair_labels: dict[str, tuple[str, ...]], seed: int) -> list[ChronoRecord]:
    """Per-year distractors (temporally mismatched first) and the all-years ``distractor`` list."""
    by_rel: dict[str, dict[str, set[str]]] = defaultdict(dict)
    domain_objects: set[str] = set()
    for (sid, rel), objs in pairs_objects.items():
        by_rel[rel][sid] = objs
        domain_objects |= objs
    out = []
    for r in records:
        others = {sid: objs for sid, objs in by_rel.get(r.relation, {}).items() if sid != r.subject_id}
        labels = set(r.subject_labels)
        same_type = [o for sid, objs in others.items() if labels & set(pair_labels.get(sid, ())) for o in objs]
        any_subject = [o for objs in others.values() for o in objs]
        if r.kind == "legal":
            same_type = any_subject = sorted({o for rec in records if rec.kind == "legal" and rec.id != r.id
                                              for objs in rec.objects.values() for o in objs})
        all_years = sorted({o for objs in r.objects.values() for o in objs})
        per_year = {}
        for y, golds in r.objects.items():
            mismatched = [o for o in all_years if o not in golds]
            per_year[y] = choose_distractors(golds, [mismatched, same_type, any_subject, sorted(domain_objects)],
                                             _rng(seed, "distractors", r.id, y))
        overall = choose_distractors(all_years, [same_type, any_subject, sorted(domain_objects)],
                                     _rng(seed, "distractor", r.id))
        out.append(r.model_copy(update={"distractors": per_year, "distractor": overall}))
    return out


def apply_llm_distractors(records: Sequence[ChronoRecord], backend: Backend, phrasings: Phrasings,
                          seed: int) -> list[ChronoRecord]:
    """Replace per-year distractors by verified LLM ones; graph distractors top up a short list."""
    tasks, keys = [], []
    for r in records:
        p = phrasings.get(r.relation, r.relation_label)
        for y, golds in sorted(r.objects.items()):
            q = mcqa_question(y, r.subject, p, legal_question=r.question if r.kind == "legal" else None)
            tasks.append(DistractorTask(question=q, golds=tuple(golds)))
            keys.append((r.id, y))
    made = llm_distractors(backend, tasks, seed=seed)
    by_key = dict(zip(keys, made))
    out = []
    for r in records:
        per_year = {}
        for y, golds in r.objects.items():
            llm = by_key[(r.id, y)]
            fill = choose_distractors([*golds, *llm], [r.distractors.get(y, [])], _rng(seed, "fill", r.id, y),
                                      k=3 - len(llm)) if len(llm) < 3 else []
            per_year[y] = [*llm, *fill]
        out.append(r.model_copy(update={"distractors": per_year}))
    return out


# ---- graph reads and the whole build ------------------------------------------------------------
def read_pairs(store: Store, spec: DomainSpec, relations: Sequence[str] | None) -> list[Pair]:
    rows = store.read("chrono/list_pairs", filter={"relations": list(relations) if relations else None,
                                                   "sources": list(spec.sources) if spec.sources else None},
                      layers=["source"])
    return [Pair(r["subject_id"], r["subject"], r["relation"], r["relation_label"], tuple(r["labels"]))
            for r in rows]


def read_pair_facts(store: Store, pairs: Sequence[Pair]) -> dict[tuple[str, str], list[dict]]:
    rows = store.read("chrono/pair_facts", pairs=[{"subject_id": p.subject_id, "relation": p.relation}
                                                  for p in pairs], layers=["source"])
    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        out[(row["subject_id"], row["relation"])].append(row)
    return out


def plan_from_graph(store: Store, config: ChronoConfig) -> tuple[list[ChronoRecord], dict[str, int]]:
    spec = config.spec
    lo, hi = config.frame()
    pairs = read_pairs(store, spec, config.relations or spec.relations)
    facts = read_pair_facts(store, pairs)
    stats: dict[str, int] = defaultdict(int)
    stats["pairs"] = len(pairs)
    records: list[ChronoRecord] = []
    pairs_objects: dict[tuple[str, str], set[str]] = {}
    if spec.kind == "invariant":
        years = list(range(lo, hi + 1))
        for p in pairs:
            rec = plan_invariant(p, facts.get((p.subject_id, p.relation), []), spec.name, years)
            if rec:
                records.append(rec)
                pairs_objects[(p.subject_id, p.relation)] = set(rec.objects[years[0]])
    else:
        timelines = object_timelines(store, [(p.subject_id, p.relation) for p in pairs], lo, hi)
        if spec.kind == "legal":
            seen = sorted({y for tl in timelines.values() for y, objs in tl.items() if objs})
            if not seen:
                return [], dict(stats)
            years = list(range(max(lo, seen[0]), min(hi, seen[-1]) + 1))
            stats["legal_from"], stats["legal_to"] = years[0], years[-1]
        for p in pairs:
            key = (p.subject_id, p.relation)
            tl = _frame_years(timelines.get(key, {}), lo, hi)
            if spec.kind == "legal":
                rec = plan_legal(p, tl, facts.get(key, []), years, config.seed, stats)
            else:
                rec = plan_variant(p, tl, facts.get(key, []), spec.name, config.min_years)
                pairs_objects[key] = {o for objs in tl.values() for o in objs}
                if rec is None:
                    stats["too_few_years"] += 1
            if rec:
                records.append(rec)
    pool = config.fewshot_pool if config.fewshot_pool is not None else spec.fewshot_pool
    records = split_and_balance(records, seed=config.seed, fewshot_pool=pool, balance=config.balance,
                                max_per_relation=config.max_per_relation)
    labels = {p.subject_id: p.labels for p in pairs}
    records = assign_distractors(records, pairs_objects, labels, config.seed)
    for r in records:
        stats[f"{r.split}_{r.change}"] += 1
    return records, dict(stats)


def build_benchmark(store: Store, config: ChronoConfig, *, backend: Backend | None = None,
                    progress: Callable[[int], None] | None = None) -> BuildResult:
    """Plan, make items, and write benchmark + records + items into the graph."""
    if config.distractors not in ("graph", "llm"):
        raise ConfigError(f"--distractors must be graph or llm, not {config.distractors!r}")
    unknown = [t for t in config.templates if t not in TEMPLATES]
    if unknown:
        raise ConfigError(f"unknown template(s) {', '.join(unknown)}; choose from {', '.join(TEMPLATES)}")
    phrasings = load_phrasings(config.relations_file)
    records, stats = plan_from_graph(store, config)
    if not any(r.split == "test" for r in records):
        raise KnowforgeError(f"no {config.domain} records in the graph for {config.frame()[0]}-{config.frame()[1]} "
                             "(load the sources first: `knowforge load samples`)")
    if config.distractors == "llm":
        if backend is None:
            raise ConfigError("--distractors llm needs a backend (--backend/--model)")
        records = apply_llm_distractors(records, backend, phrasings, config.seed)
    items = build_items(records, benchmark=config.benchmark_id, seed=config.seed,
                        templates=config.templates, phrasings=phrasings)
    stats["items"] = len(items)
    write_benchmark(store, config, records, items, stats, progress=progress)
    return BuildResult(config.benchmark_id, records, items, stats)


def write_benchmark(store: Store, config: ChronoConfig, records: Sequence[ChronoRecord],
                    items: Sequence[BenchmarkItem], stats: dict[str, int], *,
                    progress: Callable[[int], None] | None = None, props: dict | None = None) -> None:
    """The Benchmark node, its records (:ChronoRecord) and per-year items (:Question, PART_OF
    their record); questions and records a previous build of the same name had are removed."""
    bid = config.benchmark_id
    lo, hi = config.frame()
    params = {"domain": config.domain, "name": config.name or config.domain, "from_year": lo, "to_year": hi,
              "relations": list(config.relations) if config.relations else None, "seed": config.seed,
              "fewshot_pool": config.fewshot_pool, "max_per_relation": config.max_per_relation,
              "min_years": config.min_years, "balance": config.balance, "templates": list(config.templates),
              "distractors": config.distractors, "relations_file": config.relations_file}
    write_benchmark_node(store, method="chrono", name=bid.split(":", 1)[1], seed=config.seed, params=params,
                         source_hash=source_graph_hash(store),
                         props={"domain": config.domain, "from_year": lo, "to_year": hi,
                                "version": BUILD_VERSION, "records": len(records), "items": len(items),
                                "stats": json.dumps(stats, sort_keys=True), **(props or {})})
    record_rows = [{
        "id": f"{bid}:{r.id}", "benchmark": bid,
        "fact_ids": sorted({f for ids in r.fact_ids.values() for f in ids}),
        "props": {"record_json": r.model_dump_json(), "relation": r.relation, "change": r.change,
                  "split": r.split, "domain": r.domain, "subject": r.subject, "years": r.years,
                  "record_id": r.id},
    } for r in records]
    store.write("chrono/upsert_records", record_rows, progress=progress)
    write_questions(store, items, progress=progress)
    store.write("chrono/link_record_items", [{"question_id": it.id, "record_id": f"{bid}:{it.metadata['record_id']}"}
                                            for it in items])
    store.run("chrono/prune_questions", benchmark=bid, keep=[r["id"] for r in record_rows] + [i.id for i in items])


# ---- reading a stored benchmark back ------------------------------------------------------------
def _bench_id(name: str) -> str:
    return name if name.startswith("chrono:") else f"chrono:{name}"


def load_records(store: Store, name: str) -> list[ChronoRecord]:
    rows = store.read("chrono/read_records", benchmark=_bench_id(name))
    if not rows:
        raise KnowforgeError(f"no ChroKnow benchmark {_bench_id(name)!r} in the graph "
                             "(make one with `knowforge generate chrono`)")
    return [ChronoRecord.model_validate_json(r["record"]) for r in rows]


def load_items(store: Store, name: str) -> list[BenchmarkItem]:
    return read_stored_items(store, _bench_id(name))


def read_benchmark(store: Store, name: str) -> dict | None:
    return read_benchmark_node(store, _bench_id(name))


# ---- importing ChroKnowBench files as a benchmark in the graph -----------------------------------
IMPORTED = "imported"
DELETE_CHUNK = 5000


@dataclass
class ImportResult(BuildResult):
    report: object = None             # chroknowbench_io.ChronoImportReport


def import_benchmark(store: Store, paths: Sequence[str], *, name: str, seed: int = 0,
                     templates: Sequence[str] = TEMPLATES, relations_file: str | None = None,
                     progress: Callable[[int], None] | None = None) -> ImportResult:
    """Read ChroKnowBench files (the released benchmark or our export; ``read_chroknowbench``,
    tolerant and reporting) and store them as ``chrono:<name>`` so ``knowforge eval --benchmark
    chrono:<name>`` runs on them. Re-importing a name replaces its records and items; a
    generated benchmark of that name is refused."""
    from knowforge.generators.chrono.chroknowbench_io import read_chroknowbench

    existing = read_benchmark(store, name)
    if existing and existing.get("origin") != IMPORTED:
        raise ConfigError(f"chrono:{name} was generated: drop it first (knowforge generate chrono --drop {name}) "
                          "or import under another --name")
    records, report = read_chroknowbench(paths)
    if not any(r.split == "test" for r in records):
        raise KnowforgeError(f"no test records in {', '.join(map(str, paths))}"
                             + (f" ({'; '.join(report.problems[:3])})" if report.problems else ""))
    domains = sorted({r.domain for r in records})
    years = sorted({y for r in records for y in r.years})
    # a mixed import is labelled by its first domain; every item keeps its own domain slice
    config = ChronoConfig(domain=domains[0] if domains[0] in DOMAINS else "general", name=name, seed=seed,
                          from_year=years[0], to_year=years[-1], templates=tuple(templates),
                          relations_file=relations_file)
    items = build_items(records, benchmark=config.benchmark_id, seed=seed, templates=templates,
                        phrasings=load_phrasings(relations_file))
    stats = {"imported_records": len(records), "items": len(items)}
    with undone_on_failure(config.benchmark_id, lambda: _drop_partial(store, name),
                           drop_command=f"knowforge generate chrono --drop {name}"):
        write_benchmark(store, config, records, items, stats, progress=progress, props={
            "origin": IMPORTED, "imported_from": [str(p) for p in paths], "domains": domains,
            "import_report_json": json.dumps({"files": report.files, "files_skipped": report.files_skipped,
                                              "lines_skipped": dict(report.lines_skipped),
                                              "duplicates": report.duplicates, "variants": dict(report.variants),
                                              "variants_first": report.variants.first,
                                              "problems": report.problems}, sort_keys=True, ensure_ascii=False)})
    return ImportResult(config.benchmark_id, records, items, stats, report=report)


def _drop_partial(store: Store, name: str) -> None:
    """What a failed import wrote of ``chrono:<name>``, if it wrote anything."""
    if read_benchmark(store, name) is not None or store.read("chrono/read_records", benchmark=_bench_id(name)):
        drop_benchmark(store, name)


def drop_benchmark(store: Store, name: str) -> dict[str, int]:
    """Delete ``chrono:<name>``: its questions (with the answers runs gave them and runs left
    empty), its records and the Benchmark node. Source facts are never touched."""
    bid = _bench_id(name)
    if read_benchmark(store, name) is None and not store.read("chrono/read_records", benchmark=bid):
        raise KnowforgeError(f"no ChroKnow benchmark {bid!r} in the graph")
    counts = {"nodes": 0, "relationships": 0}
    for statement in ("chrono/delete_questions", "chrono/delete_runs", "chrono/delete_records"):
        while True:
            summary = store.run(statement, benchmark=bid, limit=DELETE_CHUNK)
            counts["nodes"] += summary["nodes_deleted"]
            counts["relationships"] += summary["relationships_deleted"]
            if summary["nodes_deleted"] == 0:
                break
    summary = store.run("benchmark/delete_benchmark", id=bid)
    counts["nodes"] += summary["nodes_deleted"]
    counts["relationships"] += summary["relationships_deleted"]
    return counts


def write_chroknowbench(store: Store, name: str, items: Sequence[BenchmarkItem], out) -> list:
    """ChroKnowBench's own layout (``TimeVariant_<Domain>_Dynamic.jsonl`` ...) from the records."""
    from knowforge.generators.chrono.chroknowbench_io import export_chroknowbench

    return export_chroknowbench(load_records(store, name), out)

"""NewTerm generation for one year: graph → terms → related terms → items → filter → hardness.

Every stage sends one batch of requests through the backend the seam passes (already wrapped
by the response cache), so a stage costs one round trip whatever the number of terms, an
interrupted run resumes from the cache, and the same graph + seed + cached answers give the
same benchmark. Decisions are made by the pure functions of ``select``, ``related`` and
``items``; this module only asks, decides through them and writes.

Stages (request counts per stage are in the summary and on the generation run):

1. terms of the year from the graph (``--year``), with novelty (is the term a WordNet lemma?)
   and frequency (wordfreq);
2. ``deduce``: the model guesses each meaning from the spelling; similarity to the meaning;
   the least deducible ``n`` per category are kept;
3. related terms: synonyms, antonyms and partial synonyms of the meaning's head words from
   the lexical graph, spelling neighbours by edit distance; ``related``: the model tops up
   kinds the graph left short; thinned to 5;
4. sentences: COMA paragraphs (both splits), COST sentences (the term as gold, and one for
   each of the two related terms least like the meaning), CSJ true sentences; then COMA
   completions for every related term, CSJ false rewrites;
5. ``filter``: multi-select for COMA/COST, a 0-10 rating for CSJ;
6. ``hardness``: the perplexity of every surviving item's sentence (the backend's
   log-likelihood), the hardest ``per_term`` per term and task kept.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from knowforge.errors import BackendError, ConfigError, InputError
from knowforge.kg.loaders.newterms import category_of, link_term_lemmas
from knowforge.kg.loaders.wordnet import lemma_id
from knowforge.kg.store import Store
from knowforge.models.method import GenerationSummary
from knowforge.models.questions import source_graph_hash, write_benchmark, write_questions
from knowforge.models.types import CAP_LOGLIKELIHOOD, Backend, GenerationRequest, LoglikelihoodRequest

from . import graph, items, prompts, related
from .params import NewTermParams
from .release import RELATED_FILE, TERMS_FILE, entry_id, make_item, question_file, release_type
from .select import TermCandidate, hardest, perplexity, select_terms
from .similarity import make_similarity
from .text import count_term, first_sentence_line, parse_wrong_sentences

log = logging.getLogger(__name__)

SPLITS = ("effect", "cause")
MAX_SENSES = 2
GREEDY_TOKENS = 96


@dataclass
class Asker:
    """The backend, one batch per stage, with request and failure counts per stage."""

    backend: Backend
    progress: Callable[[int], None] | None = None
    requests: Counter = field(default_factory=Counter)
    calls: Counter = field(default_factory=Counter)
    failures: Counter = field(default_factory=Counter)

    def generate(self, stage: str, batch: Sequence[GenerationRequest]) -> list[str | None]:
        if not batch:
            return []
        results = self.backend.generate(list(batch))
        if len(results) != len(batch):
            raise BackendError(f"backend {self.backend.name} answered {len(results)} of {len(batch)} requests")
        self.requests[stage] += len(batch)
        self.calls[stage] += 1
        out = []
        for result in results:
            if result.error is not None or not result.texts:
                self.failures[stage] += 1
                out.append(None)
            else:
                out.append(result.texts[0])
        if self.progress:
            self.progress(len(batch))
        return out

    def loglikelihood(self, stage: str, batch: Sequence[LoglikelihoodRequest]):
        if not batch:
            return []
        results = self.backend.loglikelihood(list(batch))
        self.requests[stage] += len(batch)
        self.calls[stage] += 1
        if self.progress:
            self.progress(len(batch))
        return results


class _Clock:
    def __init__(self):
        self.last = time.monotonic()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self.laps[name] = round(now - self.last, 3)
        self.last = now


def read_candidates(store: Store, year: int) -> list[TermCandidate]:
    """The year's (term, meaning) pairs with novelty and frequency."""
    rows = store.read("newterm/read_year_terms", year=year)
    ids = sorted({lemma_id(r["term"]) for r in rows})
    lemmas = {r["id"] for r in store.read("loaders/read_existing_lemmas", ids=ids)} if ids else set()
    zipf = _zipf()
    return [TermCandidate(term_id=r["term_id"], fact_id=r["fact_id"], term=r["term"], meaning=r["meaning"],
                          category=r["category"] or category_of(r["term_type"], r["term"]),
                          term_type=r["term_type"], year=r["year"], heads=tuple(r["heads"]),
                          in_wordnet=lemma_id(r["term"]) in lemmas, zipf=zipf(r["term"]))
            for r in rows]


def _zipf() -> Callable[[str], float]:
    try:
        from wordfreq import zipf_frequency
    except ImportError as exc:
        raise ConfigError("NewTerm's frequency buckets need wordfreq (pip install 'knowforge[lexical]')") from exc
    return lambda word: float(zipf_frequency(word, "en"))


def generate_newterm(store: Store, params: NewTermParams, backend: Backend | None,
                     progress: Callable[[int], None] | None = None) -> GenerationSummary:
    started = time.monotonic()
    year = params.require_year()
    if backend is None:
        raise ConfigError("NewTerm generation needs a model for sentences, the filter and the guesses: "
                          "pass --backend and --model (and --base-url for an OpenAI-compatible server)")
    name, bid = params.name, f"newterm:{params.name}"
    notes: list[str] = []
    ask = Asker(backend, progress)
    similarity = make_similarity(params.similarity)
    link_term_lemmas(store)
    lexical = store.read("loaders/count_lemmas")[0]["n"]
    if not lexical:
        notes.append("no lexical graph (knowforge load wordnet): novelty is not checked and every related "
                     "term comes from the LLM")
    clock = _Clock()
    candidates = read_candidates(store, year)
    clock.lap("read terms")
    if not candidates:
        raise InputError(f"no new terms of {year} in the graph; load a term list first, e.g. "
                         f"`knowforge load newterms new_terms.jsonl --year {year}`")
    gen = dict(chat=params.chat, seed=params.seed)

    # 2. deducing difficulty
    if params.deduce:
        guesses = ask.generate("deduce", [prompts.request(*prompts.deduce(c.term), temperature=0.0,
                                                          max_tokens=GREEDY_TOKENS, **gen) for c in candidates])
        scores = similarity.pairs([g or "" for g in guesses], [c.meaning for c in candidates])
        candidates = [replace(c, guess=g, similarity=s if g else None)
                      for c, g, s in zip(candidates, guesses, scores)]
    selection = select_terms(candidates, params.n, params.categories, novelty=bool(lexical))
    kept_terms = selection.kept
    clock.lap("deduce and select")

    # 3. related terms
    pools, kept_related = _related_terms(store, kept_terms, params, ask, similarity, bool(lexical), gen)
    clock.lap("related terms")
    short = [c.term for c in kept_terms if len(kept_related[c.fact_id]) < params.related]
    if short:
        notes.append(f"{len(short)} terms have fewer than {params.related} related terms (e.g. {short[0]!r})")

    # 4-5. candidate items and the filter
    chosen_related = {f: [pools[f][i] for i in kept] for f, kept in kept_related.items()}
    candidates_by_task, made = _sentences(kept_terms, chosen_related, params, ask, similarity, gen)
    clock.lap("sentences")
    filtered = _filter(kept_terms, candidates_by_task, ask, similarity, params, gen)
    clock.lap("filter")
    decisions = {task: dict(sorted(Counter(c.verdict for c in cands).items()))
                 for task, cands in filtered.items()}
    survivors = [c for cands in filtered.values() for c in cands if c.verdict == "kept"]

    # 6. hardness
    survivors, hardness_note = _hardness(survivors, params, ask, backend)
    clock.lap("hardness")
    if hardness_note:
        notes.append(hardness_note)
    chosen, not_hardest = hardest(survivors, group=lambda c: f"{c.task}:{c.fact_id}",
                                  score=lambda c: c.perplexity, ident=lambda c: c.key, per_group=params.per_term)

    # write
    built = _write(store, params, backend, similarity, candidates, selection, pools, kept_related, chosen,
                   ask, decisions, made, lexical)
    by_task = Counter(item.task.split("/", 1)[1] for item, _ in built)
    if not built:
        notes.append("no item survived the filter: the counts above say where they were dropped")
    clock.lap("write")
    timings = {**clock.laps, "total": time.monotonic() - started}
    return GenerationSummary(
        method="newterm", name=name, benchmark=bid,
        counts={"candidate terms": len(candidates), "terms": len(kept_terms), "questions": len(built),
                "LLM requests": sum(ask.requests.values()), "LLM round trips": sum(ask.calls.values())},
        breakdown={"questions by task": {t: by_task.get(t, 0) for t in ("COMA", "COST", "CSJ")},
                   "terms by category": dict(Counter(c.category for c in kept_terms)),
                   "terms dropped": selection.counts(),
                   "made from the replies": dict(made),
                   **{f"{task} filter": counts for task, counts in decisions.items()},
                   "hardness": {"survived the filter": len(survivors), "kept (hardest)": len(chosen),
                                "not the hardest": len(not_hardest)},
                   "requests by stage": dict(sorted(ask.requests.items())),
                   **({"failed requests": dict(ask.failures)} if ask.failures else {})},
        timings=timings, notes=notes)


# --- stages ----------------------------------------------------------------------------------

def _related_terms(store, terms: Sequence[TermCandidate], params: NewTermParams, ask: Asker, similarity,
                   lexical: bool, gen: dict):
    found: dict[str, dict[str, list[related.Related]]] = {}
    if lexical and terms:
        heads = sorted({h for c in terms for h in c.heads})
        rows = store.read("newterm/read_related_lemmas", heads=heads, max_senses=MAX_SENSES,
                          per_via=params.per_kind * 2) if heads else []
        by_head: dict[str, list[dict]] = defaultdict(list)
        for row in rows:
            by_head[row["head"]].append(row)
        lemmas = [(r["id"], r["name"]) for r in store.read("newterm/read_lemma_names")]
        for c in terms:
            mine = [row for h in c.heads for row in by_head.get(h, [])]
            kinds = related.from_graph(mine, term=c.term, meaning=c.meaning, per_kind=params.per_kind,
                                       heads=c.heads)
            taken = [r.text for rs in kinds.values() for r in rs]
            kinds["spelling"] = related.spelling_neighbours(c.term, lemmas, per_kind=params.per_kind,
                                                            exclude=[c.meaning, *taken])
            found[c.fact_id] = kinds
    else:
        found = {c.fact_id: {} for c in terms}
    asks = [(c, kind) for c in terms for kind in related.KINDS
            if len(found[c.fact_id].get(kind, [])) < params.per_kind]
    replies = ask.generate("related", [prompts.request(*prompts.related(kind, c.term, c.meaning), temperature=0.0,
                                                       max_tokens=GREEDY_TOKENS, **gen) for c, kind in asks])
    by_term: dict[str, dict[str, str | None]] = defaultdict(dict)
    for (c, kind), reply in zip(asks, replies):
        by_term[c.fact_id][kind] = reply
    pools, kept = {}, {}
    for c in terms:
        filled = related.top_up(found[c.fact_id], by_term.get(c.fact_id, {}), term=c.term, meaning=c.meaning,
                                per_kind=params.per_kind)
        pool = related.pool(filled)
        pools[c.fact_id] = pool
        kept[c.fact_id] = related.thin_related(c.meaning, pool, params.related, similarity) if pool else []
    return pools, kept


def _sentences(terms: Sequence[TermCandidate], chosen_related: dict[str, list[related.Related]],
               params: NewTermParams, ask: Asker, similarity, gen: dict):
    """(candidates by task, counts of what the replies gave at each step)."""
    made: Counter = Counter()
    hot = dict(temperature=params.temperature, max_tokens=params.max_tokens, **gen)
    first = []   # (task, term, extra, request)
    for c in terms:
        rel = chosen_related[c.fact_id]
        texts = [r.text for r in rel]
        for split in SPLITS:
            first.append(("COMA", c, split, prompts.request(
                *prompts.coma_sentences(c.term, c.meaning, split, texts, params.sentences), **hot)))
        first.append(("COST", c, None, prompts.request(
            *prompts.cost_sentences(c.term, c.meaning, texts, params.sentences), **hot)))
        if len(rel) >= 2:
            scores = similarity.pairs(texts, [c.meaning] * len(texts))
            for rank in sorted(range(len(rel)), key=lambda i: (scores[i], i))[:2]:
                others = [t for i, t in enumerate(texts) if i != rank]
                first.append(("COST-related", c, rank, prompts.request(
                    *prompts.cost_related_sentence(texts[rank], others), **hot)))
        first.append(("CSJ", c, None, prompts.request(
            *prompts.csj_true_sentences(c.term, c.meaning, texts, params.sentences), **hot)))
    replies = ask.generate("sentences", [r for *_, r in first])

    out: dict[str, list[items.Candidate]] = {"COMA": [], "COST": [], "CSJ": []}
    premises = []       # (term, split, premise, gold)
    trues: dict[str, list[str]] = {}
    for (task, c, extra, _request), reply in zip(first, replies):
        rel = chosen_related[c.fact_id]
        if task == "COMA":
            for premise, gold in items.coma_premises(reply, term=c.term, split=extra)[:params.sentences]:
                premises.append((c, extra, premise, gold))
                made["COMA paragraphs"] += 1
        elif task == "COST":
            for question in items.cost_questions(reply, c.term)[:params.sentences]:
                made["COST sentences"] += 1
                out["COST"].append(items.cost_candidate(fact_id=c.fact_id, term=c.term, question=question,
                                                        related=rel, gold_rank=None, seed=params.seed))
        elif task == "COST-related":
            for question in items.cost_questions(reply, rel[extra].text)[:1]:
                made["COST sentences with a related term as gold"] += 1
                out["COST"].append(items.cost_candidate(fact_id=c.fact_id, term=c.term, question=question,
                                                        related=rel, gold_rank=extra, seed=params.seed))
        else:
            trues[c.fact_id] = items.csj_true(reply, c.term)[:params.sentences]
            made["CSJ true sentences"] += len(trues[c.fact_id])

    second = []   # COMA completions and CSJ rewrites
    for c, split, premise, gold in premises:
        for rank, r in enumerate(chosen_related[c.fact_id]):
            replaced = items.coma_completion_premise(premise, c.term, r)
            if replaced is not None:
                second.append(("COMA", (c, split, premise, gold, rank), prompts.request(
                    *prompts.coma_completion(replaced, split, len(gold.split())), **hot)))
    for c in terms:
        if trues.get(c.fact_id):
            second.append(("CSJ", c, prompts.request(
                *prompts.csj_false_sentences(c.term, c.meaning, trues[c.fact_id]), **hot)))
    replies = ask.generate("completions", [r for *_, r in second])
    completions: dict[tuple, list[tuple[int, str]]] = defaultdict(list)
    for (task, key, _request), reply in zip(second, replies):
        if task == "COMA":
            c, split, premise, gold, rank = key
            text = first_sentence_line(reply)
            related_text = chosen_related[c.fact_id][rank].text
            if text and related_text.lower() not in text.lower():
                completions[(c.fact_id, split, premise, gold)].append((rank, text))
                made["COMA wrong choices"] += 1
        else:
            c = key
            falses = [s for s in parse_wrong_sentences(reply)
                      if count_term(s, c.term) >= 1][:len(trues[c.fact_id])]
            out["CSJ"].extend(items.csj_candidate(fact_id=c.fact_id, sentence=s, gold=True) for s in trues[c.fact_id])
            out["CSJ"].extend(items.csj_candidate(fact_id=c.fact_id, sentence=s, gold=False) for s in falses)
            made["CSJ false sentences"] += len(falses)
    for c, split, premise, gold in premises:
        candidate = items.coma_candidate(fact_id=c.fact_id, premise=premise, gold=gold, split=split,
                                         completions=completions.get((c.fact_id, split, premise, gold), []),
                                         seed=params.seed, similarity=similarity)
        if candidate is not None:
            out["COMA"].append(candidate)
        else:
            made["COMA paragraphs with fewer than 3 wrong choices"] += 1
    for task, cands in out.items():
        made[f"{task} candidates"] = len(cands)
    return out, made


def _filter(terms, candidates_by_task, ask: Asker, similarity, params: NewTermParams, gen: dict):
    by_fact = {c.fact_id: c for c in terms}
    flat = [c for task in ("COMA", "COST", "CSJ") for c in candidates_by_task[task]]
    batch = []
    for cand in flat:
        t = by_fact[cand.fact_id]
        if cand.task == "COMA":
            parts = prompts.filter_coma(t.term, t.meaning, cand.question, cand.split, cand.choices)
        elif cand.task == "COST":
            parts = prompts.filter_cost(t.term, t.meaning, cand.question, cand.choices)
        else:
            parts = prompts.filter_csj(t.term, t.meaning, cand.question)
        batch.append(prompts.request(*parts, temperature=0.0, max_tokens=32, **gen))
    replies = ask.generate("filter", batch)
    out: dict[str, list[items.Candidate]] = {"COMA": [], "COST": [], "CSJ": []}
    for cand, reply in zip(flat, replies):
        if cand.task == "CSJ":
            out["CSJ"].append(items.apply_rating_filter(cand, reply))
        else:
            out[cand.task].append(items.apply_choice_filter(cand, reply, similarity=similarity, seed=params.seed))
    return out


def _hardness(survivors: list[items.Candidate], params: NewTermParams, ask: Asker,
              backend: Backend) -> tuple[list[items.Candidate], str | None]:
    if params.hardness == "none" or not survivors:
        return survivors, None
    if CAP_LOGLIKELIHOOD not in backend.capabilities:
        if params.hardness == "perplexity":
            raise ConfigError(f"--hardness perplexity needs log-likelihoods; backend {backend.name} has none")
        return survivors, "hardness selection by perplexity skipped: the backend gives no log-likelihoods"
    scored = [c for c in survivors if c.context]
    try:
        results = ask.loglikelihood("hardness", [LoglikelihoodRequest(c.context, c.continuation) for c in scored])
    except BackendError as exc:
        if params.hardness == "perplexity":
            raise
        return survivors, f"hardness selection by perplexity skipped: {exc}"
    ppl = {c.key: perplexity(r.total, len(r.token_logprobs)) for c, r in zip(scored, results)}
    return [replace(c, perplexity=ppl.get(c.key)) for c in survivors], None


def _write(store, params: NewTermParams, backend: Backend, similarity, candidates, selection, pools: dict,
           kept_related: dict, chosen, ask: Asker, decisions: dict, made: Counter, lexical: int):
    """Replace benchmark ``newterm:NAME`` in the graph: its node, term entries, related-term
    edges, release records, generation run, questions and their links; returns (item, link)s."""
    name, bid, year = params.name, f"newterm:{params.name}", params.year
    kept_terms = selection.kept
    graph.drop_benchmark(store, name)
    run_id = f"{bid}:run"
    write_benchmark(store, method="newterm", name=name, seed=params.seed,
                    params=params.model_dump(mode="json"), source_hash=source_graph_hash(store),
                    props={"year": year, "similarity_model": similarity.name,
                           "prompt_version": prompts.PROMPT_VERSION, "generator_backend": backend.name,
                           "generator_model": backend.model, "lexical_lemmas": lexical, "origin": "generated"})
    by_fact = {c.fact_id: c for c in kept_terms}
    positions = {c.fact_id: i for i, c in enumerate(kept_terms, 1)}
    graph.write_entries(store, bid, _entries(bid, candidates, selection, positions, similarity.name))
    graph.write_related(store, [row for c in kept_terms
                                for row in graph.related_rows(entry_id(bid, c.term, c.meaning), pools[c.fact_id],
                                                              kept_related[c.fact_id])])
    release_rows = []
    for c in kept_terms:
        type_ = release_type(c.category, c.term_type)
        release_rows.append((TERMS_FILE, positions[c.fact_id], {"meaning": c.meaning, "term": c.term, "type": type_}))
        phrases = [pools[c.fact_id][i].text for i in kept_related[c.fact_id]]
        release_rows.append((RELATED_FILE, positions[c.fact_id],
                             {"meaning": c.meaning, "phrases": phrases, "term": c.term, "type": type_}))
    graph.write_release_records(store, bid, release_rows)
    built = _items(bid, year, chosen, by_fact, positions, pools, kept_related, params.categories, run_id)
    graph.write_generation_run(store, bid, run_id, {
        "kind": "generate", "backend": backend.name, "model": backend.model,
        "prompt_version": prompts.PROMPT_VERSION, "similarity_model": similarity.name, "seed": params.seed,
        "temperature": params.temperature, "chat": params.chat,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "requests_json": dict(sorted(ask.requests.items())), "calls_json": dict(sorted(ask.calls.items())),
        "failures_json": dict(sorted(ask.failures.items())), "filter_json": decisions,
        "made_json": dict(made), "selection_json": selection.counts()})
    write_questions(store, [item for item, _ in built])
    graph.link_questions(store, [link for _, link in built])
    return built


def _entries(bid: str, candidates: Sequence[TermCandidate], selection, positions: dict, similarity_name: str):
    reasons = {c.fact_id: reason for reason, cs in selection.dropped.items() for c in cs}
    for c in candidates:
        yield {"id": entry_id(bid, c.term, c.meaning), "term_id": c.term_id,
               "props": {"term": c.term, "meaning": c.meaning, "category": c.category, "term_type": c.term_type,
                         "year": c.year, "fact_id": c.fact_id, "selected": c.fact_id in positions,
                         "position": positions.get(c.fact_id), "reason": reasons.get(c.fact_id, "selected"),
                         "zipf": c.zipf, "frequency_bucket": c.frequency_bucket, "in_wordnet": c.in_wordnet,
                         "guess": c.guess, "similarity": c.similarity, "similarity_model": similarity_name,
                         "heads": list(c.heads), "listed": True}}


def _items(bid: str, year: int, chosen: Sequence[items.Candidate], by_fact: dict, positions: dict, pools: dict,
           kept_related: dict, categories: Sequence[str], run_id: str):
    """(item, link row) per chosen candidate, positions per task in (category, term, key) order."""
    category_order = {c: i for i, c in enumerate(categories)}
    built = []
    for task in ("COMA", "COST", "CSJ"):
        mine = sorted((c for c in chosen if c.task == task),
                      key=lambda c: (category_order.get(by_fact[c.fact_id].category, 99), positions[c.fact_id], c.key))
        for position, cand in enumerate(mine, 1):
            term = by_fact[cand.fact_id]
            type_ = release_type(term.category, term.term_type)
            record = items.record_of(cand, term=term.term, meaning=term.meaning, type_=type_)
            rel = [pools[cand.fact_id][i] for i in kept_related[cand.fact_id]]
            ranks = kept_related[cand.fact_id]
            sources = [_source(s, rel) for s in cand.sources]
            extra_slices = {"frequency_bucket": term.frequency_bucket}
            if task == "COST":
                extra_slices["gold_kind"] = cand.gold_kind
            item = make_item(record, benchmark=bid, task=task, variant="raw", file=question_file(task),
                             position=position,
                             year=year, item_id=f"{bid}:{task}:{cand.key}", extra_slices=extra_slices,
                             extra_metadata={"choice_sources": sources, "related": [r.text for r in rel],
                                             "filter": {"picked": list(cand.picked), "rating": cand.rating,
                                                        "verdict": cand.verdict},
                                             "perplexity": cand.perplexity, "gold_kind": cand.gold_kind,
                                             "generation_run": run_id})
            distractors = [{"rank": ranks[s], "position": i} for i, s in enumerate(cand.sources)
                           if s >= 0 and i != cand.gold]
            verdict = {k: v for k, v in (("filter_picked", list(cand.picked)), ("filter_rating", cand.rating),
                                         ("filter_verdict", cand.verdict), ("perplexity", cand.perplexity))
                       if v is not None}
            built.append((item, {"question_id": item.id, "entry_id": entry_id(bid, term.term, term.meaning),
                                 "run_id": run_id, "verdict": verdict, "distractors": distractors}))
    return built


def _source(source: int, rel: Sequence[related.Related]) -> dict:
    if source == items.GOLD:
        return {"source": "gold"}
    if source == items.TERM:
        return {"source": "term"}
    r = rel[source]
    return {"source": "related", "text": r.text, "kind": r.kind, "origin": r.origin, "via": r.via}

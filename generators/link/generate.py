"""One LINK generation: rules → knowledge beam search → statements → the graph.

1. Load and validate the rules (a bad rule is reported with its file and id; the rest load),
   check the grounding patterns' relations against the graph, plan each rule (which
   variables the graph binds, which need the model).
2. Search each rule (``search.BeamSearch``); with ``chain_depth`` k, rules whose premise is
   another rule's conclusion are searched again with those conclusions as candidates, up to
   k rules in a chain.
3. Complete the conclusion's negation and question from the rule's templates, or ask the
   knowledge model for a minimal-edit rewrite (LINK's own prompts; cached like every request).
4. The distribution check: mean token log-probability of the full statements under the scoring
   model, Δ = mean(head) − mean(long tail) per rule and overall (the mean over rules, as the
   paper averages over rules); without a scoring model, the same difference in log popularity.
5. Write the batch: the inferred layer (conclusions, assumed and proposed premises, DERIVED_FROM
   chains), the Benchmark node with its provenance, and 13 probe questions per statement.
   A name generated again replaces the old batch (dropped first), so reruns leave no stale data.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from knowforge.errors import ConfigError, InputError
from knowforge.kg.store import Store
from knowforge.models.questions import source_graph_hash, write_benchmark, write_questions
from knowforge.models.types import CAP_GENERATE, CAP_LOGLIKELIHOOD, Backend, GenerationRequest

from .grounding import Grounder, load_patterns
from .params import LinkParams
from .probe import NEGATE_PROMPT, QUESTION_PROMPT, complete_sentence, first_line_answer
from .rules import RuleSet, load_rules
from .search import (BeamSearch, ChainSource, SearchConfig, SearchStats, Value, plan_rule, request_seed,
                     sentence_logliks)
from .statements import Statement, build_statements, graph_rows, probe_items

log = logging.getLogger(__name__)

DELETE_CHUNK = 5000


@dataclass
class LinkResult:
    benchmark: str
    statements: list[Statement]
    items: int
    stats: SearchStats
    rules_searched: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)          # rule -> reason
    problems: list[str] = field(default_factory=list)
    delta: dict = field(default_factory=dict)
    facts: int = 0
    seconds: float = 0.0
    grounding: list[str] = field(default_factory=list)
    rewrites: int = 0


def search_config(params: LinkParams, ranker: str) -> SearchConfig:
    return SearchConfig(beam_size=params.beam_size, values_per_call=params.values_per_call,
                        keep_ratio=params.keep_ratio, datatype_start=params.datatype_threshold,
                        datatype_floor=params.datatype_floor, factual_cap=params.factual_threshold,
                        repetition_penalty=params.repetition_penalty, max_candidates=params.max_candidates,
                        temperature=params.temperature, parse_retries=params.parse_retries, ranker=ranker,
                        distributions=params.distributions, seed=params.seed)


def _check_patterns(rules: RuleSet, grounder: Grounder) -> None:
    """A rule naming an unknown pattern is a problem of that rule (file and id), not of the run."""
    from .rules import RuleProblem

    for rid in list(rules.rules):
        rule = rules.rules[rid]
        unknown = [p for p in rule.grounding.predicates.values() if p not in grounder.patterns.predicates]
        unknown += [p for p in rule.grounding.variables.values() if p not in grounder.patterns.datatypes]
        if unknown:
            rules.problems.append(RuleProblem("(grounding)", rid, f"unknown grounding patterns: {', '.join(unknown)}"))
            del rules.rules[rid]


def _chain_sources(statements: Sequence[Statement]) -> dict[str, list[ChainSource]]:
    """Conclusions a later rule may take as its premise, by predicate name."""
    out: dict[str, list[ChainSource]] = defaultdict(list)
    seen = set()
    for s in statements:
        rule = s.rule
        other = next((v for k, v in s.bindings if k in rule.conclusion.args and k != rule.generic), None)
        if other is None or other.id is None or (s.key, rule.conclusion.name) in seen:
            continue
        seen.add((s.key, rule.conclusion.name))
        out[rule.conclusion.name].append(ChainSource(
            statement=s.key, rule=rule.id, value=Value(other.text, other.id, "chain", other.popularity),
            premise=s.premise, depth=s.depth, distribution=s.distribution, premises=s.premises,
            graph_premises=s.graph_premises))
    return out


def rewrite_forms(statements: list[Statement], knowledge: Backend | None, seed: int,
                   stats: SearchStats) -> tuple[list[Statement], int]:
    """¬C and C? by the knowledge model where the rule has no template (LINK's prompts)."""
    missing = sorted({s.conclusion for s in statements if not s.complete})
    if not missing or knowledge is None or CAP_GENERATE not in knowledge.capabilities:
        return statements, 0
    requests = []
    for c in missing:
        for kind, prompt in (("negation", NEGATE_PROMPT), ("question", QUESTION_PROMPT)):
            requests.append(GenerationRequest(prompt=prompt.format(C=c), temperature=0.9, max_tokens=32,
                                              seed=request_seed(seed, "rewrite", kind, c)))
    stats.generate_requests += len(requests)
    results = knowledge.generate(requests)
    forms: dict[str, tuple[str | None, str | None]] = {}
    for i, c in enumerate(missing):
        neg, que = results[2 * i], results[2 * i + 1]
        n = first_line_answer(neg.texts[0]) if neg.error is None and neg.texts else ""
        q = first_line_answer(que.texts[0]) if que.error is None and que.texts else ""
        forms[c] = (complete_sentence(n) if n else None, q or None)
    out = []
    for s in statements:
        if s.complete:
            out.append(s)
            continue
        n, q = forms.get(s.conclusion, (None, None))
        out.append(replace(s, negation=s.negation or n, question=s.question or q))
    return out, len(requests)


def distribution_check(statements: Sequence[Statement], scorer: Backend | None,
                       stats: SearchStats) -> tuple[list[Statement], dict]:
    """Δ = mean(head) − mean(long tail) per rule and overall, and each statement's score."""
    if scorer is not None and CAP_LOGLIKELIHOOD in scorer.capabilities and statements:
        texts = sorted({s.full for s in statements})
        scores = dict(zip(texts, sentence_logliks(scorer, texts, stats)))
        statements = [replace(s, loglik=scores[s.full]) for s in statements]
        measure, value = "mean token log-probability", (lambda s: s.loglik)
    else:
        measure = "mean log(1 + popularity)"

        def value(s: Statement) -> float:
            pops = [math.log1p(v.popularity) for _, v in s.bindings if v.popularity is not None]
            return sum(pops) / len(pops) if pops else 0.0
    per_rule: dict[str, dict] = {}
    by_rule: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in statements:
        by_rule[s.rule.id][s.distribution].append(value(s))
    for rid, sets in sorted(by_rule.items()):
        head, tail = sets.get("head", []), sets.get("longtail", [])
        row = {"head": len(head), "longtail": len(tail),
               "mean_head": sum(head) / len(head) if head else None,
               "mean_longtail": sum(tail) / len(tail) if tail else None}
        row["delta"] = (row["mean_head"] - row["mean_longtail"]) if head and tail else None
        per_rule[rid] = row
    deltas = [r["delta"] for r in per_rule.values() if r["delta"] is not None]
    return statements, {"measure": measure, "overall": sum(deltas) / len(deltas) if deltas else None,
                        "rules": per_rule}


def generate_link(store: Store, params: LinkParams, *, knowledge: Backend | None = None,
                  scorer: Backend | None = None, progress: Callable[[int], None] | None = None) -> LinkResult:
    t0 = time.perf_counter()
    scorer = scorer or knowledge
    if scorer is not None and CAP_LOGLIKELIHOOD not in scorer.capabilities:
        if params.ranker == "likelihood":
            raise ConfigError(f"--ranker likelihood needs log-likelihoods; backend {scorer.name!r} gives none "
                              "(pass --scorer-model with hf or vllm)")
        scorer = None
    rules = load_rules(params.rules or None)
    grounder = Grounder.for_graph(store, load_patterns(params.patterns))
    _check_patterns(rules, grounder)
    selected = rules.select(params.rule_ids)
    if not selected:
        raise InputError("no rule loaded: " + "; ".join(str(p) for p in rules.problems))
    grounded_only = params.grounded_only
    ranker = params.ranker if params.ranker != "auto" else ("likelihood" if scorer is not None else "popularity")
    config = search_config(params, ranker)
    stats = SearchStats()
    result = LinkResult(benchmark=params.benchmark, statements=[], items=0, stats=stats,
                        problems=[str(p) for p in rules.problems])
    used = sorted({p for r in selected for p in (*r.grounding.predicates.values(), *r.grounding.variables.values())})
    result.grounding = [grounder.describe(p) for p in used]

    state = store.read("link/read_batch", benchmark=params.benchmark, batch=params.name)[0]
    if state["benchmark"] or state["facts"] or state["questions"]:
        drop_link(store, params.name)
        log.info("replaced the earlier %s", params.benchmark)
    source_hash = source_graph_hash(store)

    statements: list[Statement] = []
    sources: dict[str, list[ChainSource]] = {}
    for depth in range(1, params.chain_depth + 1):
        made: list[Statement] = []
        for rule in sorted(selected, key=lambda r: r.id):
            plan = plan_rule(rule, grounder, set(sources) if depth > 1 else set())
            chained = next((s.chain for s in plan.steps if s.chain is not None), None)
            if depth > 1 and chained is None:
                continue
            reasons = "; ".join(plan.model_reasons())
            if plan.needs_model and grounded_only:
                result.skipped.setdefault(rule.id, f"not grounded by the graph alone: {reasons}")
                continue
            proposals = any(not s.from_graph for s in plan.steps)
            if plan.needs_model and (scorer is None or (proposals and knowledge is None)):
                result.skipped.setdefault(rule.id, f"needs a model (--backend/--model): {reasons}")
                continue
            search = BeamSearch(plan, grounder, config, knowledge=knowledge, scorer=scorer,
                                chain_sources=sources, stats=stats)
            beams = search.run()
            found = build_statements(rule, plan, beams, n=params.n, chained=chained)
            if found:
                result.skipped.pop(rule.id, None)
            made.extend(found)
            result.rules_searched.append(rule.id if depth == 1 else f"{rule.id} (depth {depth})")
            if progress:
                progress(1)
        statements.extend(made)
        sources = _chain_sources(made)
        if not sources:
            break
    stats.graph_queries = grounder.queries

    statements, result.rewrites = rewrite_forms(statements, knowledge, params.seed, stats)
    statements, result.delta = distribution_check(statements, scorer, stats)
    result.statements = statements
    result.facts = _write(store, params, statements, source_hash, result)
    result.seconds = time.perf_counter() - t0
    return result


def _write(store: Store, params: LinkParams, statements: list[Statement], source_hash: str,
           result: LinkResult) -> int:
    benchmark, name = params.benchmark, params.name
    rows = graph_rows(statements, benchmark=benchmark, name=name, seed=params.seed, source_hash=source_hash)
    write_benchmark(store, method="link", name=name, seed=params.seed, params=params.model_dump(mode="json"),
                    source_hash=source_hash,
                    props={"statements": len(statements), "rules_searched": result.rules_searched,
                           "delta": result.delta.get("overall"), "delta_measure": result.delta.get("measure"),
                           "delta_json": json.dumps(result.delta, sort_keys=True, default=str)})
    store.write("link/apply_inferred_facts", rows.premises)
    store.write("link/apply_inferred_facts", rows.conclusions)
    store.write("link/apply_derivations", rows.derivations, batch_id=name, benchmark=benchmark)
    items = [item for s in sorted(statements, key=lambda s: s.id) for item in probe_items(s, benchmark)]
    result.items = write_questions(store, items)
    return len(rows.premises) + len(rows.conclusions)


def drop_link(store: Store, name: str) -> dict[str, int]:
    """Delete benchmark ``link:name``: its questions (with answers and runs left empty), its
    inferred facts and their edges, and the Benchmark node. Source facts are never touched."""
    benchmark = f"link:{name}"
    state = store.read("link/read_batch", benchmark=benchmark, batch=name)[0]
    if not (state["benchmark"] or state["facts"] or state["questions"]):
        raise InputError(f"no LINK benchmark {benchmark!r} in the graph")
    counts: Counter = Counter()
    for statement, args in (("link/delete_questions", {"benchmark": benchmark}),
                            ("link/delete_runs", {"benchmark": benchmark}),
                            ("link/delete_facts", {"benchmark": benchmark, "batch": name})):
        while True:
            s = store.run(statement, limit=DELETE_CHUNK, **args)
            counts["nodes"] += s["nodes_deleted"]
            counts["relationships"] += s["relationships_deleted"]
            if s["nodes_deleted"] == 0:
                break
    s = store.run("benchmark/delete_benchmark", id=benchmark)
    counts["nodes"] += s["nodes_deleted"]
    counts["relationships"] += s["relationships_deleted"]
    return dict(counts)


def read_statements(store: Store, name: str) -> list[dict]:
    """The LINT records of benchmark ``link:name`` (one per statement and distribution)."""
    rows = store.read("link/read_statements", benchmark=f"link:{name}", batch=name)
    out = []
    for row in rows:
        records = json.loads(row["statements_json"] or "{}")
        out.extend(records[d] for d in sorted(records))
    return out


__all__ = ["LinkResult", "distribution_check", "drop_link", "generate_link", "read_statements", "rewrite_forms",
           "search_config"]

"""LINK's knowledge beam search, with the graph answering every predicate it holds.

One rule is searched one variable at a time in ``order.search_order``: the generic variable
keeps ``PersonX``/``ObjectX``; each later variable is bound for every beam of a step at once.

* **From the graph** when a grounded predicate joins the variable to a value already bound
  (one ``Grounder.candidates`` round trip per predicate and step, for all beams), when a
  chained premise offers the conclusions of another rule, or from the variable's datatype
  pattern. The critic of such a value is "the fact exists" (score 1).
* **From the knowledge model** otherwise: ``beam_size / values_per_call`` calls per beam (the
  first variable asks for twice as many values), each told the values already accepted, each
  reply checked by the critic (datatype and factual P(yes) from the scorer's log-likelihoods,
  accumulated along the beam, dynamic thresholds: ``critic``); a beam stops after two calls in a
  row with nothing accepted, or when a call brings nothing new. A factual variable is asked
  twice and kept only when both answers agree. Requests of all beams of a step go out in one
  ``generate`` list, critic questions in one ``loglikelihood`` list.
* **Predicates the graph lacks between graph values** are checked by the critic alone.

Then the reranker orders the beams (mean token log-likelihood of the partial statement under
the scorer, or popularity when there is no scorer) ascending for the long tail and descending
for the head and keeps ``min(beam_size, ceil(0.75 n))``. The first variable's values are shared
by both distributions and not cut, as in the official code.

Every random choice (candidate sampling, tie order, request seeds) comes from generators seeded
with ``f"{seed}:{component}"``; with the same graph, seed and response cache the search returns
the same beams.
"""

from __future__ import annotations

import hashlib
import logging
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from knowforge.errors import BackendError, ConfigError
from knowforge.models.types import (CAP_GENERATE, CAP_LOGLIKELIHOOD, Backend, GenerationRequest,
                                    LoglikelihoodRequest)

from . import critic
from .grounding import Candidate, Grounder
from .order import SearchOrder, linking_predicates, search_order
from .proposals import parse_values, proposal_prompt
from .rules import Predicate, Rule, fill

log = logging.getLogger(__name__)

DISTRIBUTIONS = ("head", "longtail")


@dataclass(frozen=True)
class Value:
    text: str
    id: str | None = None
    source: str = "model"                # generic | graph | model | chain
    popularity: float | None = None


@dataclass(frozen=True)
class Proof:
    """What a hidden premise rests on: graph facts, a chained statement, or the critic."""

    predicate: str
    source: str                          # graph | model | chain
    facts: tuple[str, ...] = ()
    score: float = 1.0                   # critic P(yes) for a model premise
    text: str = ""


@dataclass(frozen=True)
class ChainSource:
    """A conclusion of an earlier rule, offered as a premise to a later one (``--chain-depth``)."""

    statement: str                       # the earlier statement's key
    rule: str
    value: Value                         # the conclusion's non-generic value
    premise: str                         # the earlier statement's premise text
    depth: int
    distribution: str
    premises: int = 0                    # hidden premises along its chain
    graph_premises: int = 0              # of which proven by graph facts


@dataclass(frozen=True)
class Beam:
    values: tuple[tuple[str, Value], ...]
    proofs: tuple[Proof, ...] = ()
    factual: tuple[float, ...] = ()
    datatype: tuple[float, ...] = ()
    chain: tuple[ChainSource, ...] = ()
    score: float | None = None

    def value(self, var: str) -> Value:
        return dict(self.values)[var]

    def texts(self) -> dict[str, str]:
        return {k: v.text for k, v in self.values}

    @property
    def key(self) -> tuple:
        return tuple((k, v.id or v.text) for k, v in self.values) + tuple(c.statement for c in self.chain)


@dataclass(frozen=True)
class SearchConfig:
    beam_size: int = 200
    values_per_call: int = 50
    keep_ratio: float = critic.KEEP_RATIO
    datatype_start: float = critic.DATATYPE_START
    datatype_floor: float = critic.DATATYPE_FLOOR
    factual_cap: float = critic.FACTUAL_CAP
    step: float = critic.STEP
    repetition_penalty: float = critic.REPETITION_PENALTY
    max_candidates: int = 200
    temperature: float = 0.7
    max_tokens: int = 512
    parse_retries: int = 10
    ranker: str = "likelihood"           # likelihood | popularity
    distributions: tuple[str, ...] = DISTRIBUTIONS
    seed: int = 0

    def __post_init__(self) -> None:
        if self.beam_size < 1 or self.values_per_call < 1:
            raise ConfigError("beam size and values per call must be at least 1")
        if self.ranker not in ("likelihood", "popularity"):
            raise ConfigError(f"ranker must be likelihood or popularity, not {self.ranker!r}")
        bad = [d for d in self.distributions if d not in DISTRIBUTIONS]
        if bad or not self.distributions:
            raise ConfigError(f"distributions must be head and/or longtail, not {self.distributions}")

    @property
    def calls(self) -> int:
        return max(1, self.beam_size // self.values_per_call)


@dataclass
class SearchStats:
    generate_requests: int = 0
    loglikelihood_requests: int = 0
    graph_queries: int = 0
    errors: int = 0
    counts: Counter = field(default_factory=Counter)   # accepted/rejected by reason
    trace: list[dict] = field(default_factory=list)     # critic and reranker decisions


@dataclass(frozen=True)
class VarPlan:
    var: str
    linking: tuple[Predicate, ...]                 # every predicate joining var to bound vars
    graph: tuple[tuple[Predicate, str, str, str], ...]   # (pred, pattern, other var, its position)
    checked: tuple[Predicate, ...]                 # non-generic predicates the critic must check
    datatype: str | None                           # datatype pattern, when grounded
    chain: Predicate | None                        # a generic premise fed by earlier conclusions

    @property
    def from_graph(self) -> bool:
        return bool(self.graph or self.chain or self.datatype)


@dataclass(frozen=True)
class RulePlan:
    rule: Rule
    order: SearchOrder
    steps: tuple[VarPlan, ...]

    @property
    def needs_model(self) -> bool:
        return any(not s.from_graph or s.checked for s in self.steps)

    @property
    def graph_premises(self) -> int:
        return sum(len(s.graph) for s in self.steps)

    def model_reasons(self) -> list[str]:
        out = []
        for s in self.steps:
            if not s.from_graph:
                out.append(f"{s.var} has no grounded predicate or datatype")
            out.extend(f"{p.text} is not grounded" for p in s.checked)
        return out


def plan_rule(rule: Rule, grounder: Grounder | None, chain_names: set[str] = frozenset()) -> RulePlan:
    """Where each variable of ``rule`` comes from, given what the graph (``grounder``) holds and
    which predicate names earlier rules concluded (``chain_names``)."""
    chained = [p for p in rule.generic_premises() if p.name in chain_names and len(p.args) == 2]
    order = search_order(rule)
    if chained:
        # a chained premise's other variable is bound first, from the earlier conclusions
        first = next(a for a in chained[0].args if a != rule.generic)
        rest = [v for v in order.variables[1:] if v != first]
        order = SearchOrder(variables=(rule.generic, first, *rest), entity=order.entity)
    bound = {rule.generic}
    steps = []
    for var in order.variables[1:]:
        linking = tuple(linking_predicates(rule, var, bound))
        graph, checked = [], []
        for pred in linking:
            if rule.generic in pred.args:
                continue
            pattern = rule.grounding.predicates.get(pred.text)
            if len(pred.args) == 2 and pattern and grounder is not None and grounder.predicate_available(pattern):
                other = next(a for a in pred.args if a != var)
                graph.append((pred, pattern, other, "first" if pred.args[0] == other else "second"))
            else:
                checked.append(pred)
        dt = rule.grounding.variables.get(var)
        datatype = dt if dt and grounder is not None and grounder.datatype_available(dt) else None
        chain = next((p for p in chained if var in p.args), None)
        steps.append(VarPlan(var, linking, tuple(graph), tuple(checked), datatype, chain))
        bound.add(var)
    return RulePlan(rule, order, tuple(steps))


def request_seed(*parts) -> int:
    """A request's seed from the generation seed and where it is asked (rule, variable, beam, call)."""
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:8], "big") & (2**63 - 1)


@dataclass(frozen=True)
class _Offer:
    candidate: Candidate
    proofs: tuple[Proof, ...]
    sources: tuple[ChainSource, ...]


@dataclass
class _Proposing:
    """One beam's state while the knowledge model proposes values for a variable."""

    beam: Beam
    accepted: list[tuple[str, float | None, float, tuple[Proof, ...]]] = field(default_factory=list)
    factual_threshold: float = 0.0
    raised_later: bool = False
    breaks: list[bool] = field(default_factory=list)
    done: bool = False

    @property
    def accepted_texts(self) -> list[str]:
        return [a[0] for a in self.accepted]


class BeamSearch:
    """The search of one rule. ``knowledge`` proposes values, ``scorer`` gives log-likelihoods
    (critic and reranker); either may be None when the graph answers everything."""

    def __init__(self, plan: RulePlan, grounder: Grounder | None, config: SearchConfig, *,
                 knowledge: Backend | None = None, scorer: Backend | None = None,
                 chain_sources: Mapping[str, Sequence[ChainSource]] | None = None,
                 stats: SearchStats | None = None):
        self.plan = plan
        self.rule = plan.rule
        self.grounder = grounder
        self.config = config
        self.knowledge = knowledge
        self.scorer = scorer
        self.chain_sources = chain_sources or {}
        self.stats = stats or SearchStats()
        self.rng = random.Random(f"{config.seed}:link:{self.rule.id}")
        if plan.needs_model and knowledge is None and any(not s.from_graph for s in plan.steps):
            raise ConfigError(f"rule {self.rule.id} needs a model: " + "; ".join(plan.model_reasons()))
        if plan.needs_model and scorer is None:
            raise ConfigError(f"rule {self.rule.id} needs a scoring model for its critic: "
                              + "; ".join(plan.model_reasons()))
        if knowledge is not None and any(not s.from_graph for s in plan.steps) \
                and CAP_GENERATE not in knowledge.capabilities:
            raise BackendError(f"backend {knowledge.name!r} cannot generate values")
        if scorer is not None and CAP_LOGLIKELIHOOD not in scorer.capabilities:
            raise BackendError(f"backend {scorer.name!r} gives no log-likelihoods; the critic and the "
                               "reranker need them (use hf, vllm or a completions endpoint with echo)")
        if config.ranker == "likelihood" and scorer is None:
            self.config = replace(config, ranker="popularity")

    # --- the search ----------------------------------------------------------------------------
    def run(self) -> dict[str, list[Beam]]:
        """The final beams of each distribution, best first (head: likeliest; long tail: least)."""
        generic = self.rule.generic
        root = Beam(values=((generic, Value(self.rule.generic_value(), None, "generic")),))
        beams: dict[str, list[Beam]] = {d: [root] for d in self.config.distributions}
        for index, step in enumerate(self.plan.steps, start=1):
            unique: dict[tuple, Beam] = {}
            for d in beams:
                for b in beams[d]:
                    unique.setdefault(b.key, b)
            children = self._expand(list(unique.values()), step, index)
            if index == 1:
                # LINK: the first variable's values are shared and not cut by the ranker
                shared = [c for b in unique.values() for c in children[b.key]]
                ranked = self._rerank(shared, step, "head", cut=False)
                beams = {d: list(ranked) for d in self.config.distributions}
            else:
                for d in self.config.distributions:
                    expanded = [c for b in beams[d] for c in children[b.key]]
                    beams[d] = self._rerank(expanded, step, d, cut=True)
        return beams

    # --- expansion -----------------------------------------------------------------------------
    def _expand(self, beams: list[Beam], step: VarPlan, index: int) -> dict[tuple, list[Beam]]:
        if step.from_graph:
            out = self._from_graph(beams, step)
        elif self.rule.variables[step.var].factual:
            out = self._propose_factual(beams, step, index)
        else:
            out = self._propose(beams, step, index)
        for b in beams:
            self.stats.counts[f"{step.var}:values"] += len(out.get(b.key, []))
        return out

    def _graph_candidates(self, beams: list[Beam], step: VarPlan) -> dict[tuple, dict[str, _Offer]]:
        """Per beam: candidate id → offer, the intersection of every graph source of ``step``."""
        per_beam: dict[tuple, dict[str, _Offer] | None] = {b.key: None for b in beams}

        def meet(key, offered: dict[str, _Offer]) -> None:
            current = per_beam[key]
            if current is None:
                per_beam[key] = dict(offered)
            else:
                per_beam[key] = {i: _Offer(o.candidate, o.proofs + offered[i].proofs, o.sources + offered[i].sources)
                                 for i, o in current.items() if i in offered}

        for pred, pattern, other, position in step.graph:
            bound = {b.key: b.value(other).id for b in beams}
            found = self.grounder.candidates(pattern, position, [i for i in bound.values() if i])
            self.stats.graph_queries += 1
            for b in beams:
                offered = {}
                for c in (found.get(bound[b.key], []) if bound[b.key] else []):
                    text = fill(self.rule.template(pred), {**b.texts(), step.var: c.name})
                    offered[c.id] = _Offer(c, (Proof(pred.text, "graph", c.facts, 1.0, text),), ())
                meet(b.key, offered)
        if step.chain is not None:
            sources: dict[str, list[ChainSource]] = {}
            for src in self.chain_sources.get(step.chain.name, ()):
                if src.value.id is not None:
                    sources.setdefault(src.value.id, []).append(src)
            for b in beams:
                meet(b.key, {i: _Offer(Candidate(i, srcs[0].value.text, srcs[0].value.popularity, 0), (), tuple(srcs))
                             for i, srcs in sources.items()})
        if step.datatype is not None:
            if not step.graph and step.chain is None:
                members = self.grounder.members(step.datatype, limit=1_000_000)
                self.stats.graph_queries += 1
                for b in beams:
                    meet(b.key, {c.id: _Offer(c, (), ()) for c in members})
            else:
                ids = sorted({i for offered in per_beam.values() if offered for i in offered})
                admitted = self.grounder.admits(step.datatype, ids)
                self.stats.graph_queries += 1
                for b in beams:
                    if per_beam[b.key]:
                        per_beam[b.key] = {i: o for i, o in per_beam[b.key].items() if i in admitted}
        return {k: (v or {}) for k, v in per_beam.items()}

    def _from_graph(self, beams: list[Beam], step: VarPlan) -> dict[tuple, list[Beam]]:
        offered = self._graph_candidates(beams, step)
        out: dict[tuple, list[Beam]] = {b.key: [] for b in beams}
        pending: list[tuple[Beam, Candidate, tuple[Proof, ...], ChainSource | None]] = []
        for b in beams:
            taken = {v.id for _, v in b.values if v.id}
            items = sorted((i, o) for i, o in offered[b.key].items() if i not in taken)
            if len(items) > self.config.max_candidates:
                self.stats.counts["graph candidates sampled out"] += len(items) - self.config.max_candidates
                items = sorted(self.rng.sample(items, self.config.max_candidates), key=lambda x: x[0])
            for _, offer in items:
                if offer.sources:
                    # one beam per earlier statement: each brings its own premise
                    for src in sorted(offer.sources, key=lambda s: s.statement):
                        text = fill(self.rule.template(step.chain), {**b.texts(), step.var: offer.candidate.name})
                        chain_proof = Proof(step.chain.text, "chain", (src.statement,), 1.0, text)
                        pending.append((b, offer.candidate, offer.proofs + (chain_proof,), src))
                else:
                    pending.append((b, offer.candidate, offer.proofs, None))
        checked = self._check_predicates(pending, step) if step.checked else {}
        for i, (b, cand, proofs, src) in enumerate(pending):
            if step.checked and i not in checked:
                continue
            extra, factual = checked.get(i, ((), None))
            value = Value(cand.name, cand.id, "chain" if src is not None else "graph", cand.popularity)
            out[b.key].append(Beam(values=(*b.values, (step.var, value)), proofs=(*b.proofs, *proofs, *extra),
                                   factual=b.factual + ((factual,) if factual is not None else ()),
                                   datatype=b.datatype, chain=b.chain + ((src,) if src is not None else ())))
        return out

    def _check_predicates(self, pending, step: VarPlan) -> dict[int, tuple[tuple[Proof, ...], float]]:
        """The critic on predicates the graph lacks between graph values: one call's worth of the
        factual threshold logic per beam. Index of ``pending`` → (proofs, accumulated P(yes))."""
        prompts = []
        for b, cand, _, _ in pending:
            values = {**b.texts(), step.var: cand.name}
            prompts.append([fill(self.rule.template(p), values) for p in step.checked])
        probs = self._p_yes([critic.factual_prompt(s) for ss in prompts for s in ss])
        at, result, by_beam = 0, {}, {}
        for i, ((b, cand, _, _), ss) in enumerate(zip(pending, prompts)):
            ps = probs[at:at + len(ss)]
            at += len(ss)
            acc = critic.accumulate(b.factual, sum(ps) / len(ps))
            by_beam.setdefault(b.key, []).append((i, acc, ps, ss))
        for key, rows in by_beam.items():
            threshold, _ = critic.factual_threshold(0.0, [r[1] for r in rows], self.config.factual_cap,
                                                    self.config.step)
            for i, acc, ps, ss in rows:
                ok = critic.passes(acc, threshold)
                self.stats.counts["critic accepted" if ok else "critic rejected"] += 1
                if ok:
                    result[i] = (tuple(Proof(p.text, "model", (), s, t) for p, s, t in zip(step.checked, ps, ss)), acc)
            self.stats.trace.append({"event": "critic", "rule": self.rule.id, "var": step.var, "call": 0,
                                     "factual_threshold": threshold, "datatype_threshold": None,
                                     "values": [(pending[i][1].name, acc) for i, acc, _, _ in rows]})
        return result

    # --- the knowledge model -------------------------------------------------------------------
    def _prompt_predicates(self, step: VarPlan, index: int) -> list[Predicate]:
        conclusion = self.rule.conclusion.text
        return [p for p in step.linking if index == 1 or p.text != conclusion]

    def _ask(self, requests: list[GenerationRequest]) -> list:
        self.stats.generate_requests += len(requests)
        results = self.knowledge.generate(requests)
        if len(results) != len(requests):
            raise BackendError(f"backend returned {len(results)} results for {len(requests)} requests")
        return results

    def _replies(self, states: list[_Proposing], step: VarPlan, index: int, call: int,
                 factual: bool = False, tag: str = "") -> dict[int, list[str]]:
        """New values for each state (by position), re-asking up to ``parse_retries`` times when a
        reply brings none; all states of one attempt in one ``generate`` list."""
        datatype = self.rule.variables[step.var].datatype
        n = self.config.values_per_call * (2 if index == 1 else 1)
        preds = self._prompt_predicates(step, index)
        out: dict[int, list[str]] = {}
        waiting = list(range(len(states)))
        for attempt in range(self.config.parse_retries + 1):
            if not waiting:
                break
            requests = []
            for i in waiting:
                s = states[i]
                prompt = proposal_prompt(step.var, datatype, preds, s.beam.texts(), n, factual=factual,
                                         exclude=() if factual else s.accepted_texts)
                requests.append(GenerationRequest(
                    prompt=prompt, temperature=self.config.temperature, max_tokens=self.config.max_tokens,
                    seed=request_seed(self.config.seed, self.rule.id, step.var, s.beam.key, call, tag, attempt)))
            results = self._ask(requests)
            still = []
            for i, res in zip(waiting, results):
                if res.error is not None or not res.texts:
                    self.stats.errors += 1
                    self.stats.counts["knowledge model errors"] += 1
                    out[i] = []
                    continue
                new = [v for v in parse_values(res.texts[0], step.var, datatype) if v not in states[i].accepted_texts]
                if new:
                    out[i] = new
                else:
                    still.append(i)
            waiting = still
        for i in waiting:
            out[i] = []
        return out

    def _propose(self, beams: list[Beam], step: VarPlan, index: int) -> dict[tuple, list[Beam]]:
        states = [_Proposing(b) for b in beams]
        datatype = self.rule.variables[step.var].datatype
        for call in range(self.config.calls):
            active = [i for i, s in enumerate(states) if not s.done]
            if not active:
                break
            replies = self._replies([states[i] for i in active], step, index, call)
            asked: list[tuple[int, str, list[str]]] = []          # (state, value, factual statements)
            for pos, i in enumerate(active):
                new = replies.get(pos, [])
                if not new:
                    states[i].done = True                         # nothing new: no more options
                    continue
                for v in new:
                    values = {**states[i].beam.texts(), step.var: v}
                    asked.append((i, v, [fill(self.rule.template(p), values) for p in step.checked]))
            if not asked:
                continue
            prompts = []
            for i, v, facts in asked:
                prompts.append(critic.datatype_prompt(v, datatype))
                prompts.extend(critic.factual_prompt(s) for s in facts)
            probs = self._p_yes(prompts)
            at = 0
            by_state: dict[int, list] = {}
            for i, v, facts in asked:
                dt = probs[at]
                fs = probs[at + 1:at + 1 + len(facts)]
                at += 1 + len(facts)
                beam = states[i].beam
                acc_dt = critic.accumulate(beam.datatype, dt)
                acc_f = critic.accumulate(beam.factual, sum(fs) / len(fs)) if fs else None
                by_state.setdefault(i, []).append((v, acc_f, acc_dt, fs, facts))
            for i, rows in by_state.items():
                s = states[i]
                dt_thr = critic.datatype_threshold([r[2] for r in rows], self.config.datatype_start,
                                                   self.config.datatype_floor, self.config.step)
                confs = [r[1] for r in rows if r[1] is not None]
                s.factual_threshold, raised = critic.factual_threshold(s.factual_threshold, confs,
                                                                       self.config.factual_cap, self.config.step)
                if raised and call > 0:
                    s.raised_later = True
                accepted = []
                for v, acc_f, acc_dt, fs, facts in rows:
                    ok_f = acc_f is None or critic.passes(acc_f, s.factual_threshold)
                    ok_dt = critic.passes(acc_dt, dt_thr)
                    if ok_f and ok_dt:
                        proofs = tuple(Proof(p.text, "model", (), f, t) for p, f, t in zip(step.checked, fs, facts))
                        accepted.append((v, acc_f, acc_dt, proofs))
                        self.stats.counts["critic accepted"] += 1
                    else:
                        self.stats.counts["critic rejected: " + ("factual" if not ok_f else "datatype")] += 1
                s.accepted.extend(accepted)
                self.stats.trace.append({"event": "critic", "rule": self.rule.id, "var": step.var, "call": call,
                                         "beam": s.beam.key, "datatype_threshold": dt_thr,
                                         "factual_threshold": s.factual_threshold,
                                         "values": [(r[0], r[1], r[2]) for r in rows],
                                         "accepted": [a[0] for a in accepted]})
                s.breaks.append(not accepted)
                if len(s.breaks) >= 2 and s.breaks[-1] and s.breaks[-2]:
                    s.done = True                                  # two calls in a row: nothing passed
                    self.stats.counts["beams stopped early"] += 1
        out: dict[tuple, list[Beam]] = {}
        for s in states:
            kept = s.accepted
            if s.raised_later:
                kept = [a for a in kept if a[1] is None or critic.passes(a[1], s.factual_threshold)]
                self.stats.counts["critic rejected: rechecked"] += len(s.accepted) - len(kept)
            out[s.beam.key] = [Beam(values=(*s.beam.values, (step.var, Value(v, None, "model"))),
                                    proofs=(*s.beam.proofs, *proofs),
                                    factual=s.beam.factual + ((acc_f,) if acc_f is not None else ()),
                                    datatype=s.beam.datatype + (acc_dt,), chain=s.beam.chain)
                               for v, acc_f, acc_dt, proofs in kept]
        return out

    def _propose_factual(self, beams: list[Beam], step: VarPlan, index: int) -> dict[tuple, list[Beam]]:
        """A factual variable: ask twice; keep the value when both first answers agree."""
        states = [_Proposing(b) for b in beams]
        first = self._replies(states, step, index, 0, factual=True, tag="a")
        second = self._replies(states, step, index, 0, factual=True, tag="b")
        out: dict[tuple, list[Beam]] = {}
        for i, s in enumerate(states):
            a, b = first.get(i, []), second.get(i, [])
            agree = bool(a and b and a[0] == b[0])
            self.stats.counts["factual agreed" if agree else "factual disagreed"] += 1
            out[s.beam.key] = ([Beam(values=(*s.beam.values, (step.var, Value(a[0], None, "model"))),
                                     proofs=s.beam.proofs, factual=s.beam.factual, datatype=s.beam.datatype,
                                     chain=s.beam.chain)] if agree else [])
        return out

    # --- model scores -------------------------------------------------------------------------
    def _p_yes(self, prompts: list[str]) -> list[float]:
        if not prompts:
            return []
        requests = [LoglikelihoodRequest(p, c) for p in prompts for c in (critic.YES, critic.NO)]
        self.stats.loglikelihood_requests += len(requests)
        results = self.scorer.loglikelihood(requests)
        return [critic.p_yes(results[2 * i].total, results[2 * i + 1].total) for i in range(len(prompts))]

    def _rerank(self, beams: list[Beam], step: VarPlan, distribution: str, *, cut: bool) -> list[Beam]:
        if not beams:
            return []
        order = list(range(len(beams)))
        self.rng.shuffle(order)                       # seeded tie order
        beams = [beams[i] for i in order]
        if self.config.ranker == "likelihood":
            texts = [partial_statement(self.rule, b) for b in beams]
            scores = sentence_logliks(self.scorer, texts, self.stats)
            if distribution == "head" and self.config.repetition_penalty:
                scores = [s - self.config.repetition_penalty * critic.repetition(
                    b.value(step.var).text, [v.text for k, v in b.values if k != step.var])
                    for s, b in zip(scores, beams)]
        else:
            scores = [popularity_score(b) for b in beams]
        ranked = critic.rank(scores, distribution)
        keep = critic.keep_count(len(beams), self.config.beam_size, self.config.keep_ratio) if cut else len(beams)
        kept = [replace(beams[i], score=scores[i]) for i in ranked[:keep]]
        self.stats.counts["ranker dropped"] += len(beams) - len(kept)
        self.stats.trace.append({"event": "rerank", "rule": self.rule.id, "var": step.var,
                                 "distribution": distribution, "ranker": self.config.ranker, "n": len(beams),
                                 "kept": len(kept), "scores": [(b.key, s) for b, s in zip(beams, scores)],
                                 "order": [beams[i].key for i in ranked[:keep]]})
        return kept


def partial_statement(rule: Rule, beam: Beam) -> str:
    """Every predicate whose variables are bound, premises in rule order and the conclusion
    last, joined with "and" (LINK's ``verbalize_with_partial_rules``)."""
    values = beam.texts()
    parts = [fill(rule.template(p), values) for p in (*rule.premises, rule.conclusion)
             if all(a in values for a in p.args)]
    return " and ".join(parts)


def sentence_logliks(scorer: Backend, texts: Sequence[str], stats: SearchStats | None = None) -> list[float]:
    """Mean token log-likelihood of each text under ``scorer``, in one batched call.

    The first word is the context and the rest the continuation, so every backend (an
    OpenAI-compatible endpoint included) gives every scored token a log-probability; LINK's
    reranker likewise averages ``token_logprobs[1:]`` of an echoed completion.
    """
    requests = []
    for text in texts:
        head, sep, tail = text.partition(" ")
        requests.append(LoglikelihoodRequest(head, sep + tail) if sep else LoglikelihoodRequest("", text))
    if stats is not None:
        stats.loglikelihood_requests += len(requests)
    results = scorer.loglikelihood(requests) if requests else []
    return [critic.mean_token_loglik(r.total, len(r.token_logprobs)) for r in results]


def popularity_score(beam: Beam) -> float:
    """Mean log(1 + popularity) of the beam's graph values (sitelinks, else degree)."""
    pops = [math.log1p(v.popularity) for _, v in beam.values if v.source != "generic" and v.popularity is not None]
    return sum(pops) / len(pops) if pops else 0.0


__all__ = ["Beam", "BeamSearch", "ChainSource", "DISTRIBUTIONS", "Proof", "RulePlan", "SearchConfig",
           "SearchStats", "Value", "VarPlan", "partial_statement", "plan_rule", "popularity_score",
           "request_seed", "sentence_logliks"]

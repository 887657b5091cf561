"""Statements from searched beams, their probe items, and what they write into the graph.

A statement is one instantiation of a rule in one distribution (head or long tail):

* ``premise`` (P): the predicates that mention the generic variable, filled and joined with
  "and" (for a chained statement, the earlier statement's premise takes the chained
  predicate's place); the other premises stay hidden, they are the knowledge tested;
* ``conclusion`` (C), its ``negation`` (¬C) and ``question`` (C?), from the rule's templates
  (or a model's minimal-edit rewrite, filled in by ``generate``);
* ``full``: every predicate filled and joined, the text whose log-probability the
  distribution check compares between head and long tail;
* provenance: for each hidden premise, the graph facts, the chained statement or the critic
  score it rests on.

In the graph a statement's conclusion is a fact of the inferred layer with DERIVED_FROM edges
to the facts it rests on: source facts as they are, and new inferred-layer facts for the
assumed premise (PersonX is allergic to tree nuts) and for premises a model proposed (with
their critic score).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from knowforge.models.types import BenchmarkItem

from .probe import TEMPLATES, complete_sentence, render
from .rules import Predicate, Rule, fill
from .search import Beam, ChainSource, RulePlan, Value

TASK = "link/entailment"
STATEMENT_VERSION = "1"


def _hash(*parts: object, n: int = 16) -> str:
    return hashlib.sha1("\x1f".join(map(str, parts)).encode("utf-8")).hexdigest()[:n]


@dataclass(frozen=True)
class HiddenPremise:
    predicate: str
    text: str
    source: str                         # graph | model | chain
    facts: tuple[str, ...] = ()         # graph fact ids (graph) or the chained statement (chain)
    critic: float | None = None


@dataclass(frozen=True)
class Statement:
    key: str                            # the instantiation (rule + values + chain), distribution-free
    rule: Rule
    distribution: str
    rank: int                           # 0 = the most head-like (head) / most long-tail (long tail)
    bindings: tuple[tuple[str, Value], ...]
    premise: str
    conclusion: str
    negation: str | None
    question: str | None
    full: str
    hidden: tuple[HiddenPremise, ...]
    chain: tuple[ChainSource, ...] = ()
    depth: int = 1
    graph_premises: int = 0             # hidden premises (along the chain) proven by graph facts
    premises: int = 0                   # hidden premises along the chain
    score: float | None = None          # the last reranker score
    loglik: float | None = field(default=None, compare=False)   # mean token log-prob under the reference

    @property
    def id(self) -> str:
        return f"{self.key}:{self.distribution}"

    @property
    def grounding(self) -> str:
        if self.premises and self.graph_premises == self.premises:
            return "graph"
        return "mixed" if self.graph_premises else "model"

    @property
    def complete(self) -> bool:
        return self.negation is not None and self.question is not None

    def values(self) -> dict[str, str]:
        return {k: v.text for k, v in self.bindings}


def conclusion_forms(rule: Rule, values: dict[str, str]) -> tuple[str, str | None, str | None]:
    """C, ¬C and C? from the rule's templates (None where the rule gives no template)."""
    conclusion = complete_sentence(fill(rule.conclusion_map[rule.conclusion.text], values))
    neg = rule.negation_template()
    question = rule.question_template()
    return (conclusion, complete_sentence(fill(neg, values)) if neg else None,
            (fill(question, values).rstrip(".") if question else None))


def build_statements(rule: Rule, plan: RulePlan, beams: dict[str, list[Beam]], *, n: int,
                     chained: Predicate | None = None) -> list[Statement]:
    """The first ``n`` distinct statements of each distribution, in rank order.

    Two beams that differ only in a hidden variable (paella via shrimp and via mussel) make the
    same premise and conclusion; the probe would ask the same 13 questions twice, so the better
    ranked one is kept."""
    out = []
    for distribution, ranked in beams.items():
        seen: set[tuple[str, str]] = set()
        for beam in ranked:
            if len(seen) == n:
                break
            statement = statement_of(rule, beam, distribution, len(seen), chained)
            if (statement.premise, statement.conclusion) in seen:
                continue
            seen.add((statement.premise, statement.conclusion))
            out.append(statement)
    return out


def statement_of(rule: Rule, beam: Beam, distribution: str, rank: int, chained: Predicate | None = None) -> Statement:
    values = beam.texts()
    chain_src = beam.chain[-1] if beam.chain else None
    parts = []
    for pred in rule.generic_premises():
        if chained is not None and pred.text == chained.text and chain_src is not None:
            parts.append(chain_src.premise)
        else:
            parts.append(fill(rule.template(pred), values))
    premise = " and ".join(parts)
    conclusion, negation, question = conclusion_forms(rule, values)
    full = " and ".join(fill(rule.template(p), values) for p in (*rule.premises, rule.conclusion))
    by_pred = {}
    for proof in beam.proofs:
        by_pred.setdefault(proof.predicate, proof)
    hidden = []
    for pred in rule.hidden_premises():
        proof = by_pred.get(pred.text)
        text = fill(rule.template(pred), values)
        if proof is None:
            hidden.append(HiddenPremise(pred.text, text, "model"))
        else:
            hidden.append(HiddenPremise(pred.text, text, proof.source, proof.facts,
                                        proof.score if proof.source == "model" else None))
    if chained is not None and chain_src is not None:
        hidden.append(HiddenPremise(chained.text, fill(rule.template(chained), values), "chain",
                                    (chain_src.statement,)))
    own_graph = sum(1 for h in hidden if h.source == "graph")
    own_total = sum(1 for h in hidden if h.source != "chain")
    upstream_graph = sum(c.graph_premises for c in beam.chain)
    upstream_total = sum(c.premises for c in beam.chain)
    bindings = tuple((k, v) for k, v in beam.values)
    key = _hash(rule.id, json.dumps([[k, v.id or v.text] for k, v in bindings]), *(c.statement for c in beam.chain))
    return Statement(key=key, rule=rule, distribution=distribution, rank=rank, bindings=bindings, premise=premise,
                     conclusion=conclusion, negation=negation, question=question, full=full, hidden=tuple(hidden),
                     chain=beam.chain, depth=1 + max((c.depth for c in beam.chain), default=0),
                     graph_premises=own_graph + upstream_graph, premises=own_total + upstream_total,
                     score=beam.score)


# --- probe items --------------------------------------------------------------------------------
def probe_items(statement: Statement, benchmark: str) -> list[BenchmarkItem]:
    """The 13 probe questions of one complete statement."""
    if not statement.complete:
        return []
    rule = statement.rule
    entity_ids = sorted({v.id for _, v in statement.bindings if v.id})
    fact_ids = [conclusion_fact_id(benchmark, statement.key)] + sorted(
        {f for h in statement.hidden if h.source == "graph" for f in h.facts})
    slices = {"distribution": statement.distribution, "rule": rule.id, "domain": rule.domain,
              "constraint": rule.constraint, "centre": rule.centre, "positive": rule.is_positive,
              "graph_premises": statement.graph_premises, "hidden_premises": statement.premises,
              "grounding": statement.grounding, "depth": statement.depth}
    items = []
    for t in TEMPLATES:
        gold = t.gold(rule.is_positive)
        items.append(BenchmarkItem(
            id=f"{benchmark}:{statement.id}:t{t.number:02d}", benchmark=benchmark, task=TASK, form="boolean",
            question=render(t, statement.premise, statement.conclusion, statement.negation, statement.question),
            answers=[gold], scorer="boolean", fact_ids=fact_ids, entity_ids=entity_ids,
            slices={**slices, "template": f"{t.number:02d}", "label": gold},
            metadata={"statement_id": statement.id, "statement": statement.key, "template": t.number,
                      "label": gold, "premise": statement.premise, "conclusion": statement.conclusion,
                      "negation": statement.negation, "question": statement.question, "rank": statement.rank,
                      "loglik": statement.loglik}))
    return items


# --- graph rows ---------------------------------------------------------------------------------
def conclusion_fact_id(benchmark: str, key: str) -> str:
    return f"link:f:{_hash(benchmark, 'conclusion', key, n=20)}"


def premise_fact_id(benchmark: str, kind: str, text: str) -> str:
    return f"link:f:{_hash(benchmark, kind, text, n=20)}"


def lint_record(statement: Statement, *, benchmark: str, seed: int | None, source_hash: str | None) -> dict:
    """One statement in our LINT-style JSONL (schema in docs/link.md)."""
    rule = statement.rule
    return {
        "version": STATEMENT_VERSION, "id": statement.id, "statement": statement.key, "rule": rule.id,
        "domain": rule.domain, "constraint": rule.constraint, "centre": rule.centre,
        "distribution": statement.distribution, "rank": statement.rank, "positive": rule.is_positive,
        "variables": {k: {"value": v.text, "id": v.id, "datatype": rule.variables[k].datatype, "source": v.source}
                      for k, v in statement.bindings},
        "premise": statement.premise, "conclusion": statement.conclusion,
        "conclusion_negated": statement.negation, "conclusion_question": statement.question,
        "full_statement": statement.full,
        "hidden_premises": [{"predicate": h.predicate, "text": h.text, "source": h.source, "facts": list(h.facts),
                             "critic": h.critic} for h in statement.hidden],
        "chain": [c.statement for c in statement.chain], "depth": statement.depth,
        "graph_premises": statement.graph_premises, "premises": statement.premises,
        "grounding": statement.grounding, "reranker_score": statement.score, "loglik": statement.loglik,
        "provenance": {"benchmark": benchmark, "seed": seed, "source_graph_sha256": source_hash,
                       "conclusion_fact": conclusion_fact_id(benchmark, statement.key), "rule_file_version": "1"},
    }


@dataclass
class GraphRows:
    premises: list[dict] = field(default_factory=list)      # assumed / proposed premise facts
    conclusions: list[dict] = field(default_factory=list)
    derivations: list[dict] = field(default_factory=list)   # DERIVED_FROM edges


def graph_rows(statements: Sequence[Statement], *, benchmark: str, name: str, seed: int | None,
               source_hash: str | None) -> GraphRows:
    """The inferred layer of a batch: one conclusion fact per instantiation (shared by the head
    and long-tail sets it appears in), its assumed and proposed premises, and the edges."""
    rows = GraphRows()
    by_key: dict[str, list[Statement]] = {}
    for s in statements:
        by_key.setdefault(s.key, []).append(s)
    premise_seen: set[str] = set()
    edge_seen: set[tuple] = set()

    def edge(src: str, dst: str, role: str, predicate: str) -> None:
        if (src, dst, role) not in edge_seen:
            edge_seen.add((src, dst, role))
            rows.derivations.append({"from": src, "to": dst, "role": role, "predicate": predicate})

    for key in sorted(by_key):
        group = sorted(by_key[key], key=lambda s: s.distribution)
        s = group[0]
        rule = s.rule
        values = s.values()
        cid = conclusion_fact_id(benchmark, key)
        obj = next((v for k, v in s.bindings if k in rule.conclusion.args and k != rule.generic), None)
        records = {g.distribution: lint_record(g, benchmark=benchmark, seed=seed, source_hash=source_hash)
                   for g in group}
        rows.conclusions.append({"id": cid, "object_id": obj.id if obj else None, "props": {
            "layer": "inferred", "op": "conclusion", "benchmark": benchmark, "batch": name, "rule": rule.id,
            "kind": "relation" if obj and obj.id else "attribute", "relation": rule.conclusion.name,
            "relation_label": rule.conclusion_map[rule.conclusion.text], "subject_id": rule.generic_value(),
            "subject_name": rule.generic_value(), "object_id": obj.id if obj else None,
            "object_name": obj.text if obj else None, "value": None if obj and obj.id else (obj.text if obj else None),
            "text": s.conclusion, "premise": s.premise, "negation": s.negation, "question": s.question,
            "full": s.full, "statement": key, "distributions": [g.distribution for g in group],
            "ranks": [g.rank for g in group], "depth": s.depth, "graph_premises": s.graph_premises,
            "hidden_premises": s.premises, "grounding": s.grounding, "positive": rule.is_positive,
            "loglik": s.loglik, "bindings_json": json.dumps({k: v.id or v.text for k, v in s.bindings}, sort_keys=True),
            "statements_json": json.dumps(records, sort_keys=True, ensure_ascii=False)}})
        # the assumed premise(s): what the statement's premise says about the generic variable
        for pred in rule.generic_premises():
            if s.chain and any(h.source == "chain" and h.predicate == pred.text for h in s.hidden):
                continue
            text = fill(rule.template(pred), values)
            pid = premise_fact_id(benchmark, "assumed", text)
            other = next((v for k, v in s.bindings if k in pred.args and k != rule.generic), None)
            if pid not in premise_seen:
                premise_seen.add(pid)
                rows.premises.append({"id": pid, "object_id": other.id if other else None, "props": {
                    "layer": "inferred", "op": "assumed", "benchmark": benchmark, "batch": name, "rule": rule.id,
                    "relation": pred.name, "kind": "relation" if other and other.id else "attribute",
                    "subject_id": rule.generic_value(), "object_id": other.id if other else None,
                    "object_name": other.text if other else None, "text": text}})
            edge(cid, pid, "assumption", pred.text)
        for h in s.hidden:
            if h.source == "graph":
                for fid in h.facts:
                    edge(cid, fid, "premise", h.predicate)
            elif h.source == "chain":
                for upstream in h.facts:
                    edge(cid, conclusion_fact_id(benchmark, upstream), "chain", h.predicate)
            else:
                pid = premise_fact_id(benchmark, "proposed", h.text)
                if pid not in premise_seen:
                    premise_seen.add(pid)
                    rows.premises.append({"id": pid, "object_id": None, "props": {
                        "layer": "inferred", "op": "proposed", "benchmark": benchmark, "batch": name,
                        "rule": rule.id, "relation": Predicate.parse(h.predicate).name, "kind": "attribute",
                        "text": h.text, "value": h.text, "critic": h.critic}})
                edge(cid, pid, "premise", h.predicate)
    return rows


def statements_by_rule(statements: Iterable[Statement]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for s in statements:
        out.setdefault(s.rule.id, {}).setdefault(s.distribution, 0)
        out[s.rule.id][s.distribution] += 1
    return out


__all__ = ["GraphRows", "HiddenPremise", "STATEMENT_VERSION", "Statement", "TASK", "build_statements",
           "conclusion_fact_id", "conclusion_forms", "graph_rows", "lint_record", "premise_fact_id", "probe_items",
           "statement_of"]

"""The knowledge beam search against a scripted OpenAI-compatible server on 127.0.0.1 (the
knowledge model's proposals) with the tiny local transformers model as the scoring model
(critic P(yes), reranker log-likelihoods). The critic's thresholds, the reranker's order and
the keep counts are checked against scores the test computes itself from the same model."""

from __future__ import annotations

import math
import re

import pytest
from scripted_openai import ScriptedCompletions, serving

from knowforge.generators.link import critic
from knowforge.generators.link.search import BeamSearch, SearchConfig, SearchStats, partial_statement, plan_rule
from knowforge.generators.link.generate import rewrite_forms, distribution_check
from knowforge.generators.link.statements import build_statements, graph_rows, probe_items
from knowforge.generators.link.rules import Rule
from knowforge.models.backends import make_backend
from knowforge.models.config import BackendConfig
from knowforge.models.types import LoglikelihoodRequest

RULE = Rule.model_validate({
    "id": "t_garden", "domain": "plants and climate", "constraint": "locational", "centre": "person",
    "premise_map": {"lives_in(P, A)": "[P] lives in [A]", "is_too_cold_for(A, Y)": "[A] is too cold for [Y]"},
    "conclusion_map": {"cannot_grow(P, Y)": "[P] cannot grow [Y] outdoors"},
    "negation_map": {"cannot_grow(P, Y)": "[P] can grow [Y] outdoors"},
    "question_map": {"cannot_grow(P, Y)": "Can [P] grow [Y] outdoors?"},
    "variables": {"P": ["P", "Person", True, None], "A": ["A", "Region", False, None],
                  "Y": ["Y", "Plant", False, None]}})

REGIONS = ["Lapland", "Siberia", "Yukon", "Greenland", "Svalbard", "Iceland", "Patagonia"]
PLANTS = ["banana", "mango", "pineapple", "coconut palm", "papaya", "cacao"]


class Knowledge(ScriptedCompletions):
    """Scripted proposals: the first call for a variable gets four or five values, a call told
    which values were accepted gets the rest of the pool (or a reply with no list at all)."""

    calls: list[str] = []

    def reply(self, prompt: str) -> str:
        if prompt.startswith(("Negate the statement", "Convert the statement")):
            statement = prompt.split(": ", 1)[1].rstrip(".")
            plant = statement.rsplit(" grow ", 1)[1].removesuffix(" outdoors")
            return "\n" + (f"PersonX can grow {plant} outdoors." if prompt.startswith("Negate")
                           else f"Can PersonX grow {plant} outdoors?")
        excluded = prompt.split("Do not generate these values: ", 1)[1].rstrip(".").split(", ") \
            if "Do not generate" in prompt else []
        pool = REGIONS if " values of A " in prompt else PLANTS
        fresh = [v for v in pool if v not in excluded]
        if not excluded:
            fresh = fresh[:5 if pool is REGIONS else 4]
        text = "\n".join(f"{i}. {v}." for i, v in enumerate(fresh, 1)) if fresh else "I cannot think of more."
        return "\n" + text


@pytest.fixture
def knowledge_url():
    Knowledge.calls = []
    with serving(Knowledge) as url:
        yield url


def backends(url, tiny, cache_dir):
    knowledge = make_backend(BackendConfig(backend="openai", model="scripted", base_url=url, cache_dir=cache_dir))
    scorer = make_backend(BackendConfig(backend="hf", model=str(tiny), device="cpu", cache_dir=cache_dir))
    return knowledge, scorer


def p_yes(scorer, prompt: str) -> float:
    yes, no = scorer.loglikelihood([LoglikelihoodRequest(prompt, critic.YES), LoglikelihoodRequest(prompt, critic.NO)])
    return critic.p_yes(yes.total, no.total)


def mean_ll(scorer, text: str) -> float:
    head, _, tail = text.partition(" ")
    r = scorer.loglikelihood([LoglikelihoodRequest(head, " " + tail)])[0]
    return r.total / len(r.token_logprobs)


def test_beam_search_with_a_scripted_knowledge_model_and_the_tiny_scorer(knowledge_url, tiny_model_dir, tmp_path,
                                                                        monkeypatch, store):
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    knowledge, scorer = backends(knowledge_url, tiny_model_dir, tmp_path / "cache")
    # The tiny random model puts P(yes) near 0.01: thresholds on that scale (steps of 0.002)
    # exercise the same logic LINK runs from 0.85 in steps of 0.05.
    config = SearchConfig(beam_size=10, values_per_call=5, datatype_start=0.02, datatype_floor=0.004,
                          factual_cap=0.85, step=0.002, parse_retries=1, seed=7)
    plan = plan_rule(RULE, None)
    assert [s.var for s in plan.steps] == ["A", "Y"] and plan.needs_model
    stats = SearchStats()
    beams = BeamSearch(plan, None, config, knowledge=knowledge, scorer=scorer, stats=stats).run()

    # the first call asks for twice the values, later calls are told the accepted values
    first = [c for c in Knowledge.calls if " values of A " in c]
    assert first[0] == ("Give me 10 diverse values of A to instantiate the rule 'lives_in(PersonX, A)' in the "
                        "format '1. value.', where A can be a Region.")
    assert all("Do not generate these values: " in c for c in first[1:])
    assert any(" values of Y " in c and "is_too_cold_for(" in c and "Give me 5 diverse" in c for c in Knowledge.calls)

    # --- the critic on A: datatype confidence only (its only predicate mentions PersonX)
    a_events = [e for e in stats.trace if e["event"] == "critic" and e["var"] == "A"]
    assert a_events
    for event in a_events:
        confs = []
        for value, factual, datatype in event["values"]:
            assert factual is None
            expected = p_yes(scorer, critic.datatype_prompt(value, "Region"))
            assert datatype == pytest.approx(expected, abs=1e-6)
            confs.append(expected)
        thr = 0.02
        while not any(c >= thr - 1e-12 for c in confs) and thr > 0.004 + 1e-9:
            thr = round(thr - 0.002, 4)
        assert event["datatype_threshold"] == pytest.approx(thr)
        assert event["accepted"] == [v for v, _, d in event["values"] if d >= thr - 1e-12]

    # --- the critic on Y: accumulated datatype and a factual check of is_too_cold_for(A, Y)
    y_events = [e for e in stats.trace if e["event"] == "critic" and e["var"] == "Y"]
    assert y_events
    region_dt = {v: d for e in a_events for v, _, d in e["values"]}
    for event in y_events:
        region = dict(event["beam"])["A"]
        best = 0.0
        for value, factual, datatype in event["values"]:
            fact = p_yes(scorer, critic.factual_prompt(f"{region} is too cold for {value}"))
            assert factual == pytest.approx(fact, abs=1e-6)          # no earlier factual confidence
            own = p_yes(scorer, critic.datatype_prompt(value, "Plant"))
            assert datatype == pytest.approx((region_dt[region] + own) / 2, abs=1e-6)
            best = max(best, fact)
        assert event["factual_threshold"] >= min(math.floor(best * 500 + 1e-9) / 500, 0.85) - 1e-9

    # --- the reranker: first variable shared and not cut; then ascending / descending and cut
    reranks = [e for e in stats.trace if e["event"] == "rerank"]
    step_a = [e for e in reranks if e["var"] == "A"]
    assert len(step_a) == 1 and step_a[0]["kept"] == step_a[0]["n"]
    for event in (e for e in reranks if e["var"] == "Y"):
        keys = [k for k, _ in event["scores"]]
        expected = {}
        for key in keys:
            values = dict(key)
            text = (f"PersonX lives in {values['A']} and {values['A']} is too cold for {values['Y']} and "
                    f"PersonX cannot grow {values['Y']} outdoors")
            score = mean_ll(scorer, text)
            if event["distribution"] == "head":
                score -= 3.0 * critic.repetition(values["Y"], ["PersonX", values["A"]])
            expected[key] = score
        assert [s for _, s in event["scores"]] == pytest.approx([expected[k] for k in keys], abs=1e-6)
        order = sorted(keys, key=lambda k: expected[k], reverse=event["distribution"] == "head")
        assert event["order"] == order[:event["kept"]]
        assert event["kept"] == min(10, math.ceil(0.75 * event["n"]))
    head, tail = beams["head"], beams["longtail"]
    assert head and tail
    assert [b.score for b in head] == sorted([b.score for b in head], reverse=True)
    assert [b.score for b in tail] == sorted([b.score for b in tail])
    assert partial_statement(RULE, head[0]).startswith("PersonX lives in ")
    # model premises carry their critic score into the statements
    statements = build_statements(RULE, plan, beams, n=3)
    hidden = statements[0].hidden[0]
    assert hidden.source == "model" and 0 < hidden.critic < 1 and statements[0].grounding == "model"

    # --- the distribution check under the scoring model: mean(head) - mean(long tail) of the
    # full statements' mean token log-probabilities
    both = build_statements(RULE, plan, beams, n=10)
    scored, delta = distribution_check(both, scorer, SearchStats())
    means = {}
    for dist in ("head", "longtail"):
        values = [mean_ll(scorer, s.full) for s in both if s.distribution == dist]
        means[dist] = sum(values) / len(values)
    assert delta["rules"]["t_garden"]["delta"] == pytest.approx(means["head"] - means["longtail"], abs=1e-6)
    assert delta["overall"] == pytest.approx(delta["rules"]["t_garden"]["delta"])
    assert all(s.loglik is not None for s in scored)

    # --- model-proposed premises go into the inferred layer with their critic score
    rows = graph_rows(scored, benchmark="link:t", name="t", seed=7, source_hash=None)
    proposed = [r for r in rows.premises if r["props"]["op"] == "proposed"]
    assert proposed and all(0 < r["props"]["critic"] < 1 for r in proposed)
    assert {d["role"] for d in rows.derivations} == {"premise", "assumption"}
    store.write("link/apply_inferred_facts", rows.premises)
    store.write("link/apply_inferred_facts", rows.conclusions)
    store.write("link/apply_derivations", rows.derivations, batch_id="t", benchmark="link:t")
    found = store.user_query("MATCH (c:Fact {op: 'conclusion'})-[:DERIVED_FROM {role: 'premise'}]->(p:Fact) "
                             "RETURN p.op AS op, p.critic AS critic, p.text AS text")
    assert found and {r["op"] for r in found} == {"proposed"} and all(0 < r["critic"] < 1 for r in found)

    # --- a rule without negation and question templates: the knowledge model rewrites the
    # conclusion with LINK's prompts, once per conclusion, through the cache
    bare = Rule.model_validate({**RULE.model_dump(), "negation_map": {}, "question_map": {}})
    incomplete = build_statements(bare, plan, beams, n=2)
    assert not any(s.complete for s in incomplete)
    rewritten, asked = rewrite_forms(incomplete, knowledge, 7, SearchStats())
    assert asked == 2 * len({s.conclusion for s in incomplete})
    for s in rewritten:
        plant = dict(s.bindings)["Y"].text
        assert s.negation == f"PersonX can grow {plant} outdoors."
        assert s.question == f"Can PersonX grow {plant} outdoors?"
        assert len(probe_items(s, "link:t")) == 13
    calls = len(Knowledge.calls)
    rewrite_forms(incomplete, knowledge, 7, SearchStats())
    assert len(Knowledge.calls) == calls

    # --- early stop: Y's second call gets no new value, so no beam asks a third time
    assert stats.counts["critic accepted"] > 0
    # --- the cache: the same search again asks the server nothing and gives the same beams
    calls = len(Knowledge.calls)
    knowledge2, scorer2 = backends(knowledge_url, tiny_model_dir, tmp_path / "cache")
    again = BeamSearch(plan, None, config, knowledge=knowledge2, scorer=scorer2).run()
    assert len(Knowledge.calls) == calls
    assert [b.key for b in again["head"]] == [b.key for b in head]
    assert [b.key for b in again["longtail"]] == [b.key for b in tail]


def test_two_calls_with_nothing_accepted_stop_a_beam(knowledge_url, tiny_model_dir, tmp_path, monkeypatch):
    """With a datatype threshold nothing can reach, every call is empty: a beam stops after two."""
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    knowledge, scorer = backends(knowledge_url, tiny_model_dir, tmp_path / "cache")
    config = SearchConfig(beam_size=20, values_per_call=5, datatype_start=1.0, datatype_floor=1.0, parse_retries=0)
    stats = SearchStats()
    beams = BeamSearch(plan_rule(RULE, None), None, config, knowledge=knowledge, scorer=scorer, stats=stats).run()
    assert beams == {"head": [], "longtail": []}
    region_calls = [c for c in Knowledge.calls if " values of A " in c]
    assert len(region_calls) == 2 < config.calls          # 4 calls allowed, 2 made
    assert stats.counts["beams stopped early"] == 1
    assert re.search("Do not generate", region_calls[1]) is None   # nothing was accepted to exclude

"""LINT's entailment probe: first-token scoring, and the solver against a scripted
OpenAI-compatible server on 127.0.0.1 whose answers are set per template, so per-template
accuracy, the all-13 "known" rate, head vs long tail and the relative drop have known values."""

from __future__ import annotations

import pytest
from scripted_openai import ScriptedCompletions, serving

from knowforge.eval.link.probe import (first_token, head_tail, known_rate, relative_drop, score_probe,
                                       template_accuracy)
from knowforge.eval.stats import group_permutation_test
from knowforge.eval.registry import metric_spec
from knowforge.eval.unit import MetricInput, SolveContext
from knowforge.eval.solvers import make_solver
from knowforge.eval.types import EvalOptions
from knowforge.generators.link.rules import load_rules
from knowforge.generators.link.search import Beam, Proof, Value
from knowforge.generators.link.statements import probe_items, statement_of
from knowforge.models.backends import make_backend
from knowforge.models.task import Component
from knowforge.models.types import BenchmarkItem


@pytest.mark.parametrize("reply,label,right", [
    ("Yes", "Yes", True), ("yes.", "Yes", True), ("  No, because the premise ...", "No", True),
    ("True!", "True", True), ("Right", "Right", True), ("Wrong.", "Wrong", True),
    ("True", "Yes", False),            # the official rule wants the template's own word
    ("**Yes**", "Yes", False), ("", "No", False), ("I think yes", "Yes", False), ("Yesterday", "Yes", False),
])
def test_first_token_scoring(reply, label, right):
    item = BenchmarkItem(id="i", benchmark="link:t", task="link/entailment", form="boolean", question="q",
                         answers=[label], scorer="boolean")
    assert score_probe(item, reply).value == (1.0 if right else 0.0)


def test_first_token():
    assert first_token("  No, because") == "No" and first_token("**Yes**") == "**" and first_token(None) == ""
    assert relative_drop(0.8, 0.6) == pytest.approx(-0.25) and relative_drop(0.0, 0.5) is None


def _items():
    """Two head and two long-tail statements of the allergy rule, 13 items each."""
    rule = load_rules().rules["outcome_allergy_dish"]
    items = []
    for distribution, rank, allergen, ingredient, dish in (("head", 0, "tree nut", "pine nut", "pesto"),
                                                           ("head", 1, "shellfish", "shrimp", "paella"),
                                                           ("longtail", 0, "tree nut", "walnut", "churchkhela"),
                                                           ("longtail", 1, "fish", "anchovy", "bagna cauda")):
        beam = Beam(values=(("P", Value("PersonX", None, "generic")),
                            ("A", Value(allergen, f"a:{allergen}", "graph")),
                            ("Z", Value(ingredient, f"z:{ingredient}", "graph")),
                            ("B", Value(dish, f"b:{dish}", "graph"))),
                    proofs=(Proof("is_one_type_of(Z, A)", "graph", (f"f:{ingredient}-isa",)),
                            Proof("is_ingredient_in(Z, B)", "graph", (f"f:{dish}-madeof",))))
        items.extend(probe_items(statement_of(rule, beam, distribution, rank), "link:t"))
    return items


class Probe(ScriptedCompletions):
    answers: dict[str, str] = {}
    calls: list[str] = []

    def reply(self, prompt: str) -> str:
        return " " + Probe.answers.get(prompt, "Maybe")


@pytest.fixture
def probe_url():
    Probe.answers, Probe.calls = {}, []
    with serving(Probe) as url:
        yield url


def script(items):
    """Head statements: every template right. Long tail: churchkhela right except template 5;
    bagna cauda answered "Yes" to everything (right only where the label is Yes)."""
    answers = {}
    for item in items:
        label = item.answers[0]
        if item.slices["distribution"] == "head":
            answers[item.question] = f"{label}."
        elif "churchkhela" in item.question:
            answers[item.question] = "No, it does not." if item.slices["template"] == "05" else label
        else:
            answers[item.question] = "Yes"
    return answers


def test_probe_solver_with_scripted_answers_for_all_13_templates(probe_url, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    items = _items()
    assert len(items) == 52 and {i.slices["template"] for i in items} == {f"{n:02d}" for n in range(1, 14)}
    Probe.answers = script(items)
    # the link task scores its items with the link-probe scorer; official: LINT's first-token rule
    items = [i.model_copy(update={"scorer": "link-probe"}) for i in items]
    options = EvalOptions(backend="openai", model="scripted", base_url=probe_url, cache_dir=tmp_path / "cache",
                          max_tokens=8, scoring="official")
    backend = make_backend(options)
    output = make_solver(Component(name="link-probe")).solve(items, SolveContext(backend=backend, options=options))
    assert {s.rule for s in output.samples} == {"link-probe:official"}
    assert len(Probe.calls) == 52 and len(output.samples) == 52
    assert sum(s.score for s in output.samples) == 26 + 12 + 4      # head 26, churchkhela 12, bagna cauda 4

    templates = template_accuracy(items, output.samples)
    # labels Yes on 1, 2, 5, 6: bagna cauda's "Yes" is right there; template 5 is churchkhela's miss
    expected = {1: 1.0, 2: 1.0, 3: 0.75, 4: 0.75, 5: 0.75, 6: 1.0, 7: 0.75, 8: 0.75, 9: 0.75, 10: 0.75,
                11: 0.75, 12: 0.75, 13: 0.75}
    assert {t: r["accuracy"] for t, r in templates.items()} == expected
    assert templates[9]["label"] == "No" and templates[3]["label"] == "True"
    known = known_rate(items, output.samples)
    assert known == {"statements": 4, "known": 2, "rate": 0.5, "head": 1.0, "longtail": 0.0}
    split = head_tail(items, output.samples)
    assert split["accuracy"]["head"] == 1.0 and split["accuracy"]["longtail"] == pytest.approx(16 / 26)
    assert split["accuracy"]["relative_drop"] == pytest.approx(16 / 26 - 1)
    assert split["known"]["relative_drop"] == -1.0
    # the declared metrics give the same numbers, by rule and by graph premises too
    data = MetricInput(items, output.samples)
    assert metric_spec("link_known").compute(data)["rate"] == 0.5
    by_premises = metric_spec("link_by_graph_premises").compute(data)
    assert list(by_premises) == ["2/2"] and by_premises["2/2"]["known"]["head"] == 1.0
    by_rule = metric_spec("link_by_rule").compute(data)
    assert by_rule["outcome_allergy_dish"]["accuracy"]["longtail"] == pytest.approx(16 / 26)
    assert "LINT: accuracy per template" in output.sections
    # the head - long tail drop: unpaired (different statements), tested by permuting the
    # distribution labels over the four statements (all 6 splits)
    drop = metric_spec("link_head_tail").test(data, seed=0, resamples=100)[("accuracy", "relative_drop")]
    assert drop["paired"] is False and "no pairing exists" in drop["note"]
    statements = {}
    for item, sample in zip(items, output.samples):
        statements.setdefault((item.slices["distribution"], item.metadata["statement_id"]), []).append(sample.score)
    head = [v for (d, _), v in statements.items() if d == "head"]
    tail = [v for (d, _), v in statements.items() if d == "longtail"]
    pooled = lambda us: sum(map(sum, us)) / sum(map(len, us))  # noqa: E731
    exact = group_permutation_test(head, tail, lambda h, t: relative_drop(pooled(h), pooled(t)), resamples=100)
    assert exact.exact and exact.permutations == 6 and drop["p_value"] == exact.p_value

    # the knowforge mode: any spelling of the answer counts, so "Yes" to a True/False question is right
    ours = options.but(scoring="knowforge")
    robust = make_solver(Component(name="link-probe")).solve(items, SolveContext(backend=backend, options=ours))
    assert sum(s.score for s in robust.samples) == 26 + 12 + 4 + 2   # bagna cauda: True (3) and Right (4)
    assert {s.rule for s in robust.samples} == {"link-probe:knowforge"}
    assert len(Probe.calls) == 52                                     # answered from the cache


class SaysYes:
    """A scripted model whose likelihood always prefers the positive label (Yes, True, Right)."""

    name, model, revision = "scripted-ll", "yes-1", None
    capabilities = frozenset({"generate", "loglikelihood"})

    def __init__(self):
        self.asked = []

    def loglikelihood(self, requests):
        from knowforge.models.types import LoglikelihoodResult

        self.asked.extend(requests)
        return [LoglikelihoodResult(total=-1.0 if r.continuation.strip() in ("Yes", "True", "Right") else -3.0,
                                    token_logprobs=(-1.0,)) for r in requests]


def test_likelihood_scores_each_template_by_its_two_labels():
    items = [i.model_copy(update={"scorer": "link-probe"}) for i in _items()]
    backend = SaysYes()
    options = EvalOptions(model="yes-1", mc_scoring="likelihood")
    output = make_solver(Component(name="link-probe")).solve(items, SolveContext(backend=backend, options=options))
    assert len(backend.asked) == 2 * 52 and all(r.context == i.question for r, i in
                                                zip(backend.asked[::2], items))
    pairs = {(backend.asked[2 * k].continuation, backend.asked[2 * k + 1].continuation) for k in range(52)}
    assert pairs == {(" Yes", " No"), (" True", " False"), (" Right", " Wrong")}
    templates = template_accuracy(items, output.samples)
    # a model that always says yes: right exactly where the label is positive (templates 1-6)
    assert {t: r["accuracy"] for t, r in templates.items()} == {t: 1.0 if t <= 6 else 0.0 for t in range(1, 14)}
    assert all(s.rule == "likelihood:knowforge" for s in output.samples)

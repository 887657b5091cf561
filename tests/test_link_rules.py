"""LINK rules as data: validation with file and rule id, LINK's own rule shape, the bundled
starter set, the search order from the variable graph, and the probe templates."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from knowforge.generators.link.order import search_order, variable_graph
from knowforge.generators.link.probe import TEMPLATES, render
from knowforge.generators.link.rules import Rule, fill, load_rules

GOOD = """
version: 1
rules:
  good_one:
    domain: test
    premise_map:
      "lives_in(P, C)": "[P] lives in [C]"
      "has_currency(C, M)": "[C] uses the [M]"
    conclusion_map:
      "pays_with(P, M)": "[P] pays with the [M]"
    variables:
      P: [P, Person, true, null]
      C: [C, Country, false, null]
      M: [M, Currency, false, null]
  bad_slot:
    domain: test
    premise_map:
      "lives_in(P, C)": "[P] lives in [X]"
    conclusion_map:
      "pays_with(P, C)": "[P] pays in [C]"
    variables:
      P: [P, Person, true, null]
      C: [C, Country, false, null]
  two_generics:
    domain: test
    premise_map:
      "knows(P, Q)": "[P] knows [Q]"
    conclusion_map:
      "likes(P, Q)": "[P] likes [Q]"
    variables:
      P: [P, Person, true, null]
      Q: [Q, Person, true, null]
  good_two:
    domain: test
    premise_map:
      "is_made_of(O, M)": "[O] is made of [M]"
      "is_damaged_by(M, S)": "[M] is damaged by [S]"
    conclusion_map:
      "should_not_be_cleaned_with(O, S)": "[O] should not be cleaned with [S]"
    variables:
      O: {datatype: Object, generic: true}
      M: {datatype: Material}
      S: {datatype: Cleaning product}
    grounding:
      predicates: {"is_made_of(O, M)": is_made_of}
"""


def test_a_bad_rule_names_file_and_id_and_the_others_load(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(GOOD, encoding="utf-8")
    broken = tmp_path / "broken.yaml"
    broken.write_text("rules: [this is: not: yaml", encoding="utf-8")
    loaded = load_rules([path, broken])
    assert sorted(loaded.rules) == ["good_one"]
    problems = {(p.path, p.rule): p.message for p in loaded.problems}
    assert set(problems) == {(str(path), "bad_slot"), (str(path), "two_generics"), (str(path), "good_two"),
                             (str(broken), None)}
    assert "[P], [C]" in problems[(str(path), "bad_slot")]
    assert "exactly one generic variable" in problems[(str(path), "two_generics")]
    # a grounding may not look up a predicate about the generic variable: that is the premise
    assert "contains the generic variable" in problems[(str(path), "good_two")]
    assert str(path) in str(loaded.problems[0]) and "bad_slot" in str(loaded.problems[0])


def test_links_official_rules_json_loads(tmp_path):
    official = {"rule2": {
        "premise_map": {"is_allergic_to(P, A)": "[P] is allergic to [A]",
                        "is_ingredient_in(Z, B)": "[Z] is a ingredient in [B]",
                        "is_one_type_of(Z, A)": "[Z] is one type of [A]"},
        "conclusion_map": {"is_not_able_to_eat(P, B)": "[P] is not able to eat [B]"},
        "variables": {"P": ["P", "Person", True, None], "A": ["A", "Food Allergen", False, None],
                      "B": ["B", "Name of a dish or food", False, None], "Z": ["Z", "Ingredient", False, None]},
        "domain": "food and physical conditions"}}
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(official), encoding="utf-8")
    rule = load_rules([path]).rules["rule2"]
    assert rule.generic == "P" and rule.generic_value() == "PersonX"
    assert not rule.is_positive                      # "is not able to": Mutual Exclusivity
    assert [p.text for p in rule.generic_premises()] == ["is_allergic_to(P, A)"]
    # the paper's search order: X, A, Z, B (premise first)
    assert search_order(rule).variables == ("P", "A", "Z", "B")
    assert search_order(rule, entity="conclusion").variables == ("P", "B", "Z", "A")
    graph = variable_graph(rule)
    assert graph.edges["Z", "B"]["predicates"] == ["is_ingredient_in(Z, B)"]


def test_factual_rules_are_searched_conclusion_first():
    rule = load_rules().rules["temporal_lived_during_invention"]
    assert rule.factual
    order = search_order(rule)
    assert order.entity == "conclusion" and order.variables[:2] == ("P", "C")


def test_the_bundled_starter_set():
    loaded = load_rules()
    assert loaded.problems == []
    rules = list(loaded.rules.values())
    assert len(rules) >= 40
    kinds = Counter(r.constraint for r in rules)
    assert set(kinds) == {"temporal", "locational", "natural_property", "outcome_effect"}
    assert min(kinds.values()) >= 8
    assert {r.centre for r in rules} == {"person", "object"}
    assert sum(1 for r in rules if r.grounding.predicates) >= 10
    # every bundled rule can be probed without a model: negation and question templates
    assert all(r.negation_template() and r.question_template() for r in rules)
    assert {r.is_positive for r in rules} == {True, False}


def test_the_13_templates_word_for_word():
    p, c = "PersonX is allergic to tree nut", "PersonX is not able to eat pesto."
    n, q = "PersonX is able to eat pesto.", "Is PersonX able to eat pesto?"
    prompts = [render(t, p, c, n, q) for t in TEMPLATES]
    prefix = "For the following question, please answer in a normal life scenario with no special consideration:\n"
    assert all(x.startswith(prefix) for x in prompts)
    body = [x[len(prefix):] for x in prompts]
    assert body == [
        "Is it true that if PersonX is allergic to tree nut, PersonX is not able to eat pesto? Answer yes or no:",
        "Yes or no: if PersonX is allergic to tree nut, PersonX is not able to eat pesto.",
        "True or false: if PersonX is allergic to tree nut, PersonX is not able to eat pesto.",
        "Right or Wrong: if PersonX is allergic to tree nut, PersonX is not able to eat pesto.",
        "Premise: PersonX is allergic to tree nut. Conclusion: PersonX is not able to eat pesto. Does premise "
        "entail conclusion? Answer yes or no:",
        "Premise: PersonX is allergic to tree nut. Conclusion: PersonX is able to eat pesto. Does premise "
        "contradict the conclusion? Answer yes or no:",
        "Is it true that if PersonX is allergic to tree nut, PersonX is able to eat pesto? Answer yes or no:",
        "Yes or no: if PersonX is allergic to tree nut, PersonX is able to eat pesto.",
        "Answer the question with yes or no: if PersonX is allergic to tree nut, Is PersonX able to eat pesto?",
        "True or false: if PersonX is allergic to tree nut, PersonX is able to eat pesto.",
        "Right or Wrong: if PersonX is allergic to tree nut, PersonX is able to eat pesto.",
        "Premise: PersonX is allergic to tree nut. Conclusion: PersonX is able to eat pesto. Does premise "
        "entail conclusion? Answer yes or no:",
        "Premise: PersonX is allergic to tree nut. Conclusion: PersonX is not able to eat pesto. Does premise "
        "contradict the conclusion? Answer yes or no:"]
    negative = [t.gold(False) for t in TEMPLATES]
    assert negative == ["Yes", "Yes", "True", "Right", "Yes", "Yes", "No", "No", "No", "False", "Wrong", "No", "No"]
    positive = [t.gold(True) for t in TEMPLATES]
    assert positive == negative[:8] + ["Yes"] + negative[9:]      # only template 9 follows the conclusion
    with pytest.raises(ValueError, match="negated"):
        render(TEMPLATES[6], p, c, None, q)


def test_fill_reads_underscores_as_spaces():
    assert fill("[P] eats [B]", {"P": "PersonX", "B": "pad_thai"}) == "PersonX eats pad thai"
    rule = Rule.model_validate({
        "id": "r", "domain": "d", "premise_map": {"a(P, X)": "[P] a [X]"}, "conclusion_map": {"b(P)": "[P] b"},
        "variables": {"P": ["P", "Pot of water", True, None], "X": ["X", "Thing", False, None]}})
    assert rule.generic_value() == "PotOfWaterX" and rule.is_positive

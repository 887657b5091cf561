"""The critic, the reranker and the knowledge model's reply parser on known numbers."""

from __future__ import annotations

import math

import pytest

from knowforge.generators.link import critic
from knowforge.generators.link.proposals import parse_values, proposal_prompt
from knowforge.generators.link.rules import Predicate


def test_p_yes_is_a_softmax_of_the_two_answers():
    assert critic.p_yes(math.log(0.6), math.log(0.2)) == pytest.approx(0.75)
    assert critic.p_yes(-1000.0, -1000.0) == pytest.approx(0.5)
    assert critic.accumulate([0.9, 0.7], 0.5) == pytest.approx(0.7)


@pytest.mark.parametrize("confidences,expected", [
    ([0.90, 0.20], 0.85),          # something passes the start threshold
    ([0.84, 0.10], 0.80),          # lowered once
    ([0.71], 0.70),
    ([0.66], 0.65),                # the floor
    ([0.50, 0.60], 0.65),          # nothing passes even the floor: stays there, nothing accepted
    ([], 0.65),
])
def test_datatype_threshold_drops_by_005_to_065(confidences, expected):
    assert critic.datatype_threshold(confidences) == expected


def test_factual_threshold_is_the_best_confidence_rounded_down_and_capped():
    assert critic.factual_threshold(0.0, [0.63, 0.41]) == (0.6, True)
    assert critic.factual_threshold(0.6, [0.62]) == (0.6, False)          # not higher: unchanged
    assert critic.factual_threshold(0.6, [0.97]) == (0.85, True)          # capped at 0.85
    # LINK flags a change whenever the best confidence beats the threshold, capped or not
    assert critic.factual_threshold(0.85, [0.99]) == (0.85, True)
    assert critic.factual_threshold(0.0, [0.9]) == (0.85, True)           # 0.9 // 0.05 is 17.99 in floats
    assert critic.factual_threshold(0.3, []) == (0.3, False)


def test_keep_count_and_rank_order():
    assert critic.keep_count(8, 200) == 6                   # ceil(0.75 x 8)
    assert critic.keep_count(7, 200) == 6                   # ceil(5.25)
    assert critic.keep_count(1000, 200) == 200
    assert critic.keep_count(4, 2) == 2
    scores = [-2.0, -1.0, -3.0, -1.0]
    assert critic.rank(scores, "head") == [1, 3, 0, 2]       # likeliest first, ties in order
    assert critic.rank(scores, "longtail") == [2, 0, 1, 3]


def test_rouge_l_and_the_repetition_penalty():
    assert critic.rouge_l("peanut butter", "peanut") == pytest.approx(2 * 0.5 * 1.0 / 1.5)
    assert critic.rouge_l("cashew", "PersonX") == 0.0
    assert critic.repetition("peanut butter", ["PersonX", "peanut"]) == pytest.approx((0 + 2 / 3) / 2)


def test_prompts_and_reply_parsing():
    prompt = proposal_prompt("B", "Dish", [Predicate.parse("is_ingredient_in(Z, B)")], {"Z": "butter"}, 50,
                             exclude=["croissant"])
    assert prompt == ("Give me 50 diverse values of B to instantiate the rule 'is_ingredient_in(butter, B)' in "
                      "the format '1. value.', where B can be a Dish. Do not generate these values: croissant.")
    factual = proposal_prompt("Y", "Year", [Predicate.parse("was_invented_in(C, Y)")], {"C": "telescope"}, 1,
                              factual=True)
    assert factual.startswith("Give me the correct value of Y") and "where Y is a Year." in factual
    reply = ("Here you go:\n1. Pad thai.\n2. Satay (Indonesian).\n3. Cuisine: Gado-gado.\n4. Bread - Naan.\n"
             "5. a/b.\n6. Pad thai.\n7. Dish.\n8. no period\n9. Laksa, Malaysian, spicy.\n10. Printing. Was invented.")
    assert parse_values(reply, "B", "Dish") == ["Pad thai", "Satay", "Gado-gado", "Naan"]
    assert critic.datatype_prompt("pad_thai", "Dish").endswith("pad thai is a dish\nAnswer:")

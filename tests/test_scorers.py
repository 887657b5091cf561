"""Default (robust) scorers: parsers and item scorers, case by case."""

from __future__ import annotations

import pytest

from knowforge.errors import ConfigError
from knowforge.eval.metrics import accuracy, all_correct, balanced_accuracy, per_slice
from knowforge.eval.registry import registry
from knowforge.eval.scoring import score_item
from knowforge.eval.scorers import (exact_match, extract_choice_letter, extract_yes_no,
                                    final_answer, first_line, fuzzy_match, is_unknown, normalize_answer)
from knowforge.models.types import BenchmarkItem


def item(**kw) -> BenchmarkItem:
    base = dict(id="q1", benchmark="t", task="t/x", form="generation", question="?")
    base.update(kw)
    return BenchmarkItem(**base)


# --- text helpers ------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("Paris\nmore", "Paris"), ("\n\n  Paris  \nx", "Paris"), ("", ""), (None, ""), ("   \n  ", ""),
])
def test_first_line(text, expected):
    assert first_line(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Let me think. Obama was born in 1961.\nAnswer: Hawaii", "Hawaii"),
    ("step 1\nFinal answer: (B)", "(B)"),
    ("Answer: x\nreason\nAnswer: y", "y"),
    ("no marker here", "no marker here"),
])
def test_final_answer(text, expected):
    assert final_answer(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("The Eiffel Tower.", "eiffel tower"), ("  A  cat's   toy ", "cats toy"), ("U.S.A.", "usa"),
    ("New-York/Paris", "new york paris"),
    ("", ""), (None, ""),
])
def test_normalize_answer(text, expected):
    assert normalize_answer(text) == expected


# --- multiple-choice letters ---------------------------------------------------------------------
@pytest.mark.parametrize("response, expected", [
    ("(B)", "B"), ("B", "B"), ("B.", "B"), ("Answer: B", "B"), ("answer: b", "B"), ("b)", "B"),
    ("B) Paris", "B"), ("B. Paris is the capital", "B"), ("B Paris", "B"),
    ("The answer is (C)", "C"), ("The answer is C.", "C"), ("I think (D) is right, not (A)", "D"),
    ("Option d", "D"), ("(a)", "A"), ("\n\nC: because", "C"), ("Answer:(b)", "B"),
    ("Let's see... so the final answer: A", "A"),
    ("the answer is a dog", None), ("Answer: B Paris", "B"), ("answer: b) Paris", "B"),
    ("a cat sat", None), ("Paris", None), ("", None), (None, None), ("E", None),
])
def test_extract_choice_letter(response, expected):
    assert extract_choice_letter(response, 4) == expected


def test_extract_choice_letter_more_choices():
    assert extract_choice_letter("(E)", 5) == "E"
    assert extract_choice_letter("(E)", 4) is None


# --- yes / no ------------------------------------------------------------------------------------
@pytest.mark.parametrize("response, expected", [
    ("Yes", True), ("yes.", True), ("YES, it is", True), ("True", True), ("true.", True),
    ("Right", True), ("Correct!", True), ("Answer: yes", True), ("\nNo", False),
    ("No, he was not.", False), ("False", False), ("wrong", False), ("Incorrect.", False),
    ("Not really", False), ("It is true that he did", True), ("I would say false", False),
    ("maybe", None), ("", None), (None, None),
])
def test_extract_yes_no(response, expected):
    assert extract_yes_no(response) is expected


# --- unknown -------------------------------------------------------------------------------------
@pytest.mark.parametrize("response, expected", [
    ("Unknown", True), ("unknown.", True), ("I don't know", True), ("I do not know.", True),
    ("I dont know", True), ("It is not known", True), ("There is no information about it", True),
    ("It cannot be determined", True), ("I'm not sure", True), ("Paris", False), ("", False),
    ("Paris\nunknown", False),  # only the first line counts
])
def test_is_unknown(response, expected):
    assert is_unknown(response) is expected


# --- fuzzy / exact -------------------------------------------------------------------------------
@pytest.mark.parametrize("response, golds, matched", [
    ("Barack Obama", ["barack obama"], True),
    ("barack obama was president", ["Barack Obama"], True),   # token set: subset → 100
    ("Obama", ["Barack Obama"], True),
    ("Paris", ["London", "Paris France"], True),
    ("Paris", ["Paris, France"], False),   # as in ChroKnowledge: no punctuation processing

    ("Berlin", ["London"], False),
    ("", ["London"], False),
    ("London", [""], False),
    ("Answer: London", ["London"], True),
])
def test_fuzzy_match(response, golds, matched):
    assert fuzzy_match(response, golds)[0] is matched


def test_fuzzy_threshold_is_inclusive():
    ok, ratio = fuzzy_match("abcdefghij", ["abcdefgxyz"])
    assert fuzzy_match("abcdefghij", ["abcdefgxyz"], threshold=int(ratio))[0] == (ratio >= int(ratio))
    assert fuzzy_match("abcdefghij", ["abcdefgxyz"], threshold=101)[0] is False
    assert ok is (ratio >= 70)


@pytest.mark.parametrize("response, golds, matched", [
    ("Paris", ["paris"], True), ("The Paris.", ["Paris"], True), ("paris france", ["Paris"], False),
    ("NYC", ["New York City", "NYC"], True), ("", ["x"], False), ("Answer: NYC", ["NYC"], True),
])
def test_exact_match(response, golds, matched):
    assert exact_match(response, golds) is matched


# --- item scorers --------------------------------------------------------------------------------
def test_score_fuzzy_item_and_unknown_gold():
    q = item(answers=["Barack Obama"], scorer="fuzzy")
    assert score_item(q, "Barack Obama.").value == 1.0
    assert score_item(q, "Joe Biden").value == 0.0
    dropped = item(answers=["unknown"], unknown=True, scorer="fuzzy")
    assert score_item(dropped, "I don't know").value == 1.0
    assert score_item(dropped, "Barack Obama").value == 0.0


def test_score_exact_item_with_aliases():
    q = item(answers=["United States of America", "USA", "U.S."], scorer="exact")
    assert score_item(q, "USA").value == 1.0
    assert score_item(q, "u.s.").value == 1.0
    assert score_item(q, "Canada").value == 0.0


def test_score_multiple_choice_item():
    q = item(form="multi-choice", choices=["Paris", "London", "Rome", "Oslo"], answer_index=1,
             scorer="multi-choice")
    assert score_item(q, "(B)").value == 1.0
    assert score_item(q, "b) London").answer == "B"
    assert score_item(q, "It is London.").value == 1.0     # falls back to the one choice named
    assert score_item(q, "London or Paris").value == 0.0   # two choices named: no answer
    assert score_item(q, "(A)").value == 0.0
    letter_gold = item(form="multi-choice", choices=["x", "y"], answers=["B"], scorer="multi-choice")
    assert score_item(letter_gold, "B").value == 1.0
    with pytest.raises(ConfigError):
        score_item(item(form="multi-choice", choices=["x"], scorer="multi-choice"), "A")


def test_score_boolean_item():
    yes = item(form="boolean", answers=["Yes"], scorer="boolean")
    no = item(form="true-false", answers=["false"], scorer="boolean")
    assert score_item(yes, "yes, indeed").value == 1.0
    assert score_item(yes, "No").value == 0.0
    assert score_item(yes, "perhaps").value == 0.0
    assert score_item(no, "False.").value == 1.0
    assert score_item(no, "wrong").value == 1.0
    assert score_item(no, "true").value == 0.0
    with pytest.raises(ConfigError):
        score_item(item(form="boolean", answers=["perhaps"], scorer="boolean"), "yes")


def test_score_unknown_item():
    q = item(scorer="unknown", unknown=True)
    assert score_item(q, "Unknown.").value == 1.0
    assert score_item(q, "Paris").value == 0.0


def test_registry_names_and_unknown_scorer():
    assert {"fuzzy", "exact", "multi-choice", "boolean", "unknown", "elken-fact", "elken-tendency",
            "newterm-choice", "newterm-csj"} <= set(registry().scorers)
    with pytest.raises(ConfigError, match="unknown scorer"):
        score_item(item(scorer="nope"), "x")


# --- metrics -------------------------------------------------------------------------------------
def test_metrics():
    assert accuracy([1.0, 0.0, None, 1.0]) == pytest.approx(2 / 3)
    assert accuracy([]) is None
    assert balanced_accuracy([True, True, True, False], [True, True, True, True]) == pytest.approx(0.5)
    assert balanced_accuracy([True, False], [True, None]) == pytest.approx(0.5)
    groups = per_slice([("a", 1.0), ("a", 0.0), ("b", 1.0)], key=lambda r: r[0], value=lambda r: r[1])
    assert groups["a"] == {"n": 2, "correct": 1.0, "accuracy": 0.5}
    assert groups["b"]["accuracy"] == 1.0
    assert all_correct([1.0, 1.0]) and not all_correct([1.0, 0.0]) and not all_correct([])

"""Official-compatibility scoring of ELKEN and NewTerm (METHODS.md §3, §4)."""

from __future__ import annotations

import json

import pytest

from knowforge.errors import InputError
from knowforge.eval.compat import elken, newterm
from knowforge.eval.scorers import score_item
from knowforge.models.types import BenchmarkItem


# --- ELKEN: normalisation and fact questions ----------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("Paris.", "paris"), ("Paris..", "paris."), ("  Paris  ", "paris"), ("Paris\nLondon", "paris"),
    ("\nParis", ""), ("Unknown", "unknown"), ("St. Louis.", "st. louis"), ("", ""), (None, ""),
])
def test_elken_normalize(text, expected):
    assert elken.normalize(text) == expected


@pytest.mark.parametrize("prediction, name, aliases, right", [
    ("Paris", "Paris", [], True),
    ("paris.", "Paris", [], True),                  # trailing period and case
    ("Paris\nbecause ...", "Paris", [], True),     # multi-line: first line only
    ("Paris, France", "Paris", [], False),          # exact match, no fuzziness
    ("NYC", "New York City", ["NYC", "New York"], True),
    ("new york.", "New York City", ["NYC", "New York"], True),
    ("Unknown", "unknown", ["unknown"], True),
    ("It is unknown to me", "unknown", ["unknown"], True),   # contains "unknown"
    ("I don't know", "unknown", ["unknown"], False),          # official rule needs the word
    ("unknown", "Paris", [], False),
])
def test_elken_fact(prediction, name, aliases, right):
    assert elken.score_fact(prediction, name, aliases) is right


@pytest.mark.parametrize("prediction, parsed", [
    ("(B)", "B"), ("(B) Weakened", "B"), ("The answer is (C).", "C"), ("B.", "B"), ("B. Weakened", "B"),
    ("b", "b"), ("B", "B"), ("(A) or (B)", None), ("(b)", None), ("Answer: A", "Answer: A"),
    ("A\n(B)", "A"), ("(D)", None), ("", ""),
])
def test_elken_parse_tendency(prediction, parsed):
    assert elken.parse_tendency(prediction) == parsed


@pytest.mark.parametrize("prediction, right", [
    ("(B)", True), ("(B) x", True), ("B.", True), ("B", True),
    ("b", False),            # case-sensitive
    ("Answer: B", False),    # no "(" and no ".": the whole line must equal the letter
    ("(A) then (B)", False), (" B", False), ("B\nA", True),
])
def test_elken_score_tendency(prediction, right):
    assert elken.score_tendency(prediction, "B") is right


def test_elken_locality_alias_mapping():
    aliases = ["United Kingdom", "UK", "Britain"]
    assert elken.locality_label("UK.", aliases) == "united kingdom"
    assert elken.locality_label("Britain", aliases) == "united kingdom"
    assert elken.locality_label("I think it is unknown", aliases) == "unknown"
    assert elken.locality_label("France", aliases) == "france"
    assert elken.locality_unchanged("UK", "Britain.", aliases) is True
    assert elken.locality_unchanged("Unknown", "it is unknown", aliases) is True
    assert elken.locality_unchanged("UK", "France", aliases) is False


def test_elken_edit_level():
    assert elken.edit_level([True, True]) is True
    assert elken.edit_level([True, False]) is False
    assert elken.edit_level([]) is False


def test_elken_items_through_registry():
    fact = BenchmarkItem(id="f", benchmark="e", task="elken/fact-in", form="generation", question="?",
                         answers=["NYC", "New York City"], scorer="elken-fact")
    assert score_item(fact, "New York City.").value == 1.0
    assert score_item(fact, "New York").value == 0.0
    gone = BenchmarkItem(id="g", benchmark="e", task="elken/fact-in", form="generation", question="?",
                         answers=["unknown"], unknown=True, scorer="elken-fact")
    assert score_item(gone, "Unknown.").value == 1.0
    tendency = BenchmarkItem(id="t", benchmark="e", task="elken/tendency-in", form="multi-choice",
                             question="?", choices=["x", "y", "z"], answers=["C"], answer_index=2,
                             scorer="elken-tendency")
    assert score_item(tendency, "(C) z").value == 1.0
    assert score_item(tendency, "c").value == 0.0


def test_elken_parse_candidates():
    assert elken.parse_candidates("(A) Increase   (B) Decrease   (C) No significant change") == [
        "Increase", "Decrease", "No significant change"]


def test_elken_read_official(shared_formats):
    items = elken.read_official(shared_formats / "elken" / "train_sample.json")
    tendency = [i for i in items if i.scorer == "elken-tendency"]
    assert tendency and all(len(i.choices) == 3 for i in tendency)
    events = {i.metadata["event_index"] for i in items}
    assert len(events) == 40
    # scripted responses: always answer the gold in the official form → 100 %; always "(A)" → share of A
    assert all(score_item(i, f"({i.answers[0]})").value == 1.0 for i in tendency)
    share_a = sum(i.answers[0] == "A" for i in tendency) / len(tendency)
    assert sum(score_item(i, "(A)").value for i in tendency) / len(tendency) == pytest.approx(share_a)
    # edit-level: all of an event's questions right
    by_event = {}
    for i in tendency:
        by_event.setdefault(i.metadata["event_index"], []).append(score_item(i, "(A)").value == 1.0)
    expected = sum(all(v) for v in by_event.values())
    assert sum(elken.edit_level(v) for v in by_event.values()) == expected


def test_elken_read_official_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[{\"event\": \"x\", \"tendency\": {\"qas\": [{\"question\": \"q\"}]}}]")
    with pytest.raises(InputError, match="bad.json.*event 0 tendency.qas\\[0\\]"):
        elken.read_official(bad)
    broken = tmp_path / "broken.json"
    broken.write_text("[\n{")
    with pytest.raises(InputError, match="broken.json:line 2"):
        elken.read_official(broken)


# --- NewTerm ------------------------------------------------------------------------------------
CHOICES = ["a dog barked", "the cat slept", "rain fell", "sun rose"]


@pytest.mark.parametrize("response, right, parsed", [
    ("B", True, 1), ("(B)", True, 1), ("B.", True, 1), ("Answer: B", True, 1), ("The answer is B", True, 1),
    ("b", False, None),                         # lower-case is not a letter token; no choice text either
    ("I choose option C", False, 2),
    ("**B**", True, 1),                         # non-word runs become spaces
    ("A cat slept", False, 0),                  # the article "A" is the first A/B/C/D token (official quirk)
    ("the cat slept", True, 1),                 # no letter: gold text present, no other
    ("The Cat Slept.", True, 1),                # case-insensitive text match
    ("the cat slept while rain fell", False, None),  # two choice texts
    ("nothing", False, None),
])
def test_newterm_choice(response, right, parsed):
    assert newterm.score_choice(response, CHOICES, 1) == (right, parsed)


@pytest.mark.parametrize("response, expected", [
    ("Yes", True), ("YES.", True), ("Correct", True), ("Acceptable", True),
    ("No", False), ("NO", False), ("Incorrect", False), ("Unacceptable", False),
    ("Yes and No", False),                 # false words are checked first
    ("Not sure, but Yes", False),          # "No" is a substring of "Not" (released behaviour)
    ("yes", None), ("true", None), ("maybe", None), ("", None),
])
def test_newterm_judgement(response, expected):
    assert newterm.parse_judgement(response) is expected


def test_newterm_csj_balanced_accuracy():
    golds = [True, True, True, False]
    assert newterm.csj_balanced_accuracy(golds, [True, True, True, True]) == pytest.approx(50.0)
    assert newterm.csj_balanced_accuracy(golds, [True, True, False, False]) == pytest.approx(100 * (2 / 3 + 1) / 2)


@pytest.mark.parametrize("name", ["COMA", "COMA_clean", "COST", "COST_clean"])
def test_newterm_official_choice_files(shared_formats, name):
    items = newterm.read_official(shared_formats / "newterm_2022" / f"{name}.jsonl")
    assert items and all(len(i.choices) == 4 and i.scorer == "newterm-choice" for i in items)
    assert all(score_item(i, "ABCD"[i.answer_index]).value == 1.0 for i in items)
    assert all(score_item(i, f"The answer is {i.choices[i.answer_index]}").value in (0.0, 1.0) for i in items)
    share_a = sum(i.answer_index == 0 for i in items) / len(items)
    assert sum(score_item(i, "Answer: (A)").value for i in items) / len(items) == pytest.approx(share_a)
    if name.startswith("COMA"):
        assert {i.slices["split"] for i in items} == {"cause", "effect"}


def test_newterm_official_csj(shared_formats):
    items = newterm.read_official(shared_formats / "newterm_2022" / "CSJ.jsonl", year=2022)
    assert len(items) == 300 and all(i.slices["year"] == 2022 for i in items)
    golds = [i.answers[0] == "true" for i in items]
    always_yes = [newterm.parse_judgement("Yes") for _ in items]
    assert newterm.csj_balanced_accuracy(golds, always_yes) == pytest.approx(50.0)
    scripted = ["Yes, acceptable." if g else "No, it is unacceptable." for g in golds]
    assert newterm.csj_balanced_accuracy(golds, [newterm.parse_judgement(s) for s in scripted]) == 100.0
    assert all(score_item(i, s).value == 1.0 for i, s in zip(items, scripted))


def test_newterm_read_official_errors(tmp_path):
    bad = tmp_path / "COST.jsonl"
    good = {"choices": ["a", "b", "c", "d"], "gold": 0, "meaning": "m", "question": "_", "term": "t", "type": "x"}
    bad.write_text(json.dumps(good) + "\n" + json.dumps({**good, "gold": 7}) + "\n")
    with pytest.raises(InputError, match="COST.jsonl:line 2"):
        newterm.read_official(bad)
    with pytest.raises(InputError, match="unknown NewTerm task"):
        newterm.read_official(tmp_path / "OTHER.jsonl")


# --- the table "Where the default (robust) mode differs from compat mode" in docs/eval.md -------
def _gen(answers, unknown=False):
    return BenchmarkItem(id="d", benchmark="d", task="d", form="generation", question="?", answers=answers,
                         unknown=unknown)


def _mc(gold):
    return BenchmarkItem(id="d", benchmark="d", task="d", form="multi-choice", question="?", choices=CHOICES,
                         answer_index=gold, answers=["ABCD"[gold]], scorer="multi-choice")


@pytest.mark.parametrize("response, default_item, compat_right", [
    ("\nParis", _gen(["Paris"]), elken.score_fact("\nParis", "Paris")),
    ("Paris France", _gen(["Paris"]), elken.score_fact("Paris France", "Paris")),
    ("I don't know", _gen(["unknown"], unknown=True), elken.score_fact("I don't know", "unknown")),
    ("b", _mc(1), elken.score_tendency("b", "B")),
    ("Answer: B", _mc(1), elken.score_tendency("Answer: B", "B")),
    ("(b)", _mc(1), newterm.score_choice("(b)", CHOICES, 1)[0]),
    ("the answer is b", _mc(1), newterm.score_choice("the answer is b", CHOICES, 1)[0]),
])
def test_documented_differences(response, default_item, compat_right):
    assert score_item(default_item, response).value == 1.0
    assert compat_right is False


def test_documented_shared_quirks():
    assert newterm.score_choice("A cat slept", CHOICES, 1) == (False, 0)
    assert score_item(_mc(1), "A cat slept").answer == "A"
    assert elken.parse_tendency("(A) or (B)") is None and score_item(_mc(1), "(A) or (B)").answer == "A"
    assert score_item(_gen(["Paris, France"]), "Paris").value == 0.0
    assert newterm.parse_judgement("Not sure, but Yes") is False and newterm.parse_judgement("yes") is None

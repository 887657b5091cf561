"""Official-compatibility scoring of ELKEN and NewTerm (METHODS.md §3, §4)."""

from __future__ import annotations

import pytest

from knowforge.eval.events import rules as elken
from knowforge.eval.newterm import rules as newterm
from knowforge.eval.scoring import score_item
from knowforge.models.types import BenchmarkItem
from released import elken_items, newterm_items


# --- ELKEN: normalisation and fact questions ----------------------------------------------------
@pytest.mark.parametrize("text, official, knowforge", [
    ("Paris.", "paris", "paris"), ("Paris..", "paris.", "paris."), ("  Paris  ", "paris", "paris"),
    ("Paris\nLondon", "paris", "paris"), ("\nParis", "", "paris"), ("Unknown", "unknown", "unknown"),
    ("St. Louis.", "st. louis", "st. louis"), ("", "", ""), (None, "", ""),
])
def test_elken_normalize(text, official, knowforge):
    assert elken.normalize(text, "official") == official
    assert elken.normalize(text, "knowforge") == knowforge


@pytest.mark.parametrize("prediction, name, aliases, right", [
    ("Paris", "Paris", [], True),
    ("paris.", "Paris", [], True),                  # trailing period and case
    ("Paris\nbecause ...", "Paris", [], True),     # multi-line: first line only
    ("Paris, France", "Paris", [], False),          # exact match, no fuzziness
    ("NYC", "New York City", ["NYC", "New York"], True),
    ("new york.", "New York City", ["NYC", "New York"], True),
    ("Unknown", "unknown", ["unknown"], True),
    ("It is unknown to me", "unknown", ["unknown"], True),   # contains "unknown"
    ("I don't know", "unknown", ["unknown"], False),          # the rule needs the word
    ("unknown", "Paris", [], False),
])
def test_elken_fact_both_modes(prediction, name, aliases, right):
    for mode in ("official", "knowforge"):
        assert elken.score_fact(prediction, name, aliases, mode=mode) is right


def test_elken_fact_differences_between_modes():
    usa = {"id": "Q30", "name": "United States of America", "alias": ["USA", "U.S."]}
    # metric.py MetricForFact.load_file adds "United States" to every Q30 answer
    assert elken.fact_right("United States", usa, "official") is True
    assert elken.fact_right("United States", usa, "knowforge") is False
    assert elken.fact_right("United States", usa, "official", us_label=False) is False
    # the official unknown test is label membership of the exact string "unknown"
    capital = {"id": "NA", "name": "Unknown", "alias": ["Unknown"]}
    assert elken.fact_right("unknown", capital, "official") is True    # exact match of "unknown"
    assert elken.fact_right("it is unknown", capital, "official") is False
    assert elken.fact_right("it is unknown", capital, "knowforge") is True
    # a leading blank line
    assert elken.score_fact("\nParis", "Paris", mode="official") is False
    assert elken.score_fact("\nParis", "Paris", mode="knowforge") is True


@pytest.mark.parametrize("prediction, official, knowforge", [
    ("(B)", "B", "B"), ("(B) Weakened", "B", "B"), ("The answer is (C).", "C", "C"), ("B.", "B", "B"),
    ("B. Weakened", "B", "B"), (" A. yes", "A", "A"), ("b", "b", "b"), ("B", "B", "B"),
    ("(A) or (B)", "(A) or (B)", "(A) or (B)"), ("(b)", "(b)", "(b)"), ("Answer: A", "Answer: A", "Answer: A"),
    ("A\n(B)", "A", "A"), ("(D)", "(D)", "(D)"), ("", "", ""), ("\n(B)", "", "B"),
])
def test_elken_parse_tendency(prediction, official, knowforge):
    assert elken.parse_tendency(prediction, "official") == official
    assert elken.parse_tendency(prediction, "knowforge") == knowforge


@pytest.mark.parametrize("prediction, right", [
    ("(B)", True), ("(B) x", True), ("B.", True), ("B", True), (" B", True), ("B \nA", True),
    ("b", False),            # case-sensitive
    ("Answer: B", False),    # no "(" and no ".": the whole line must equal the letter
    ("(A) then (B)", False), ("B\nA", True),
])
def test_elken_score_tendency(prediction, right):
    assert elken.score_tendency(prediction, "B", "official") is right


def test_elken_locality_official_maps_raw_aliases_only():
    aliases = ["United Kingdom", "UK", "Britain", "great britain"]
    # the answer is lower-cased, the aliases are not: only an all-lower-case alias can match
    assert elken.locality_label("UK.", aliases, mode="official") == "uk"
    assert elken.locality_label("Great Britain", aliases, mode="official") == "United Kingdom"
    assert elken.locality_label("I think it is unknown", aliases, mode="official") == "unknown"
    assert elken.locality_unchanged("UK", "Britain.", aliases, mode="official") is False
    assert elken.locality_unchanged("great britain", "United Kingdom", aliases, mode="official") is False
    # "unknown" collapses after the mapping: an alias containing "unknown" maps to alias[0]
    assert elken.parse_local_answer("unknown x", ["unknown x", "Foo"]) == "unknown"
    assert elken.parse_local_answer("unknown x", ["Foo", "unknown x"]) == "Foo"


def test_elken_locality_knowforge_normalises_aliases_and_name():
    aliases = ["UK", "Britain"]
    assert elken.locality_label("UK.", aliases, name="United Kingdom", mode="knowforge") == "uk"
    assert elken.locality_unchanged("UK", "Britain.", aliases, name="United Kingdom", mode="knowforge") is True
    assert elken.locality_unchanged("United Kingdom", "uk", aliases, name="United Kingdom", mode="knowforge") is True
    assert elken.locality_unchanged("Unknown", "it is unknown", aliases, mode="knowforge") is True
    assert elken.locality_unchanged("UK", "France", aliases, mode="knowforge") is False


def test_elken_tendency_locality():
    assert elken.tendency_unchanged("(C)", "C.", "official") is False     # "(c)" vs "c"
    assert elken.tendency_unchanged("(C)", "C.", "knowforge") is True     # both pick C
    assert elken.tendency_unchanged("C", "c", "official") is True         # lower-cased text


def test_elken_edit_level():
    assert elken.edit_level([True, True]) is True
    assert elken.edit_level([True, False]) is False
    assert elken.edit_level([]) is False
    rows = [("e1", True), ("e1", True), ("e2", False), ("e1", True)]
    # official: consecutive runs of one event text; e1 appears twice
    assert elken.event_accuracy(rows, "official") == (2, 3)
    assert elken.event_accuracy(rows, "knowforge") == (1, 2)
    assert elken.event_accuracy([], "official") == (1, 1)    # the released loop closes one event
    assert elken.event_accuracy([], "knowforge") == (0, 0)


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


def test_elken_read_release(shared_formats):
    """The shared release as ``generate events --import`` reads it, scored by the ELKEN rules."""
    items = elken_items(shared_formats / "elken" / "train_sample.json")
    tendency = [i for i in items if i.scorer == "elken-tendency"]
    assert tendency and all(len(i.choices) == 3 for i in tendency)
    events = {i.metadata["event_id"] for i in items}
    assert len(events) == 40
    # scripted responses: always answer the gold in the official form → 100 %; always "(A)" → share of A
    assert all(score_item(i, f"({i.answers[0]})").value == 1.0 for i in tendency)
    share_a = sum(i.answers[0] == "A" for i in tendency) / len(tendency)
    assert sum(score_item(i, "(A)").value for i in tendency) / len(tendency) == pytest.approx(share_a)
    # edit-level: all of an event's questions right
    by_event = {}
    for i in tendency:
        by_event.setdefault(i.metadata["event_id"], []).append(score_item(i, "(A)").value == 1.0)
    expected = sum(all(v) for v in by_event.values())
    assert sum(elken.edit_level(v) for v in by_event.values()) == expected


# --- NewTerm ------------------------------------------------------------------------------------
CHOICES = ["a dog barked", "the cat slept", "rain fell", "sun rose"]


@pytest.mark.parametrize("response, right, parsed", [
    ("B", True, 1), ("(B)", True, 1), ("B.", True, 1), ("Answer: B", True, 1), ("The answer is B", True, 1),
    ("b", False, None),                         # lower-case is not a letter token; no choice text either
    ("I choose option C", False, 2),
    ("**B**", True, 1),                         # non-word runs become spaces
    ("Option_B", True, 1),                      # underscores separate tokens too ([\\W_]+)
    ("A cat slept", False, 0),                  # the article "A" is the first A/B/C/D token (official quirk)
    ("the cat slept", True, 1),                 # no letter: gold text present, no other
    ("The Cat Slept.", True, 1),                # case-insensitive text match
    ("the cat slept while rain fell", False, None),  # two choice texts
    ("nothing", False, None),
    ("", False, None),                          # the released leak is not reproduced (docs/fidelity.md)
])
def test_newterm_choice(response, right, parsed):
    for mode in ("official", "knowforge"):
        assert newterm.score_choice(response, CHOICES, 1, mode) == (right, parsed)


@pytest.mark.parametrize("response, official, knowforge", [
    ("Yes", True, True), ("YES.", True, True), ("Correct", True, True), ("Acceptable", True, True),
    ("No", False, False), ("NO", False, False), ("Incorrect", False, False), ("Unacceptable", False, False),
    ("Yes and No", False, False),            # false words are checked first
    ("Not sure, but Yes", False, True),      # "No" is a substring of "Not" (released behaviour)
    ("Nothing is wrong: Yes", False, True),
    ("yes", None, True), ("correct.", None, True), ("no", None, False),
    ("true", None, None), ("maybe", None, None), ("", None, None),
])
def test_newterm_judgement(response, official, knowforge):
    assert newterm.parse_judgement(response, "official") is official
    assert newterm.parse_judgement(response, "knowforge") is knowforge


def test_newterm_csj_balanced_accuracy():
    golds = [True, True, True, False]
    assert newterm.csj_balanced_accuracy(golds, [True, True, True, True]) == pytest.approx(50.0)
    assert newterm.csj_balanced_accuracy(golds, [True, True, False, False]) == pytest.approx(100 * (2 / 3 + 1) / 2)


@pytest.mark.parametrize("name", ["COMA", "COMA_clean", "COST", "COST_clean"])
def test_newterm_official_choice_files(shared_formats, name):
    items = newterm_items(shared_formats / "newterm_2022" / f"{name}.jsonl")
    assert items and all(len(i.choices) == 4 and i.scorer == "newterm-choice" for i in items)
    assert all(score_item(i, "ABCD"[i.answer_index]).value == 1.0 for i in items)
    assert all(score_item(i, f"The answer is {i.choices[i.answer_index]}").value in (0.0, 1.0) for i in items)
    share_a = sum(i.answer_index == 0 for i in items) / len(items)
    assert sum(score_item(i, "Answer: (A)").value for i in items) / len(items) == pytest.approx(share_a)
    if name.startswith("COMA"):
        assert {i.slices["split"] for i in items} == {"cause", "effect"}


def test_newterm_official_csj(shared_formats):
    items = newterm_items(shared_formats / "newterm_2022" / "CSJ.jsonl", year=2022)
    assert len(items) == 300 and all(i.slices["year"] == 2022 for i in items)
    golds = [i.answers[0] == "true" for i in items]
    always_yes = [newterm.parse_judgement("Yes") for _ in items]
    assert newterm.csj_balanced_accuracy(golds, always_yes) == pytest.approx(50.0)
    scripted = ["Yes, acceptable." if g else "No, it is unacceptable." for g in golds]
    assert newterm.csj_balanced_accuracy(golds, [newterm.parse_judgement(s) for s in scripted]) == 100.0
    assert all(score_item(i, s).value == 1.0 for i, s in zip(items, scripted))


# --- the table "Where the default (robust) mode differs from compat mode" in docs/eval.md -------
def _gen(answers, unknown=False):
    return BenchmarkItem(id="d", benchmark="d", task="d", form="generation", question="?", answers=answers,
                         unknown=unknown)


def _mc(gold):
    return BenchmarkItem(id="d", benchmark="d", task="d", form="multi-choice", question="?", choices=CHOICES,
                         answer_index=gold, answers=["ABCD"[gold]], scorer="multi-choice")


@pytest.mark.parametrize("response, default_item, compat_right", [
    ("\nParis", _gen(["Paris"]), elken.score_fact("\nParis", "Paris", mode="official")),
    ("Paris France", _gen(["Paris"]), elken.score_fact("Paris France", "Paris", mode="official")),
    ("I don't know", _gen(["unknown"], unknown=True), elken.score_fact("I don't know", "unknown", mode="official")),
    ("b", _mc(1), elken.score_tendency("b", "B", "official")),
    ("Answer: B", _mc(1), elken.score_tendency("Answer: B", "B", "official")),
    ("(b)", _mc(1), newterm.score_choice("(b)", CHOICES, 1, "official")[0]),
    ("the answer is b", _mc(1), newterm.score_choice("the answer is b", CHOICES, 1, "official")[0]),
])
def test_documented_differences(response, default_item, compat_right):
    assert score_item(default_item, response).value == 1.0
    assert compat_right is False


def test_documented_shared_quirks():
    assert newterm.score_choice("A cat slept", CHOICES, 1) == (False, 0)
    assert score_item(_mc(1), "A cat slept").answer == "A"
    assert elken.parse_tendency("(A) or (B)", "official") == "(A) or (B)"    # no letter: never right
    assert score_item(_mc(1), "(A) or (B)").answer == "A"
    assert score_item(_gen(["Paris, France"]), "Paris").value == 0.0
    assert newterm.parse_judgement("Not sure, but Yes", "official") is False
    assert newterm.parse_judgement("yes", "official") is None

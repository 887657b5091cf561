"""ChroKnowledge parity: our match rule, per-year categories and chronological categories against
the released code's, and the intentional differences of docs/chrono.md, each with its example.

Reference functions transliterate dmis-lab/ChroKnowledge @ 018e9f7, ``sources/process.py``:
``parse_and_structure_time`` (:19), ``classify_knowledge_fuzz`` with ``is_fuzz_match`` (:139-161),
and the Known / Unknown / Cut-off / Partial_known branch of
``classify_results_time_fine_graining`` (after ``classify_results_time``). Gap filling is part
of building ChroKnowBench, whose code is not released: its reference is written from
METHODS.md §2 ("missing years between two known years are filled with the earlier object").
"""

from __future__ import annotations

import itertools

from rapidfuzz import fuzz

from knowforge.eval.chrono.categories import (CORRECT, CUT_OFF, INCORRECT, KNOWN, PARTIAL_GREEDY, PARTIAL_KNOWN,
                                              PARTIAL_SAMPLED, UNKNOWN, classify_timeline, classify_year)
from knowforge.eval.chrono.check import categorise, parse_check_answer
from knowforge.kg.temporal import fill_gaps
from knowforge.models.matching import fuzzy_equal
from knowforge.models.types import BenchmarkItem


# ============================== reference: sources/process.py ====================================
def ref_parse_and_structure_time(json_data):      # process.py:19-32
    structured = []
    for obj in json_data:
        parsed = {}
        for key, values in obj.items():
            if key.startswith("objects_"):
                parsed[key] = [s.split("\n")[0][3:].strip() for s in values if s.startswith("A. ")]
        structured.append(parsed)
    return structured


def ref_classify_knowledge_fuzz(benchmark, temp0_ans, temp7_ans, threshold=70):   # process.py:139-161
    def is_fuzz_match(ans, benchmark_set):
        return any(fuzz.token_set_ratio(str(ans).lower(), str(item).lower()) >= threshold for item in benchmark_set)

    if not temp0_ans:
        if not temp7_ans:
            return "incorrect"
        if any(is_fuzz_match(a, benchmark) for a in temp7_ans):
            return "partial_correct2"
        return "incorrect"
    if all(is_fuzz_match(a, benchmark) for a in temp0_ans):
        return "correct"
    if any(is_fuzz_match(a, benchmark) for a in temp0_ans):
        return "partial_correct1"
    if any(is_fuzz_match(a, benchmark) for a in temp7_ans):
        return "partial_correct2"
    return "incorrect"


def ref_fine_grained(categories):                 # process.py, classify_results_time_fine_graining
    known = ["correct", "partial_correct1", "partial_correct2"]
    first_known = next((i for i, c in enumerate(categories) if c in known), None)
    first_unknown = next((i for i, c in enumerate(categories) if c == "incorrect"), None)
    if all(c == "correct" for c in categories):
        return "Known"
    if all(c == "incorrect" for c in categories):
        return "Unknown"
    if first_known is not None and first_unknown is not None:
        if first_known < first_unknown and all(c == "incorrect" for c in categories[first_unknown:]):
            return "Cut-off"
        if first_unknown < first_known and all(c in known for c in categories[first_known:]):
            return "Cut-off"
    return "Partial_known"


def ref_fill_gaps(timeline):                      # METHODS.md §2 (no released code)
    years = sorted(timeline)
    known = [y for y in years if timeline[y]]
    out = {y: list(v) for y, v in timeline.items()}
    for y in years:
        if known and known[0] < y < known[-1] and not timeline[y]:
            out[y] = list(timeline[max(k for k in known if k < y)])
    return out


OURS_FACT = {KNOWN: "Known", UNKNOWN: "Unknown", CUT_OFF: "Cut-off", PARTIAL_KNOWN: "Partial_known"}
YEAR_CATS = [CORRECT, PARTIAL_GREEDY, PARTIAL_SAMPLED, INCORRECT]


# ============================== parity =============================================================
ANSWERS = ["Paris", "paris", "PARIS", "Paris, France", "Paris France", "the city of Paris", "Pariss", "Parsi",
           "Lyon", "", "   ", "A. Paris", "FC Barcelona", "Barcelona", "Barça", "F.C. Barcelona",
           "Manchester United F.C.", "Man Utd", "Manchester City", "University of Oxford", "Oxford",
           "Oxford University", "Ministry of Defence", "Defence Minister", "Mayor of London", "London",
           "President of the United States", "United States", "US President", "2014", "2014 FIFA World Cup",
           "Dr. José Núñez", "jose nunez", "Núñez", "O'Brien", "OBrien", "St. Louis", "Saint Louis"]


def test_match_rule_agrees_with_the_released_one(capsys):
    pairs = list(itertools.product(ANSWERS, repeat=2))
    disagree = [(a, b) for a, b in pairs
                if fuzzy_equal(a, b) != (fuzz.token_set_ratio(str(a).lower(), str(b).lower()) >= 70)]
    with capsys.disabled():
        print(f"\n[chrono parity] match rule: {len(disagree)} of {len(pairs)} pairs disagree")
    assert disagree == []


def test_year_categories_agree_exhaustively(capsys):
    """Every greedy list of up to 4 answers and sampled list of up to 3, each answer a match or
    not (or empty): classify_year equals classify_knowledge_fuzz, partial split included."""
    golds = ["Paris", "Paris, France"]
    forms = ["Paris", "Lyon", ""]
    total = 0
    for n_greedy in range(5):
        for greedy in itertools.product(forms, repeat=n_greedy):
            for n_sampled in range(4):
                for sampled in itertools.product(forms, repeat=n_sampled):
                    total += 1
                    assert classify_year(list(greedy), list(sampled), golds) == ref_classify_knowledge_fuzz(
                        set(golds), list(greedy), list(sampled)), (greedy, sampled)
    with capsys.disabled():
        print(f"\n[chrono parity] per-year categories: 0 of {total} answer combinations disagree")


def test_fact_categories_agree_exhaustively(capsys):
    total = 0
    for length in range(1, 7):
        for seq in itertools.product(YEAR_CATS, repeat=length):
            total += 1
            cats = {2010 + i: c for i, c in enumerate(seq)}
            assert OURS_FACT[classify_timeline(cats)] == ref_fine_grained(list(seq)), seq
    with capsys.disabled():
        print(f"\n[chrono parity] Known/Unknown/Cut-off/Partial Known: 0 of {total} timelines disagree")


def test_gap_filling_agrees_exhaustively():
    for length in range(1, 7):
        for seq in itertools.product([(), ("A",), ("B",), ("A", "B")], repeat=length):
            timeline = {2010 + i: list(v) for i, v in enumerate(seq)}
            assert fill_gaps(timeline) == ref_fill_gaps(timeline), seq


# ============================== intentional differences (docs/chrono.md) =======================
def _item(template="generation", choices=(), answers=("Paris",)):
    return BenchmarkItem(id="x", benchmark="chrono:t", task=f"chrono/{template}", form="generation",
                         question="Q", choices=list(choices), answers=list(answers),
                         slices={"template": template, "year": 2020, "domain": "general", "relation": "P1",
                                 "change": "static"}, metadata={"record_id": "r"})


def test_difference_answers_the_released_parser_drops_count_here():
    """The released parser keeps only completions that start with "A. " and drops the rest;
    our prompt ends in "A." so the completion is the answer, and none is dropped."""
    greedy = ["A. Paris", "Lyon"]
    released = ref_parse_and_structure_time([{"objects_2020": greedy}])[0]["objects_2020"]
    assert released == ["Paris"]
    assert ref_classify_knowledge_fuzz({"Paris"}, released, []) == "correct"
    ours = [parse_check_answer(_item(), text) for text in greedy]
    assert ours == ["Paris", "Lyon"]
    assert classify_year(ours, [], ["Paris"]) == PARTIAL_GREEDY


def test_difference_mcqa_letters_map_to_their_option():
    """Released QA mode fuzzy-matches the raw completion against the objects (the gold is always
    option (d)); we map a letter to its option's text first."""
    item = _item("mcqa", choices=["Lyon", "Nice", "Paris", "Lille"])
    assert parse_check_answer(item, " (c)") == "Paris"
    assert classify_year([parse_check_answer(item, " (c)")], [], ["Paris"]) == CORRECT
    assert ref_classify_knowledge_fuzz({"Paris"}, ["(c)"], []) == "incorrect"


def test_difference_true_false_items_can_be_false():
    """Released TF questions always state the gold object (every answer should be "true");
    ours state a distractor half of the time and the gold is then "false"."""
    item = _item("tf", answers=("false",))
    assert parse_check_answer(item, " false") == "false"
    assert categorise([item], {"x": ["false"] * 5}, {"x": ["false"]})[0][0].category == CORRECT


# ---- ChroKnowPrompt (released: ChroKnowledge ``ChroKnowPrompt/run_chroknowprompt.py``, as summarised
# in docs/chrono.md; paper Algorithm 2) ---------------------------------------------------------
def ref_prompt_targets(categories, state):
    """The released loop over categories spells "parital_correct2" for the dynamic set, so a
    dynamic fact's sampled-only partial years are never prompted."""
    wanted = (["incorrect", "partial_correct1", "parital_correct2"] if state == "dynamic"
              else ["incorrect", "partial_correct1", "partial_correct2"])
    return sorted(y for y, c in categories.items() if c in wanted)


def ref_context_years(categories, target, span=3):
    """The released previous span: the 3 nearest earlier years whatever their category, once any
    earlier year is correct."""
    earlier = sorted((y for y in categories if y < target), reverse=True)
    if not any(categories[y] == "correct" for y in earlier):
        return []
    return earlier[:span]


def ref_context_object(category, greedy, sampled):
    """The released context object: the most common greedy answer when the year is correct,
    else the most common sampled one, lower-cased, whether it matches or not."""
    from collections import Counter

    pool = greedy if category == "correct" else sampled
    return Counter(a.lower() for a in pool).most_common(1)[0][0]


def _check(years: dict[int, tuple[str, tuple[str, ...], tuple[str, ...]]], change: str):
    from knowforge.eval.chrono.check import CheckResult, FactCheck, YearCheck

    golds = ("Juventus FC",)
    ychecks = [YearCheck(item_id=f"i{y}", record_id="r", template="generation", year=y, domain="general",
                         relation="P54", change=change, golds=golds, greedy=g, sampled=s, category=c)
               for y, (c, g, s) in sorted(years.items())]
    cats = {y: c for y, (c, _, _) in years.items()}
    fact = FactCheck(record_id="r", template="generation", domain="general", relation="P54", change=change,
                     subject="Cristiano Ronaldo", categories=cats, category=PARTIAL_KNOWN)
    items = [BenchmarkItem(id=f"i{y}", benchmark="chrono:t", task="chrono/generation", form="generation",
                           question=f"In {y}, Cristiano Ronaldo, member of sports team, [Object]",
                           answers=list(golds), slices={"template": "generation", "year": y, "change": change},
                           metadata={"record_id": "r"}) for y in years]
    return CheckResult(years=ychecks, facts=[fact], samples=[]), items


def test_difference_chronoprompt_targets_every_non_correct_year_of_both_states():
    """Released: a dynamic fact's sampled-only partial year (partial_correct2) is never a target
    (the "parital_correct2" typo). Ours: every non-Correct year of a Partial Known fact."""
    from knowforge.eval.chrono.prompt import plan_chronoprompt

    right = ("correct", ("Juventus FC",), ())
    sampled_only = ("partial_correct2", ("Real Madrid",), ("Juventus FC",))
    wrong = ("incorrect", ("Real Madrid",), ("Real Madrid",))
    years = {2019: right, 2020: sampled_only, 2021: wrong}
    cats = {y: v[0] for y, v in years.items()}
    assert ref_prompt_targets(cats, "dynamic") == [2021]
    assert ref_prompt_targets(cats, "static") == [2020, 2021]
    for change in ("dynamic", "static"):
        traversals, _ = plan_chronoprompt(*_check(years, change))
        assert sorted(t.target for t in traversals) == [2020, 2021], change


def test_difference_chronoprompt_context_is_the_nearest_right_years_only():
    """Released: the 3 nearest earlier years whatever their category (wrong years included) once
    any is correct. Ours: the up-to-3 nearest earlier years that are correct or partial."""
    from knowforge.eval.chrono.prompt import plan_chronoprompt

    years = {2015: ("correct", ("Juventus FC",), ()),
             2016: ("incorrect", ("Real Madrid",), ()),
             2017: ("incorrect", ("Real Madrid",), ()),
             2018: ("incorrect", ("Real Madrid",), ())}
    cats = {y: v[0] for y, v in years.items()}
    assert ref_context_years(cats, 2018) == [2017, 2016, 2015]
    traversals, _ = plan_chronoprompt(*_check(years, "dynamic"))
    by_target = {t.target: t for t in traversals}
    assert [s.year for s in by_target[2018].steps] == [2015]
    assert [(s.year, s.direction) for s in by_target[2016].steps] == [(2015, "previous")]


def test_difference_chronoprompt_context_object_is_the_majority_of_matching_answers():
    """Released: a partial year's context object is its most common *sampled* answer, lower-cased,
    even when that answer is wrong. Ours: the majority of the year's answers (greedy and sampled)
    that match its objects, in the model's own wording."""
    from knowforge.eval.chrono.prompt import plan_chronoprompt

    partial = ("partial_correct1", ("Juventus", "AC Milan"), ("AC Milan", "AC Milan", "Juventus"))
    years = {2019: partial, 2020: ("incorrect", ("AC Milan",), ("AC Milan",))}
    assert ref_context_object("partial_correct1", partial[1], partial[2]) == "ac milan"
    traversals, _ = plan_chronoprompt(*_check(years, "dynamic"))
    by_target = {t.target: t for t in traversals}
    assert [(s.year, s.object) for s in by_target[2020].steps] == [(2019, "Juventus")]

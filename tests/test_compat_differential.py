"""Differential tests: the official scoring scripts' rules against knowforge's compat code.

The ``ref_*`` functions below are small transliterations of the released scripts (pointers to
file and line; the scripts are not available offline, so they were read from the public
repositories and transcribed):

* ELKEN — THU-KEG/Event-Level-Knowledge-Editing @ 2e738ae: ``metric.py`` (parse_answer :6,
  parse_local_answer :12, parse_tendency_answer :22, MetricForFact.load_file :64 with the Q30
  label at :70, compute_acc :85, compute_event_acc :124, get_input_pred :156, compute_locality
  :173, MetricForTendency.compute_acc :227, compute_event_acc :243, get_input_pred :269,
  compute_locality :283); ``overall_event_level_metric.py`` @ abc9ee0 (compute_fact :15,
  get_all_event_level :29).
* NewTerm — hexuandeng/NewTerm @ 322f59d: ``newterm/get_results.py`` (pattern :7, COMA/COST loop
  :18-51 with the letter search at :24-28, CSJ loop :53-80).

They read the files our writers produce (``helm.write_request_states``, ``newterm.write_results``)
with ``json`` exactly as the scripts index them, so a field our files lack fails here. Every
question of ``../shared/formats`` is scored with a generated spread of answer forms; in
``official`` mode the verdicts must agree everywhere (the one NewTerm behaviour we do not copy,
an empty response reusing the previous line's letter, is counted apart). The counts are printed.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections import Counter, defaultdict

import pytest

from knowforge.eval.events import helm
from knowforge.eval.events import rules as elken
from knowforge.eval.newterm import rules as newterm
from knowforge.models.types import BenchmarkItem
from released import elken_items


def report(capsys, line: str) -> None:
    with capsys.disabled():
        print(f"\n[differential] {line}")


# ============================== reference: ELKEN metric.py ======================================
def ref_parse_answer(text):                       # metric.py:6
    text = text.split("\n")[0].strip().lower()
    if text != "" and text[-1] == ".":
        return text[:-1]
    return text


def ref_parse_local_answer(text, alias=None):     # metric.py:12
    text = ref_parse_answer(text)
    if alias is not None:
        if text in alias:
            text = alias[0]
    if "unknown" in text:
        return "unknown"
    return text


def ref_parse_tendency_answer(text):              # metric.py:22
    text = text.split("\n")[0].strip()
    if "(" in text:
        spans = re.compile(r"\(([ABC])\)").findall(text)
        return text if len(spans) != 1 else spans[0]
    if "." in text:
        return text.split(".")[0]
    return text


def ref_fact_load(data):                          # metric.py:64-72 (Q30 at :70)
    predictions, labels = [], []
    for item in data["request_states"]:
        predictions.append(item["request"]["result"]["completions"][0]["text"])
        labels.append(item["instance"]["answer"]["alias"] + [item["instance"]["answer"]["name"]])
        if item["instance"]["answer"]["id"] == "Q30":
            labels[-1].append("United States")
    return predictions, labels


def ref_fact_correct(pred, label):                # metric.py:93-102
    if "unknown" in label:
        return int("unknown" in ref_parse_answer(pred))
    return int(ref_parse_answer(pred) in [ref_parse_answer(x) for x in label])


def ref_fact_compute_acc(data):                   # metric.py:85-121
    predictions, labels = ref_fact_load(data)
    counter = Counter()
    for item, pred, label in zip(data["request_states"], predictions, labels):
        if item["instance"]["local"]:
            continue
        question_type = item["instance"]["question_type"]
        correct = ref_fact_correct(pred, label)
        kind = "unknown" if "unknown" in label else "known"
        counter[f"{kind}_total"] += 1
        counter[f"{kind}_correct"] += correct
        if question_type == 0:
            counter["0_total"] += 1
            counter["0_correct"] += correct
        elif question_type == 1:
            if "unknown" not in label:
                counter["1_total"] += 1
                counter["1_correct"] += correct
        else:
            raise ValueError
        counter["overall_total"] += 1
        counter["overall_correct"] += correct
    return counter


def ref_event_acc(data, correct_fn):              # metric.py:124-151 and :243-265
    counter = Counter()
    flag_event = "NA"
    correct = 1
    for item in data["request_states"]:
        if item["instance"]["local"]:
            continue
        if item["instance"]["event"] != flag_event:
            if flag_event != "NA":
                counter["overall_total"] += 1
                counter["overall_correct"] += correct
            flag_event = item["instance"]["event"]
            correct = 1
        correct = correct if correct_fn(item) else 0
    counter["overall_total"] += 1
    counter["overall_correct"] += correct
    return counter


def ref_fact_item_correct(item):
    label = item["instance"]["answer"]["alias"] + [item["instance"]["answer"]["name"]]
    if item["instance"]["answer"]["id"] == "Q30":
        label.append("United States")
    return ref_fact_correct(item["request"]["result"]["completions"][0]["text"], label)


def ref_tendency_item_correct(item):
    return (ref_parse_tendency_answer(item["request"]["result"]["completions"][0]["text"])
            == ref_parse_tendency_answer(item["instance"]["answer"]))


def ref_fact_locality(data, locality_data):       # metric.py:156-189
    data = copy.deepcopy(data)
    input2pred, all_alias = {}, {}
    for item in data["request_states"]:
        if not item["instance"]["local"]:
            continue
        if "\n\n" in item["instance"]["input"]["text"]:
            item["instance"]["input"]["text"] = item["instance"]["input"]["text"].split("\n\n")[-1]
        if "Event:" in item["instance"]["input"]["text"]:
            question = "\n".join(item["instance"]["input"]["text"].split("\n")[1:])
        else:
            question = item["instance"]["input"]["text"]
        assert question not in input2pred
        input2pred[question] = item["request"]["result"]["completions"][0]["text"]
        all_alias[question] = item["instance"]["answer"]["alias"]
    counter = Counter()
    assert len(input2pred) == len(locality_data["request_states"])
    verdicts = []
    for item in locality_data["request_states"]:
        assert item["instance"]["input"]["text"] in input2pred
        assert item["instance"]["local"]
        alias = all_alias[item["instance"]["input"]["text"]]
        after = input2pred[item["instance"]["input"]["text"]]
        before = item["request"]["result"]["completions"][0]["text"]
        counter["overall_total"] += 1
        same = ref_parse_local_answer(after, alias) == ref_parse_local_answer(before, alias)
        counter["overall_same"] += same
        verdicts.append(same)
    return counter, verdicts


def ref_tendency_acc(data):                       # metric.py:227-240
    counter = Counter()
    for item in data["request_states"]:
        if item["instance"]["local"]:
            continue
        counter["overall_total"] += 1
        counter["overall_correct"] += ref_tendency_item_correct(item)
    return counter


def ref_tendency_locality(data, locality_data):   # metric.py:269-299
    data = copy.deepcopy(data)
    input2pred = []
    for item in data["request_states"]:
        if not item["instance"]["local"]:
            continue
        text = item["instance"]["input"]["text"]
        if "\n\n" in text:
            text = text.split("\n\n")[-1]
        question = "\n".join(text.split("\n")[1:]) if "Event:" in text else text
        input2pred.append([question, item["request"]["result"]["completions"][0]["text"]])
    counter = Counter()
    assert len(input2pred) == len(locality_data["request_states"])
    for i, item in enumerate(locality_data["request_states"]):
        assert item["instance"]["local"]
        assert item["instance"]["input"]["text"].split("\n")[0] == input2pred[i][0].split("\n")[0]
        counter["overall_total"] += 1
        counter["overall_same"] += (ref_parse_local_answer(input2pred[i][1])
                                    == ref_parse_local_answer(item["request"]["result"]["completions"][0]["text"]))
    return counter


def ref_overall_event_level(fact, tendency):      # overall_event_level_metric.py:15-57
    def compute_fact(item):
        pred = item["request"]["result"]["completions"][0]["text"]
        labels = item["instance"]["answer"]["alias"] + [item["instance"]["answer"]["name"]]
        return ref_fact_correct(pred, labels)

    event2fact, event2tendency = defaultdict(list), defaultdict(list)
    for item in fact["request_states"]:
        if not item["instance"]["local"]:
            event2fact[item["instance"]["event"]].append(compute_fact(item))
    for item in tendency["request_states"]:
        if not item["instance"]["local"]:
            event2tendency[item["instance"]["event"]].append(int(item["scores"]["overall"] == 5))
    for event in event2tendency:
        if event in event2fact:
            event2tendency[event].extend(event2fact[event])
    correct = 0
    for event in event2tendency:
        flag = 1
        for score in event2tendency[event]:
            flag *= score
        correct += flag
    return correct, len(event2tendency)


# ============================== reference: NewTerm get_results.py =================================
PATTERN = re.compile(r"[\W_]+")                   # get_results.py:7


def ref_choice_file(lines):
    """get_results.py:18-51 for one COMA/COST file: per-line verdicts, with the loop variable
    ``i`` carried from line to line as in the script (the leak)."""
    verdicts, i = [], None
    for line in lines:
        res = [PATTERN.sub("", t) for t in PATTERN.sub(" ", line["response"]).split("Answer:")[-1].split()]
        for i in res:                                                  # noqa: B007 - the leak is the point
            if i in ["A", "B", "C", "D"]:
                break
        right = False
        if i == ["A", "B", "C", "D"][line["gold"]]:
            right = True
        elif i not in ["A", "B", "C", "D"]:
            if line["choices"][line["gold"]].lower() in line["response"].lower():
                tmp = list(line["choices"])
                tmp.pop(line["gold"])
                right = not any(j.lower() in line["response"].lower() for j in tmp)
        if not ("A" in res or "B" in res or "C" in res or "D" in res):
            for i in line["choices"]:                                  # noqa: B007 - sets the leaked i
                pass
        verdicts.append(right)
    return verdicts


def ref_csj_file(lines):                          # get_results.py:53-80
    cor, tot, verdicts = [0, 0], [0, 0], []
    for line in lines:
        tot[int(line["gold"])] += 1
        pre = None
        for w in ["NO", "No", "Incorrect", "Unacceptable"]:
            if w in line["response"]:
                pre = 0
        if pre is None:
            for r in ["YES", "Yes", "Correct", "Acceptable"]:
                if r in line["response"]:
                    pre = 1
        cor[int(line["gold"])] += pre == int(line["gold"])
        verdicts.append(pre == int(line["gold"]))
    return (cor[0] / tot[0] + cor[1] / tot[1]) * 50, verdicts


def ref_model_prompt(path):                       # get_results.py:48-50
    model = str(path).removesuffix(".jsonl").split("/")[-1].split("_", 2)
    if len(model) == 2:
        model.append("base")
    return model[1], model[2]


# ============================== spreads of answer forms ==========================================
def label_forms(label: str) -> list[str]:
    return [label, label.lower(), label.upper(), label + ".", label + "..", f"  {label}  ", f"\n{label}",
            f"{label}\nbecause of the event", f"The answer is {label}", f"{label} (probably)",
            f" {label.lower()}.", label.title()]


FIXED_FACT_FORMS = ["unknown", "Unknown.", "It is unknown", "I don't know", "", "\n", "United States",
                    "united states.", "N/A", "none", "UNKNOWN\nreally"]


def fact_forms(answer: dict) -> list[str]:
    forms = list(FIXED_FACT_FORMS)
    for label in [*answer["alias"], answer["name"]]:
        forms += label_forms(label)
    return list(dict.fromkeys(forms))


TENDENCY_FORMS = ["A", "B", "C", "(A)", "(B)", "(C)", " A. yes", "A.", "B. Weakened", "(a)", "a", "b.",
                  "(A) or (B)", "(A) (A)", "Answer: A", "Answer: (B)", "\n(B)", "\nB", "B\nA", "C\n(A)",
                  "The answer is (C).", "C) x", "", " ", "(D)", "A) Increase", "I think (B) Decrease",
                  "Option A.", "A (Increase)", "c", "C.", "(C) No significant change."]

WORDS = ["Paris", "Berlin", "New York City", "NYC", "St. Louis", "U.K.", "Unknown Soldier", "the Hague",
         "FC Barcelona", "barça", "München", "Munich", "Real Madrid C.F.", "Mr. Smith", "smith",
         "United States of America", "USA", "United Kingdom", "uk", "Great Britain"]


def synthetic_answers(rng: random.Random, n: int) -> list[dict]:
    """Fact answers in the release's shape, spread over the cases the rules treat differently."""
    answers = [
        {"id": "Q30", "name": "United States of America", "alias": ["USA", "US", "America", "U.S."]},
        {"id": "NA", "name": "unknown", "alias": ["unknown"]},
        {"id": "NA", "name": "Unknown", "alias": ["Unknown"]},
        {"id": "Q90", "name": "Paris", "alias": []},
        {"id": "Q145", "name": "United Kingdom", "alias": ["UK", "great britain", "Britain"]},
        {"id": "Q1", "name": "Unknown Soldier", "alias": ["unknown soldier"]},
    ]
    while len(answers) < n:
        picked = rng.sample(WORDS, rng.randint(1, 4))
        alias = [w if rng.random() < 0.5 else w.lower() for w in picked[1:]]
        answers.append({"id": rng.choice([f"Q{rng.randint(2, 999)}", "Q30"]) if rng.random() < 0.9 else "NA",
                        "name": picked[0], "alias": alias})
    return answers


# ============================== fixtures: the shared release + generated fact questions ==========
@pytest.fixture
def elken_events(shared_formats):
    """The shared ELKEN events with synthetic fact questions added (the slice has none)."""
    events = json.loads((shared_formats / "elken" / "train_sample.json").read_text(encoding="utf-8"))
    rng = random.Random("differential:elken")
    answers = synthetic_answers(rng, 6 * len(events))
    for e, event in enumerate(events):
        event["id"] = e
        mine = answers[6 * e: 6 * e + 6]
        event["fact"]["qas"] = [{"question": f"Q{e}.{k}: who or what?", "subject": {"id": "Q1", "name": "x"},
                                 "answer": a, "type": k % 2, "rel_id": "P1"} for k, a in enumerate(mine[:4])]
        event["fact"]["local_qas"] = [{"question": f"L{e}.{k}: what is it?", "subject": {"id": "Q1", "name": "x"},
                                       "answer": a, "type": 0, "rel_id": "P2"} for k, a in enumerate(mine[4:])]
    # two adjacent events with the same text: the official edit level joins them (the importer
    # skips the second, so our items never hold one; metric.py's joining is tested on its files)
    events[1]["event"] = events[0]["event"]
    return events


def items_of(events, tmp_path) -> list[BenchmarkItem]:
    path = tmp_path / "release.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    return elken_items(path)


def spread_answers(items, forms_of, seed: str) -> list[dict[str, str]]:
    """Several answer sheets: sheet k answers every item with its k-th form (cycled), so every
    form meets every question."""
    rng = random.Random(seed)
    width = max(len(forms_of(i)) for i in items)
    sheets = []
    for k in range(width):
        sheets.append({i.id: forms_of(i)[(k + rng.randint(0, 3)) % len(forms_of(i))] for i in items})
    return sheets


def fact_item_forms(item):
    return fact_forms(elken.item_answer(item))


def tendency_item_forms(_item):
    return TENDENCY_FORMS


# ============================== ELKEN =============================================================
def test_fact_verdicts_agree(elken_events, tmp_path, capsys):
    items = [i for i in items_of(elken_events, tmp_path) if i.scorer == "elken-fact"]
    total = disagree = disagree_kf = 0
    for item in items:
        answer = elken.item_answer(item)
        label = answer["alias"] + [answer["name"]] + (["United States"] if answer["id"] == "Q30" else [])
        for form in fact_forms(answer):
            ref = bool(ref_fact_correct(form, label))
            total += 1
            disagree += ref != elken.fact_right(form, answer, "official")
            disagree_kf += ref != elken.fact_right(form, answer, "knowforge")
    report(capsys, f"ELKEN fact: {disagree} of {total} verdicts disagree in official mode "
                   f"({disagree_kf} in knowforge mode)")
    assert disagree == 0 and total > 1000
    assert disagree_kf > 0, "knowforge mode should differ somewhere (Q30, leading newlines)"


def test_tendency_verdicts_agree(elken_events, tmp_path, capsys):
    items = [i for i in items_of(elken_events, tmp_path) if i.scorer == "elken-tendency"]
    # every tendency question of the shared slice but the duplicated event's: the importer skips
    # an event whose text an earlier one has (it would be asked and counted twice)
    kept = elken_events[:1] + elken_events[2:]
    assert len(items) == sum(len(e["tendency"]["qas"]) + len(e["tendency"]["local_qas"]) for e in kept) == 312
    total = disagree = disagree_kf = 0
    for item in items:
        for form in TENDENCY_FORMS:
            ref = ref_parse_tendency_answer(form) == ref_parse_tendency_answer(item.answers[0])
            total += 1
            disagree += ref != elken.score_tendency(form, item.answers[0], "official")
            disagree_kf += ref != elken.score_tendency(form, item.answers[0], "knowforge")
            assert elken.parse_tendency(form, "official") == ref_parse_tendency_answer(form)
    report(capsys, f"ELKEN tendency: {disagree} of {total} verdicts disagree in official mode "
                   f"({disagree_kf} in knowforge mode)")
    assert disagree == 0


def test_locality_pairs_agree(elken_events, capsys):
    """Every (before, after) pair of answer forms over every out-of-scope answer's labels."""
    total = disagree = disagree_kf = 0
    for event in elken_events:
        for qa in event["fact"]["local_qas"]:
            answer = qa["answer"]
            forms = fact_forms(answer)
            for before in forms:
                for after in forms:
                    ref = ref_parse_local_answer(after, answer["alias"]) == ref_parse_local_answer(before, answer["alias"])
                    total += 1
                    disagree += ref != elken.locality_unchanged(before, after, answer["alias"],
                                                                name=answer["name"], mode="official")
                    disagree_kf += ref != elken.locality_unchanged(before, after, answer["alias"],
                                                                   name=answer["name"], mode="knowforge")
    report(capsys, f"ELKEN locality: {disagree} of {total} alias-pair verdicts disagree in official mode "
                   f"({disagree_kf} in knowforge mode)")
    assert disagree == 0 and total > 10_000
    assert disagree_kf > 0


def _files(items, after, before, out):
    written = helm.write_item_files(out, items, after, before)
    return {kind: json.loads(path.read_text(encoding="utf-8")) for kind, path in written.items()}, written


def test_helm_files_metrics_agree(elken_events, tmp_path, capsys):
    """Our HELM files, read the way metric.py reads them, give metric.py's numbers; our compat
    metrics over the same files agree in official mode (accuracy, known/unknown and question-type
    splits, edit level, fact and tendency locality)."""
    items = items_of(elken_events, tmp_path)
    after_sheets = (spread_answers([i for i in items if i.scorer == "elken-fact"], fact_item_forms, "a")
                    + spread_answers([i for i in items if i.scorer == "elken-tendency"], tendency_item_forms, "t"))
    before_sheets = (spread_answers([i for i in items if i.scorer == "elken-fact"], fact_item_forms, "b")
                     + spread_answers([i for i in items if i.scorer == "elken-tendency"], tendency_item_forms, "u"))
    compared = Counter()
    for n, (after, before) in enumerate(zip(after_sheets, before_sheets)):
        data, paths = _files([i for i in items if i.id in after], after, before, tmp_path / f"sheet{n}")
        if helm.FACT in data:
            ref = ref_fact_compute_acc(data[helm.FACT])
            ours = helm.fact_accuracy(helm.read_request_states(paths[helm.FACT]), "official")
            for key in ("unknown", "known", "0", "1", "overall"):
                assert (ours.get(f"{key}_correct", 0), ours.get(f"{key}_total", 0)) == (
                    ref[f"{key}_correct"], ref[f"{key}_total"]), key
            ref_ev = ref_event_acc(data[helm.FACT], ref_fact_item_correct)
            ours_ev = helm.event_accuracy(helm.read_request_states(paths[helm.FACT]), "official")
            assert (ours_ev["overall_correct"], ours_ev["overall_total"]) == (
                ref_ev["overall_correct"], ref_ev["overall_total"])
            ref_loc, _ = ref_fact_locality(data[helm.FACT], data[helm.FACT_LOCAL])
            ours_loc = helm.fact_locality(helm.read_request_states(paths[helm.FACT]),
                                          helm.read_request_states(paths[helm.FACT_LOCAL]), "official")
            assert (ours_loc["overall_same"], ours_loc["overall_total"]) == (
                ref_loc["overall_same"], ref_loc["overall_total"])
            compared.update(fact=ref["overall_total"], fact_events=ref_ev["overall_total"],
                            fact_locality=ref_loc["overall_total"])
        if helm.TENDENCY in data:
            ref = ref_tendency_acc(data[helm.TENDENCY])
            ours = helm.tendency_accuracy(helm.read_request_states(paths[helm.TENDENCY]), "official")
            assert (ours["overall_correct"], ours["overall_total"]) == (ref["overall_correct"], ref["overall_total"])
            ref_ev = ref_event_acc(data[helm.TENDENCY], ref_tendency_item_correct)
            ours_ev = helm.event_accuracy(helm.read_request_states(paths[helm.TENDENCY]), "official")
            assert (ours_ev["overall_correct"], ours_ev["overall_total"]) == (
                ref_ev["overall_correct"], ref_ev["overall_total"])
            ref_loc = ref_tendency_locality(data[helm.TENDENCY], data[helm.TENDENCY_LOCAL])
            ours_loc = helm.tendency_locality(helm.read_request_states(paths[helm.TENDENCY]),
                                              helm.read_request_states(paths[helm.TENDENCY_LOCAL]), "official")
            assert (ours_loc["overall_same"], ours_loc["overall_total"]) == (
                ref_loc["overall_same"], ref_loc["overall_total"])
            compared.update(tendency=ref["overall_total"], tendency_events=ref_ev["overall_total"],
                            tendency_locality=ref_loc["overall_total"])
    report(capsys, f"ELKEN HELM files: 0 disagreements in official mode over {dict(compared)} "
                   f"(questions / events / locality pairs, summed over {len(after_sheets)} answer sheets)")
    assert compared["fact_events"] and compared["tendency_events"]


def test_overall_event_level_agrees(elken_events, tmp_path):
    items = items_of(elken_events, tmp_path)
    facts = [i for i in items if i.scorer == "elken-fact"]
    rng = random.Random("differential:exam")
    for n, after in enumerate(spread_answers(facts, fact_item_forms, "o")[:6]):
        data, paths = _files(facts, after, None, tmp_path / f"o{n}")
        exam = {"request_states": [
            helm.request_state(event_type=e.get("event_type"), event=e["event"], event_id=e["id"],
                               input_text=helm.fact_input(q["question"], e["event"]), answer="x",
                               local=False, completion="open answer",
                               scores={k: rng.choice([4, 5, 5]) for k in helm.JUDGE_KEYS})
            for e in elken_events for q in e["tendency"]["qas"][:2]]}
        ref = ref_overall_event_level(data[helm.FACT], exam)
        ours = helm.overall_event_level(helm.read_request_states(paths[helm.FACT]), exam["request_states"], "official")
        assert (ours["correct"], ours["events"]) == ref


def test_released_file_through_items_and_back(shared_formats, tmp_path):
    """The shared release read as items, answered, written as HELM files: the instance fields
    are the release's (event, event_type, answer letters, candidate strings)."""
    items = elken_items(shared_formats / "elken" / "train_sample.json")
    after = {i.id: f"({i.answers[0]})" for i in items}
    before = {i.id: "(C)" for i in items}
    written = helm.write_item_files(tmp_path, items, after, before)
    tendency = json.loads(written[helm.TENDENCY].read_text(encoding="utf-8"))["request_states"]
    release = json.loads((shared_formats / "elken" / "train_sample.json").read_text(encoding="utf-8"))
    expected = [(e["event"], qa["answer"], qa["candidate"]) for e in release
                for qa in e["tendency"]["local_qas"] + e["tendency"]["qas"]]
    got = [(s["instance"]["event"], s["instance"]["answer"], s["instance"]["input"]["text"].split("\n")[2])
           for s in tendency]
    assert got == expected
    assert ref_tendency_acc({"request_states": tendency})["overall_correct"] == 234
    scored = helm.score_files(written.values(), "official")
    assert scored[0]["accuracy"]["overall_correct"] == 234 and scored[0]["locality"]["overall_total"] == 86


# ============================== NewTerm ===========================================================
CHOICE_FORMS = ["A", "B", "C", "D", "a", "b", "(B)", "Answer: C", "Answer:D", "**D**", "Option_B", "B_",
                "A cat", "I choose option C", "The answer is A.", "", "...", "_", "A1", "ABCD", "xB",
                "Both A and B", "B\nA"]


def choice_forms(row) -> list[str]:
    gold, other = row["choices"][row["gold"]], row["choices"][(row["gold"] + 1) % 4]
    return CHOICE_FORMS + [gold, gold.upper(), f"{gold} and {other}", f"It is: {gold}.", other]


CSJ_FORMS = ["Yes", "No", "YES.", "NO", "yes", "no", "Not sure", "Correct", "Incorrect", "Acceptable",
             "Unacceptable", "", "Yes and No", "It is correct.", "Nope", "YESNO", "Acceptable? No.", "true"]


def newterm_rows(shared_formats, name):
    path = shared_formats / "newterm_2022" / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["COMA", "COMA_clean", "COST", "COST_clean"])
def test_choice_files_agree(shared_formats, tmp_path, capsys, name):
    rows = newterm_rows(shared_formats, name)
    task = name.split("_")[0]
    total = disagree = leak = 0
    width = max(len(choice_forms(r)) for r in rows)
    for k in range(width):
        lines = [{**r, "prompt_id": 0, "response": choice_forms(r)[(k + n) % len(choice_forms(r))]}
                 for n, r in enumerate(rows)]
        path = newterm.write_results(tmp_path / "results_2022" / f"{task}_model{k}_gold.jsonl", lines)
        read = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        ref = ref_choice_file(read)
        ours = [newterm.score_choice(r["response"], r["choices"], r["gold"], "official")[0] for r in read]
        for r, a, b in zip(read, ref, ours):
            total += 1
            if a != b:
                if newterm.tokens(r["response"]):
                    disagree += 1
                else:
                    leak += 1          # get_results.py reuses the previous line's token
        scored = newterm.score_results_file(newterm.read_results(path), "official")
        assert scored["score"] == pytest.approx(100 * sum(ours) / len(ours))
        assert ref_model_prompt(path) == (f"model{k}", "gold")
    report(capsys, f"NewTerm {name}: {disagree} of {total} verdicts disagree in official mode; "
                   f"{leak} more differ only by the empty-response leak we do not copy")
    assert disagree == 0


@pytest.mark.parametrize("name", ["CSJ", "CSJ_clean"])
def test_csj_files_agree(shared_formats, tmp_path, capsys, name):
    rows = newterm_rows(shared_formats, name)
    total = disagree = 0
    for k in range(len(CSJ_FORMS)):
        lines = [{**r, "prompt_id": 0, "response": CSJ_FORMS[(k + n) % len(CSJ_FORMS)]} for n, r in enumerate(rows)]
        path = newterm.write_results(tmp_path / "results_2022" / f"CSJ_model{k}.jsonl", lines)
        read = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        ref_score, ref_verdicts = ref_csj_file(read)
        ours = [newterm.parse_judgement(r["response"], "official") is r["gold"] for r in read]
        total += len(read)
        disagree += sum(a != b for a, b in zip(ref_verdicts, ours))
        assert newterm.score_results_file(newterm.read_results(path), "official")["score"] == pytest.approx(ref_score)
        assert ref_model_prompt(path) == (f"model{k}", "base")
    report(capsys, f"NewTerm {name}: {disagree} of {total} verdicts disagree in official mode "
                   f"(balanced accuracy equal for all {len(CSJ_FORMS)} answer sheets)")
    assert disagree == 0


def test_empty_response_leak_is_documented_not_copied():
    """get_results.py scores an empty response with the previous line's letter."""
    choices = ["w", "x", "y", "z"]
    lines = [{"choices": choices, "gold": 1, "response": "B"}, {"choices": choices, "gold": 1, "response": ""}]
    assert ref_choice_file(lines) == [True, True]          # the second line inherits "B"
    assert [newterm.score_choice(r["response"], choices, 1, "official")[0] for r in lines] == [True, False]


# ============================== reference: MetricForAutoEval.compute_event_score =================
def ref_event_score(data):                        # metric.py MetricForAutoEval.compute_event_score
    counter = Counter()
    flag_event = "NA"
    flag = 1
    counter_per_event = Counter()
    for item in data["request_states"]:
        if item["instance"]["local"]:
            continue
        if item["instance"]["event"] != flag_event:
            if flag_event != "NA":
                for key in counter_per_event:
                    counter_per_event[key] /= counter_per_event["total"]
                assert int(counter_per_event["total"]) == 1 or len(counter_per_event) == 0
                for key in counter_per_event:
                    counter[key] += counter_per_event[key]
                counter["full_mark"] += flag
            flag_event = item["instance"]["event"]
            counter_per_event = Counter()
            flag = 1
        if item["scores"]["overall"] != 5:
            flag = 0
        if item["scores"]["overall"] == -1:
            continue
        for key in item["scores"]:
            counter_per_event[key] += item["scores"][key]
        counter_per_event["total"] += 1
    for key in counter_per_event:
        counter[key] += counter_per_event[key]
    total = counter["total"]
    for key in counter:
        counter[key] /= total
    return counter


def exam_states(rng: random.Random, events: int) -> list[dict]:
    """Open tendency answers with judge scores (some -1: a failed judgement), several per event,
    some out of scope."""
    states = []
    for e in range(events):
        for _ in range(rng.randint(1, 4)):
            overall = rng.choice([5, 5, 4, 3, -1]) if rng.random() < 0.9 else 5
            scores = {"overall": overall, "accuracy": rng.randint(1, 5), "coherence": rng.randint(1, 5),
                      "comprehensive": rng.randint(1, 5)}
            states.append({"instance": {"event": f"Event {e} happened.", "id": str(e), "local": rng.random() < 0.2},
                           "scores": scores})
    return states


@pytest.mark.parametrize("seed", range(20))
def test_judge_event_score_agrees(seed):
    states = exam_states(random.Random(seed), random.Random(seed).randint(1, 12))
    theirs = ref_event_score({"request_states": states})
    ours = helm.judge_event_scores(states, "official")
    for key in ("overall", "accuracy", "coherence", "comprehensive", "full_mark"):
        assert ours[key] == pytest.approx(theirs[key]), (key, seed)
    # ours averages every event alike and counts every event's full mark
    fair = helm.judge_event_scores(states, "knowforge")
    inside = [s for s in states if not s["instance"]["local"]]
    by_event: dict[str, list[dict]] = defaultdict(list)
    for s in inside:
        by_event[s["instance"]["id"]].append(s["scores"])
    assert fair["events"] == len(by_event)
    assert fair["full_mark"] == pytest.approx(sum(all(x["overall"] == 5 for x in v) for v in by_event.values())
                                              / len(by_event))

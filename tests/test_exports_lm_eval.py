"""``--format lm-eval``: the folder lm-evaluation-harness runs, checked three ways.

1. lm-eval's own task code, loaded from an export, builds exactly the requests our
   ``--mc-scoring likelihood`` path sends, and its filters + ``exact_match`` read responses as
   our scorers do (tricky responses, no model).
2. The layout: groups, data, README, skipped items counted by reason, stale files removed.
3. End to end (hf): every method's export of a small benchmark from the bundled samples, run by
   the ``lm_eval`` command on the tiny model, agrees item by item with ``knowforge eval --solver
   zero-shot --mc-scoring likelihood``: the same picks (acc, acc_norm), log-probabilities within
   1e-4, the same greedy text, and the same verdicts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from exports_bench import NAMES, SMALL, invoke, make_benchmarks
from knowforge.errors import ConfigError
from knowforge.eval.events.official import ELKEN, ELKEN_UNKNOWN
from knowforge.eval.lm_eval_export import KINDS, benchmark_prefix, write_lm_eval_tasks
from knowforge.eval.mc_likelihood import build_choice_question
from knowforge.eval.prompts import render_prompt
from knowforge.eval.scorers import first_line, normalize_answer, score_exact, strip_answer_prefix
from knowforge.eval.scoring import score_item
from knowforge.models.task import Component, ItemFilter, Task
from knowforge.models.types import BenchmarkItem

pytest.importorskip("lm_eval")

BENCH = "t:rules"


def item(id_, form, scorer="fuzzy", task="t/gen", **kw) -> BenchmarkItem:
    return BenchmarkItem(id=id_, benchmark=BENCH, task=task, form=form, question=f"Question {id_}?",
                         scorer=scorer, **kw)


def rule_items() -> list[BenchmarkItem]:
    return [
        item("fuzzy", "generation", answers=["Paris", "City of Light", "The"]),
        item("exact", "fill-in-blank", "exact", answers=["U.S.A.", "New York-City"]),
        item("unknown-fuzzy", "fill-in-blank", answers=["unknown", "I don't know"], unknown=True),
        item("unknown-scorer", "generation", "unknown", answers=["unknown"]),
        item("unknown-bool", "boolean", "boolean", answers=["unknown"], unknown=True),
        item("elken", "generation", "elken-fact", task="t/elken", answers=["Washington D.C.", " DC "]),
        item("elken-unknown", "generation", "elken-fact", task="t/elken", answers=["unknown"], unknown=True),
        item("mc", "multi-choice", "multi-choice", task="t/mc", context="Some passage.",
             choices=["Mars", "Jupiter", "Venus"], answer_index=1, answers=["Jupiter"]),
        item("bool", "boolean", "boolean", task="t/mc", answers=["no"]),
        item("tf", "true-false", "boolean", task="t/mc", answers=["true"]),
        item("mc-no-choices", "multi-choice", "multi-choice", task="t/mc", answers=["B"]),
        item("orphan", "generation", task="other/x", answers=["x"]),
    ]


RULE_TASKS = (Task(name="t/gen", dataset=ItemFilter(tasks=("t/gen",)), solver=Component(name="zero-shot")),
              Task(name="t/elken", dataset=ItemFilter(tasks=("t/elken",)), solver=Component(name="ice")),
              Task(name="t/mc", dataset=ItemFilter(tasks=("t/mc",)), solver=Component(name="zero-shot")))

RESPONSES = [
    "Paris", "\nParis", "  paris.  ", "Answer: Paris", "The answer is: Paris", "The final answer is Paris",
    "Answer:\nParis", "Paris\nLondon", "London\nParis", "the Paris", "Paris, France", "city of light!",
    "City-of-Light", "City_of_Light", "Cityoflight", "“Paris”", "‘paris’", "Paris…", "A Paris", "usa",
    "U.S.A", "u s a", "New Yorkcity", "new york city", "New York – City", "NEW-YORK/CITY", "unknown", "Unknown.",
    "I don't know.", "I do not know", "It is unknown to me", "Answer: unknown", "answer: Paris\nanswer: unknown",
    "Answer: unknown\nAnswer: Paris", "The answer: I don’t know", "not sure", "", "   ", "\n\nI don't know",
    "UNKNOWN", "An unknown", "answer is the unknown", "Washington D.C.", "washington d.c", "Washington D.C..",
    "DC", " dc.", "\ndc", "dc\nmore", "the answer is a dog", "The", "cannot be determined",
]


def space_free(text: str) -> str:
    return normalize_answer(text).replace(" ", "")


def exact_without_spaces(it: BenchmarkItem, response: str) -> float:
    """Our exact rule with spaces ignored: what the ``gen`` tasks compute (docs/eval.md)."""
    answer = space_free(strip_answer_prefix(first_line(response)))
    return float(bool(answer) and any(answer == space_free(g) for g in it.answers if g))


@pytest.fixture(scope="module")
def rules_export(tmp_path_factory):
    out = tmp_path_factory.mktemp("rules")
    files = write_lm_eval_tasks(rule_items(), out, benchmark=BENCH, tasks=RULE_TASKS)
    from lm_eval.tasks import TaskManager

    loaded = TaskManager(include_path=str(out), include_defaults=False).load([benchmark_prefix(BENCH)])
    return out, files, loaded


def lm_eval_verdict(task, doc, response: str) -> float:
    """lm-eval's score of ``response`` on ``doc``, through its filters and process_results."""
    ctx = task.fewshot_context(doc, 0)
    instance = task.construct_requests(doc, ctx)
    instance.resps = [response]
    for ensemble in task._filters:
        ensemble.apply([instance])
    (name,) = instance.filtered_resps
    return task.process_results(doc, [instance.filtered_resps[name]])["exact_match"]


def test_lm_eval_builds_our_likelihood_requests(rules_export):
    _, _, loaded = rules_export
    by_id = {i.id: i for i in rule_items()}
    seen = set()
    for name, task in loaded["tasks"].items():
        for doc in task.test_docs():
            it = by_id[doc["id"]]
            ctx = task.fewshot_context(doc, 0)
            seen.add(it.id)
            question = build_choice_question(it, "zero-shot", "text")
            if name.endswith("_mc"):
                requests = task.construct_requests(doc, ctx)
                assert [r.arguments for r in requests] == [(q.context, q.continuation) for q in question.requests]
                assert doc["gold"] == question.gold
            else:
                assert question is None and ctx == render_prompt(it, "zero-shot")
                assert task.config.generation_kwargs["until"] == ["\nQuestion:"]
                assert task.config.generation_kwargs["max_gen_toks"] == 64
    assert seen == {i.id for i in rule_items()} - {"mc-no-choices", "orphan"}


def test_lm_eval_reads_answers_as_our_scorers(rules_export):
    _, _, loaded = rules_export
    by_id = {i.id: i for i in rule_items()}
    differs = []
    checked = 0
    for name, task in loaded["tasks"].items():
        if name.endswith("_mc"):
            continue
        for doc in task.test_docs():
            it = by_id[doc["id"]]
            for response in RESPONSES:
                theirs = lm_eval_verdict(task, doc, response)
                checked += 1
                if name.endswith("_gen"):
                    # our exact rule (a fuzzy item's lm-eval form), spaces ignored
                    assert theirs == exact_without_spaces(it, response), (name, it.id, response)
                    if theirs != score_exact(it, response).value:
                        differs.append((it.id, response))
                else:
                    assert theirs == score_item(it, response).value, (name, it.id, response)
    assert checked == 7 * len(RESPONSES)
    # the documented difference, and only it: spaces are deleted, not collapsed
    assert sorted(differs) == [("exact", "New Yorkcity"), ("fuzzy", "Cityoflight")]
    # sanity: the responses exercise both verdicts of every reading
    elken = loaded["tasks"]["knowforge_t_rules_elken_elken"]
    doc = elken.test_docs()[0]
    assert {lm_eval_verdict(elken, doc, r) for r in ("\ndc", "\nParis\ndc")} == {0.0, 1.0}


def test_layout_groups_readme_and_skipped(rules_export):
    out, files, loaded = rules_export
    prefix = benchmark_prefix(BENCH)
    names = {p.relative_to(out).as_posix() for p in files}
    assert names == {
        "README.md", f"{prefix}.yaml",
        f"{prefix}_gen.yaml", f"{prefix}_gen_gen.yaml", f"{prefix}_gen_unknown.yaml",
        f"{prefix}_elken.yaml", f"{prefix}_elken_elken.yaml", f"{prefix}_elken_elken_unknown.yaml",
        f"{prefix}_mc.yaml", f"{prefix}_mc_mc.yaml",
        *(f"data/{prefix}_{leaf}.jsonl" for leaf in ("gen_gen", "gen_unknown", "elken_elken",
                                                      "elken_elken_unknown", "mc_mc"))}
    assert loaded["group_map"][prefix] == [f"{prefix}_gen", f"{prefix}_elken", f"{prefix}_mc"]
    assert loaded["group_map"][f"{prefix}_gen"] == [f"{prefix}_gen_gen", f"{prefix}_gen_unknown"]
    rows = [json.loads(x) for x in (out / "data" / f"{prefix}_gen_gen.jsonl").read_text().splitlines()]
    # "The" normalises to nothing: our exact rule never matches it, so it is no target
    assert [(r["id"], r["targets"]) for r in rows] == [("fuzzy", ["Paris", "City of Light"]),
                                                       ("exact", ["U.S.A.", "New York-City"])]
    elken = json.loads((out / "data" / f"{prefix}_elken_elken.jsonl").read_text())
    assert elken["targets"] == ["Washington D.C.", "DC"]
    group = yaml.safe_load((out / f"{prefix}_mc.yaml").read_text())
    assert [m["metric"] for m in group["aggregate_metric_list"]] == ["acc", "acc_norm"]
    assert "aggregate_metric_list" not in yaml.safe_load((out / f"{prefix}.yaml").read_text())
    readme = (out / "README.md").read_text()
    assert "multi-choice without choices: 1" in readme and "no task of the method takes it: 1" in readme
    assert f"--tasks {prefix}" in readme


def test_reexport_is_identical_removes_stale_tasks_and_refuses_bad_input(tmp_path):
    prefix = benchmark_prefix(BENCH)
    other = write_lm_eval_tasks(rule_items(), tmp_path, benchmark="t:rules_2", tasks=RULE_TASKS)
    files = write_lm_eval_tasks(rule_items(), tmp_path, benchmark=BENCH, tasks=RULE_TASKS)
    first = {p: p.read_bytes() for p in files}
    assert write_lm_eval_tasks(rule_items(), tmp_path, benchmark=BENCH, tasks=RULE_TASKS) == files
    assert {p: p.read_bytes() for p in files} == first              # same items, same bytes
    assert (tmp_path / f"{prefix}_elken.yaml").is_file()
    (tmp_path / "notes.yaml").write_text("mine: true\n")
    only_mc = [i for i in rule_items() if i.task == "t/mc"]
    write_lm_eval_tasks(only_mc, tmp_path, benchmark=BENCH, tasks=RULE_TASKS)
    mine = sorted(p.name for p in tmp_path.glob(f"{prefix}*.yaml") if not p.name.startswith(f"{prefix}_2"))
    assert mine == sorted([f"{prefix}.yaml", f"{prefix}_mc.yaml", f"{prefix}_mc_mc.yaml"])
    assert (tmp_path / "notes.yaml").is_file()
    assert all(p.is_file() for p in other)          # another benchmark's tasks in the same folder stay
    assert sorted(p.name for p in (tmp_path / "data").glob(f"{prefix}_*.jsonl")
                  if not p.name.startswith(f"{prefix}_2")) == [f"{prefix}_mc_mc.jsonl"]
    with pytest.raises(ConfigError, match="no item can be exported.*multi-choice without choices: 1"):
        write_lm_eval_tasks([rule_items()[10]], tmp_path / "none", benchmark=BENCH, tasks=RULE_TASKS)
    clash = (Task(name="t/KU", solver=Component(name="zero-shot"), dataset=ItemFilter(tasks=("t/gen",))),
             Task(name="t/ku", solver=Component(name="zero-shot")))
    with pytest.raises(ConfigError, match="same lm-eval name"):
        write_lm_eval_tasks(rule_items(), tmp_path / "clash", benchmark=BENCH, tasks=clash)


# --- end to end: lm_eval on the tiny model against knowforge eval ---------------------------------
@pytest.fixture(scope="module")
def agreement(neo4j_server, session_store, tiny_model_dir, tmp_path_factory):
    """Both harnesses on every method's small benchmark: {method: (lm-eval samples by item id,
    knowforge samples by item id, kind by item id)}."""
    pytest.importorskip("torch")
    root = tmp_path_factory.mktemp("lm-eval-agreement")
    names = make_benchmarks(neo4j_server, session_store, sources=("taxonomy", "wikidata", "cskg", "umls"))
    _, settings = neo4j_server
    ours: dict[str, dict[str, dict]] = {}
    kinds: dict[str, dict[str, str]] = {}
    with pytest.MonkeyPatch.context() as mp:
        for key, value in (("NEO4J_URI", settings.uri), ("NEO4J_USER", settings.user),
                           ("NEO4J_PASSWORD", settings.password)):
            mp.setenv(key, value)
        for method, name in names.items():
            out = root / "lm" / method
            result = invoke("export", method, "--name", name, "--format", "lm-eval", "--out", str(out))
            assert result.exit_code == 0, result.output
            kinds[method] = {json.loads(line)["id"]: kind_of(path) for path in (out / "data").glob("*.jsonl")
                             for line in path.read_text().splitlines()}
            result = invoke("eval", "--benchmark", f"{method}:{name}", "--solver", "zero-shot",
                            "--metric", "accuracy", "--mc-scoring", "likelihood", "--backend", "hf", "--model", str(tiny_model_dir),
                            "--max-tokens", "8", "--no-cache", "--log-samples", "--out", str(root / "runs" / method),
                            "--silent")
            assert result.exit_code == 0, result.output
            (samples,) = (root / "runs" / method).glob("run-*/samples.jsonl")
            ours[method] = {s["item_id"]: s for s in map(json.loads, samples.read_text().splitlines())}
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_DATASETS_CACHE": str(root / "hf-cache")}
    tasks = ",".join(benchmark_prefix(f"{m}:{n}") for m, n in names.items())
    command = [sys.executable, "-m", "lm_eval", "--model", "hf",
               "--model_args", f"pretrained={tiny_model_dir},dtype=float32", "--device", "cpu",
               "--include_path", str(root / "lm"), "--tasks", tasks, "--gen_kwargs", "max_gen_toks=8",
               "--batch_size", "8", "--log_samples", "--output_path", str(root / "lm-out")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1500, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    theirs: dict[str, dict] = {}
    for path in (root / "lm-out").rglob("samples_*.jsonl"):
        for line in path.read_text().splitlines():
            sample = json.loads(line)
            theirs[sample["doc"]["id"]] = sample
    return {m: ({i: theirs[i] for i in kinds[m] if i in theirs}, ours[m], kinds[m]) for m in names}


def kind_of(path: Path) -> str:
    """The kind suffix of a data file name (``..._kd_unknown.jsonl`` → ``unknown``)."""
    stem = path.stem
    # the generic kinds and the ones ELKEN's fact scorer declares
    for kind in sorted((*KINDS, ELKEN, ELKEN_UNKNOWN), key=lambda k: -len(k.suffix)):
        if stem.endswith(f"_{kind.suffix}"):
            return kind.suffix
    raise AssertionError(f"no kind in {path.name}")


def _argmax(values):
    return max(range(len(values)), key=lambda i: (values[i], -i))


@pytest.mark.hf
@pytest.mark.slow
@pytest.mark.timeout(1800)     # the module's lm_eval run happens in the first test's setup
@pytest.mark.parametrize("method", sorted(SMALL))
def test_lm_eval_agrees_with_knowforge_eval(agreement, method, session_store):
    from knowforge.methods import get_method

    theirs, ours, kinds = agreement[method]
    items = {i.id: i for i in get_method(method).items(session_store, NAMES[method])}
    assert set(theirs) == set(kinds) == set(ours) == set(items)
    likelihood = {i for i, s in ours.items() if (s["metadata"] or {}).get("mc_scoring") == "likelihood"}
    assert likelihood == {i for i, k in kinds.items() if k == "mc"}
    worst, disagreements, texts = 0.0, [], 0
    for item_id in sorted(theirs):
        lm, kf, kind = theirs[item_id], ours[item_id], kinds[item_id]
        if kind == "mc":
            lls = [float(r[0][0]) for r in lm["resps"]]
            mine = kf["metadata"]["logprobs"]
            lengths = [len(c) for c in lm["doc"]["choices"]]
            assert lengths == kf["metadata"]["lengths"]
            worst = max(worst, *(abs(a - b) for a, b in zip(lls, mine, strict=True)))
            picks = (_argmax(lls), _argmax([lp / n for lp, n in zip(lls, lengths)]))
            ours_picks = (_argmax(mine), _argmax([lp / n for lp, n in zip(mine, lengths)]))
            if picks != ours_picks or (lm["acc"], lm["acc_norm"]) != (kf["metadata"]["acc"], kf["metadata"]["acc_norm"]):
                disagreements.append(item_id)
        else:
            texts += 1
            assert lm["resps"][0][0] == kf["raw"], item_id       # the same greedy text
            it = items[item_id]
            expected = exact_without_spaces(it, kf["raw"]) if kind == "gen" else kf["score"]
            assert lm["exact_match"] == expected, item_id
    n_mc = sum(k == "mc" for k in kinds.values())
    print(f"\n{method}: {n_mc} multiple-choice items, max |logprob difference| {worst:.2e}, "
          f"{len(disagreements)} pick disagreements; {texts} generation items, same text and verdict")
    assert worst <= 1e-4
    assert disagreements == []

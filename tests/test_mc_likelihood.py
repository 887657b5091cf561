"""Multiple-choice scoring by likelihood: the pure selection rule, the requests built per item,
the runner on the real transformers backend (tiny random model) through the real response
cache, the CLI end to end on a real Neo4j, and the error for a backend without log-likelihood."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.errors import BackendError, ConfigError
from knowforge.models.items_io import write_items
from knowforge.eval.mc_likelihood import (ChoiceSelection, build_choice_question, judge_choice_question,
                                          select_choice)
from knowforge.eval.prompts import render_prompt
from knowforge.eval.solvers import solve_prompted
from knowforge.eval.unit import SolveContext
from knowforge.models.types import CAP_GENERATE, BenchmarkItem, GenerationResult, LoglikelihoodRequest, LoglikelihoodResult
from knowforge.eval.types import EvalOptions


# ---------------------------------------------------------------------------------------------
# pure selection
# ---------------------------------------------------------------------------------------------
def evaluate_items(items, backend, options, *, setting="zero-shot"):
    """Every item under a prompting setting, as the prompt solvers ask it."""
    return solve_prompted(items, setting, SolveContext(backend=backend, options=options))


def test_select_choice_argmax_and_length_normalised():
    # totals favour the short option B; per character the long option C wins
    assert select_choice([-5.0, -2.0, -6.0], [4, 1, 12]) == ChoiceSelection(index=1, index_norm=2)
    assert select_choice([-1.0], [3]) == ChoiceSelection(0, 0)


def test_select_choice_ties_go_to_the_lowest_index():
    assert select_choice([-2.0, -1.0, -1.0], [1, 1, 1]) == ChoiceSelection(1, 1)
    assert select_choice([-3.0, -3.0], [3, 3]) == ChoiceSelection(0, 0)
    assert select_choice([-4.0, -2.0], [2, 1]).index_norm == 0          # -2/1 == -4/2: tie → 0
    assert select_choice([-1.0, -2.0], [0, 1]).index_norm == 0          # empty option counts as 1 char


def test_select_choice_rejects_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        select_choice([], [])
    with pytest.raises(ValueError, match="2 log-probabilities but 1 lengths"):
        select_choice([-1.0, -2.0], [1])


# ---------------------------------------------------------------------------------------------
# requests per item
# ---------------------------------------------------------------------------------------------
def mc_item(**kw) -> BenchmarkItem:
    base = dict(id="m1", benchmark="b", task="b/mc", form="multi-choice", question="Largest planet?",
                choices=["Mars", "Jupiter", "Venus"], answer_index=1, scorer="multi-choice")
    return BenchmarkItem(**{**base, **kw})


def test_build_choice_question_forms_and_continuations():
    item = mc_item()
    question = build_choice_question(item, "zero-shot")
    assert question.context == render_prompt(item, "zero-shot") and question.context.endswith("Answer:")
    assert [r.continuation for r in question.requests] == [" Mars", " Jupiter", " Venus"]
    assert question.labels == ("A", "B", "C") and question.gold == 1
    letters = build_choice_question(item, "few-shot", continuation="letter")
    assert [r.continuation for r in letters.requests] == [" A", " B", " C"]

    boolean = BenchmarkItem(id="b1", benchmark="b", task="b/bool", form="boolean", question="Is ice cold?",
                            answers=["no"], scorer="boolean")
    q = build_choice_question(boolean, "vanilla", continuation="letter")
    assert [r.continuation for r in q.requests] == [" yes", " no"] and q.gold == 1
    tf = boolean.model_copy(update={"form": "true-false", "answers": ["true"]})
    assert [r.continuation for r in build_choice_question(tf, "zero-shot").requests] == [" true", " false"]
    assert build_choice_question(tf, "zero-shot").gold == 0

    # generated as usual: open questions, unknown gold, multi-choice without listed options
    assert build_choice_question(boolean.model_copy(update={"unknown": True}), "zero-shot") is None
    assert build_choice_question(mc_item(form="generation", choices=[], answers=["x"]), "zero-shot") is None
    assert build_choice_question(mc_item(choices=[], answer_index=None, answers=["B"]), "zero-shot") is None
    with pytest.raises(ConfigError, match="valid answer_index"):
        build_choice_question(mc_item(answer_index=7), "zero-shot")
    with pytest.raises(ConfigError, match="unknown continuation"):
        build_choice_question(item, "zero-shot", continuation="words")


def test_judge_choice_question_records_logprobs():
    question = build_choice_question(mc_item(), "zero-shot")
    results = [LoglikelihoodResult(-4.0, (-4.0,)), LoglikelihoodResult(-9.0, (-4.0, -5.0)),
               LoglikelihoodResult(-4.5, (-4.5,))]
    outcome = judge_choice_question(question, results)
    assert (outcome.index, outcome.raw, outcome.parsed, outcome.score) == (0, "Mars", "A", 0.0)
    # per character: Mars -1.0, Jupiter -1.29, Venus -0.9 → C
    assert outcome.metadata["pick_norm"] == "C" and outcome.metadata["acc_norm"] == 0.0
    assert outcome.metadata["logprobs"] == [-4.0, -9.0, -4.5] and outcome.metadata["lengths"] == [4, 7, 5]
    assert "gold B, picked A" in outcome.explanation
    with pytest.raises(ValueError, match="2 results for 3 options"):
        judge_choice_question(question, results[:2])


# ---------------------------------------------------------------------------------------------
# runner on the real hf backend
# ---------------------------------------------------------------------------------------------
def items() -> list[BenchmarkItem]:
    return [
        BenchmarkItem(id="g0", benchmark="mc", task="t/gen", form="generation", question="Who coached club 1?",
                      answers=["Coach 1"], slices={"year": 2020}),
        mc_item(id="m0", task="t/mc", choices=["red", "green", "blue", "a very long colour name"],
                answer_index=2, slices={"year": 2020}),
        mc_item(id="m1", task="t/mc", slices={"year": 2021}),
        BenchmarkItem(id="b0", benchmark="mc", task="t/bool", form="boolean", question="Is it so?",
                      answers=["no"], scorer="boolean", slices={"year": 2021}),
        BenchmarkItem(id="t0", benchmark="mc", task="t/tf", form="true-false", question="Water is dry.",
                      answers=["false"], scorer="boolean", slices={"year": 2021}),
    ]


@dataclass
class Counting:
    """The real backend, counting the calls and requests that reach it."""

    inner: object
    ll_calls: list = field(default_factory=list)
    gen_calls: list = field(default_factory=list)

    def __post_init__(self):
        self.name, self.model = self.inner.name, self.inner.model
        self.capabilities, self.revision = self.inner.capabilities, getattr(self.inner, "revision", None)
        self.batch_size = 1000

    def generate(self, requests):
        self.gen_calls.append(list(requests))
        return self.inner.generate(requests)

    def loglikelihood(self, requests):
        self.ll_calls.append(list(requests))
        return self.inner.loglikelihood(requests)


@pytest.fixture(scope="module")
def hf_backend(tiny_model_dir):
    from knowforge.models.backends.hf import HFBackend

    return HFBackend.from_options(EvalOptions(backend="hf", model=str(tiny_model_dir), device="cpu"))


@pytest.mark.hf
def test_likelihood_picks_the_manual_argmax_and_reruns_from_cache(hf_backend, tmp_path):
    from knowforge.models.backends import cached
    from knowforge.models.cache import ResponseCache

    options = EvalOptions(backend="hf", model=hf_backend.model, max_tokens=4, mc_scoring="likelihood")
    counting = Counting(hf_backend)
    backend = cached(counting, ResponseCache(tmp_path / "cache"))
    results = evaluate_items(items(), backend, options)

    assert [r.item_id for r in results] == ["g0", "m0", "m1", "b0", "t0"]      # item order kept
    assert len(counting.ll_calls) == 1 and len(counting.ll_calls[0]) == 4 + 3 + 2 + 2   # one batched call
    assert len(counting.gen_calls) == 1 and len(counting.gen_calls[0]) == 1           # g0 generated
    assert results[0].finish_reason in ("stop", "length") and results[0].metadata is None

    for result, item in zip(results[1:], items()[1:]):
        question = build_choice_question(item, "zero-shot")
        manual = hf_backend.loglikelihood(question.requests)             # the same requests, no cache
        totals = [m.total for m in manual]
        best = max(range(len(totals)), key=lambda k: (totals[k], -k))
        assert result.raw == question.options[best] and result.parsed == question.labels[best]
        assert result.score == (1.0 if best == question.gold else 0.0)
        assert result.metadata["logprobs"] == pytest.approx(totals, abs=1e-4)
        normed = [t / len(s) for t, s in zip(totals, question.scored)]
        assert result.metadata["pick_norm"] == question.labels[max(range(len(normed)), key=lambda k: (normed[k], -k))]
        assert result.prompt == question.context and result.cache_key and not result.cached
    assert {r.parsed for r in results[3:]} <= {"yes", "no"}

    rerun_inner = Counting(hf_backend)
    cache = ResponseCache(tmp_path / "cache")
    again = evaluate_items(items(), cached(rerun_inner, cache), options)
    assert rerun_inner.ll_calls == [] and rerun_inner.gen_calls == []        # zero backend calls
    assert cache.stats.misses == 0 and cache.stats.hits == 11 + 1
    assert all(r.cached for r in again)
    assert [(r.raw, r.parsed, r.score) for r in again] == [(r.raw, r.parsed, r.score) for r in results]


@pytest.mark.hf
def test_letter_continuations_and_settings(hf_backend):
    options = EvalOptions(backend="hf", model=hf_backend.model, max_tokens=3, mc_scoring="likelihood",
                          mc_continuation="letter")
    counting = Counting(hf_backend)
    results = evaluate_items(items()[1:3], counting, options, setting="few-shot")
    assert [r.continuation for r in counting.ll_calls[0]][:4] == [" A", " B", " C", " D"]
    assert all(r.parsed in "ABCD" and r.raw in items()[1].choices + items()[2].choices for r in results)

    # a reasoning prompt does not end where an option can follow: multiple choice is generated
    cot = Counting(hf_backend)
    generated = evaluate_items(items()[1:2], cot, options, setting="chain-of-thought")
    assert cot.ll_calls == [] and len(cot.gen_calls) == 1 and generated[0].metadata is None

    with pytest.raises(ConfigError, match="drop --chat"):
        evaluate_items(items(), hf_backend, EvalOptions(model="m", mc_scoring="likelihood", chat=True))
    with pytest.raises(ConfigError, match="mc_scoring"):
        EvalOptions.make(model="m", mc_scoring="logits")


@dataclass
class GenerateOnly:
    """A backend that can only generate (as a chat-only API): likelihood scoring must refuse it."""

    name: str = "chat-only"
    model: str = "gen-1"
    capabilities: frozenset = frozenset({CAP_GENERATE})
    asked: list = field(default_factory=list)

    def generate(self, requests):
        self.asked.extend(requests)
        return [GenerationResult(texts=("B",) * r.n, finish_reasons=("stop",) * r.n) for r in requests]

    def loglikelihood(self, requests: list[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        raise AssertionError("the runner must check the capability before asking")


def test_backend_without_loglikelihood_is_a_clear_error(tmp_path):
    from knowforge.models.backends import cached
    from knowforge.models.cache import ResponseCache

    backend = GenerateOnly()
    options = EvalOptions(model="gen-1", mc_scoring="likelihood")
    with pytest.raises(BackendError, match="backend 'chat-only' \\(model 'gen-1'\\) cannot do 'loglikelihood'"):
        evaluate_items(items(), backend, options)
    with pytest.raises(BackendError, match="cannot do 'loglikelihood'"):
        evaluate_items(items(), cached(backend, ResponseCache(tmp_path)), options)
    assert backend.asked == []                                   # nothing was asked before the error
    # the default mode still generates with such a backend
    assert len(evaluate_items(items(), backend, EvalOptions(model="gen-1"))) == 5


# ---------------------------------------------------------------------------------------------
# CLI end to end
# ---------------------------------------------------------------------------------------------
@pytest.mark.hf
def test_cli_likelihood_run_writes_report_and_reruns_from_cache(graph_env, store, tiny_model_dir, tmp_path):
    bench = tmp_path / "bench.jsonl"
    write_items(bench, items())
    args = ["eval", "--benchmark", str(bench), "--backend", "hf", "--model", str(tiny_model_dir),
            "--max-tokens", "4", "--mc-scoring", "likelihood", "--cache-dir", str(tmp_path / "cache"),
            "--out", str(tmp_path / "runs"), "--silent"]
    first = CliRunner().invoke(cli, args + ["--log-samples"], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    run1 = first.stdout.strip().splitlines()[-1]
    run_dir = tmp_path / "runs" / run1
    report = json.loads((run_dir / "report.json").read_text())
    assert report["overall"]["items"] == 5 and report["overall"]["samples"] == 5
    section = report["extra"]["Multiple choice by likelihood"][0]
    assert section["items"] == 4 and 0.0 <= section["acc_norm"] <= 1.0
    assert "Multiple choice by likelihood" in (run_dir / "report.md").read_text()
    samples = {s["item_id"]: s for s in map(json.loads, (run_dir / "samples.jsonl").read_text().splitlines())}
    assert len(samples["m0"]["metadata"]["logprobs"]) == 4 and samples["g0"]["metadata"] is None
    assert samples["m0"]["parsed"] in "ABCD" and samples["b0"]["parsed"] in ("yes", "no")
    assert "0 hits, 12 misses" in first.output                   # 11 options + 1 generated sample
    run = store.user_query("MATCH (r:Run {id: $id}) RETURN r.mc_scoring AS mode, r.mc_acc_norm AS norm, "
                           "r.mc_likelihood_items AS n", {"id": run1})[0]
    assert run["mode"] == "likelihood" and run["n"] == 4 and run["norm"] == section["acc_norm"]
    answers = {a["item"]: a for a in store.user_query(
        "MATCH (:Run {id: $id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question) "
        "RETURN q.id AS item, a.raw AS raw, a.parsed AS parsed, a.score AS score", {"id": run1})}
    assert answers["m0"]["raw"] == samples["m0"]["raw"] and answers["m0"]["score"] == samples["m0"]["score"]

    second = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert second.exit_code == 0, second.output
    assert "12 hits, 0 misses (hit rate 100.0%), 0 requests sent to the model" in second.output

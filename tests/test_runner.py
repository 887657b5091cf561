"""The ask-and-score step: rendering, batching, per-sample failures, and resume through the
response cache.

The backend here is a scripted one (answers looked up from the prompt): it tests the runner's
logic and the scorers in the loop. The real transformers backend runs in test_eval_cli.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from knowforge.errors import BackendError, ConfigError
from knowforge.eval.prompts import (SETTINGS, TEMPLATE_VERSION, render_messages, render_prompt, render_request,
                                   render_requests)
from knowforge.eval.ask import ask, ask_and_score, summarize
from knowforge.eval.solvers import prompt_asks
from knowforge.eval.tasks import limit_units, select_items
from knowforge.models.task import Component, ItemFilter, Task
from knowforge.models.types import CAP_GENERATE, BenchmarkItem, GenerationRequest, GenerationResult
from knowforge.eval.types import EvalOptions


@dataclass
class ScriptedBackend:
    """Answers each prompt with the script entry whose key occurs in it; counts what it is asked."""

    script: dict[str, str]
    fail_after: int | None = None         # raise after this many requests (a crash mid-run)
    broken: str | None = None             # a prompt containing this gets a per-request error
    name: str = "scripted"
    model: str = "scripted-1"
    capabilities: frozenset = frozenset({CAP_GENERATE})
    asked: list = field(default_factory=list)
    calls: int = 0

    def generate(self, requests: list[GenerationRequest]) -> list[GenerationResult]:
        self.calls += 1
        out = []
        for request in requests:
            if self.fail_after is not None and len(self.asked) >= self.fail_after:
                raise BackendError("simulated crash")
            self.asked.append(request)
            text = request.prompt or request.messages[-1][1]
            if self.broken and self.broken in text:
                out.append(GenerationResult(texts=(), finish_reasons=(), error="HTTP 500 from server"))
                continue
            answer = next((a for k, a in self.script.items() if f"Question: {k}" in text), "no idea")
            texts = tuple(f"{answer}" if i % 2 == 0 else "wrong" for i in range(request.n))
            out.append(GenerationResult(texts=texts, finish_reasons=("stop",) * request.n))
        return out

    def loglikelihood(self, requests):
        raise BackendError("not scripted")


def evaluate_items(items, backend, options, *, setting="zero-shot", progress=None, chunk_size=256):
    """Every item under a prompting setting, through the one ask-and-score step."""
    return ask_and_score(prompt_asks(items, setting, options), backend, scoring=options.scoring,
                         progress=progress, chunk_size=chunk_size)


def make_items() -> list[BenchmarkItem]:
    return [
        BenchmarkItem(id="q1", benchmark="b", task="b/gen", form="generation", question="Capital of France?",
                      answers=["Paris"], slices={"relation": "P36", "year": 2020}),
        BenchmarkItem(id="q2", benchmark="b", task="b/gen", form="generation", question="Capital of Peru?",
                      answers=["Lima"], slices={"relation": "P36", "year": 2021}),
        BenchmarkItem(id="q3", benchmark="b", task="b/mc", form="multi-choice", question="Largest planet?",
                      choices=["Mars", "Jupiter", "Venus", "Earth"], answer_index=1, scorer="multi-choice",
                      slices={"relation": "P2067", "year": 2021}),
        BenchmarkItem(id="q4", benchmark="b", task="b/bool", form="boolean", question="Is ice cold?",
                      answers=["yes"], scorer="boolean", slices={"relation": "P2067", "year": 2020}),
        BenchmarkItem(id="q5", benchmark="b", task="b/gen", form="generation", question="Who is Zorblax?",
                      answers=["unknown"], unknown=True, slices={"relation": "P31", "year": 2022}),
    ]


SCRIPT = {"Capital of France?": "Paris", "Capital of Peru?": "Quito", "Largest planet?": "(B) Jupiter",
          "Is ice cold?": "Yes.", "Who is Zorblax?": "I don't know"}


def test_render_settings_and_version():
    item = make_items()[2].model_copy(update={"few_shot": [{"question": "2+2?", "answer": "4"}]})
    prompts = {s: render_prompt(item, s) for s in SETTINGS}
    assert prompts["vanilla"].startswith("Question: Largest planet?")
    assert "(B) Jupiter" in prompts["zero-shot"] and prompts["zero-shot"].endswith("Answer:")
    assert "Question: 2+2?\nAnswer: 4" in prompts["few-shot"]
    assert "step by step" in prompts["chain-of-thought"]
    opts = EvalOptions(model="m", n=3, temperature=0.7, seed=5, max_tokens=16, chat=True)
    chat = render_request(item, "few-shot", opts)
    assert chat.prompt is None and chat.messages[0][0] == "system"
    assert [m[0] for m in chat.messages[1:]] == ["user", "assistant", "user"]
    assert (chat.n, chat.temperature, chat.seed, chat.max_tokens) == (3, 0.7, 5, 16)
    assert render_request(item, "chain-of-thought", opts).max_tokens >= 256
    assert TEMPLATE_VERSION
    with pytest.raises(ConfigError, match="unknown setting"):
        render_prompt(item, "five-shot")
    bad = item.model_copy(update={"few_shot": [{"q": "x"}]})
    with pytest.raises(ConfigError, match="few_shot"):
        render_prompt(bad, "few-shot")



def _joined_turns(item, setting):
    """A plain prompt as the chat turns read: system and user turns in blocks, a few-shot answer
    closing the example before it, the setting's tail on the last block."""
    blocks = []
    for role, content in render_messages(item, setting):
        if role == "assistant":
            blocks[-1] = f"{blocks[-1]}\nAnswer: {content}"
        else:
            blocks.append(content)
    tail = "Answer: Let's think step by step." if setting == "chain-of-thought" else "Answer:"
    return "\n\n".join([*blocks[:-1], f"{blocks[-1]}\n{tail}"])


def test_plain_prompts_are_the_chat_turns_joined_and_requests_rendered_in_bulk_are_rendered_one_by_one():
    items = [*make_items(), make_items()[2].model_copy(update={"id": "q6", "context": "Planets are big.",
                                                               "few_shot": [{"question": "2+2?", "answer": "4"}]}),
             make_items()[0].model_copy(update={"id": "q7", "form": "true-false", "context": "Paris is."})]
    for setting in SETTINGS:
        for item in items:
            assert render_prompt(item, setting) == _joined_turns(item, setting)
        for opts in (EvalOptions(model="m", n=2, temperature=0.5, seed=3), EvalOptions(model="m", chat=True)):
            one_by_one = [render_request(item, setting, opts) for item in items]
            bulk = render_requests(items, setting, opts)
            assert bulk == one_by_one and [hash(r) for r in bulk] == [hash(r) for r in one_by_one]
            assert [vars(r) for r in bulk] == [vars(r) for r in one_by_one]
    assert render_requests([], "zero-shot", EvalOptions(model="m")) == []

def test_evaluate_items_batches_and_scores():
    backend = ScriptedBackend(SCRIPT)
    results = evaluate_items(make_items(), backend, EvalOptions(model="m", n=2), chunk_size=2)
    assert backend.calls == 3 and len(backend.asked) == 5          # 5 requests in chunks of 2
    assert all(r.n == 2 for r in backend.asked)                    # one request per item, n samples
    assert [(r.item_id, r.sample_index) for r in results][:4] == [("q1", 0), ("q1", 1), ("q2", 0), ("q2", 1)]
    first = {r.item_id: r for r in results if r.sample_index == 0}
    assert {k: v.score for k, v in first.items()} == {"q1": 1.0, "q2": 0.0, "q3": 1.0, "q4": 1.0, "q5": 1.0}
    assert first["q3"].parsed == "B" and first["q4"].parsed == "yes"
    assert all(r.score == 0.0 for r in results if r.sample_index == 1)   # scripted "wrong"
    assert summarize(results) == {"samples": 10, "items": 5, "accuracy": 0.4, "errors": 0, "cached": 0}


def test_limit_and_progress():
    seen = []
    chosen = limit_units(make_items(), 3, None)
    results = evaluate_items(chosen, ScriptedBackend(SCRIPT), EvalOptions(model="m"), progress=seen.append,
                             chunk_size=2)
    assert {r.item_id for r in results} == {"q1", "q2", "q3"} and seen == [2, 1]
    grouped = [i.model_copy(update={"metadata": {"event": "e1" if i.id in ("q1", "q3") else i.id}})
               for i in make_items()]
    assert [i.id for i in limit_units(grouped, 2, "event")] == ["q1", "q2", "q3"]   # whole units
    with pytest.raises(ConfigError, match="at least 1"):
        limit_units(make_items(), 0, None)



def test_a_task_taking_every_item_selects_them_as_a_filter_naming_them_all_does():
    items = make_items()
    named = ItemFilter(tasks=("b/gen", "b/mc", "b/bool"))
    for scorer in (None, Component(name="exact")):
        every = Task(name="b/all", solver=Component(name="zero-shot"), scorer=scorer)
        chosen = select_items(items, [every, Task(name="b/mc", dataset=ItemFilter(tasks=("b/mc",)),
                                                  solver=Component(name="zero-shot"))])
        assert chosen == select_items(items, [every.model_copy(update={"dataset": named})])
        assert [i.id for i in chosen] == [i.id for i in items]
        assert [i.scorer for i in chosen] == [scorer.name if scorer else i.scorer for i in items]
    only_mc = Task(name="b/mc", dataset=ItemFilter(tasks=("b/mc",)), solver=Component(name="zero-shot"))
    assert [i.id for i in select_items(items, [only_mc])] == ["q3"]

def test_rules_are_recorded_and_identical_requests_sent_once():
    items = make_items()
    twice = [items[0], items[0].model_copy(update={"id": "q1-copy"})]
    backend = ScriptedBackend(SCRIPT)
    results = evaluate_items(twice, backend, EvalOptions(model="m"))
    assert len(backend.asked) == 1 and [r.item_id for r in results] == ["q1", "q1-copy"]
    assert {r.rule for r in results} == {"fuzzy:knowforge"}



def test_repeated_requests_get_their_own_answers_across_chunks():
    items = make_items()
    requests = [render_request(items[k], "zero-shot", EvalOptions(model="m")) for k in (0, 1, 0, 3, 1, 0)]
    backend = ScriptedBackend(SCRIPT)
    answers = ask(requests, backend, chunk_size=2)
    assert [r.prompt for r in backend.asked] == [requests[k].prompt for k in (0, 1, 3)]   # each once, in order
    assert [a.texts[0] for a in answers] == ["Paris", "Quito", "Paris", "Yes.", "Quito", "Paris"]

def test_per_sample_failures_are_recorded_and_counted():
    backend = ScriptedBackend(SCRIPT, broken="Capital of Peru?")
    results = evaluate_items(make_items(), backend, EvalOptions(model="m", n=2))
    failed = [r for r in results if r.error]
    assert [(r.item_id, r.sample_index) for r in failed] == [("q2", 0), ("q2", 1)]
    assert all(r.score == 0.0 and r.raw is None and "HTTP 500" in r.error for r in failed)
    assert summarize(results)["errors"] == 2


def test_chain_of_thought_scores_the_final_answer():
    backend = ScriptedBackend({"Capital of France?": "France's capital is well known.\nAnswer: Paris"})
    results = evaluate_items(make_items()[:1], backend, EvalOptions(model="m"), setting="chain-of-thought")
    assert results[0].score == 1.0 and results[0].raw.startswith("France's")


def test_backend_returning_wrong_count_is_an_error():
    class Short(ScriptedBackend):
        def generate(self, requests):
            return super().generate(requests)[:-1]

    with pytest.raises(BackendError, match="returned 1 results for 2"):
        evaluate_items(make_items()[:2], Short(SCRIPT), EvalOptions(model="m"))


def test_interrupted_run_resumes_without_repeating_requests(tmp_path):
    from knowforge.models.backends import cached
    from knowforge.models.cache import ResponseCache

    items = make_items()
    options = EvalOptions(model="m", n=2)
    crashing = ScriptedBackend(SCRIPT, fail_after=2)
    with pytest.raises(BackendError, match="simulated crash"):
        evaluate_items(items, cached(crashing, ResponseCache(tmp_path), chunk_size=1), options, chunk_size=1)
    done_before = [r.prompt for r in crashing.asked]
    assert len(done_before) == 2

    fresh = ScriptedBackend(SCRIPT)
    backend = cached(fresh, ResponseCache(tmp_path), chunk_size=1)
    results = evaluate_items(items, backend, options, chunk_size=1)
    asked_now = [r.prompt for r in fresh.asked]
    assert not set(asked_now) & set(done_before)             # nothing answered is asked again
    assert len(asked_now) == len(items) - 2
    assert sum(r.cached for r in results) == 4                # the 2 finished items × 2 samples
    assert all(r.cache_key for r in results)

    again = ScriptedBackend(SCRIPT)
    rerun = evaluate_items(items, cached(again, ResponseCache(tmp_path)), options)
    assert again.asked == [] and all(r.cached for r in rerun)
    assert [r.score for r in rerun] == [r.score for r in results]

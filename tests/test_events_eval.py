"""Editing methods (ICE, BM25, dense, none) through the tiny local model, ELKEN metrics with
the official-compatible scorer, and the tendency LLM judge's scoring logic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from events_subgraph import build_subgraph, evaluate_editing

from knowforge.errors import BackendError, ConfigError
from knowforge.eval.events.editing import DenseRetriever, memory_of, resolve_method, with_context
from knowforge.eval.events.judge import judge_tendency, parse_judgement
from knowforge.eval.events.metrics import locality_metrics, reliability_metrics
from knowforge.eval.scoring import score_item
from knowforge.models.types import GenerationResult
from knowforge.eval.types import EvalOptions
from knowforge.generators.events.build import generate_events, read_batch

TYPES = ["win-election", "transfer-player", "start-org", "IPO"]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("transformers")
    from knowforge.models.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model", seed=0)


@pytest.fixture
def batch_items(store):
    build_subgraph(store)
    generate_events(store, types=TYPES, n=2, seed=0, batch="ev")
    return [i for _, items in read_batch(store, "ev") for i in items]


def questions_test_the_facts_they_ask_about(store, batch_items):
    """An in-scope fact question TESTS the facts its event asserts for (subject, relation); an
    out-of-scope one the source fact it asks about (what the validity report's seen vs unseen reads).
    Checked inside test_contexts_per_method, which generates the same batch anyway."""
    facts = {r["q"]: r["facts"] for r in store.user_query(
        "MATCH (q:Question)-[:TESTS]->(f:Fact) RETURN q.id AS q, collect(f {.id, .layer, .subject_id, .relation, "
        "asserted_by: [(e:Event)-[:ASSERTS]->(f) | e.id]}) AS facts")}
    fact_questions = [i for i in batch_items if i.slices["part"] == "fact"]
    assert {i.slices["scope"] for i in fact_questions} == {"in", "out"}
    for item in fact_questions:
        tested = facts.get(item.id)
        assert tested and sorted(f["id"] for f in tested) == sorted(item.fact_ids), item.id
        for f in tested:
            assert (f["subject_id"], f["relation"]) == (item.metadata["subject"]["id"], item.slices["relation"])
            if item.slices["scope"] == "in":
                assert f["layer"] == "edit" and f["asserted_by"] == [item.metadata["event_id"]]
            else:
                assert f["layer"] in (None, "source") and f["asserted_by"] == []


def _options(tmp_path: Path, model: Path) -> EvalOptions:
    return EvalOptions(backend="hf", model=str(model), max_tokens=6, cache_dir=tmp_path / "cache",
                       out_dir=tmp_path / "runs", device="cpu", silent=True)


@pytest.mark.hf
def test_methods_through_the_tiny_model(store, batch_items, tiny_model, tmp_path):
    outcomes = {}
    for method in ("ice", "bm25", "no-edit"):
        outcomes[method] = evaluate_editing(store, batch_items, _options(tmp_path, tiny_model), method=method)
    ice, bm25, none = outcomes["ice"], outcomes["bm25"], outcomes["no-edit"]
    inside = [i for i in batch_items if i.slices["scope"] == "in"]
    assert ice.metrics["reliability"]["questions"] == len(inside)
    assert ice.metrics["retrieval_top1_accuracy"] == 1.0
    assert 0.0 <= bm25.metrics["retrieval_top1_accuracy"] <= 1.0
    assert none.metrics["retrieval_top1_accuracy"] is None
    # no edit: the "after" answers are the "before" answers
    assert none.metrics["locality"]["question_level"] == 1.0
    for outcome in outcomes.values():
        report = json.loads((outcome.report_dir / "report.json").read_text())
        assert report["run_id"] == outcome.run_id
        assert any(r["metric"] == "edit_reliability" for r in report["extra"]["Task metrics"])
        for key in ("question_level", "edit_level"):
            value = outcome.metrics["reliability"][key]
            assert value is None or 0.0 <= value <= 1.0
    runs = store.user_query("MATCH (r:Run) WHERE r.editing_method IS NOT NULL "
                            "RETURN r.editing_method AS m ORDER BY m")
    assert [r["m"] for r in runs] == ["bm25", "ice", "none"]
    # the out-of-scope questions asked without the edit are the run's variant answers
    outside = [i for i in batch_items if i.slices["scope"] == "out"]
    variants = store.user_query("MATCH (:Run {id: $id})-[:GAVE_VARIANT]->(a:Answer) RETURN a.variant AS v, count(a) AS n",
                                {"id": ice.run_id})
    assert variants == [{"v": "no-edit", "n": len(outside)}]


def test_contexts_per_method(store, batch_items):
    questions_test_the_facts_they_ask_about(store, batch_items)
    memory = memory_of(batch_items)
    assert len(memory.ids) == len({i.metadata["event_id"] for i in batch_items})
    ice = with_context(batch_items, "ice", memory)
    assert all(i.metadata["event"] in i.context for i in ice)
    assert all(i.context is None for i in with_context(batch_items, "none", memory))
    from knowforge.eval.events.editing import BM25Retriever

    bm25 = with_context(batch_items, "bm25", memory, BM25Retriever(memory))
    assert all(i.metadata["retrieved"] in memory.ids for i in bm25)
    # a question about a player finds an event about that player (there may be two)
    texts = dict(zip(memory.ids, memory.texts))
    for item in bm25:
        if item.slices["event_type"] == "transfer-player" and item.slices["relation"] == "P54":
            assert item.metadata["subject"]["name"] in texts[item.metadata["retrieved"]]


@pytest.mark.hf
def test_dense_retrieval_with_a_local_model(store, batch_items, tiny_model, tiny_sentence_model, tmp_path):
    memory = memory_of(batch_items)
    retriever = DenseRetriever(memory, str(tiny_sentence_model))
    picks = retriever.top1(list(memory.texts))
    assert picks == retriever.top1(list(memory.texts))          # deterministic
    assert all(0 <= p < len(memory.ids) for p in picks)
    outcome = evaluate_editing(store, batch_items, _options(tmp_path, tiny_model), method="dense",
                               args={"dense_model": str(tiny_sentence_model)})
    assert outcome.metrics["method"] == "dense"
    assert 0.0 <= outcome.metrics["retrieval_top1_accuracy"] <= 1.0


def test_unprovided_methods_say_so():
    assert resolve_method("ft") == "ft"       # fine-tuning is provided (tests/test_editing_ft.py)
    assert resolve_method("serac") == "serac"  # so is SERAC (tests/test_editing_serac.py)
    assert (resolve_method("rome"), resolve_method("memit")) == ("rome", "memit")   # test_editing_rome_events.py
    with pytest.raises(ConfigError, match="unknown editing method"):
        resolve_method("grace")


def test_official_scoring_of_our_items(batch_items):
    unknown = next(i for i in batch_items if i.unknown)
    known = next(i for i in batch_items if i.slices["scope"] == "in" and i.slices["relation"] == "P551"
                 and "Washington" in i.answers)
    assert score_item(unknown, "Unknown.").value == 1.0
    assert score_item(unknown, "London").value == 0.0
    assert score_item(known, "washington.\nmore text").value == 1.0     # alias, first line, period
    assert score_item(known, "Washington D.C.").value == 0.0            # exact after normalisation
    local = next(i for i in batch_items if i.slices["scope"] == "out")
    name, aliases = local.metadata["answer"]["name"], local.metadata["answer"]["alias"]
    spelled = aliases[0] if aliases else name
    res = locality_metrics([local], {local.id: name}, {local.id: spelled + "."})
    assert res["question_level"] == 1.0
    res = locality_metrics([local], {local.id: "I do not know (unknown)"}, {local.id: "Unknown"})
    assert res["question_level"] == 1.0
    res = locality_metrics([local], {local.id: name}, {local.id: "something else"})
    assert res["question_level"] == 0.0 and res["edit_level"] == 0.0


def test_edit_level_grouping_and_splits(batch_items):
    inside = [i for i in batch_items if i.slices["scope"] == "in"]
    events = sorted({i.metadata["event_id"] for i in inside})
    # all right except one question of the first event
    wrong = next(i.id for i in inside if i.metadata["event_id"] == events[0])
    correct = {i.id: i.id != wrong for i in inside}
    metrics = reliability_metrics(batch_items, correct)
    assert metrics["edit_level"] == (len(events) - 1) / len(events)
    assert metrics["question_level"] == (len(inside) - 1) / len(inside)
    assert metrics["n_known"] + metrics["n_unknown"] == len(inside)
    assert metrics["n_needs_background"] + metrics["n_not_needs_background"] == len(inside)


class ScriptedJudge:
    """Fixed judge replies, to test the judge's parsing and aggregation only."""

    name, model, capabilities = "scripted", "judge", frozenset({"generate"})

    def __init__(self, replies):
        self.replies = replies

    def generate(self, requests):
        return [GenerationResult(texts=(r,), finish_reasons=("stop",)) for r in self.replies[:len(requests)]]

    def loglikelihood(self, requests):
        raise BackendError("the scripted judge only generates")


def test_tendency_judge_scoring_logic():
    assert parse_judgement("correctness: 5\ncoherence: 4\ncomprehensiveness: 5\noverall: 5") == {
        "correctness": 5, "coherence": 4, "comprehensiveness": 5, "overall": 5}
    # the rubric caps overall at 3 when correctness <= 3
    assert parse_judgement("Correctness = 2, coherence: 5, comprehensiveness: 5, overall: 5")["overall"] == 3
    assert parse_judgement("correctness: 5 coherence: 4") is None
    case = {"event": "e", "question": "q", "answer": "a", "label": "A"}
    judge = ScriptedJudge(["correctness: 5\ncoherence: 5\ncomprehensiveness: 5\noverall: 5",
                           "correctness: 4\ncoherence: 3\ncomprehensiveness: 2\noverall: 4",
                           "no scores here"])
    result = judge_tendency(judge, [{**case, "answer": f"a{k}"} for k in range(3)])
    assert result["unparsed"] == 1 and result["cases"] == 3
    assert result["full_mark_overall"] == 0.5 and result["mean_correctness"] == 4.5
    assert result["full_mark_comprehensiveness"] == 0.5

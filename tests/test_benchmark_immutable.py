"""A benchmark is immutable once generated: no solver creates, changes or deletes a
``:Question`` (variant prompts are derived in memory and answered against the original
question). Every solver in the registry runs on a small benchmark of its own method (the
generic ones on KnowGen's) with the tiny model, and every question of every benchmark hashes
the same before and after."""

from __future__ import annotations

import hashlib
import json

import pytest

from exports_bench import make_benchmarks
from knowforge import workflow
from knowforge.eval.registry import GENERIC, registry
from knowforge.eval.types import EvalOptions
from knowforge.models.task import Component

pytestmark = pytest.mark.hf

# what a solver needs beyond the tiny model (arguments), by name
ARGS = {"newterm": {"setting": "gold"}, "chronoprompt": {"span": "both", "max_tokens": 4},
        "chrono-check": {"shot_sets": 2}, "ft": {"epochs": 1}}


def questions_hash(store) -> tuple[int, str]:
    """(questions, sha256) over every question's properties and outgoing links."""
    rows = store.user_query("MATCH (q:Question) OPTIONAL MATCH (q)-[r]->(x) "
                            "WITH q, collect(type(r) + '>' + coalesce(x.id, '')) AS links "
                            "RETURN properties(q) AS props, links ORDER BY q.id")
    digest = hashlib.sha256()
    for row in rows:
        digest.update(json.dumps([row["props"], sorted(row["links"])], sort_keys=True, default=str).encode())
    return len(rows), digest.hexdigest()


@pytest.fixture(scope="module")
def benchmarks(neo4j_server, session_store):
    return make_benchmarks(neo4j_server, session_store, sources=("taxonomy", "wikidata", "cskg", "umls"))


def _solvers() -> list[str]:
    return sorted(registry().solvers)


@pytest.mark.parametrize("solver", _solvers())
def test_no_solver_changes_a_benchmark(solver, benchmarks, session_store, graph_env, tiny_model_dir,
                                       tiny_sentence_model, tmp_path):
    owner = registry().owner("solver", solver)
    method = "knowgen" if owner == GENERIC else owner.split("'")[1]
    args = dict(ARGS.get(solver, {}))
    if solver in ("dense", "serac"):
        args["dense_model" if solver == "dense" else "encoder"] = str(tiny_sentence_model)
    if solver in ("rome", "memit"):
        # the tiny model is not a control model: its covariance statistics need a text of our own
        corpus = tmp_path / "corpus.txt"
        corpus.write_text("".join(f"Question: where does person {k} live?\nAnswer: city {k % 7}\n" for k in range(64)))
        args["stats_corpus"] = str(corpus)
    before = questions_hash(session_store)
    assert before[0] > 0
    # SERAC cross-fits its scope classifier over the run's events: it needs two of them
    options = EvalOptions(backend="hf", model=str(tiny_model_dir), max_tokens=4, limit=2 if solver == "serac" else 1,
                          cache=False,
                          out_dir=tmp_path / "runs", silent=True, device="cpu")
    evaluation = workflow.evaluate(session_store, f"{method}:{benchmarks[method]}", options,
                                   solver=Component(name=solver, args=args), metrics=("accuracy",))
    assert evaluation.runs and all(run.samples > 0 for run in evaluation.runs)
    assert questions_hash(session_store) == before

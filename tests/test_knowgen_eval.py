"""``knowforge eval --benchmark knowgen:BATCH`` end to end with a tiny local model: the three
tasks under ALCUNA's four settings (the tasks' sweep), four Runs in the graph, accuracy by
type/form/difference in the summary; --task and --solver narrow it to one run."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.generators.knowgen import KnowGenParams, generate_batch
from knowforge.generators.knowgen.method import SETTINGS
from knowforge.generators.knowgen.synthetic import synthetic_taxonomy, write_taxonomy


@pytest.mark.hf
def test_eval_knowgen_batch_with_tiny_model(store, graph_env, tiny_model_dir, tmp_path):
    entities, facts = synthetic_taxonomy(24, seed=1)
    write_taxonomy(store, entities, facts)
    generate_batch(store, KnowGenParams(batch="ev", seed=2, n=6))
    args = ["eval", "--benchmark", "knowgen:ev", "--backend", "hf", "--model", str(tiny_model_dir),
            "--limit", "12", "--max-tokens", "8", "--out", str(tmp_path / "runs"),
            "--cache-dir", str(tmp_path / "cache"), "--silent"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "runs" / "knowgen-ev" / "summary.json").read_text())
    assert sorted(summary["runs"]) == sorted(SETTINGS)
    for setting in SETTINGS:
        s = summary["runs"][setting]
        assert s["samples"] == 12
        assert s["tasks"] == ["knowgen/KU", "knowgen/KD", "knowgen/KA"]
        assert set(s["metrics"]) <= {"knowgen/KU", "knowgen/KD", "knowgen/KA"}
        assert set(s["by"]["type"]) <= {"KU", "KD", "KA"} and s["by"]["type"]
        assert sum(v["samples"] for v in s["by"]["form"].values()) == 12
        assert (tmp_path / "runs" / s["run_id"] / "report.json").is_file()
    runs = store.driver.execute_query(
        "MATCH (r:Run) WHERE r.name STARTS WITH 'knowgen:ev:' RETURN r.solver AS s ORDER BY s",
        database_=store.database).records
    assert sorted(r["s"] for r in runs) == sorted(SETTINGS)
    # answers link runs to the same Question nodes KnowGen wrote (MERGE by id)
    linked = store.driver.execute_query(
        "MATCH (q:Question {benchmark:'knowgen:ev'})-[:TESTS]->(:Fact) "
        "WHERE EXISTS { (:Answer)--(q) } RETURN count(DISTINCT q) AS n",
        database_=store.database).records[0]["n"]
    assert linked == 12
    assert "| KU |" in (tmp_path / "runs" / "knowgen-ev" / "summary.md").read_text() or \
        "| KD |" in (tmp_path / "runs" / "knowgen-ev" / "summary.md").read_text()

    # dropping the batch removes its questions, the answers and the now empty runs
    from knowforge.generators.knowgen import drop_batch

    drop_batch(store, "ev")
    left = store.driver.execute_query(
        "MATCH (n) WHERE n:Question OR n:Answer OR n:Run OR n:Artificial OR n:Batch RETURN count(n) AS n",
        database_=store.database).records[0]["n"]
    assert left == 0


@pytest.mark.hf
def test_eval_one_task_under_one_solver(store, graph_env, tiny_model_dir, tmp_path):
    entities, facts = synthetic_taxonomy(24, seed=1)
    write_taxonomy(store, entities, facts)
    generate_batch(store, KnowGenParams(batch="one", seed=2, n=6))
    args = ["eval", "--benchmark", "knowgen:one", "--task", "knowgen/KA", "--solver", "few-shot",
            "--backend", "hf", "--model", str(tiny_model_dir), "--max-tokens", "4",
            "--out", str(tmp_path / "runs"), "--cache-dir", str(tmp_path / "cache"), "--silent"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "runs" / "knowgen-one" / "summary.json").read_text())
    assert list(summary["runs"]) == ["few-shot"]
    run = summary["runs"]["few-shot"]
    assert run["tasks"] == ["knowgen/KA"]
    n_ka = store.driver.execute_query(
        "MATCH (q:Question {benchmark:'knowgen:one', task:'knowgen/KA'}) RETURN count(q) AS n",
        database_=store.database).records[0]["n"]
    assert run["items"] == n_ka > 0
    bad = CliRunner().invoke(cli, ["eval", "--benchmark", "knowgen:one", "--task", "knowgen/XX",
                                   "--model", str(tiny_model_dir), "--silent"])
    assert bad.exit_code != 0 and "has no task 'knowgen/XX'" in bad.output
    bad = CliRunner().invoke(cli, ["eval", "--benchmark", "knowgen:one", "--solver", "zero-shot",
                                   "-S", "span=both", "--model", str(tiny_model_dir), "--silent"])
    assert bad.exit_code != 0 and "bad arguments" in bad.output

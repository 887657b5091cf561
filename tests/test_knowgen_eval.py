"""``knowforge eval --benchmark knowgen:BATCH`` end to end with a tiny local model: four
settings, four Runs in the graph, accuracy by type/form/difference in the summary."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.generators.knowgen import KnowGenParams, generate_batch
from knowforge.eval.knowgen_eval import SETTINGS
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
    assert sorted(summary["settings"]) == sorted(SETTINGS)
    for setting in SETTINGS:
        s = summary["settings"][setting]
        assert s["samples"] == 12
        assert set(s["by"]["type"]) <= {"KU", "KD", "KA"} and s["by"]["type"]
        assert sum(v["samples"] for v in s["by"]["form"].values()) == 12
        assert (tmp_path / "runs" / s["run_id"] / "report.json").is_file()
    runs = store.driver.execute_query(
        "MATCH (r:Run) WHERE r.name STARTS WITH 'knowgen:ev:' RETURN r.setting AS s ORDER BY s",
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

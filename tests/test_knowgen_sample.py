"""End to end on the bundled taxonomy sample: 250 artificial entities with all question
families, exported in the ALCUNA format and validated.

250, not the 1,000 this test once made: the server's question write and drop were most of its
time (about 40 questions per entity), and 250 entities (10,293 questions, every type x form and
difference with hundreds each, 713 three-hop questions) run the same lines of knowforge as 1,000
do, but for make_name's last resort (syllable strings once 40 blends collide), which
test_knowgen_names_plan.py runs directly (coverage.py on both sizes, benchmarks/RESULTS.md).
Scale is measured by benchmarks/knowgen_scale.py, not tested."""

from __future__ import annotations

from collections import Counter
from importlib import resources

from knowforge.generators.knowgen import KnowGenParams, drop_batch, generate_batch
from knowforge.generators.knowgen.alcuna_schema import validate_alcuna_export
from knowforge.generators.knowgen.method import METHOD
from knowforge.models.questions import source_graph_hash
from knowforge.workflow import export
from knowforge.kg.loaders.taxonomy import load_taxonomy


def test_entities_from_the_taxonomy_sample(store, tmp_path):
    sample = resources.files("knowforge.kg.samples").joinpath("taxonomy")
    load_taxonomy(store, [str(sample)])
    before = source_graph_hash(store)
    summary = generate_batch(store, KnowGenParams(batch="sample250", seed=0, n=250))
    assert summary.entities == 250
    assert set(summary.by_type) == {"KU", "KD", "KA"}
    slices = Counter()
    for row in store.driver.execute_query(
            "MATCH (q:Question {benchmark:'knowgen:sample250'}) "
            "RETURN q.slice_type AS t, q.form AS f, q.slice_difference AS d, q.slice_hop_count AS h",
            database_=store.database).records:
        slices[(row["t"], row["f"])] += 1
        slices[("difference", row["d"])] += 1
        slices[("hop", row["h"])] += 1
    for t in ("KU", "KD", "KA"):
        for f in ("boolean", "fill-in-blank", "multi-choice"):
            assert slices[(t, f)] > 0, (t, f)
    for d in ("heredity", "variation", "dropout", "extension"):
        assert slices[("difference", d)] > 0, d
    assert slices[("hop", 2)] > 0 and slices[("hop", 3)] > 0
    export(METHOD, store, "sample250", "alcuna", tmp_path)
    counts = validate_alcuna_export(tmp_path)
    assert counts == {"entities": 250, "questions": summary.questions}
    drop_batch(store, "sample250")
    assert source_graph_hash(store) == before

"""Golden bytes: a fixed seed on a fixed synthetic taxonomy gives exactly the exports recorded
before the 10k speed work (issue #13, item 5).

The digests below were computed from the code as it was before any optimisation of the plan,
question build or question write. Any change to what a batch contains, to the order of random
draws, or to how items and ALCUNA files are serialised changes them. If a change is MEANT to
change the output, say so in the commit and record the new digests; a speed change must not.
"""

from __future__ import annotations

import hashlib

import pytest

from knowforge.generators.knowgen.method import METHOD
from knowforge.generators.knowgen.params import KnowGenParams
from knowforge.generators.knowgen.synthetic import synthetic_taxonomy, write_taxonomy
from knowforge.workflow import export

# A taxonomy of 300 species (38 genera, 7 families), then two batches: the defaults, and a
# second with other options (every KU property, more shots, two forms) made after the first,
# so its name check and its class reads see the first batch's artificial entities.
SPECIES, TAXONOMY_SEED = 300, 3
BATCHES = {
    "golden": dict(seed=7, n=200),
    "golden2": dict(seed=8, n=60, max_ku=0, few_shot=3, forms=("boolean", "multi-choice"),
                    max_ka2=3, max_hop_triplets=2),
}
GOLDEN = {
    ("golden", "alcuna", "meta_data.jsonl"):
        "29ec11bc0d0e079223cdaa8a18591a51f5efa2938fefbd31b2716c8b0a5c3d2f",
    ("golden", "alcuna", "id2question.json"):
        "e98e3b5684e76ee0793081e31e31763256e90055939cda0dd7fa20ccb01b0991",
    ("golden", "jsonl", "items.jsonl"):
        "8fd4f17a8688d564235516aa5e43f431853422d4ead47e8fb336b2c1d375bbb1",
    ("golden", "jsonl", "entities.jsonl"):
        "4b0876cc8b3da861ea093754e0eda6ddb05c1538b2da4fa3b79ed590702ce201",
    ("golden2", "alcuna", "meta_data.jsonl"):
        "025bfe4c409f45b0cc430b8fe59e52b7311640cb58f193cb91c8ed95bd994a8b",
    ("golden2", "alcuna", "id2question.json"):
        "0160d3606e6212b91bc89fe5683f1d5abdafe4960bfe85fb07445e03941665b0",
    ("golden2", "jsonl", "items.jsonl"):
        "3e8c5474e556fbe8993c301fe69bb28fd43ed2fe4e86216a50dc60dbecd45985",
    ("golden2", "jsonl", "entities.jsonl"):
        "354122868898bb53db5c7a2e91e6f0b5f2cc588dbbb3e41f031d34579b0c664a",
}


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(params=["defaults", "small chunks"])
def golden_exports(request, store, tmp_path, monkeypatch):
    if request.param == "small chunks":
        # many KA chunks and question statements, two at a time: the same bytes
        from knowforge.generators.knowgen import generate

        monkeypatch.setattr(generate, "KA_BATCH_SIZE", 16)
        monkeypatch.setattr(generate, "QUESTION_BATCH_SIZE", 97)
        assert generate.KA_READERS > 1 and generate.QUESTION_WRITERS > 1
    entities, facts = synthetic_taxonomy(SPECIES, seed=TAXONOMY_SEED)
    write_taxonomy(store, entities, facts)
    digests, counts = {}, {}
    for batch, options in BATCHES.items():
        summary = METHOD.generate(store, KnowGenParams(batch=batch, **options))
        counts[batch] = summary.counts
        for fmt in ("alcuna", "jsonl"):
            result = export(METHOD, store, batch, fmt, tmp_path / batch / fmt)
            for path in result.files:
                digests[(batch, fmt, path.name)] = _sha256(path)
    return digests, counts


def test_seeded_exports_are_byte_identical_to_the_recorded_ones(golden_exports):
    digests, counts = golden_exports
    assert counts["golden"]["entities"] == 200 and counts["golden2"]["entities"] == 60
    assert counts["golden"]["questions"] > 10 * 200   # the batch really has questions to compare
    assert set(digests) == set(GOLDEN)
    changed = {key: digests[key] for key in GOLDEN if digests[key] != GOLDEN[key]}
    assert not changed, f"seeded output changed: {changed}"

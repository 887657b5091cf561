"""Golden: the 16 bundled event types on the bundled samples, fixed seeds, pinned digests.

The digests were taken with the template engine of the time (slot predicates as Cypher text
composed into one query) and must survive any rewrite of how predicates are evaluated: the
same graph and seed give the same events, byte for byte. Two batches are stacked so the
predicates that skip retracted facts are exercised against facts the first batch retracted.
If a digest changes on purpose (a template's meaning changed), say why in the commit.
Re-pinned once when LINK's additions to the bundled samples (towns, inventions, historical
figures) gave the templates more candidates; with the samples of before, the code of after still
gave the old digests.
"""

from __future__ import annotations

import hashlib

import pytest

from knowforge.generators.events.build import generate_events
from knowforge.generators.events.layering import plan_payload
from knowforge.generators.events.method import write_elken_file
from knowforge.kg.loaders.samples import load_samples

# (batch, seed, events per type) -> (sha256 of the plans' canonical JSON, sha256 of the ELKEN file)
GOLDEN = {
    ("g1", 7, 3): ("9218102a2fd5266cdc5d79d3595045267e90c4bc830b45de716d34de8a51627b",
                    "c1ee43d09865973cd81e35db5b07e80236697794668eb43fae04200330b7f16a"),
    ("g2", 11, 2): ("ee0b7414c7857e713d4bd021a37459f810e658e43d32964decdd46d5d384fe93",
                     "194dccc358f459a50ce2cb1e1e1ed8b287dde67617b10d26f2427927a2db7943"),
}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def samples(store):
    load_samples(store)
    return store


def test_sixteen_types_on_the_samples_are_byte_identical(samples, tmp_path):
    got = {}
    for batch, seed, n in GOLDEN:
        summary = generate_events(samples, types=None, n=n, seed=seed, batch=batch)
        assert len({p.type for p in summary.plans}) == 16, summary.made
        plans = "\n".join(plan_payload(p) for p in summary.plans).encode("utf-8")
        (tmp_path / f"{batch}.plans.jsonl").write_bytes(plans)   # kept by pytest for a diff
        write_elken_file(samples, batch, None, tmp_path / f"{batch}.json")
        got[(batch, seed, n)] = (_sha(plans), _sha((tmp_path / f"{batch}.json").read_bytes()))
    assert got == GOLDEN

"""Golden: the 16 bundled event types on the bundled samples, fixed seeds, pinned digests.

The digests were taken with the template engine of the time (slot predicates as Cypher text
composed into one query) and must survive any rewrite of how predicates are evaluated: the
same graph and seed give the same events, byte for byte. Two batches are stacked so the
predicates that skip retracted facts are exercised against facts the first batch retracted.
If a digest changes on purpose (a template's meaning changed), say why in the commit.
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
    ("g1", 7, 3): ("beff9251e9aa256b907cfae2c72d55e3050030218ee322001030b98d67d46181",
                    "093fb18009c819f9c6cd5c8479e7e4cc7fab4ee0d58f251ff32b60ab4e969802"),
    ("g2", 11, 2): ("1cdc7a2975a2856085350adadcca4e2fdc8e541d8df1d73648a9d03474773ecd",
                     "8657cbde3465e1881253842f405260a9a849f35c5cbc22d857d906f333ca045f"),
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

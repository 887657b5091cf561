"""Golden determinism across processes: a KnowGen batch and a chrono benchmark generated and
exported by two separate Python processes with different ``PYTHONHASHSEED`` values give
byte-identical files (set iteration order, dict order from hashing, and anything else that
varies between interpreters must not reach a benchmark). Manifests are compared without a
``generated_at`` time; their sha256 list covers every data file."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from knowforge.generators.knowgen.synthetic import synthetic_taxonomy, write_taxonomy
from knowforge.kg.records import EntityRecord, FactRecord
from knowforge.kg.writer import write_entities, write_facts

CLUBS = ["Ajax", "Benfica", "Celtic", "Dynamo Kyiv", "Espanyol", "Fiorentina", "Galatasaray", "Hertha BSC",
         "Inter Milan", "Juventus", "Kaiserslautern", "Lazio"]


def write_timelines(store) -> None:
    """Ten footballers over 2010-2023: even ones change club in 2016 (dynamic), odd ones stay."""
    ents = [EntityRecord(id=f"Q{i}", name=f"Player {i}", labels=("Person",), source="wikidata", domain="general")
            for i in range(10)]
    ents += [EntityRecord(id=f"QC{j}", name=c, labels=("Club",), source="wikidata") for j, c in enumerate(CLUBS)]
    facts = []
    for i in range(10):
        common = dict(subject_id=f"Q{i}", relation="P54", source="wikidata", relation_label="member of sports team")
        if i % 2 == 0:
            facts.append(FactRecord(object_id=f"QC{i}", start_year=2010, end_year=2015, **common))
            facts.append(FactRecord(object_id=f"QC{i + 1}", start_year=2016, **common))
        else:
            facts.append(FactRecord(object_id=f"QC{i}", start_year=2010, **common))
    write_entities(store, ents)
    write_facts(store, facts)

SCRIPT = r"""
import sys
from pathlib import Path
from knowforge import methods, workflow
from knowforge.kg.connection import open_store

out = Path(sys.argv[1])
store = open_store()
try:
    registry = methods.available()
    knowgen, chrono = registry["knowgen"], registry["chrono"]
    if store.read("knowgen/read_batch", batch="gold"):
        workflow.drop(knowgen, store, "gold")
    workflow.generate(knowgen, store, knowgen.make_params(batch="gold", seed=11, n=12))
    for fmt in ("alcuna", "jsonl", "hf"):
        workflow.export(knowgen, store, "gold", fmt, out / "knowgen" / fmt)
    workflow.generate(chrono, store, chrono.make_params(domain="general", name="gold", seed=7))
    for fmt in ("chroknowbench", "jsonl", "hf"):
        workflow.export(chrono, store, "gold", fmt, out / "chrono" / fmt)
finally:
    store.close()
"""


def read_tree(root):
    """Every file's bytes; a manifest without a ``generated_at`` time if it has one (the one
    field that may differ between two generations)."""
    tree = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            if path.name == "manifest.json":
                manifest = json.loads(data)
                assert manifest.get("files")
                manifest.pop("generated_at", None)
                data = json.dumps(manifest, sort_keys=True).encode()
            tree[str(path.relative_to(root))] = data
    return tree


def test_two_processes_with_different_hash_seeds_write_the_same_bytes(store, graph_env, tmp_path):
    entities, facts = synthetic_taxonomy(40, seed=5)
    write_taxonomy(store, entities, facts)
    write_timelines(store)
    trees = []
    for hash_seed in ("1", "4242"):
        out = tmp_path / f"seed{hash_seed}"
        done = subprocess.run([sys.executable, "-c", SCRIPT, str(out)], capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": hash_seed}, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        trees.append(read_tree(out))
    first, second = trees
    assert sorted(first) == sorted(second)
    assert any(name.startswith("knowgen/") for name in first) and any(name.startswith("chrono/") for name in first)
    differing = [name for name in first if first[name] != second[name]]
    assert differing == [], (differing, first[differing[0]][:3000], second[differing[0]][:3000])

"""Golden determinism across processes: a KnowGen batch and a chrono benchmark generated and
exported by two separate Python processes with different ``PYTHONHASHSEED`` values give
byte-identical files (set iteration order, dict order from hashing, and anything else that
varies between interpreters must not reach a benchmark)."""

from __future__ import annotations

import os
import subprocess
import sys

from knowforge.generators.knowgen.synthetic import synthetic_taxonomy, write_taxonomy
from test_chrono_build import _general

SCRIPT = r"""
import sys
from knowforge.generators.chrono.build import ChronoConfig, build_benchmark, export_benchmark
from knowforge.generators.knowgen import KnowGenParams, drop_batch, generate_batch
from knowforge.generators.knowgen.export import export_batch
from knowforge.kg.connection import open_store

out = sys.argv[1]
store = open_store()
try:
    if store.read("knowgen/read_batch", batch="gold"):
        drop_batch(store, "gold")
    generate_batch(store, KnowGenParams(batch="gold", seed=11, n=12))
    for fmt in ("alcuna", "jsonl", "hf"):
        export_batch(store, "gold", fmt, f"{out}/knowgen/{fmt}")
    build_benchmark(store, ChronoConfig(domain="general", name="gold", seed=7))
    for fmt in ("chroknowbench", "jsonl", "hf"):
        export_benchmark(store, "gold", fmt, f"{out}/chrono/{fmt}")
finally:
    store.close()
"""


def read_tree(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_processes_with_different_hash_seeds_write_the_same_bytes(store, graph_env, tmp_path):
    entities, facts = synthetic_taxonomy(40, seed=5)
    write_taxonomy(store, entities, facts)
    _general(store)
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
    assert differing == []

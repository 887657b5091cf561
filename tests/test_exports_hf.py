"""Every method's Hugging Face export, read back with ``datasets.load_dataset``, and the one
manifest writer, on small benchmarks generated from the bundled samples in the real Neo4j."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest
import yaml

from exports_bench import NAMES, SEEDS, SMALL, invoke, make_benchmarks
from knowforge import __version__
from knowforge.methods import available, get_method
from knowforge.models.hf_dataset import DATA_FILE, row_to_item
from knowforge.models.questions import read_benchmark, source_graph_hash
from knowforge.workflow import MANIFEST_VERSION, export_formats

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def benchmarks(neo4j_server, session_store):
    return make_benchmarks(neo4j_server, session_store)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def slice_value(column, value):
    """A ``slice_<key>`` cell as the slice value: JSON text for mixed or nested values, a float
    for a column mixing ints and floats."""
    if isinstance(column, str) and not isinstance(value, str):
        return json.loads(column)
    if isinstance(column, float) and isinstance(value, int) and not isinstance(value, bool):
        return int(column)
    return column


def test_every_installed_method_is_exported():
    assert set(available()) == set(SMALL), "give the new method small generation arguments in exports_bench.py"


@pytest.mark.parametrize("method", sorted(SMALL))
def test_hf_export_reads_back_with_datasets(benchmarks, session_store, graph_env, method, tmp_path):
    import datasets

    name = benchmarks[method]
    out = tmp_path / "hf"
    result = invoke("export", method, "--name", name, "--format", "hf", "--out", str(out))
    assert result.exit_code == 0, result.output
    items = get_method(method).items(session_store, name)
    assert len(items) >= 10

    ds = datasets.load_dataset(str(out), split="test", cache_dir=str(tmp_path / "hf-cache"))
    assert len(ds) == len(items)
    for row, item in zip(ds, items, strict=True):
        assert row_to_item(row) == item
        for key, value in item.slices.items():
            assert slice_value(row[f"slice_{key}"], value) == value, key
    assert ds.features["choices"].feature.dtype == "string"
    # load_from_disk reads only save_to_disk's Arrow layout, not this folder: the card and the
    # docs say so, and how to make that layout
    with pytest.raises(FileNotFoundError):
        datasets.load_from_disk(str(out))
    ds.save_to_disk(str(tmp_path / "arrow"))
    assert [row_to_item(r) for r in datasets.load_from_disk(str(tmp_path / "arrow"))] == items

    card = (out / "README.md").read_text(encoding="utf-8")
    header = yaml.safe_load(card.split("---\n")[1])
    method_obj = get_method(method)
    assert header["configs"][0]["data_files"] == [{"split": "test", "path": DATA_FILE}]
    assert header["license"] in ("cc-by-4.0", "cc-by-nc-sa-4.0")
    assert f"Licence: {method_obj.licence}." in card
    node = read_benchmark(session_store, f"{method}:{name}")
    assert f"- source graph sha256: `{node['source_hash']}`" in card
    assert f"- seed: `{SEEDS[method]}`" in card
    assert f"{len(items)} items, one split" in card
    assert "`datasets.load_from_disk` does not" in card and ".save_to_disk(DIR)" in card
    by_task = {}
    for item in items:
        by_task[item.task] = by_task.get(item.task, 0) + 1
    assert "- items by task: " + ", ".join(f"{k} {v}" for k, v in sorted(by_task.items())) in card
    assert json.loads(card.split("```json\n")[1].split("```")[0]) == json.loads(node["params_json"])

    # same benchmark, same bytes
    again = invoke("export", method, "--name", name, "--format", "hf", "--out", str(tmp_path / "again"))
    assert again.exit_code == 0
    for rel in (DATA_FILE, "README.md"):
        assert (out / rel).read_bytes() == (tmp_path / "again" / rel).read_bytes(), rel


@pytest.mark.parametrize("method", sorted(SMALL))
def test_one_manifest_for_every_format(benchmarks, session_store, graph_env, method, tmp_path):
    name = benchmarks[method]
    method_obj = get_method(method)
    node = read_benchmark(session_store, f"{method}:{name}")
    revision = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    source_hash = source_graph_hash(session_store)
    n_items = len(method_obj.items(session_store, name))
    for fmt, spec in export_formats(method_obj).items():
        out = tmp_path / fmt
        result = invoke("export", method, "--name", f"{method}:{name}", "--format", fmt, "--out", str(out))
        assert result.exit_code == 0, (fmt, result.output)
        # a folder format: OUT/manifest.json; a single-file format: FILE.manifest.json beside it
        (manifest_path,) = ([out / "manifest.json"] if spec.single_file_suffix is None
                            else list(out.glob("*.manifest.json")))
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        assert manifest["version"] == MANIFEST_VERSION
        assert manifest["method"] == method and manifest["format"] == fmt
        assert manifest["benchmark"] == f"{method}:{name}" and manifest["items"] == n_items
        assert manifest["knowforge_version"] == __version__
        assert manifest["git_revision"] == revision
        # generation layers its changes beside the source graph: the hash recorded at generation
        # time is the hash of the source graph now
        assert manifest["source_graph_sha256"] == node["source_hash"] == source_hash
        assert manifest["seed"] == SEEDS[method]
        assert manifest["params"] == json.loads(node["params_json"])
        assert manifest["params"]["seed"] == SEEDS[method]
        written = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()} - {manifest_path.name}
        assert set(manifest["files"]) == written, fmt
        for rel, digest in manifest["files"].items():
            assert sha256(out / rel) == digest, (fmt, rel)


def test_single_file_export_has_its_manifest_beside_it(benchmarks, session_store, graph_env, tmp_path):
    out = tmp_path / "items.jsonl"
    result = invoke("export", "events", "--name", NAMES["events"], "--format", "jsonl", "--out", str(out))
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "items.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["files"] == {"items.jsonl": sha256(out)}
    assert manifest["seed"] == SEEDS["events"]

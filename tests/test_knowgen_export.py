"""KnowGen export: ALCUNA files validate against the documented schema, jsonl/hf layouts, the
golden byte-identity test, and the CLI commands end to end (all through the method seam)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.errors import InputError
from knowforge.models.types import BenchmarkItem
from knowforge.generators.knowgen import KnowGenParams, drop_batch, generate_batch
from knowforge.generators.knowgen.alcuna_schema import validate_alcuna_export
from knowforge.generators.knowgen.method import METHOD
from knowforge.models.hf_dataset import row_to_item
from knowforge.models.questions import read_items
from knowforge.workflow import export
from knowforge.generators.knowgen.synthetic import synthetic_taxonomy, write_taxonomy


@pytest.fixture
def batch(store):
    entities, facts = synthetic_taxonomy(40, seed=5)
    write_taxonomy(store, entities, facts)
    generate_batch(store, KnowGenParams(batch="ex", seed=11, n=25))
    return "ex"


def export_batch(store, batch, fmt, out):
    result = export(METHOD, store, batch, fmt, out)
    return [*result.files, result.manifest]


def read_tree(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_alcuna_export_validates_and_matches_graph(store, batch, tmp_path):
    files = export_batch(store, batch, "alcuna", tmp_path)
    assert {p.name for p in files} == {"meta_data.jsonl", "id2question.json", "manifest.json"}
    counts = validate_alcuna_export(tmp_path)
    assert counts["entities"] == 25
    metas = [json.loads(x) for x in (tmp_path / "meta_data.jsonl").read_text().splitlines()]
    id2q = json.loads((tmp_path / "id2question.json").read_text())
    assert sum(len(v) for v in id2q.values()) == counts["questions"]
    assert counts["questions"] == len(read_items(store, "knowgen:ex"))
    for m in metas:
        art, par, diff = m["artificial_entity"], m["parent_entity"], m["difference"]
        # the released data's convention: artificial id = minus the parent's id (first use)
        assert art["id"] < 0 and (art["id"] == -par["id"] or (-art["id"]) % 10**10 == par["id"])
        n_art_values = sum(len(p["values"]) for p in art["property"])
        assert n_art_values == len(diff["heredity"]) + len(diff["variation"]) + len(diff["extension"])
        n_par_values = sum(len(p["values"]) for p in par["property"])
        assert n_par_values == len(diff["heredity"]) + len(diff["variation"]) + len(diff["dropout"])
        for old, new in diff["variation"]:
            assert old["name"] == new["name"] and old["values"] != new["values"]
    types = {q["type"] for qs in id2q.values() for q in qs}
    assert types == {"Knowledge Understanding", "Knowledge Differentiation", "Knowledge Association"}
    forms = {q["form"] for qs in id2q.values() for q in qs}
    assert forms == {"boolean", "fill-in-blank", "multi-choice"}


def test_validator_rejects_broken_files(store, batch, tmp_path):
    export_batch(store, batch, "alcuna", tmp_path)
    lines = (tmp_path / "meta_data.jsonl").read_text().splitlines()
    rec = json.loads(lines[1])
    rec["difference"]["variation"] = [["only-one"]]
    lines[1] = json.dumps(rec)
    (tmp_path / "meta_data.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"meta_data.jsonl:line 2: field difference.variation\[0\]"):
        validate_alcuna_export(tmp_path)


def test_jsonl_and_hf_exports(store, batch, tmp_path):
    export_batch(store, batch, "jsonl", tmp_path / "j")
    items = [BenchmarkItem.model_validate_json(x)
             for x in (tmp_path / "j" / "items.jsonl").read_text().splitlines()]
    assert items and all(i.benchmark == "knowgen:ex" for i in items)
    manifest = json.loads((tmp_path / "j" / "manifest.json").read_text())
    assert manifest["seed"] == 11 and manifest["version"] == "2" and manifest["params"]["name"] == "ex"
    assert len(manifest["source_graph_sha256"]) == 64 and "git_revision" in manifest
    assert set(manifest["files"]) == {"items.jsonl", "entities.jsonl"}
    mc = [i for i in items if i.form == "multi-choice"]
    assert mc and all(len(i.choices) == 4 and i.choices[i.answer_index] == i.answers[0] for i in mc)
    bools = [i for i in items if i.form == "boolean" and not i.unknown]
    yes = sum(1 for i in bools if i.answers == ["yes"])
    assert abs(yes - (len(bools) - yes)) <= 3   # balanced per type (±1 each)
    export_batch(store, batch, "hf", tmp_path / "h")
    card = (tmp_path / "h" / "README.md").read_text()
    assert card.startswith("---\n") and "data/test.parquet" in card and "cc-by-4.0" in card
    import datasets

    rows = datasets.load_dataset(str(tmp_path / "h"), split="test")
    assert [row_to_item(r) for r in rows] == items


def test_same_seed_same_graph_byte_identical_exports(store, batch, tmp_path):
    for fmt in ("alcuna", "jsonl", "hf"):
        export_batch(store, batch, fmt, tmp_path / "a" / fmt)
    drop_batch(store, batch)
    generate_batch(store, KnowGenParams(batch="ex", seed=11, n=25))
    for fmt in ("alcuna", "jsonl", "hf"):
        export_batch(store, batch, fmt, tmp_path / "b" / fmt)
        assert read_tree(tmp_path / "a" / fmt) == read_tree(tmp_path / "b" / fmt), fmt


def test_cli_generate_export_drop(store, graph_env, tmp_path):
    entities, facts = synthetic_taxonomy(24, seed=2)
    write_taxonomy(store, entities, facts)
    genus = next(e for e in entities if (e.extra or {}).get("rank") == "genus")
    runner = CliRunner()
    result = runner.invoke(cli, ["generate", "knowgen", "--name", "c1", "--n", "6", "--seed", "3",
                                 "--class", genus.name, "--silent"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    parents = store.read("knowgen/read_batch_entities", batch="c1")
    assert len(parents) == 6
    assert {p["class_id"] for p in parents} == {genus.id}
    result = runner.invoke(cli, ["export", "knowgen", "--name", "c1", "--format", "alcuna",
                                 "--out", str(tmp_path / "out")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert validate_alcuna_export(tmp_path / "out")["entities"] == 6
    result = runner.invoke(cli, ["generate", "knowgen", "--drop", "c1"], catch_exceptions=False)
    assert result.exit_code == 0
    assert store.read("knowgen/read_batch", batch="c1") == []
    result = runner.invoke(cli, ["generate", "knowgen", "--drop", "c1"])
    assert result.exit_code != 0 and "no KnowGen batch" in result.output


def test_cli_help_has_examples():
    runner = CliRunner()
    for args in (["generate", "knowgen", "--help"], ["export", "knowgen", "--help"]):
        out = runner.invoke(cli, args).output
        assert "Examples:" in out, args

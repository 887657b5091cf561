"""NewTerm releases in and out: the 2022 release (../shared/formats) imports and exports byte for
byte; a hand-made release with every file kind (the multilingual set, term_generation,
``*_clean``, ``.json`` suffixes, a bad line) round-trips export → import → export unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from knowforge import workflow
from knowforge.cli.main import cli
from knowforge.generators.newterm.method import METHOD
from knowforge.generators.newterm.release import dump_line

RELEASE_FILES = ("COMA.jsonl", "COMA_clean.jsonl", "COST.jsonl", "COST_clean.jsonl", "CSJ.jsonl",
                 "CSJ_clean.jsonl", "new_terms.jsonl")


def invoke(*args):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_the_2022_release_imports_and_exports_byte_for_byte(store, graph_env, shared_formats, tmp_path):
    folder = shared_formats / "newterm_2022"
    result = invoke("generate", "newterm", "--import", str(folder), "--silent")
    assert result.output.strip().splitlines()[-1] == "newterm:2022"       # the year from the folder name
    assert "1,644 questions" in result.output and "300 terms" in result.output
    assert "lines skipped" not in result.output                            # every line of the release read
    items = METHOD.items(store, "2022")
    by_task = {}
    for item in items:
        by_task[item.task] = by_task.get(item.task, 0) + 1
    assert by_task == {"newterm/COMA": 300, "newterm/COMA_clean": 255, "newterm/COST": 300,
                       "newterm/COST_clean": 230, "newterm/CSJ": 300, "newterm/CSJ_clean": 259}
    first = json.loads((folder / "COMA.jsonl").read_text(encoding="utf-8").splitlines()[0])
    coma = next(i for i in items if i.id == "newterm:2022:COMA:00001")
    assert coma.question == first["question"] and coma.choices == first["choices"]
    assert coma.answer_index == first["gold"] and coma.metadata["split"] == first["split"]
    assert coma.slices["category"] == "new word" and coma.slices["year"] == 2022
    # every question points at its term and at the meaning fact of 2022
    linked = store.user_query(
        "MATCH (q:Question {benchmark: 'newterm:2022'})-[:TESTS]->(m:Fact {relation: 'meaning', start_year: 2022})"
        "<-[:HAS_FACT]-(t:Term)<-[:ABOUT]-(q) RETURN count(DISTINCT q) AS n")
    assert linked == [{"n": len(items)}]
    out = tmp_path / "export"
    invoke("export", "newterm", "--name", "2022", "--format", "newterm", "--out", str(out))
    for name in RELEASE_FILES:
        assert (out / name).read_bytes() == (folder / name).read_bytes(), name
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["items"] == 1644 and set(manifest["files"]) == set(RELEASE_FILES)


def _write(path: Path, records) -> None:
    path.write_text("".join(dump_line(r) + "\n" for r in records), encoding="utf-8")


def make_release(folder: Path) -> None:
    """A small multilingual release: types are languages, one term has two meanings."""
    folder.mkdir(parents=True)
    terms = [{"meaning": "traficante de drogas", "term": "camello", "type": "Spanish"},
             {"meaning": "完蛋了", "term": "芭比Q", "type": "Chinese"},
             {"meaning": "persona que opina en redes sin conocimiento", "term": "sofáficial", "type": "Spanish"}]
    _write(folder / "new_terms.jsonl", terms)
    _write(folder / "term_generation.jsonl", [
        {"meaning": "traficante de drogas", "phrases": ["vendedor", "camellero", "policía", "dromedario", "Camelia"],
         "term": "camello", "type": "Spanish"},
        {"meaning": "完蛋了", "phrases": ["结束", "失败", "成功", "烧烤", "芭比"], "term": "芭比Q"}])
    cost = [{"choices": ["Vendedor", "Camello", "Policía", "Dromedario"], "gold": 1,
             "meaning": "traficante de drogas", "question": "El _ fue detenido en la frontera.", "term": "camello",
             "type": "Spanish"},
            {"choices": ["烧烤", "芭比Q", "成功", "结束"], "gold": 1, "meaning": "完蛋了", "question": "考试没复习，这下_了。",
             "term": "芭比Q", "type": "Chinese"}]
    (folder / "COST.json").write_text("".join(dump_line(r) + "\n" for r in cost) + "{not json\n", encoding="utf-8")
    _write(folder / "CSJ_clean.jsonl", [
        {"gold": True, "meaning": "persona que opina en redes sin conocimiento",
         "question": "Ese sofáficial opina de todo sin haber leído nada.", "term": "sofáficial", "type": "Spanish"},
        {"gold": False, "meaning": "完蛋了", "question": "芭比Q是一种很好吃的水果。", "term": "芭比Q", "type": "Chinese"}])
    _write(folder / "COMA.jsonl", [
        {"choices": ["a", "b", "c", "d"], "gold": 5, "meaning": "m", "question": "q", "split": "effect",
         "term": "camello", "type": "Spanish"}])          # gold out of range: a malformed record
    (folder / "README.md").write_text("not a release file\n", encoding="utf-8")


def test_every_file_kind_round_trips_export_import_export(store, tmp_path):
    folder = tmp_path / "multilingual_2024"
    make_release(folder)
    params = METHOD.make_params(name="multi")
    summary = workflow.import_benchmark(METHOD, store, [folder], params)
    assert summary.counts["questions"] == 4 and summary.counts["terms"] == 3
    assert summary.breakdown["lines skipped"] == {"malformed JSON": 1, "malformed record": 1}
    assert any(n.endswith("COST.json:3: Expecting property name enclosed in double quotes: line 1 column 2 "
                          "(char 1)") for n in summary.notes)
    assert any("COMA.jsonl:1:" in n and "gold" in n for n in summary.notes)
    assert any("README.md" in n for n in summary.notes)
    items = METHOD.items(store, "multi")
    assert {i.slices["category"] for i in items} == {"Spanish", "Chinese"}
    assert {i.task for i in items} == {"newterm/COST", "newterm/CSJ_clean"}
    # the release's related terms are in the graph; COST distractors point at them
    distractors = store.user_query(
        "MATCH (q:Question {benchmark: 'newterm:multi'})-[d:DISTRACTOR]->(p:Phrase) "
        "RETURN q.text AS q, d.position AS position, p.name AS phrase ORDER BY q, position")
    assert {"q": "El _ fue detenido en la frontera.", "position": 0, "phrase": "vendedor"} in distractors
    assert len([d for d in distractors if d["q"].startswith("El")]) == 3

    first = tmp_path / "first"
    workflow.export(METHOD, store, "multi", "newterm", first)
    names = sorted(p.name for p in first.glob("*.jsonl"))
    assert names == ["COST.jsonl", "CSJ_clean.jsonl", "new_terms.jsonl", "term_generation.jsonl"]
    for name in ("CSJ_clean.jsonl", "new_terms.jsonl", "term_generation.jsonl"):
        assert (first / name).read_bytes() == (folder / name).read_bytes()
    # COST.json without its bad line, under the release's usual name
    good_cost = (folder / "COST.json").read_text(encoding="utf-8").splitlines()[:2]
    assert (first / "COST.jsonl").read_text(encoding="utf-8") == "\n".join(good_cost) + "\n"

    workflow.import_benchmark(METHOD, store, [first], METHOD.make_params(name="again", year=2024))
    second = tmp_path / "second"
    workflow.export(METHOD, store, "again", "newterm", second)
    for name in names:
        assert (second / name).read_bytes() == (first / name).read_bytes(), name


def test_drop_removes_the_benchmark_and_the_terms_its_import_added(store, tmp_path):
    """Terms already in the graph stay as they were (properties and facts); the ones the import
    added go with the benchmark (issue 36: a drop restores the graph the import found)."""
    from knowforge.kg.loaders.newterms import load_newterms

    loaded = tmp_path / "loaded.jsonl"
    loaded.write_text(json.dumps({"term": "camello", "meaning": "a camel", "type": "new word", "year": 2024}) + "\n",
                      encoding="utf-8")
    load_newterms(store, [loaded])
    terms = ("MATCH (t:Term) OPTIONAL MATCH (t)-[:HAS_FACT]->(f:Fact) "
             "RETURN t.id AS id, properties(t) AS t, collect(f.value) AS meanings ORDER BY id")
    before = store.user_query(terms)
    folder = tmp_path / "multilingual_2024"
    make_release(folder)
    workflow.import_benchmark(METHOD, store, [folder], METHOD.make_params(name="multi"))
    assert len(store.user_query(terms)) == 3
    counts = workflow.drop(METHOD, store, "multi")
    assert counts["questions and answers"] == 4
    assert counts["terms and meaning facts the import added"] == 5     # 2 terms, 3 meaning facts
    left = store.user_query(
        "MATCH (n) WHERE n:Question OR n:TermEntry OR n:ReleaseRecord OR n:GenerationRun OR n:Phrase "
        "OR n:Benchmark RETURN count(n) AS n")
    assert left == [{"n": 0}]
    assert store.user_query(terms) == before


def test_the_bundled_slice_imports_and_exports_byte_for_byte(store, tmp_path):
    from knowforge.kg.loaders.samples import samples_dir

    slice_dir = samples_dir() / "newterm_2022"
    summary = workflow.import_benchmark(METHOD, store, [slice_dir], METHOD.make_params(name="sample2022"))
    assert summary.counts["terms"] == 9 and summary.counts["questions"] == 31
    assert any("README.md" in n for n in summary.notes)          # the attribution is not a release file
    out = tmp_path / "out"
    workflow.export(METHOD, store, "sample2022", "newterm", out)
    for path in slice_dir.glob("*.jsonl"):
        assert (out / path.name).read_bytes() == path.read_bytes(), path.name
    assert "CC BY 4.0" in (slice_dir / "README.md").read_text(encoding="utf-8")


def test_the_slice_is_made_from_the_release_verbatim(shared_formats, tmp_path):
    import importlib.util

    from knowforge.kg.loaders.samples import samples_dir

    script = samples_dir() / "build_newterm_sample.py"
    spec = importlib.util.spec_from_file_location("build_newterm_sample", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = module.build(shared_formats / "newterm_2022", tmp_path / "slice")
    for path in written:
        assert path.read_bytes() == (samples_dir() / "newterm_2022" / path.name).read_bytes(), path.name


def test_several_years_evaluate_together_but_export_alone(store, tmp_path):
    import pytest

    from knowforge.errors import ConfigError
    from knowforge.kg.loaders.samples import samples_dir

    workflow.import_benchmark(METHOD, store, [samples_dir() / "newterm_2022"], METHOD.make_params(name="y22"))
    folder = tmp_path / "multilingual_2024"
    make_release(folder)
    workflow.import_benchmark(METHOD, store, [folder], METHOD.make_params(name="y24"))
    both = METHOD.items(store, "y22+y24")
    alone = [i.id for i in METHOD.items(store, "y22")] + [i.id for i in METHOD.items(store, "y24")]
    assert [i.id for i in both] == alone
    assert {i.slices["year"] for i in both} == {2022, 2024}
    with pytest.raises(ConfigError, match="one at a time"):
        workflow.export(METHOD, store, "y22+y24", "newterm", tmp_path / "x")

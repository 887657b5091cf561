"""ALCUNA releases into the graph: a fixture in the released layout with the variants the
README allows (related_property as a property structure or an [old, new] pair, string ids,
options in the question text, capitalised yes/no, a bare answer, a broken line, an entity
missing from meta_data.jsonl) is read with every question accounted for, stored as a KnowGen
batch the tasks read, re-imported without duplicates, exported back and dropped. Our own
ALCUNA export imports with every question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from knowforge import workflow
from knowforge.cli.main import cli
from knowforge.errors import ConfigError
from knowforge.generators.knowgen import KnowGenParams, generate_batch
from knowforge.generators.knowgen.alcuna_release import read_alcuna_release, split_options
from knowforge.generators.knowgen.method import METHOD
from knowforge.generators.knowgen.synthetic import synthetic_taxonomy, write_taxonomy

FIXTURE = Path(__file__).parent / "releases" / "alcuna"


def _graph_size(store) -> tuple[int, int]:
    rows = store.user_query("MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, count(r) AS r")
    return rows[0]["n"], rows[0]["r"]


def test_the_fixture_accounts_for_every_question():
    in_file = json.loads((FIXTURE / "id2question.json").read_text())
    entities, items, report = read_alcuna_release([FIXTURE], benchmark="knowgen:fx")
    assert sum(len(v) for v in in_file.values()) == len(items) + report.questions_skipped == 10
    assert len(entities) == report.entities == 2 and report.lines_skipped == 1
    assert dict(report.questions) == {"KU": 5, "KD": 2, "KA": 1}
    problems = [str(p) for p in report.problems]
    assert problems[0].startswith(f"{FIXTURE / 'meta_data.jsonl'}:3, meta line: not JSON")
    assert any("entity -328614 [6]: question skipped: field answers" in p for p in problems)
    assert any("entity -99: not an artificial entity of meta_data.jsonl: its 1 questions skipped" in p
               for p in problems)
    for variant, n in {"related_property as a property structure": 6, "related_property as an [old, new] pair": 1,
                       "entity id as a string": 1, "meta line without parent_entity": 1,
                       "form written 'multiple-choice'": 1, "type written 'KU'": 1, "answers as one bare value": 1,
                       "boolean answer written 'No'": 1}.items():
        assert report.variants[variant] == n, variant
    assert report.variants.first["meta line without parent_entity"] == f"{FIXTURE / 'meta_data.jsonl'}:2"
    by_id = {i.id: i for i in items}
    mc = by_id["knowgen:fx:-328614:q003"]
    assert (mc.question, mc.choices, mc.answer_index, mc.answers) == (
        "What does Alcuna eat?", ["Festuca", "Puma concolor", "Gazella", "Lama glama"], 0, ["Festuca"])
    inline = by_id["knowgen:fx:-328614:q004"]
    assert inline.choices[inline.answer_index] == "Lama glama" and inline.slices["difference"] == "extension"
    dropout = by_id["knowgen:fx:-328614:q002"]
    assert dropout.unknown and dropout.slices == {"type": "KD", "form": "fill-in-blank", "difference": "dropout",
                                                   "hop_count": 1}
    assert by_id["knowgen:fx:-328614:q001"].answers == ["no"]
    assert by_id["knowgen:fx:-328614:q005"].slices["hop_count"] == 2
    assert by_id["knowgen:fx:-328614:q001"].metadata["related_property"] == "body mass"
    assert "The body mass of Alcuna is 64.2 kg." in mc.context


def test_options_in_the_question_text():
    assert split_options("Q?\nA. x\nB. y") == ("Q?", ["x", "y"])
    assert split_options("Q? (A) x (B) y (C) z") == ("Q?", ["x", "y", "z"])
    assert split_options("What is A. B?") == ("What is A. B?", [])


def test_import_is_a_batch_the_tasks_read(store, graph_env, tmp_path):
    store.user_query("CREATE (:Entity {id: 'eol:328614', name: 'Vicugna pacos'})", write=True)   # its parent
    before = _graph_size(store)
    result = CliRunner().invoke(cli, ["generate", "knowgen", "--import", str(FIXTURE), "--silent"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == "knowgen:alcuna"
    assert "8 questions" in result.output and "2 questions skipped" in result.output
    _, expected, _ = read_alcuna_release([FIXTURE], benchmark="knowgen:alcuna")
    items = METHOD.items(store, "alcuna")
    assert sorted(items, key=lambda i: i.id) == sorted(expected, key=lambda i: i.id)
    assert {t.name: len(t.dataset.select(items)) for t in METHOD.tasks} == {"knowgen/KU": 5, "knowgen/KD": 2,
                                                                              "knowgen/KA": 1}
    rows = store.user_query(
        "MATCH (:Batch {id: 'alcuna', origin: 'imported'})<-[:IN_BATCH]-(e:Artificial) "
        "RETURN e.id AS id, COUNT { (e)-[:HAS_FACT]->(:Fact {layer: 'generated'}) } AS facts, "
        "COUNT { (e)-[:DERIVED_FROM {op: 'parent'}]->() } AS parent, "
        "COUNT { (e)<-[:ABOUT]-(:Question) } AS questions ORDER BY id")
    assert rows == [{"id": "alcuna:alcuna:-328614", "facts": 5, "parent": 1, "questions": 6},
                    {"id": "alcuna:alcuna:-46559", "facts": 2, "parent": 0, "questions": 2}]
    ops = store.user_query("MATCH (f:Fact {batch: 'alcuna', relation: 'body_mass'}) RETURN f.op AS op")
    assert ops == [{"op": "variation"}]
    # exported back as released: the meta lines read and the questions read
    out = tmp_path / "export"
    workflow.export(METHOD, store, "alcuna", "alcuna", out)
    lines = (FIXTURE / "meta_data.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in (out / "meta_data.jsonl").read_text().splitlines()] == \
        [json.loads(x) for x in lines[:2]]
    released = json.loads((FIXTURE / "id2question.json").read_text())
    exported = json.loads((out / "id2question.json").read_text())
    assert exported == {"-328614": released["-328614"][:6], "-46559": released["-46559"]}
    # idempotent, then dropped without a trace
    size = _graph_size(store)
    workflow.import_benchmark(METHOD, store, [FIXTURE], METHOD.make_params())
    assert _graph_size(store) == size
    workflow.drop(METHOD, store, "alcuna")
    assert _graph_size(store) == before


def test_a_generated_batch_is_refused_and_our_export_imports_whole(store, tmp_path):
    entities, facts = synthetic_taxonomy(40, seed=5)
    write_taxonomy(store, entities, facts)
    generate_batch(store, KnowGenParams(batch="gen", seed=11, n=12))
    with pytest.raises(ConfigError, match="knowgen:gen is a generated batch"):
        workflow.import_benchmark(METHOD, store, [FIXTURE], METHOD.make_params(batch="gen"))
    generated = METHOD.items(store, "gen")
    workflow.export(METHOD, store, "gen", "alcuna", tmp_path / "gen")
    summary = workflow.import_benchmark(METHOD, store, [tmp_path / "gen"], METHOD.make_params(batch="back"))
    assert summary.counts["questions"] == len(generated) and summary.counts["questions skipped"] == 0
    assert summary.counts["parents in the graph"] == 0        # synthetic parents have no eol: ids
    back = METHOD.items(store, "back")
    assert sorted((i.task, i.form, i.unknown) for i in back) == sorted((i.task, i.form, i.unknown) for i in generated)
    def questions(items):
        return sorted((i.metadata["alcuna_id"], i.question, tuple(i.choices), i.answer_index, tuple(i.answers))
                      for i in items)

    assert questions(back) == questions(generated)
    assert not {i.id for i in back} & {i.id for i in generated}

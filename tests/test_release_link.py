"""LINT-style JSONL into the graph: a fixture with our layout, the minimal premise/conclusion
shape, other key names, a positive conclusion, missing ¬C / C?, a duplicate and broken lines
is read with every line and every left-out template accounted for; it is stored as a LINK
benchmark (conclusion facts, probe questions), re-imported without duplicates, exported back
and dropped. A generated LINK benchmark exported as LINT imports question for question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import wipe
from knowforge import workflow
from knowforge.cli.main import cli
from knowforge.errors import ConfigError
from knowforge.generators.link.generate import generate_link
from knowforge.generators.link.lint_release import read_lint_release
from knowforge.generators.link.method import METHOD
from knowforge.generators.link.params import LinkParams
from knowforge.kg.loaders.registry import load_source
from knowforge.kg.loaders.samples import sample_paths

FIXTURE = Path(__file__).parent / "releases" / "lint"


def _graph_size(store) -> tuple[int, int]:
    rows = store.user_query("MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, count(r) AS r")
    return rows[0]["n"], rows[0]["r"]


def test_every_line_and_template_is_accounted_for():
    lines = sum(1 for p in FIXTURE.glob("*.jsonl") for x in p.read_text().splitlines() if x.strip())
    statements, items, report = read_lint_release([FIXTURE], benchmark="link:fx")
    assert lines == len(statements) + sum(report.lines_skipped.values()) + report.duplicates == 8
    assert len(statements) == 5 and report.duplicates == 1
    assert dict(report.lines_skipped) == {"malformed JSON": 1, "malformed record": 1}
    assert len(items) + sum(report.templates_left_out.values()) == 13 * len(statements)
    assert dict(report.templates_left_out) == {6: 2, 7: 2, 8: 2, 9: 1, 10: 2, 11: 2, 12: 2}
    assert [p.split(": ", 1)[0] for p in report.problems] == [f"{FIXTURE / 'lint_head.jsonl'}:{n}" for n in (3, 4, 5)]
    for variant, n in {"distribution from the file name": 4, "distribution written 'tail'": 1,
                       "conclusion_negated written 'negation'": 2, "positive written 'positive_conclusion'": 1,
                       "no negated conclusion (templates 6-8, 10-12 left out)": 2, "extra key 'source_model'": 1}.items():
        assert report.variants[variant] == n, variant
    assert report.variants.first["extra key 'source_model'"] == f"{FIXTURE / 'lint_longtail.jsonl'}:1"
    by_id = {i.id: i for i in items}
    ours = "link:fx:a1b2c3d4e5f60718:head"
    assert [by_id[f"{ours}:t{n:02d}"].answers for n in (1, 6, 9, 13)] == [["Yes"], ["Yes"], ["No"], ["No"]]
    assert by_id[f"{ours}:t01"].slices["grounding"] == "graph" and by_id[f"{ours}:t01"].entity_ids == ["Q1058441",
                                                                                                        "Q11205"]
    scurvy = [i for i in items if "scurvy" in i.question]
    assert len(scurvy) == 7 and next(i for i in scurvy if i.metadata["template"] == 9).answers == ["Yes"]


def test_import_export_reimport_drop(store, graph_env, tmp_path):
    before = _graph_size(store)
    result = CliRunner().invoke(cli, ["generate", "link", "--import", str(FIXTURE), "--silent"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == "link:lint"
    _, expected, _ = read_lint_release([FIXTURE], benchmark="link:lint")
    items = METHOD.items(store, "lint")
    assert items == sorted(expected, key=lambda i: i.id) and len(items) == 52
    rows = store.user_query("MATCH (q:Question {benchmark: 'link:lint'})-[:TESTS]->(f:Fact {op: 'conclusion'}) "
                            "RETURN count(DISTINCT q) AS q, count(DISTINCT f) AS f")
    assert rows == [{"q": 52, "f": 5}]
    workflow.export(METHOD, store, "lint", "lint", tmp_path / "out")
    back = [json.loads(x) for name in ("lint_head.jsonl", "lint_longtail.jsonl")
            for x in (tmp_path / "out" / name).read_text().splitlines()]
    assert len(back) == 5 and all(r["distribution"] in ("head", "longtail") for r in back)
    size = _graph_size(store)
    workflow.import_benchmark(METHOD, store, [tmp_path / "out"], METHOD.make_params())
    def without_lines(items):      # where a line was read differs between the fixture and the export
        return [i.model_copy(update={"metadata": {k: v for k, v in i.metadata.items() if k != "release"}})
                for i in items]

    assert _graph_size(store) == size and without_lines(METHOD.items(store, "lint")) == without_lines(items)
    workflow.drop(METHOD, store, "lint")
    assert _graph_size(store) == before


def test_a_generated_benchmark_exports_and_imports_question_for_question(session_store, tmp_path):
    wipe(session_store)
    paths = sample_paths()
    for source in ("wikidata", "cskg"):
        load_source(session_store, source, paths[source])
    store = session_store
    generate_link(store, LinkParams(name="gen", n=3, seed=1, rule_ids=("outcome_allergy_dish",
                                                                       "locational_currency")))
    with pytest.raises(ConfigError, match="link:gen was generated"):
        workflow.import_benchmark(METHOD, store, [FIXTURE], METHOD.make_params(name="gen"))
    generated = METHOD.items(store, "gen")
    assert generated
    workflow.export(METHOD, store, "gen", "lint", tmp_path / "gen")
    summary = workflow.import_benchmark(METHOD, store, [tmp_path / "gen"], METHOD.make_params(name="back"))
    assert summary.counts["questions"] == len(generated) and summary.counts["lines skipped"] == 0

    def probe(items):
        return sorted((i.metadata["statement_id"], i.metadata["template"], i.question, tuple(i.answers),
                       json.dumps(i.slices, sort_keys=True)) for i in items)

    assert probe(METHOD.items(store, "back")) == probe(generated)
    wipe(store)

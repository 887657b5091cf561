"""ChroKnowBench releases into the graph: a fixture in the released layout (General's [name,
alias] object lists, UMLS release names as release dates, a legal blank, invariant files, few-shot
files, bare values, short distractor lists, a duplicate, broken lines, a file that is not part of
the release) is read with every line accounted for, stored as a chrono benchmark whose items are
the records' items, re-imported without duplicates and dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from knowforge import workflow
from knowforge.cli.main import cli
from knowforge.errors import ConfigError
from knowforge.generators.chrono.chroknowbench_io import import_chroknowbench, read_chroknowbench
from knowforge.generators.chrono.items import build_items
from knowforge.generators.chrono.method import METHOD
from knowforge.models.questions import write_benchmark

FIXTURE = Path(__file__).parent / "releases" / "chroknowbench"


def _graph_size(store) -> tuple[int, int]:
    rows = store.user_query("MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, count(r) AS r")
    return rows[0]["n"], rows[0]["r"]


def test_every_line_of_the_fixture_is_read_or_reported():
    records, report = read_chroknowbench([FIXTURE])
    release_files = sorted(p for p in FIXTURE.rglob("*.jsonl"))
    lines = {str(p): sum(1 for x in p.read_text().splitlines() if x.strip()) for p in release_files}
    assert sum(lines.values()) == len(records) + sum(report.lines_skipped.values()) + report.duplicates == 16
    assert len(records) == sum(report.files.values()) == 12
    assert report.files_skipped == [f"{FIXTURE / 'notes.json'}: not a ChroKnowBench file name (TimeVariant_<Domain>_"
                                    "<Dynamic|Static>.jsonl, TimeInvariant_<Domain>.jsonl or Fewshot_<Domain>.jsonl)"]
    assert dict(report.lines_skipped) == {"malformed JSON": 1, "not an object": 1, "malformed record": 1}
    assert report.duplicates == 1
    assert [p.split(": ", 1)[0] for p in report.problems] == [
        f"{FIXTURE / 'TimeInvariant_CommonSense.jsonl'}:3", f"{FIXTURE / 'TimeInvariant_Math.jsonl'}:2",
        f"{FIXTURE / 'TimeVariant_General_Dynamic.jsonl'}:4", f"{FIXTURE / 'TimeVariant_General_Static.jsonl'}:2"]
    for variant, n in {"objects_YYYY as [name, alias, ...] lists (the first name is kept)": 3,
                       "release_date_YYYY written as text": 10, "objects_YYYY empty (no object that year)": 1,
                       "objects_YYYY as one bare value": 1, "fewer than 3 distractors (mcqa/tf have fewer options)": 2,
                       "a subject and relation on two lines (both kept)": 1, "objects as one bare value": 1,
                       "objects with numbers (read as text)": 1, "distractor as one bare value": 1}.items():
        assert report.variants[variant] == n, variant
    assert report.variants.first["objects_YYYY as one bare value"] == f"{FIXTURE / 'TimeVariant_Biomedical_Dynamic.jsonl'}:2"
    by_subject = {(r.subject, r.split): r for r in records if r.subject != "Lionel Messi"}
    assert by_subject[("aspirin", "test")].objects == {2020: ["pain"], 2021: ["pain", "fever"]}
    assert by_subject[("ibuprofen", "test")].distractor == ["headache"]
    assert by_subject[("knife", "test")].objects[2022] == ["cutting"]
    assert by_subject[("Cristiano Ronaldo", "fewshot")].domain == "general"
    assert len([r for r in records if r.subject == "Lionel Messi"]) == 2
    # a release must be read whole where a round trip is checked: the first bad line is an error
    with pytest.raises(Exception, match=r"TimeInvariant_CommonSense.jsonl:line 3"):
        import_chroknowbench([FIXTURE])


def test_import_drop_and_reimport(store, graph_env):
    before = _graph_size(store)
    result = CliRunner().invoke(cli, ["generate", "chrono", "--import", str(FIXTURE), "--name", "rel", "--silent"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == "chrono:rel"
    records, _ = read_chroknowbench([FIXTURE])
    expected = build_items(records, benchmark="chrono:rel", seed=0)
    tests = [r for r in records if r.split == "test"]
    assert len(expected) == 3 * sum(len(r.years) for r in tests) == 99
    items = METHOD.items(store, "rel")
    assert items == sorted(expected, key=lambda i: i.id)
    assert f"{len(expected)} items" in result.output and "3 lines skipped" in result.output
    assert all(i.id.startswith("chrono:rel:") for i in items)
    size = _graph_size(store)
    again = workflow.import_benchmark(METHOD, store, [FIXTURE], METHOD.make_params(name="rel"))
    assert _graph_size(store) == size and again.counts["items"] == len(expected)
    result = CliRunner().invoke(cli, ["generate", "chrono", "--drop", "rel"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert _graph_size(store) == before


def test_a_generated_benchmark_is_not_overwritten(store):
    write_benchmark(store, method="chrono", name="general", seed=0, params={}, source_hash=None)
    with pytest.raises(ConfigError, match="chrono:general was generated"):
        workflow.import_benchmark(METHOD, store, [FIXTURE], METHOD.make_params(name="general"))

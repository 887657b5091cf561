"""The probes of issue 36 that a release file, a loader input or a query can send, one test (or
table row) per finding, against the real Neo4j the tests start.

Release importers get the loaders' rule (tests/test_loaders_hostile.py): check a record before
it joins a batch, leave out and report (file:line) the ones refused, keep the good ones, and
never register an empty benchmark as a success.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowforge import workflow
from knowforge.cli.main import cli
from knowforge.errors import InputError
from knowforge.generators.chrono.chroknowbench_io import read_chroknowbench
from knowforge.generators.events.elken_release import decode_records, read_elken_release
from knowforge.generators.knowgen.alcuna_release import read_alcuna_release
from knowforge.generators.link.lint_release import read_lint_release
from knowforge.generators.newterm.importer import read_release as read_newterm_release
from knowforge.generators.newterm.method import METHOD as NEWTERM
from knowforge.generators.newterm.release import release_files as newterm_release_files
from knowforge.kg.store import Store
from knowforge.models.undo import ImportNotUndone
from knowforge.kg.loaders.base import LineTooLong, iter_lines
from knowforge.kg.loaders.wikidata_rdf import load_wikidata_rdf
from conftest import wipe
from test_loaders_sparql_rdf import DATA, facts_by_statement, write_nt


def invoke(*args: str, env: dict | None = None):
    return CliRunner().invoke(cli, list(args), env=env)


# --- loaders (findings 11, 12, 13) ---------------------------------------------------------------
def test_a_line_past_the_limit_stops_the_file_after_its_good_lines(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(b"one\ntwo\n" + b"x" * 5000 + b"\nfour\n")
    read = []
    with pytest.raises(LineTooLong) as caught:
        for number, line in iter_lines(path, max_line=1000):
            read.append((number, line))
    assert read == [(1, b"one"), (2, b"two")] and caught.value.line == 3
    assert "longer than the limit of 1,000" in str(caught.value)
    assert [n for n, _ in iter_lines(path, max_line=5000)] == [1, 2, 3, 4]


def test_load_of_dev_zero_fails_at_the_limit_naming_file_and_line(graph_env, store):
    """Finding 11: `load wikidata /dev/zero` read for ever with memory growing."""
    result = invoke("load", "wikidata", "/dev/zero", "--silent", env={"KNOWFORGE_MAX_LINE_BYTES": str(1 << 20)})
    assert result.exit_code == 1, result.output
    assert "/dev/zero:1" in result.output and "longer than the limit of 1,048,576" in result.output
    assert "line_too_long" in result.output and "Traceback" not in result.output


def test_a_bad_line_limit_setting_is_an_error(graph_env, tmp_path):
    path = tmp_path / "x.json"
    path.write_text("[]\n")
    result = invoke("load", "wikidata", str(path), env={"KNOWFORGE_MAX_LINE_BYTES": "lots"})
    assert result.exit_code == 1 and "KNOWFORGE_MAX_LINE_BYTES='lots'" in result.output


def test_turtle_gz_is_read_as_gzip(store, tmp_path):
    """Finding 12: a `.ttl.gz` dump was parsed as Turtle text and reported as bad Turtle."""
    path = tmp_path / "dump.ttl.gz"
    path.write_bytes(gzip.compress(DATA.encode("utf-8")))
    report = load_wikidata_rdf(store, [path])
    assert report.errors == 0, report.as_dict()["problems"]
    assert facts_by_statement(store)["Q567$aaa"]["start"] == "2005-11-22"


def test_ntriples_bad_bytes_are_replaced_counted_and_reported(store, tmp_path):
    """Finding 13: a label with bytes that are not UTF-8 became U+FFFD silently."""
    path = write_nt(tmp_path / "dump.nt.gz")
    lines = gzip.decompress(path.read_bytes()).split(b"\n")
    at = next(i for i, line in enumerate(lines) if b'"Angela Merkel"@en' in line)
    lines[at] = lines[at].replace(b"Angela", b"Ang\xe9la")
    path.write_bytes(gzip.compress(b"\n".join(lines)))
    report = load_wikidata_rdf(store, [path])
    assert report.repaired["bad_encoding_replaced"] == 1 and report.errors == 0
    problems = [p for p in report.problems if p.reason == "bad_encoding_replaced"]
    assert [(p.path, p.line) for p in problems] == [(str(path), at + 1)]
    assert "U+FFFD" in problems[0].message
    assert store.user_query("MATCH (e:Entity {id: 'Q567'}) RETURN e.name AS n") == [{"n": "Ang\ufffdla Merkel"}]
    assert json.loads(json.dumps(report.as_dict()))["repaired"] == {"bad_encoding_replaced": 1}


# --- query --write (finding 7) ---------------------------------------------------------------------
def test_query_write_runs_call_in_transactions_in_an_implicit_transaction(graph_env, store):
    """A batched write commits batch by batch, which a managed transaction cannot hold; the
    error blamed the server. ``query --write`` runs it in an auto-commit transaction."""
    store.user_query("UNWIND range(1, 25) AS i CREATE (:KnowforgeTmp {i: i})", write=True)
    text = ("MATCH (n:KnowforgeTmp) CALL (n) { SET n.seen = true } IN TRANSACTIONS OF 10 ROWS "
            "RETURN count(n) AS n")
    result = invoke("query", text, "--write", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["n"] == 25
    assert store.user_query("MATCH (n:KnowforgeTmp) WHERE n.seen RETURN count(n) AS n")[0]["n"] == 25
    deleted = invoke("query", "MATCH (n:KnowforgeTmp) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 7 ROWS",
                     "--write")
    assert deleted.exit_code == 0, deleted.output
    assert store.user_query("MATCH (n:KnowforgeTmp) RETURN count(n) AS n")[0]["n"] == 0
    refused = invoke("query", "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS")
    assert refused.exit_code == 1 and "--write" in refused.output and "Traceback" not in refused.output


# --- --drop of a name that is no benchmark (finding 14) ---------------------------------------------
@pytest.mark.parametrize("method", ["chrono", "events", "knowgen", "link", "newterm"])
def test_drop_of_an_unknown_name_is_an_error_for_every_method(graph_env, store, method):
    result = invoke("generate", method, "--drop", "*")
    assert result.exit_code == 1, result.output
    # each method words it its own way ("no KnowGen batch '*'", "no benchmark events:*"...)
    assert re.search(r"no (\w+ )?(benchmark|batch) '?(\w+:)?\*", result.output), result.output
    assert "Traceback" not in result.output


# --- the release importers' readers (findings 2, 3, 4, 5, 8, 9) -----------------------------------------
RELEASES = Path(__file__).parent / "releases"
DEEP = "[" * 10_000 + "]" * 10_000
HUGE = "x" * ((1 << 20) + 1)                      # one byte over the default field limit
LONG_NAME = "n" * 5000                            # over the limit on names and ids (Neo4j indexes them)


def alcuna_copy(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "alcuna"
    shutil.copytree(RELEASES / "alcuna", folder)
    return folder / "meta_data.jsonl", folder / "id2question.json"


def add_meta_line(meta: Path, line: bytes) -> int:
    """Append ``line`` to meta_data.jsonl; its line number."""
    data = meta.read_bytes().rstrip(b"\n") + b"\n" + line + b"\n"
    meta.write_bytes(data)
    return data.count(b"\n")


def alcuna_meta_variant(meta: Path, **entity) -> bytes:
    first = json.loads(meta.read_text().splitlines()[0])
    first["artificial_entity"] = {**first["artificial_entity"], "id": -999, **entity}
    return json.dumps(first).encode()


ALCUNA_META_CASES = {
    "json nested 10,000 deep": (lambda meta: DEEP.encode(), "nested too deeply"),
    "a field over 1 MiB": (lambda meta: alcuna_meta_variant(meta, rank=HUGE), "a text field of 1,048,577 bytes"),
    "a name over 4 KiB": (lambda meta: alcuna_meta_variant(meta, name=LONG_NAME), "a name or id of 5,000 bytes"),
}


@pytest.mark.parametrize("case", list(ALCUNA_META_CASES))
def test_alcuna_refuses_a_hostile_meta_line_and_keeps_the_rest(tmp_path, case):
    make, reason = ALCUNA_META_CASES[case]
    meta, questions = alcuna_copy(tmp_path)
    whole = read_alcuna_release([meta.parent])
    line = add_meta_line(meta, make(meta))
    release = read_alcuna_release([meta.parent])
    assert len(release.entities) == len(whole.entities) and len(release.items) == len(whole.items)
    found = [p for p in release.report.problems if p.path == str(meta) and p.line == line]
    assert found and reason in found[0].reason, [str(p) for p in release.report.problems]


def test_alcuna_bad_bytes_are_replaced_and_reported_with_their_line(tmp_path):
    meta, questions = alcuna_copy(tmp_path)
    lines = meta.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"\"name\": \"", b"\"name\": \"\xfa", 1)
    meta.write_bytes(b"\n".join(lines))
    text = questions.read_bytes().replace(b"What type of food", b"What type of f\xf3od", 1)
    questions.write_bytes(text)
    release = read_alcuna_release([meta.parent])
    where = {(p.path, p.line) for p in release.report.problems if "not UTF-8" in p.reason}
    assert (str(meta), 2) in where
    assert (str(questions), text[:text.index(b"f\xf3od")].count(b"\n") + 1) in where
    assert any("f\ufffdod" in item.question for item in release.items)


def test_alcuna_refuses_a_hostile_question_and_keeps_the_others(tmp_path):
    meta, questions = alcuna_copy(tmp_path)
    whole = read_alcuna_release([meta.parent])
    data = json.loads(questions.read_text())
    key = next(iter(data))
    data[key].append({"question": "Is it?", "answers": ["Yes"], "form": "boolean", "type": "KU",
                      "meta_data": json.loads("[" * 200 + "]" * 200)})
    data[key].append({"question": HUGE, "answers": ["Yes"], "form": "boolean", "type": "KU"})
    questions.write_text(json.dumps(data))
    release = read_alcuna_release([meta.parent])
    assert len(release.items) == len(whole.items)
    reasons = [p.reason for p in release.report.problems if p.record.startswith(f"entity {key} [")]
    assert any("nested more than" in r for r in reasons) and any("1,048,577 bytes" in r for r in reasons)


@pytest.mark.parametrize("cut", ["half", "empty object", "nothing", "deep"])
def test_alcuna_a_truncated_or_empty_release_is_an_error_not_an_empty_benchmark(tmp_path, cut):
    """Finding 5: a truncated ALCUNA file exited 0 and registered an empty benchmark."""
    meta, questions = alcuna_copy(tmp_path)
    text = questions.read_text()
    questions.write_text({"half": text[:len(text) // 2], "empty object": "{}", "nothing": "", "deep": DEEP}[cut])
    with pytest.raises(InputError) as caught:
        read_alcuna_release([meta.parent])
    assert caught.value.path == str(questions)
    meta.write_text("")
    questions.write_text(text)
    with pytest.raises(InputError, match="no question could be read"):
        read_alcuna_release([meta.parent])


def test_alcuna_a_folder_or_a_missing_file_is_named(tmp_path):
    meta, questions = alcuna_copy(tmp_path)
    questions.unlink()
    questions.mkdir()
    with pytest.raises(InputError, match="is a folder"):
        read_alcuna_release([meta.parent])
    questions.rmdir()
    with pytest.raises(InputError, match="missing id2question.json"):
        read_alcuna_release([meta.parent])


# ELKEN: a JSON list of events; hostile records between the fixture's complete ones
def elken_events() -> list:
    records, _, _ = decode_records((RELEASES / "elken" / "test_truncated.json").read_text())
    return [value for _, _, _, value in records[:3]]


def write_elken(path: Path, records: list, raw: dict[int, str] | None = None) -> Path:
    """The records as an ELKEN list, one per line group; ``raw`` puts text in place of a record."""
    parts = [raw[i] if raw and i in raw else json.dumps(r, indent=1) for i, r in enumerate(records)]
    path.write_text("[\n" + ",\n".join(parts) + "\n]\n")
    return path


def elken_huge(events):
    return {**events[0], "event": "Someone did something. " + HUGE}


ELKEN_CASES = {
    "json nested 10,000 deep": (lambda ev: None, DEEP, "nested too deeply"),
    "a field over 1 MiB": (elken_huge, None, "a text field of"),
    "a duplicated event": (lambda ev: ev[0], None, "the same event as event 0"),
}


@pytest.mark.parametrize("case", list(ELKEN_CASES))
def test_elken_refuses_a_hostile_event_and_keeps_the_rest(tmp_path, case):
    """Findings 3 and 8: RecursionError on a deep record; a duplicated event imported twice."""
    make, raw, reason = ELKEN_CASES[case]
    events = elken_events()
    whole = read_elken_release(write_elken(tmp_path / "whole.json", events))
    hostile = make(events)
    path = write_elken(tmp_path / "hostile.json", [events[0], hostile or {}, *events[1:]],
                       raw={1: raw} if raw else None)
    release = read_elken_release(path)
    assert [e.text for e in release.events] == [e.text for e in whole.events]
    assert len(release.items) == len(whole.items) and release.report.damage_offset is None
    assert release.report.events == len(whole.events)
    assert release.report.events_skipped == whole.report.events_skipped + 1
    assert release.report.questions == whole.report.questions
    found = [p for p in release.report.problems if p.record == "event 1"]
    assert found and reason in found[0].reason and found[0].line > 1, [str(p) for p in release.report.problems]


def test_elken_bad_bytes_are_reported_with_their_line(tmp_path):
    path = write_elken(tmp_path / "bad.json", elken_events())
    whole = read_elken_release(path)
    data = path.read_bytes()
    at = data.index(b"Mbappe")
    path.write_bytes(data[:at] + b"Mbapp\xe9" + data[at + 6:])
    release = read_elken_release(path)
    found = [p for p in release.report.problems if "not UTF-8" in p.reason]
    assert [p.line for p in found] == [data[:at].count(b"\n") + 1]
    assert len(release.events) == len(whole.events) and "Mbapp\ufffd" in release.events[0].text


def test_elken_a_folder_is_named(tmp_path):
    (tmp_path / "x.json").mkdir()
    with pytest.raises(InputError, match="is a folder"):
        read_elken_release(tmp_path / "x.json")
    with pytest.raises(InputError, match="no such file"):
        read_elken_release(tmp_path / "y.json")


# ChroKnowBench: JSON lines per file
def chrono_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "chroknowbench"
    shutil.copytree(RELEASES / "chroknowbench", folder)
    return folder


def chrono_line(folder: Path, **change) -> bytes:
    first = json.loads((folder / "TimeVariant_General_Dynamic.jsonl").read_text().splitlines()[0])
    return json.dumps({**first, "subject": "Somebody Else", **change}).encode()


CHRONO_CASES = {
    "json nested 10,000 deep": (lambda folder: DEEP.encode(), "not JSON (nested too deeply"),
    "a field over 1 MiB": (lambda folder: chrono_line(folder, question=HUGE), "a text field of 1,048,577 bytes"),
    "a subject over 4 KiB": (lambda folder: chrono_line(folder, subject=LONG_NAME), "a name or id of 5,000"),
    "bytes that are not UTF-8": (lambda folder: chrono_line(folder).replace(b"Somebody", b"Som\xe9body"),
                                 "not UTF-8"),
}


@pytest.mark.parametrize("case", list(CHRONO_CASES))
def test_chroknowbench_refuses_a_hostile_line_and_keeps_the_rest(tmp_path, case):
    make, reason = CHRONO_CASES[case]
    folder = chrono_copy(tmp_path)
    whole, _ = read_chroknowbench([folder])
    path = folder / "TimeVariant_General_Dynamic.jsonl"
    line = add_meta_line(path, make(folder))
    records, report = read_chroknowbench([folder])
    kept = 1 if case == "bytes that are not UTF-8" else 0          # replaced bytes: the line is kept
    assert len(records) == len(whole) + kept
    assert any(p.startswith(f"{path}:{line}: ") and reason in p for p in report.problems), report.problems


def test_chroknowbench_a_folder_where_a_file_should_be_is_an_error(tmp_path):
    """Finding 9: a folder named like a release file was skipped in silence (72 of 99 items)."""
    folder = chrono_copy(tmp_path)
    (folder / "TimeVariant_Legal_Dynamic.jsonl").unlink()
    (folder / "TimeVariant_Legal_Dynamic.jsonl").mkdir()
    with pytest.raises(InputError, match="is a folder") as caught:
        read_chroknowbench([folder])
    assert caught.value.path.endswith("TimeVariant_Legal_Dynamic.jsonl")
    with pytest.raises(InputError, match="no such file"):
        read_chroknowbench([tmp_path / "missing"])


def test_chroknowbench_nothing_readable_is_an_error(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "TimeVariant_General_Dynamic.jsonl").write_text('{"subject": \n')
    with pytest.raises(InputError, match="no ChroKnowBench record could be read"):
        read_chroknowbench([folder])


# LINT: JSON lines
def lint_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "lint"
    shutil.copytree(RELEASES / "lint", folder)
    return folder


LINT_CASES = {
    "json nested 10,000 deep": (lambda first: DEEP.encode(), "nested too deeply"),
    "a field over 1 MiB": (lambda first: json.dumps({**first, "full_statement": HUGE}).encode(),
                           "a text field of 1,048,577 bytes"),
    "bytes that are not UTF-8": (lambda first: json.dumps(first).encode().replace(b"PersonX", b"Person\xd8", 1),
                                 "not UTF-8"),
}


@pytest.mark.parametrize("case", list(LINT_CASES))
def test_lint_refuses_a_hostile_line_and_keeps_the_rest(tmp_path, case):
    make, reason = LINT_CASES[case]
    folder = lint_copy(tmp_path)
    whole = read_lint_release([folder])
    path = folder / "lint_head.jsonl"
    first = json.loads(path.read_text().splitlines()[0])
    line = add_meta_line(path, make(first))
    release = read_lint_release([folder])
    assert {s.id for s in whole.statements} <= {s.id for s in release.statements}
    assert any(p.startswith(f"{path}:{line}: ") and reason in p for p in release.report.problems), \
        release.report.problems


def test_lint_a_folder_or_nothing_readable_is_an_error(tmp_path):
    folder = lint_copy(tmp_path)
    (folder / "lint_head.jsonl").unlink()
    (folder / "lint_head.jsonl").mkdir()
    with pytest.raises(InputError, match="is a folder"):
        read_lint_release([folder])
    (folder / "lint_head.jsonl").rmdir()
    (folder / "lint_longtail.jsonl").write_text('{"centre": "person", \n')
    with pytest.raises(InputError, match="no LINT statement could be read"):
        read_lint_release([folder])


# --- one fuzz test over the five readers: any bytes give records or a clear error, never a crash ----------
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.binary(max_size=300) | st.text(max_size=300).map(str.encode)
       | st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                      lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
                      max_leaves=20).map(lambda v: json.dumps(v).encode()))
def test_fuzz_the_release_readers_answer_or_say_what_is_wrong(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("fuzz")
    readers = []
    alcuna = folder / "alcuna"
    shutil.copytree(RELEASES / "alcuna", alcuna)
    (alcuna / "meta_data.jsonl").write_bytes(data)
    readers.append(lambda: read_alcuna_release([alcuna]))
    (folder / "e.json").write_bytes(data)
    readers.append(lambda: read_elken_release(folder / "e.json"))
    chrono = folder / "c"
    chrono.mkdir()
    (chrono / "TimeVariant_General_Dynamic.jsonl").write_bytes(data)
    readers.append(lambda: read_chroknowbench([chrono]))
    lint = folder / "l"
    lint.mkdir()
    (lint / "lint_head.jsonl").write_bytes(data)
    readers.append(lambda: read_lint_release([lint]))
    newterm = folder / "benchmark_2022"
    newterm.mkdir()
    (newterm / "new_terms.jsonl").write_bytes(data)
    (newterm / "COMA.jsonl").write_bytes(data)
    readers.append(lambda: read_newterm_release(newterm_release_files([newterm])[0]))
    for read in readers:
        try:
            read()
        except InputError as exc:
            assert exc.path and str(exc)


# NewTerm: its reader is part of the import, so these go through the command
def newterm_folder(tmp_path: Path, extra: list[bytes]) -> Path:
    folder = tmp_path / "benchmark_2022"
    folder.mkdir()
    good = [json.dumps({"term": f"term{i}", "meaning": f"the meaning of term {i}", "type": "new word"}).encode()
            for i in range(2)]
    (folder / "new_terms.jsonl").write_bytes(b"\n".join([good[0], *extra, good[1]]) + b"\n")
    return folder


def test_newterm_refuses_hostile_lines_and_keeps_the_good_ones(graph_env, store, tmp_path):
    bad_bytes = json.dumps({"term": "caf\u00e9", "meaning": "a place", "type": "new word"}).encode().replace(
        b"caf\\u00e9", b"caf\xe9")
    folder = newterm_folder(tmp_path, [DEEP.encode(), json.dumps({"term": "x", "meaning": HUGE}).encode(),
                                       json.dumps({"term": LONG_NAME, "meaning": "m"}).encode(), bad_bytes])
    summary = workflow.import_benchmark(NEWTERM, store, [folder], NEWTERM.make_params())
    path = folder / "new_terms.jsonl"
    for line, reason in ((2, "nested too deeply"), (3, "a text field of 1,048,577 bytes"),
                         (4, "a name or id of 5,000 bytes"), (5, "not UTF-8")):
        assert any(note.startswith(f"{path}:{line}: ") and reason in note for note in summary.notes), \
            (line, summary.notes)
    terms = store.user_query("MATCH (e:TermEntry) WHERE e.benchmark = 'newterm:2022' RETURN e.term AS t ORDER BY t")
    assert [r["t"] for r in terms] == ["caf\ufffd", "term0", "term1"]


def test_newterm_nothing_readable_is_an_error_and_a_folder_is_named(graph_env, store, tmp_path):
    folder = tmp_path / "benchmark_2022"
    folder.mkdir()
    (folder / "new_terms.jsonl").write_text('{"term": "cut o')
    result = invoke("generate", "newterm", "--import", str(folder), "--silent")
    assert result.exit_code == 1 and "no record could be read" in result.output, result.output
    (folder / "new_terms.jsonl").unlink()
    (folder / "new_terms.jsonl").mkdir()
    result = invoke("generate", "newterm", "--import", str(folder), "--silent")
    assert result.exit_code == 1 and "is a folder" in result.output, result.output
    assert store.user_query("MATCH (b:Benchmark {id: 'newterm:2022'}) RETURN count(b) AS n") == [{"n": 0}]


def test_alcuna_truncated_release_through_the_command_exits_1_and_registers_nothing(graph_env, store, tmp_path):
    """Finding 5 end to end: the command fails and leaves no Benchmark node."""
    meta, questions = alcuna_copy(tmp_path)
    questions.write_text("{}")
    result = invoke("generate", "knowgen", "--import", str(meta.parent), "--silent")
    assert result.exit_code == 1 and "no question could be read" in result.output, result.output
    assert store.user_query("MATCH (b:Benchmark) WHERE b.id STARTS WITH 'knowgen:' RETURN count(b) AS n") == [{"n": 0}]


# --- exact drops (finding 10) ---------------------------------------------------------------------
@dataclass(frozen=True)
class Fingerprint:
    """Counts and a hash of every node (labels, properties) and relationship (type, properties,
    and its two ends as such): equal fingerprints are equal graphs, whatever the element ids.
    Only the counts and the hash are compared; the rows say what differs when they do not."""

    nodes: int
    relationships: int
    digest: str
    rows: frozenset = field(compare=False, repr=False)

    def difference(self, other: Fingerprint) -> list[str]:
        return sorted(f"+ {r}"[:300] for r in other.rows - self.rows)[:10] + \
            sorted(f"- {r}"[:300] for r in self.rows - other.rows)[:10]


def fingerprint(store) -> Fingerprint:
    nodes = store.user_query("MATCH (n) RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props")
    canon = {r["id"]: json.dumps([sorted(r["labels"]), r["props"]], sort_keys=True, default=str) for r in nodes}
    rels = store.user_query("MATCH (a)-[r]->(b) RETURN elementId(a) AS a, type(r) AS t, properties(r) AS p, "
                            "elementId(b) AS b")
    edges = sorted(json.dumps([canon[r["a"]], r["t"], r["p"], canon[r["b"]]], sort_keys=True, default=str)
                   for r in rels)
    digest = hashlib.sha256(json.dumps([sorted(canon.values()), edges]).encode()).hexdigest()
    return Fingerprint(len(canon), len(edges), digest, frozenset(canon.values()) | frozenset(edges))


def import_args(method: str, tmp_path: Path) -> list[str]:
    if method == "newterm":
        from knowforge.kg.loaders.samples import samples_dir
        return [str(samples_dir() / "newterm_2022"), "--name", "fp"]
    source = {"knowgen": RELEASES / "alcuna", "events": RELEASES / "elken" / "test_truncated.json",
              "chrono": RELEASES / "chroknowbench", "link": RELEASES / "lint"}[method]
    return [str(source), "--name", "fp"]




def load_taxonomy_sample(store) -> Fingerprint:
    from knowforge.kg.loaders.registry import load_source
    from knowforge.kg.loaders.samples import samples_dir

    wipe(store)
    load_source(store, "taxonomy", [samples_dir() / "taxonomy"])
    return fingerprint(store)


@pytest.fixture(scope="module")
def taxonomy_fingerprint(session_store) -> Fingerprint:
    """The fingerprint of a graph that holds the taxonomy sample and nothing else."""
    return load_taxonomy_sample(session_store)


@pytest.fixture
def beside_taxonomy(session_store, taxonomy_fingerprint):
    """The session's store holding exactly the taxonomy sample (a small graph beside the
    import), and that graph's fingerprint. The tests below import, drop and assert that the
    graph is as before, so the sample is loaded once for all ten of them rather than once
    each (about a second a load); a graph that differs in any node or relationship (a test
    that failed, another test's wipe) is wiped and loaded afresh."""
    now = fingerprint(session_store)
    if now != taxonomy_fingerprint:
        now = load_taxonomy_sample(session_store)
    return session_store, now


@pytest.mark.parametrize("method", ["knowgen", "events", "chrono", "link", "newterm"])
def test_drop_of_an_imported_benchmark_restores_the_graph_exactly(graph_env, beside_taxonomy, tmp_path, method):
    store, before = beside_taxonomy
    imported = invoke("generate", method, "--import", *import_args(method, tmp_path), "--silent")
    assert imported.exit_code == 0, imported.output
    assert fingerprint(store) != before
    dropped = invoke("generate", method, "--drop", "fp")
    assert dropped.exit_code == 0, dropped.output
    after = fingerprint(store)
    assert after == before, before.difference(after)


# --- atomic imports (issue 36, item 3): a failure midway leaves the graph as the import found it ------
class RefusingStore(Store):
    """The test server's store, except that its write number ``refuse_at`` is a statement the
    server refuses (``1/0``: Neo4j's ArithmeticError), as if a record were refused there. The
    writes before it are real; so is the compensation after it."""

    def __init__(self, store, refuse_at: int | None):
        super().__init__(store.driver, store.database, batch_size=store.batch_size, uri=store.uri)
        self.refuse_at = refuse_at
        self.writes = 0
        self.statements: list[str] = []

    def _execute_write(self, query, params):
        self.writes += 1
        self.statements.append(getattr(query, "metadata", None) and query.metadata.get("statement") or str(query)[:60])
        if self.writes == self.refuse_at:
            return super()._execute_write("RETURN 1 / 0 AS refused", {})
        return super()._execute_write(query, params)


def method_of(name: str):
    from knowforge.models.methods import get_method

    return get_method(name)


@pytest.mark.parametrize("method", ["knowgen", "events", "chrono", "link", "newterm"])
def test_an_import_that_fails_midway_leaves_no_partial_benchmark(beside_taxonomy, tmp_path, method):
    store, before = beside_taxonomy
    source, _, name = import_args(method, tmp_path)
    chosen = method_of(method)
    params = chosen.make_params(name=name)
    counting = RefusingStore(store, None)
    workflow.import_benchmark(chosen, counting, [Path(source)], params)
    writes = counting.writes
    assert writes >= 3, writes
    workflow.drop(chosen, store, name)
    assert fingerprint(store) == before
    failed = []
    for refuse_at in sorted({2, writes // 2, writes}):
        refusing = RefusingStore(store, refuse_at)
        try:
            workflow.import_benchmark(chosen, refusing, [Path(source)], params)
        except Exception as exc:   # noqa: BLE001 (whatever the importer lets out, the graph must be as before)
            assert re.search("ArithmeticError|/ by zero", str(exc)), exc
            assert not isinstance(exc, ImportNotUndone), exc
            failed.append(refuse_at)
        else:
            # a loader's batch (terms) isolates what the server refuses, reports it and goes on:
            # then the import stands, and its drop must restore the graph
            workflow.drop(chosen, store, name)
        after = fingerprint(store)
        assert after == before, (refuse_at, refusing.statements[refuse_at - 1], before.difference(after))
    assert writes in failed, (writes, failed)      # the last write, after the benchmark was registered

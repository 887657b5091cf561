"""ELKEN releases into the graph: the shared samples and a truncated fixture with every variant
real files carry are read whole (every question counted, none dropped silently), stored as
events benchmarks the editing solvers read like generated ones, re-imported without
duplicates and dropped without a trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from knowforge import workflow
from knowforge.cli.main import cli
from knowforge.errors import ConfigError
from knowforge.generators.events.build import generate_events
from knowforge.generators.events.elken_release import read_elken_release
from knowforge.generators.events.method import METHOD

FIXTURE = Path(__file__).parent / "releases" / "elken" / "test_truncated.json"
PARTS = ("fact.qas", "fact.local_qas", "tendency.qas", "tendency.local_qas")


def _questions_in(records) -> dict[str, int]:
    """Questions per part, counted straight from the records (the reader's answer key)."""
    counts = dict.fromkeys(PARTS, 0)
    for r in records:
        for key in PARTS:
            part, scope = key.split(".")
            counts[key] += len(r.get(part, {}).get(scope, []))
    return counts


def _graph_size(store) -> tuple[int, int]:
    rows = store.user_query("MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, count(r) AS r")
    return rows[0]["n"], rows[0]["r"]


def test_the_fact_sample_is_read_whole_with_its_variants_counted(shared_formats):
    path = shared_formats / "elken" / "train_fact_sample.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    events, items, report = read_elken_release(path)
    assert len(events) == 40 and report.damage_offset is None and not report.problems
    assert dict(report.questions) == _questions_in(records) == {
        "fact.qas": 113, "fact.local_qas": 157, "tendency.qas": 219, "tendency.local_qas": 77}
    assert len(items) == 566 and not report.questions_skipped
    # the variants the formats README lists, each counted
    assert report.variants["fact.qas subject as {id, ent2name}"] == 14
    assert report.variants["fact.local_qas without type"] == 157
    assert report.variants["fact.qas with extra key 'alias'"] == 52
    # each variant says where it was first met
    assert report.variants.first["fact.local_qas without type"] == f"{path}:2 (byte 3), event 0 fact.local_qas[0]"
    facts_in = [i for i in items if i.task == "events/fact"]
    na = [i for i in facts_in if i.metadata["answer"]["id"] == "NA"]
    assert len(na) == 52
    literal = [i for i in na if not i.unknown]      # "2023", "COO": known golds with an NA id
    assert len(literal) == report.variants["fact.qas answer id 'NA' with a literal name (a known gold)"] == 9
    assert all(i.answers[0] == i.metadata["answer"]["name"] and i.slices["known"] for i in literal)
    assert all(i.answers == ["unknown"] and not i.slices["known"] for i in na if i.unknown)
    ent2name = next(i for i in facts_in if "ent2name" in i.metadata["record"]["subject"])
    assert ent2name.metadata["subject"]["name"] == ent2name.metadata["record"]["subject"]["ent2name"]
    assert sum(i.slices["needs_background"] for i in facts_in) == sum(
        qa["type"] == 1 for r in records for qa in r["fact"]["qas"])
    # ids: the benchmark, the event's place in the file, part, scope, the question's place
    assert items[0].id == "events:elken-train-fact-sample:00000:fact:in:000"
    assert len({i.id for i in items}) == len(items)


def test_the_tendency_sample_is_read_whole(shared_formats):
    events, items, report = read_elken_release(shared_formats / "elken" / "train_sample.json")
    assert len(events) == 40 and len(items) == 320
    assert dict(report.questions) == {"tendency.qas": 234, "tendency.local_qas": 86}
    assert {i.slices["part"] for i in items} == {"tendency"} and not report.variants


def test_a_truncated_copy_keeps_every_complete_event_and_names_the_damage(shared_formats, tmp_path):
    source = (shared_formats / "elken" / "train_fact_sample.json").read_bytes()
    records = json.loads(source)
    cut = len(source) * 3 // 5
    damaged = tmp_path / "test.json"
    damaged.write_bytes(source[:cut])
    # by hand: the records whose serialisation ends before the cut, and where the next begins
    text = source.decode("utf-8")
    decoder, pos, complete = json.JSONDecoder(), text.index("[") + 1, 0
    while True:
        while text[pos] in " \n\r\t,":
            pos += 1
        _, end = decoder.raw_decode(text, pos)
        if len(text[:end].encode()) > cut:
            broken_at = len(text[:pos].encode())
            break
        complete, pos = complete + 1, end
    events, items, report = read_elken_release(damaged)
    assert 0 < complete < 40 and len(events) == complete
    assert [dict(e.record) for e in events] == records[:complete]
    assert report.damage_offset == broken_at and report.truncated
    assert dict(report.questions) == {k: v for k, v in _questions_in(records[:complete]).items() if v}
    assert f"damaged at byte {broken_at}" in report.damage_note()


def test_the_fixture_accounts_for_every_question(tmp_path):
    """tests/releases/elken/test_truncated.json: every variant of the real files and a few
    broken records, cut mid-record at the end like the released test file."""
    text = FIXTURE.read_text(encoding="utf-8")
    complete = json.loads(text[:text.rindex(",\n{")] + "]")      # the records before the cut
    events, items, report = read_elken_release(FIXTURE, benchmark="events:fx")
    in_file = _questions_in(complete)
    assert {k: report.questions[k] + report.questions_skipped[k] for k in PARTS} == in_file
    assert sum(in_file.values()) == len(items) + sum(report.questions_skipped.values()) == 17
    assert len(events) == 3 and report.events_skipped == 1
    assert report.damage_offset == len(text[:text.rindex(",\n{") + 2].encode())
    reasons = [str(p) for p in report.problems]
    assert len(reasons) == 4 and all(r.startswith(f"{FIXTURE}:") and "(byte " in r for r in reasons)
    assert any("event 1: no 'event' text: the event and its 1 questions skipped" in r for r in reasons)
    assert any("event 2 fact.qas[0]: question skipped: field question" in r for r in reasons)
    assert any("event 2 tendency.qas[1]: question skipped: answer 'D'" in r for r in reasons)
    for variant in ("fact.qas type as a string", "fact.local_qas type 'NA' (read as: no background needed)",
                    "fact.local_qas rel_id as a number (read as text)", "event without event_type (read as 'unknown')",
                    "tendency.qas answer written '(A)' (read as 'A')", "fact.qas answer without alias (read as [])"):
        assert report.variants[variant] == 1, variant
    by_id = {i.id: i for i in items}
    league = by_id["events:fx:00000:fact:in:001"]
    assert league.slices["needs_background"] and league.answers == ["Premier League"]
    assert by_id["events:fx:00000:tendency:in:000"].answers == ["A"]
    assert by_id["events:fx:00000:tendency:in:001"].answer_index == 1
    assert by_id["events:fx:00002:fact:in:001"].slices["event_type"] == "unknown"


def test_import_stores_events_the_solvers_read_like_generated_ones(store, graph_env, shared_formats, tmp_path):
    path = shared_formats / "elken" / "train_fact_sample.json"
    result = CliRunner().invoke(cli, ["generate", "events", "--import", str(path), "--silent"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == "events:elken-train-fact-sample"
    assert "566 questions" in result.output and "fact.local_qas without type 157" in result.output
    _, expected, _ = read_elken_release(path, benchmark="events:elken-train-fact-sample")
    items = METHOD.items(store, "elken-train-fact-sample")
    assert [i.id for i in items] == [i.id for i in expected]           # file order, whole events
    assert items == expected
    # each event is a layered :Event, its in-scope answers its edit facts, its questions TEST it
    rows = store.user_query(
        "MATCH (e:Event {batch: 'elken-train-fact-sample'}) "
        "RETURN count(e) AS events, sum(COUNT { (e)-[:ASSERTS]->(:Fact {layer: 'edit'}) }) AS facts, "
        "sum(COUNT { (:Question)-[:TESTS]->(e) }) AS questions, collect(DISTINCT e.origin) AS origin")
    assert rows == [{"events": 40, "facts": 113, "questions": 566, "origin": ["imported"]}]
    # an in-scope question TESTS the fact its event asserts (validity's seen vs unseen reads it)
    tested = store.user_query("MATCH (:Event {batch: 'elken-train-fact-sample'})-[:ASSERTS]->(f:Fact)<-[:TESTS]-"
                              "(q:Question) RETURN count(DISTINCT q) AS questions, count(DISTINCT f) AS facts")
    inside = [i for i in items if i.task == "events/fact" and i.metadata["subject"].get("id")]
    assert tested == [{"questions": len(inside), "facts": 113}] and all(len(i.fact_ids) == 1 for i in inside)
    # what ft fine-tunes on: the event text, then one statement per in-scope answer
    from knowforge.eval.events.editing import edit_statements, memory_of

    memory = memory_of(items)
    statements = edit_statements(store, memory.ids, dict(zip(memory.ids, memory.texts)))
    first = next(i for i in items if i.task == "events/fact")
    lines = statements[first.metadata["event_id"]]
    assert lines[0] == first.metadata["event"]
    assert any(line.startswith("National Hockey League, parent organization: Norwegian Broadcasting Corporation")
               for line in lines[1:])
    assert any(": unknown" in line for line in lines[1:])                # an unknown gold, stated
    # and the release exports as it was released
    workflow.export(METHOD, store, "elken-train-fact-sample", "elken", tmp_path / "out.json")
    assert json.loads((tmp_path / "out.json").read_text()) == json.loads(path.read_text())


def test_reimport_is_idempotent_and_drop_leaves_nothing(store, shared_formats):
    path = shared_formats / "elken" / "train_fact_sample.json"
    params = METHOD.make_params(name="tr")
    first = workflow.import_benchmark(METHOD, store, [path], params)
    size = _graph_size(store)
    ids = sorted(i.id for i in METHOD.items(store, "tr"))
    second = workflow.import_benchmark(METHOD, store, [path], params)
    assert _graph_size(store) == size and sorted(i.id for i in METHOD.items(store, "tr")) == ids
    assert first.counts == second.counts and any("replaced the earlier import" in n for n in second.notes)
    # the same file under another name: its own benchmark, its own ids
    workflow.import_benchmark(METHOD, store, [path], METHOD.make_params(name="tr2"))
    assert not set(ids) & {i.id for i in METHOD.items(store, "tr2")}
    assert all(i.startswith("events:tr:") for i in ids)
    workflow.drop(METHOD, store, "tr2")
    assert _graph_size(store) == size
    dropped = workflow.drop(METHOD, store, "tr")
    assert dropped["events unstacked"] == 40 and dropped["stub entities deleted"] > 0
    assert _graph_size(store) == (0, 0)


def test_a_generated_batch_is_not_overwritten_by_an_import(store, tmp_path):
    from events_subgraph import build_subgraph

    build_subgraph(store)
    generate_events(store, types=["transfer-player"], n=1, seed=0, batch="g")
    with pytest.raises(ConfigError, match="events:g is a generated batch"):
        workflow.import_benchmark(METHOD, store, [FIXTURE], METHOD.make_params(name="g"))
    summary = workflow.import_benchmark(METHOD, store, [FIXTURE], METHOD.make_params())
    assert summary.benchmark == "events:elken-test-truncated"
    assert summary.counts["questions"] == 13 and summary.counts["questions skipped"] == 4
    assert any("damaged at byte" in n for n in summary.notes)
    assert len(METHOD.items(store, "elken-test-truncated")) == 13
    # the generated batch is untouched and still reads back
    assert {i.benchmark for i in METHOD.items(store, "g")} == {"events:g"}


@pytest.mark.hf
def test_the_editing_solvers_run_on_an_imported_release(store, tiny_model_dir, tmp_path):
    """ice and ft (what `knowforge eval --benchmark events:NAME --solver ...` runs) on an imported
    release: every in-scope fact question is asked and scored, ft fine-tunes on the imported
    edit statements."""
    from knowforge.eval.types import EvalOptions
    from knowforge.models.backends.hf import HFBackend
    from knowforge.models.task import Component

    workflow.import_benchmark(METHOD, store, [FIXTURE], METHOD.make_params(name="fx"))
    inside = sum(i.task == "events/fact" for i in METHOD.items(store, "fx"))
    base = HFBackend(str(tiny_model_dir), device="cpu")
    for solver in (Component(name="ice"), Component(name="ft", args={"epochs": 2})):
        options = EvalOptions(backend="hf", model=str(tiny_model_dir), max_tokens=6, cache=False, device="cpu",
                              out_dir=tmp_path / solver.name, silent=True)
        evaluation = workflow.evaluate(store, "events:fx", options, tasks=["fact"], solver=solver, backend=base)
        [run] = evaluation.runs
        assert run.metrics["events/fact"]["edit_reliability"]["questions"] == inside == 6

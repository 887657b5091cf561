"""The msgspec fast path of the Wikidata parser gives exactly what the parser gave before it.

The oracle is ``tests/wikidata_reference.py``, the parser as it was before the fast path:
``json.loads`` + rules on dicts. On well-formed input every line must give the same entity,
facts (in order), relation and skips, or raise the same exception: checked on the bundled
sample, on the synthetic dump of the benchmarks and through the loader on a truncated bz2 file.

On damaged documents the rules changed on purpose (issue 28): a part of the wrong shape, a date
the data model does not allow or a number that is not finite is now reported where the old
parser crashed or stored it. There the fast path must equal the library's own reference path
(``json.loads`` + ``WikidataDocParser.parse``) exactly, neither may raise, and every difference
from the old parser must be a reported problem or a time value read by the new date rules.
"""

from __future__ import annotations

import bz2
import copy
import json
import random
import sys
from pathlib import Path

import pytest

import wikidata_reference as reference
from knowforge.kg.loaders.base import TruncatedInput, iter_lines
from knowforge.kg.loaders.samples import samples_dir
from knowforge.kg.loaders.wikidata_json import PROBLEM_REASONS, WikidataDocParser, parse_line

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from make_wikidata_dump import entity_document, write_dump  # noqa: E402

SAMPLE = samples_dir() / "wikidata" / "entities.json"


def outcome(fn, *args):
    """What a parse gives: the records, or the exception it raised (type and message)."""
    try:
        parsed = fn(*args)
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome compared
        return ("raised", type(exc).__name__, str(exc))
    if parsed is None:
        return None
    return (parsed.entity, parsed.facts, parsed.relation, parsed.skipped)


def reference_outcome(parser, raw: bytes):
    def run(line):
        doc = reference.parse_line(line)
        return None if doc is None else parser.parse(doc)
    return outcome(run, raw)


def our_reference_outcome(parser, raw: bytes):
    def run(line):
        doc = parse_line(line)
        return None if doc is None else parser.parse(doc)
    return outcome(run, raw)


def assert_paths_agree(lines, properties=None) -> list:
    """The fast path equals the library's reference path on every line; their outcomes."""
    ours = WikidataDocParser(properties, source_file="dump.json")
    outcomes = []
    for lineno, raw in lines:
        expected = our_reference_outcome(ours, raw)
        got = outcome(ours.parse_line, raw)
        assert got == expected, f"line {lineno}: {raw[:300]!r}"
        outcomes.append(got)
    return outcomes


def timed(fact) -> bool:
    return fact.datatype == "time" or any(x is not None for x in (fact.start, fact.end, fact.point_in_time))


def assert_explained(old, new, raw: bytes) -> None:
    """Every difference between the old parser's outcome and the new one is reported or is a
    time value read by the new date rules; nothing but undecodable JSON raises."""
    if new and new[0] == "raised":
        assert old[0] == "raised" and new == old, raw[:300]  # malformed JSON, worded as before
        return
    if old is None or new is None:
        assert old == new, raw[:300]
        return
    problems = {reason for reason, _ in new[3] if reason in PROBLEM_REASONS}
    if old[0] == "raised":  # the old parser crashed here: the new one counts what it left out
        assert new[3], raw[:300]
        return
    if new[0] != old[0]:
        assert new[0] is None and "bad_document" in problems, raw[:300]
        return
    messages = [message for reason, message in new[3] if reason in PROBLEM_REASONS]
    for fact in new[1]:  # e.g. a qualifier the old parser crashed on is now left out, and said
        assert fact in old[1] or timed(fact) or any(str(fact.statement_id) in m for m in messages), \
            (fact, raw[:300])
    changed = {f.statement_id for f in new[1] if f not in old[1]}
    for fact in old[1]:
        assert fact in new[1] or problems or fact.statement_id in changed, (fact, raw[:300])


def assert_same_lines(lines, properties=None):
    ours = WikidataDocParser(properties, source_file="dump.json")
    theirs = reference.WikidataDocParser(properties, source_file="dump.json")
    compared = facts = 0
    for lineno, raw in lines:
        expected = reference_outcome(theirs, raw)
        got = outcome(ours.parse_line, raw)
        assert got == expected, f"line {lineno}: {raw[:300]!r}"
        compared += 1
        if expected and expected[0] != "raised":
            facts += len(expected[1])
    return compared, facts


def test_bundled_sample_gives_the_same_records():
    compared, facts = assert_same_lines(iter_lines(SAMPLE))
    assert compared > 100 and facts > 500


def test_bundled_sample_with_a_narrow_allow_list():
    compared, facts = assert_same_lines(iter_lines(SAMPLE), properties={"P39", "P54", "P1082"})
    assert facts > 50


def test_synthetic_dump_gives_the_same_records(tmp_path):
    path = write_dump(tmp_path / "dump.json", 3000, seed=7)
    compared, facts = assert_same_lines(iter_lines(path))
    assert compared == 3002 and facts > 15000


# ---- damaged documents: every shape the typed schema refuses goes the reference way ------------

REPLACEMENTS = [None, [], {}, "", "x", "value", 0, 7, 1.5, True, False, [1], ["a"], {"en": None},
                {"en": "x"}, {"value": None}, {"time": "+2001-00-00T00:00:00Z"}, {"id": 5},
                {"text": None, "language": "en"}, {"amount": None}, {"numeric-id": "x"},
                {"entity-type": "property", "id": "P5"}, "+2001-13-45T00:00:00Z", "novalue"]


def paths(node, prefix=()):
    """Every (path to a value) in a JSON tree."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from paths(value, prefix + (i,))


def damage(doc: dict, rng: random.Random) -> dict:
    doc = copy.deepcopy(doc)
    for _ in range(rng.choice((1, 1, 2, 3))):
        all_paths = [p for p in paths(doc) if p]
        path = rng.choice(all_paths)
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and rng.random() < 0.25:
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(REPLACEMENTS))
    return doc


def test_damaged_documents_give_the_same_outcome(monkeypatch):
    fallbacks = []
    original = WikidataDocParser.parse
    monkeypatch.setattr(WikidataDocParser, "parse",
                        lambda self, doc: fallbacks.append(1) or original(self, doc))
    rng = random.Random("wikidata-fast-parser:damage")
    sample_docs = [doc for _, raw in iter_lines(SAMPLE) if (doc := reference.parse_line(raw))]
    synthetic = [entity_document(i, random.Random(f"doc:{i}")) for i in range(40)]
    pool = [d for d in sample_docs if d.get("claims")][:60] + synthetic
    lines = []
    for i in range(3000):
        doc = damage(rng.choice(pool), rng)
        lines.append((i, json.dumps(doc, separators=(",", ":")).encode() + b","))
    parser = WikidataDocParser(source_file="dump.json")
    for _, raw in lines:
        outcome(parser.parse_line, raw)
    # Both paths were exercised: the typed one on damage it mirrors, the reference on the rest.
    assert 300 < len(fallbacks) < 2700
    outcomes = assert_paths_agree(lines)
    assert len(outcomes) == 3000
    old = reference.WikidataDocParser(source_file="dump.json")
    reported = 0
    for (lineno, raw), new in zip(lines, outcomes):
        before = reference_outcome(old, raw)
        assert_explained(before, new, raw)
        reported += before != new
    assert reported > 100  # the damage does reach the new rules


@pytest.mark.parametrize("raw", [
    b'{"type":"item","id":"Q1","labels":{', b"[1,2]", b'"text",', b"5", b"null", b"{}",
    b'{"type":"item","id":"Q1","x":NaN}', b'{"type":"item","id":"Q1","x":1e400}',
    b'{"type":"item","id":"Q1","labels":{"en":{"value":"\\ud800"}}}', b"\xef\xbb\xbf{}",
    b'{"type":"item","id":"Q1","labels":{"en":{"value":"a\tb"}}}', b"[", b"]", b"   ", b"",
    b'{"type":"item","id":"Q1","id":"Q2","claims":[]}', b'{"type":"property","id":"P39"}',
    b'{"type":"item","id":"Q1","claims":{"P39":null}}', b'{"type":"item","id":"Q1","claims":{"P1":null}}',
    b'{"type":"item","id":"Q1","claims":{"P31":null}}', b'{"type":"item","id":["Q1"]}',
])
def test_odd_and_malformed_lines(raw):
    ours = assert_paths_agree([(1, raw)])[0]
    assert_explained(reference_outcome(reference.WikidataDocParser(source_file="dump.json"), raw), ours, raw)


def test_monolingual_text_without_text_is_a_bad_value_not_a_crash():
    """Deliberate change: the old parser raised from FactRecord and stopped the whole load."""
    doc = {"type": "item", "id": "Q1", "claims": {"P1448": [{
        "mainsnak": {"snaktype": "value", "property": "P1448", "datatype": "monolingualtext",
                     "datavalue": {"value": {"text": None, "language": "en"}, "type": "monolingualtext"}},
        "type": "statement", "id": "Q1$m", "rank": "normal"}]}}
    raw = json.dumps(doc).encode()
    with pytest.raises(ValueError):
        reference.WikidataDocParser().parse(reference.parse_line(raw))
    for parsed in (WikidataDocParser().parse_line(raw), WikidataDocParser().parse(json.loads(raw))):
        assert parsed.facts == []
        assert [r for r, _ in parsed.skipped] == ["bad_value"]


def test_wanted_filters_before_building_records():
    ours = WikidataDocParser()
    lines = [raw for _, raw in iter_lines(SAMPLE) if raw.strip() not in (b"[", b"]")]
    ids = [reference.parse_line(raw)["id"] for raw in lines]
    wanted = frozenset(ids[::3])
    for raw, qid in zip(lines, ids):
        parsed = ours.parse_line(raw, wanted)
        if qid in wanted:
            assert not parsed.filtered and (parsed.entity or parsed.relation or parsed.skipped)
        else:
            assert parsed.filtered and parsed.entity is None and parsed.facts == []


def test_truncated_bz2_gives_the_same_records_up_to_the_damage(tmp_path):
    plain = write_dump(tmp_path / "dump.json", 2000, seed=3)
    data = bz2.compress(plain.read_bytes())
    cut = tmp_path / "cut.json.bz2"
    cut.write_bytes(data[: len(data) // 2])
    lines = []
    with pytest.raises(TruncatedInput) as damage_info:
        for item in iter_lines(cut):
            lines.append(item)
    assert 100 < len(lines) < 2000 and damage_info.value.line == len(lines) + 1
    assert_same_lines(lines)

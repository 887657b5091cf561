"""The Spark engine of the Wikidata loader against the streaming loader on the same files:
the same records (Parquet vs the parser), the same report (counts by reason, problems with
their file and line), damage handled the same way. Spark in local mode with several splits
forced per file; the streaming loader writes into the real Neo4j."""

from __future__ import annotations

import bz2
import gzip
import json
import random
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.errors import ConfigError, InputError
from knowforge.kg.bulk import layout
from knowforge.kg.loaders.base import TruncatedInput, iter_lines
from knowforge.kg.loaders.wikidata_json import WikidataDocParser, load_wikidata_json
from knowforge.kg.loaders.wikidata_spark import bz2_is_complete, load_wikidata_spark

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from make_wikidata_dump import entity_document  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
              pytest.mark.timeout(1200)]  # Spark jobs on a loaded 2-core machine

BAD_LINES = ['{"type":"item","id":"Q999999","labels":{', "[1, 2, 3],", "not json at all,"]


def dump_lines(n: int, seed: int = 0) -> list[str]:
    """A dump body: n synthetic entities, three malformed lines and one bad value among them."""
    rng = random.Random(f"{seed}:spark-test")
    docs = [entity_document(i, rng) for i in range(n)]
    docs[7]["claims"]["P1082"] = [{"mainsnak": {"snaktype": "value", "property": "P1082",
                                                "datatype": "quantity",
                                                "datavalue": {"value": {"amount": "lots"}, "type": "quantity"}},
                                   "type": "statement", "id": "Q8$bad", "rank": "normal"}]
    lines = [json.dumps(d, separators=(",", ":")) + "," for d in docs]
    for k, bad in enumerate(BAD_LINES):
        lines.insert((k + 1) * n // 4, bad)
    return ["["] + lines + ["]"]


def write_bz2(path: Path, lines: list[str], streams: int = 2) -> Path:
    """bz2 in several concatenated streams, as parallel compressors write the dumps."""
    data = ("\n".join(lines) + "\n").encode()
    step = len(data) // streams + 1
    path.write_bytes(b"".join(bz2.compress(data[i:i + step], 9) for i in range(0, len(data), step)))
    return path


def parquet_rows(folder: Path) -> dict[str, dict]:
    table = pq.read_table(folder)
    return {row["id"]: row for row in table.to_pylist()}


def expected_rows(path: Path, wanted=None):
    """What the streaming parser makes of the file, in the bulk layout."""
    parser = WikidataDocParser(source_file=path.name)
    entities, facts = {}, {}
    try:
        for _, raw in iter_lines(path):
            try:
                parsed = parser.parse_line(raw, wanted)
            except ValueError:
                continue
            if parsed is None or parsed.filtered:
                continue
            if parsed.entity:
                entities[parsed.entity.id] = layout.entity_values(parsed.entity)
            for fact in parsed.facts:
                facts[fact.id] = layout.fact_values(fact)
    except TruncatedInput:
        pass
    return entities, facts


def same_report(spark_report, stream_report):
    assert spark_report.records_read == stream_report.records_read
    assert dict(spark_report.skipped) == dict(stream_report.skipped)
    assert spark_report.problem_count == stream_report.problem_count
    assert spark_report.errors == stream_report.errors
    assert [(p.reason, p.path, p.line, p.fatal) for p in spark_report.problems] == \
        [(p.reason, p.path, p.line, p.fatal) for p in stream_report.problems]
    assert spark_report.entities_written == stream_report.entities_written
    assert spark_report.facts_written == stream_report.facts_written
    assert spark_report.relations_written == stream_report.relations_written


def test_spark_gives_the_streaming_records_and_report(spark, store, tmp_path):
    path = write_bz2(tmp_path / "dump.json.bz2", dump_lines(1500))
    result = load_wikidata_spark([path], tmp_path / "out", partitions=5, spark=spark)
    assert result.splits >= 4  # the file really was read in several splits
    stream = load_wikidata_json(store, [path])
    same_report(result.report, stream)
    assert {p.reason for p in stream.problems} == {"malformed_json", "bad_value"}

    entities, facts = expected_rows(path)
    got_entities = parquet_rows(tmp_path / "out" / "parquet" / "entities")
    got_facts = parquet_rows(tmp_path / "out" / "parquet" / "facts")
    assert len(got_facts) == len(facts) > 5000
    for fid, values in facts.items():
        row = got_facts[fid]
        assert {k: row[k] for k in values} == values
    assert len(got_entities) == len(entities) == 1500
    for eid, values in entities.items():
        assert {k: got_entities[eid][k] for k in values} == values
    # every object that no document loads is one stub, named by its id
    stubs = parquet_rows(tmp_path / "out" / "parquet" / "stubs")
    objects = {f["object_id"] for f in facts.values() if f.get("object_id")}
    assert set(stubs) == objects - set(entities)
    assert all(s["name"] == s["id"] and s["stub"] and s["aliases"] is None for s in stubs.values())

    manifest = layout.read_manifest(tmp_path / "out")
    assert manifest["counts"] == {"entities": 1500, "stubs": len(stubs), "facts": len(facts),
                                  "has_fact": len(facts), "relations": result.counts["relations"],
                                  "object": sum(1 for f in facts.values() if f.get("object_id"))}
    assert manifest["load_report"]["skipped"] == dict(stream.skipped)
    header = (tmp_path / "out" / "headers" / "entities.csv").read_text()
    assert header.startswith("id:ID(Entity),:LABEL,name,aliases:string[]")


def test_truncated_bz2_keeps_what_precedes_the_damage(spark, store, tmp_path):
    full = write_bz2(tmp_path / "full.json.bz2", dump_lines(1200), streams=1)
    data = full.read_bytes()
    cut = tmp_path / "cut.json.bz2"
    cut.write_bytes(data[: len(data) * 3 // 5])
    assert bz2_is_complete(full) and not bz2_is_complete(cut)
    result = load_wikidata_spark([cut], tmp_path / "out", partitions=4, spark=spark)
    stream = load_wikidata_json(store, [cut])
    same_report(result.report, stream)
    damage = [p for p in result.report.problems if p.reason == "truncated_input"]
    assert len(damage) == 1 and damage[0].fatal and damage[0].path == str(cut)
    entities, facts = expected_rows(cut)
    assert 0 < len(entities) < 1200
    assert set(parquet_rows(tmp_path / "out" / "parquet" / "entities")) == set(entities)
    assert set(parquet_rows(tmp_path / "out" / "parquet" / "facts")) == set(facts)


def test_entity_list_and_properties_filter_like_the_streaming_loader(spark, store, tmp_path):
    path = tmp_path / "dump.json"
    path.write_text("\n".join(dump_lines(400)) + "\n")
    wanted = {"Q5", "Q17", "Q250"}
    result = load_wikidata_spark([path], tmp_path / "out", entities=wanted, properties={"P31", "P108", "P569"},
                                 partitions=3, spark=spark)
    stream = load_wikidata_json(store, [path], entities=wanted, properties={"P31", "P108", "P569"})
    same_report(result.report, stream)
    loaded = set(parquet_rows(tmp_path / "out" / "parquet" / "entities"))
    assert {"Q5", "Q17", "Q250"} <= loaded
    assert {f["relation"] for f in parquet_rows(tmp_path / "out" / "parquet" / "facts").values()} <= \
        {"P31", "P108", "P569"}


def test_refusals(spark, tmp_path):
    gz = tmp_path / "dump.json.gz"
    gz.write_bytes(gzip.compress(b"[\n]\n"))
    with pytest.raises(ConfigError, match="cannot be split"):
        load_wikidata_spark([gz], tmp_path / "out", spark=spark)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    plain = tmp_path / "dump.json"
    plain.write_text("\n".join(dump_lines(20)) + "\n")
    with pytest.raises(ConfigError, match="not empty"):
        load_wikidata_spark([plain], busy, spark=spark)
    assert (busy / "keep.txt").read_text() == "mine"
    with pytest.raises(InputError, match=r"dump.json:line \d+: malformed JSON"):
        load_wikidata_spark([plain], tmp_path / "strict", strict=True, spark=spark)


def test_cli_engine_spark(spark, tmp_path):
    path = write_bz2(tmp_path / "dump.json.bz2", dump_lines(60))
    out = tmp_path / "bulk"
    result = CliRunner().invoke(cli, ["load", "wikidata", str(path), "--engine", "spark", "--out", str(out),
                                      "--partitions", "2", "--silent"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.count("(malformed_json)") == 3  # each listed with its line
    assert f"knowforge neo4j import {out}" in result.output.replace("\n", "")
    assert (out / "manifest.json").is_file()
    refused = CliRunner().invoke(cli, ["load", "umls", str(path), "--engine", "spark"])
    assert refused.exit_code == 2 and "Wikidata JSON dumps only" in refused.output


def test_damage_inside_a_bz2_stops_the_load_with_the_offset(spark, tmp_path):
    data = bytearray(bz2.compress(("\n".join(dump_lines(300)) + "\n").encode(), 1))  # 100k blocks
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(64)
    path = tmp_path / "bad.json.bz2"
    path.write_bytes(bytes(data))
    assert bz2_is_complete(path)  # the end is intact: not a truncated download
    with pytest.raises(InputError, match=r"bad\.json\.bz2: bz2 block .*\(at byte [\d,]+ of the compressed file\)"):
        load_wikidata_spark([path], tmp_path / "out", partitions=3, spark=spark)

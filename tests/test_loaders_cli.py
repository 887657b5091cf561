"""``knowforge load`` through click, including ``load samples`` and hand-checked timelines."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.kg.loaders.samples import SAMPLE_ORDER, sample_paths
from knowforge.kg.temporal import object_timeline

COUNTS = ("MATCH (n) OPTIONAL MATCH (n)-[r]->() "
          "RETURN count(DISTINCT n) AS n, count(r) AS r, sum(size(keys(n))) AS p")


def invoke(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_help_has_examples():
    result = invoke("load", "--help")
    assert result.exit_code == 0
    assert "knowforge load samples" in result.output and "--strict" in result.output


def test_load_needs_a_path(graph_env):
    result = CliRunner().invoke(cli, ["load", "umls"])
    assert result.exit_code != 0 and "needs at least one PATH" in result.output


def test_load_jsonl_with_problems_prints_summary(store, graph_env, tmp_path):
    path = tmp_path / "terms.jsonl"
    path.write_text(json.dumps({"term": "rizz", "meaning": "charm", "type": "new word", "year": 2023,
                                "source": "Oxford"}) + "\n{broken\n", encoding="utf-8")
    result = invoke("load", "newterms", str(path), "--silent")
    assert result.exit_code == 0
    assert "malformed_json" in result.output and f"{path}:2" in result.output
    strict = CliRunner().invoke(cli, ["load", "newterms", str(path), "--silent", "--strict"])
    assert strict.exit_code == 1 and "terms.jsonl:line 2" in strict.output


def test_truncated_file_exits_non_zero(store, graph_env, tmp_path):
    import gzip

    lines = ["["] + [json.dumps({"type": "item", "id": f"Q{i}", "labels": {"en": {"language": "en",
             "value": f"thing {i}"}}, "claims": {}}) + "," for i in range(1, 3000)] + ["]"]
    data = gzip.compress("\n".join(lines).encode("utf-8"))
    path = tmp_path / "dump.json.gz"
    path.write_bytes(data[: len(data) // 2])
    result = CliRunner().invoke(cli, ["load", "wikidata", str(path), "--silent"])
    assert result.exit_code == 1 and "truncated_input" in result.output
    assert store.user_query("MATCH (e:Entity) RETURN count(e) AS n")[0]["n"] > 0


def test_entities_and_properties_options(store, graph_env, tmp_path):
    paths = sample_paths()
    assert "wikidata" in paths, "the bundled Wikidata sample (kg/samples/wikidata) is missing"
    qids = tmp_path / "qids.txt"
    qids.write_text("# Microsoft only\nQ2283\n", encoding="utf-8")
    result = invoke("load", "wikidata", str(paths["wikidata"][0]), "--entities", str(qids),
                    "--properties", "P169", "--silent")
    assert result.exit_code == 0
    rels = store.user_query("MATCH (f:Fact) RETURN DISTINCT f.relation AS r")
    assert rels == [{"r": "P169"}]
    loaded = {r["id"] for r in store.user_query("MATCH (e:Entity) WHERE NOT e.stub RETURN e.id AS id")}
    assert "Q2283" in loaded and "Q7426870" in loaded  # Microsoft and its CEO's own document
    assert "Q30" not in loaded


@pytest.fixture
def loaded_samples(store, graph_env):
    missing = sorted(set(SAMPLE_ORDER) - set(sample_paths()))
    assert not missing, f"bundled samples missing from kg/samples: {missing}"
    result = invoke("load", "samples", "--silent")
    assert result.exit_code == 0, result.output
    for source in SAMPLE_ORDER:
        assert source in result.output
    return store


def timeline(store, subject, relation):
    return object_timeline(store, subject, relation, 2010, 2023)


def test_samples_load_every_source_and_reload_is_idempotent(loaded_samples):
    store = loaded_samples
    by_source = {r["s"]: r["n"] for r in store.user_query(
        "MATCH (f:Fact) RETURN f.source AS s, count(f) AS n")}
    assert set(by_source) == {"wikidata", "taxonomy", "umls", "mathkg", "cskg", "cfr", "newterms"}
    assert all(n > 0 for n in by_source.values())
    # time from every kind of source: intervals (Wikidata), releases (UMLS), versions (CFR)
    assert store.user_query("MATCH (f:Fact {source:'wikidata'}) WHERE f.start IS NOT NULL "
                            "RETURN count(f) AS n")[0]["n"] > 100
    umls_years = store.user_query("MATCH (f:Fact {source:'umls'}) UNWIND f.seen_in AS y "
                                  "RETURN collect(DISTINCT y) AS ys")[0]["ys"]
    assert sorted(umls_years) == [2020, 2021, 2022, 2023, 2024]
    assert store.user_query("MATCH (f:Fact {source:'cfr', small_change:true}) RETURN count(f) AS n")[0]["n"] >= 1
    # the "done means": stats shows every source with its kind of time
    stats = json.loads(invoke("stats", "--json").output)
    rows = {r["source"]: r for r in stats["facts_by_source"]}
    assert set(SAMPLE_ORDER) <= set(rows)
    assert rows["wikidata"]["with_interval"] > 0 and rows["wikidata"]["with_point_in_time"] > 0
    assert rows["umls"]["with_releases"] == rows["umls"]["facts"]
    assert rows["cfr"]["with_releases"] == rows["cfr"]["facts"]
    before = store.user_query(COUNTS)
    assert invoke("load", "samples", "--silent").exit_code == 0
    assert store.user_query(COUNTS) == before


def test_samples_hand_checked_timelines(loaded_samples):
    store = loaded_samples
    ronaldo = timeline(store, "Q11571", "P54")
    real, juve, united = "Real Madrid CF", "Juventus FC", "Manchester United F.C."
    assert all(ronaldo[y] == [real] for y in range(2010, 2018))
    assert ronaldo[2018] == sorted([real, juve])
    assert ronaldo[2019] == ronaldo[2020] == [juve]
    assert ronaldo[2021] == sorted([juve, united])
    assert ronaldo[2022] == [united]
    assert ronaldo[2023] == ["Al Nassr FC"]

    usa = timeline(store, "Q30", "P35")
    assert all(usa[y] == ["Barack Obama"] for y in range(2010, 2017))
    assert usa[2017] == ["Barack Obama", "Donald Trump"]
    assert usa[2018] == usa[2020] == ["Donald Trump"]
    assert usa[2021] == ["Donald Trump", "Joe Biden"]
    assert usa[2022] == usa[2023] == ["Joe Biden"]

    microsoft = timeline(store, "Q2283", "P169")
    assert all(microsoft[y] == ["Steve Ballmer"] for y in range(2010, 2014))
    assert microsoft[2014] == ["Satya Nadella", "Steve Ballmer"]
    assert all(microsoft[y] == ["Satya Nadella"] for y in range(2015, 2024))

    apple = timeline(store, "Q312", "P169")
    assert apple[2010] == ["Steve Jobs"] and apple[2011] == ["Steve Jobs", "Tim Cook"]
    assert apple[2012] == apple[2023] == ["Tim Cook"]

    # gap filling between two known years, none after the last one
    rudd = timeline(store, "Q990026110", "P39")
    assert rudd[2010] == rudd[2011] == rudd[2012] == rudd[2013] == ["Prime Minister of Australia"]
    assert all(rudd[y] == [] for y in range(2014, 2024))


def test_samples_umls_pools_and_cfr_cloze(loaded_samples):
    store = loaded_samples
    # MRREL rows "C9000012|..|C9000001|may_treat" state (C9000001 may_treat C9000012)
    pool = object_timeline(store, "umls:C9000001", "may_treat", 2020, 2024, gap_fill=False)
    quillon, prill, zorbian = ("Quillon pneumonia (invented)", "Prill dermatitis (invented)",
                               "Zorbian fever (invented)")
    assert pool == {2020: [quillon], 2021: sorted([quillon, prill]),
                    2022: sorted([quillon, prill, zorbian]), 2023: sorted([quillon, zorbian]),
                    2024: sorted([quillon, zorbian])}
    cloze = store.user_query(
        "MATCH (new:Fact {subject_id:'cfr:21/101/101.9/f', relation:'text', small_change:true}) "
        "MATCH (old:Fact {subject_id:'cfr:21/101/101.9/f', relation:'text'}) "
        "WHERE old.value = new.changed_from "
        "RETURN new.blank_text AS q, old.seen_in AS before, new.change_old AS old_answer, "
        "new.seen_in AS after, new.change_new AS new_answer")
    assert cloze == [{"q": "(f) The reference daily intake for vitamin D used to compute percent "
                           "Daily Value is ____.",
                      "before": [2019], "old_answer": "400 International Units (IU)",
                      "after": [2020, 2021, 2022], "new_answer": "20 micrograms (mcg)"}]
    siblings = store.user_query(
        "MATCH (x:Taxon {name:'Camelus dromedarius'}), (s:Taxon {parent_id: x.parent_id}) "
        "WHERE s <> x RETURN s.name AS name ORDER BY name")
    assert {"name": "Camelus bactrianus"} in siblings

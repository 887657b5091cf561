"""ChroKnow construction on hand-made timelines written into the real Neo4j: gap filling,
dynamic/static split and balance, held-out exemplars, legal blanks, invariant pseudo-years,
distractors, the benchmark in the graph, ChroKnowBench export/import round trip, and the CLI."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from knowforge.models.matching import fuzzy_equal
from knowforge.generators.chrono.build import (ChronoConfig, build_benchmark, load_items,
                                               load_records)
from knowforge.generators.chrono.chroknowbench_io import export_chroknowbench, import_chroknowbench
from knowforge.generators.chrono.items import build_items
from knowforge.kg.records import EntityRecord, FactRecord
from knowforge.kg.writer import write_entities, write_facts

# Distinct names: token_set_ratio scores "Club A" vs "Club D" >= 70, so such names would count
# as equal and never serve as each other's distractors.
CLUBS = ["Ajax", "Benfica", "Celtic", "Dynamo Kyiv", "Espanyol", "Fiorentina", "Galatasaray", "Hertha BSC",
         "Inter Milan", "Juventus", "Kaiserslautern", "Lazio", "Marseille", "Napoli", "Olympiacos", "Porto"]


def _general(store):
    """Eight footballers over 2010-2023: even ones change club (dynamic), odd ones stay (static).
    Q100 has a gap (2017) between two clubs; Q101 starts in 2012."""
    ents = [EntityRecord(id=f"Q{i}", name=f"Player {i}", labels=("Person",), source="wikidata", domain="general")
            for i in range(8)]
    ents += [EntityRecord(id=f"QC{j}", name=c, labels=("Club",), source="wikidata") for j, c in enumerate(CLUBS)]
    ents += [EntityRecord(id="Q100", name="Gap Player", labels=("Person",), source="wikidata"),
             EntityRecord(id="Q101", name="Late Player", labels=("Person",), source="wikidata")]
    facts = []
    for i in range(8):
        if i % 2 == 0:
            facts.append(FactRecord(subject_id=f"Q{i}", relation="P54", object_id=f"QC{i}", source="wikidata",
                                    start_year=2010, end_year=2015, relation_label="member of sports team"))
            facts.append(FactRecord(subject_id=f"Q{i}", relation="P54", object_id=f"QC{i + 1}", source="wikidata",
                                    start_year=2016, relation_label="member of sports team"))
        else:
            facts.append(FactRecord(subject_id=f"Q{i}", relation="P54", object_id=f"QC{i}", source="wikidata",
                                    start_year=2010, relation_label="member of sports team"))
    facts += [FactRecord(subject_id="Q100", relation="P54", object_id="QC10", source="wikidata",
                         start_year=2014, end_year=2016),
              FactRecord(subject_id="Q100", relation="P54", object_id="QC11", source="wikidata", start_year=2018),
              FactRecord(subject_id="Q101", relation="P54", object_id="QC12", source="wikidata", start_year=2012)]
    write_entities(store, ents)
    write_facts(store, facts)


def _legal(store):
    """Paragraph a changes 2021 (small), b never changes, c is missing in 2019 (skipped)."""
    ents = [EntityRecord(id=f"cfr:14/107/107.51/{p}", name=f"14 CFR 107.51({p})", labels=("LegalProvision",),
                         source="cfr", domain="legal") for p in "abcd"]
    old, new = "(a) The groundspeed may not exceed 100 miles per hour.", "(a) The groundspeed may not exceed 87 knots."
    facts = [
        FactRecord(subject_id=ents[0].id, relation="text", value=old, seen_in=(2019, 2020), source="cfr"),
        FactRecord(subject_id=ents[0].id, relation="text", value=new, seen_in=(2021, 2022), source="cfr",
                   extra={"changed_from": old, "change_old": "100 miles per hour", "change_new": "87 knots",
                          "small_change": True}),
        FactRecord(subject_id=ents[1].id, relation="text", seen_in=(2019, 2020, 2021, 2022), source="cfr",
                   value="(b) The altitude may not be higher than 400 feet above ground level."),
        FactRecord(subject_id=ents[2].id, relation="text", value="(c) Added in 2020 by the FAA.",
                   seen_in=(2020, 2021, 2022), source="cfr"),
        FactRecord(subject_id=ents[3].id, relation="text", seen_in=(2019, 2020, 2021, 2022), source="cfr",
                   value="(d) The minimum visibility must be 3 statute miles from the control station."),
    ]
    write_entities(store, ents)
    write_facts(store, facts)


def _umls(store):
    ents = [EntityRecord(id=f"umls:C90000{i}", name=f"Concept {i}", labels=("Concept",), source="umls",
                         domain="biomedical") for i in range(12)]
    facts = [
        # drug 0 treats 5 in 2020-2022 and 6 from 2022: dynamic, and 2023 is missing (gap-filled)
        FactRecord(subject_id=ents[0].id, relation="may_treat", object_id=ents[5].id, seen_in=(2020, 2021, 2022),
                   source="umls"),
        FactRecord(subject_id=ents[0].id, relation="may_treat", object_id=ents[6].id, seen_in=(2022, 2024),
                   source="umls"),
    ]
    for i in range(1, 5):
        facts.append(FactRecord(subject_id=ents[i].id, relation="may_treat", object_id=ents[6 + i].id,
                                seen_in=(2020, 2021, 2022, 2023, 2024), source="umls"))
    write_entities(store, ents)
    write_facts(store, facts)


def _commonsense(store):
    ents = [EntityRecord(id=f"cskg:/c/en/{w}", name=w, labels=("CommonsenseConcept",), source="cskg",
                         domain="commonsense") for w in ("apple", "fruit", "pie", "knife", "tool", "cut", "cake")]
    facts = [FactRecord(subject_id="cskg:/c/en/apple", relation="IsA", object_id="cskg:/c/en/fruit", source="cskg"),
             FactRecord(subject_id="cskg:/c/en/apple", relation="UsedFor", object_id="cskg:/c/en/pie", source="cskg"),
             FactRecord(subject_id="cskg:/c/en/knife", relation="IsA", object_id="cskg:/c/en/tool", source="cskg"),
             FactRecord(subject_id="cskg:/c/en/knife", relation="UsedFor", object_id="cskg:/c/en/cut", source="cskg"),
             FactRecord(subject_id="cskg:/c/en/cake", relation="IsA", object_id="cskg:/c/en/pie", source="cskg")]
    write_entities(store, ents)
    write_facts(store, facts)


def test_general_timelines_gap_filling_states_and_balance(store):
    _general(store)
    result = build_benchmark(store, ChronoConfig(domain="general", seed=3, fewshot_pool=2))
    recs = {r.subject_id: r for r in result.records}
    gap = recs["Q100"]
    assert gap.objects[2017] == ["Kaiserslautern"]                      # 2017 filled from 2016
    assert gap.years == list(range(2014, 2024)) and gap.change == "dynamic"
    assert recs["Q101"].years[0] == 2012 and 2011 not in recs["Q101"].objects   # leading years stay empty
    assert recs["Q0"].change == "dynamic" and recs["Q0"].objects[2015] == ["Ajax"]
    assert recs["Q0"].objects[2016] == ["Benfica"]
    assert recs["Q1"].change == "static"
    test = [r for r in result.records if r.split == "test"]
    held = [r for r in result.records if r.split == "fewshot"]
    assert len(held) == 2
    n_dyn = sum(r.change == "dynamic" for r in test)
    assert n_dyn == sum(r.change == "static" for r in test) and n_dyn > 0   # balanced per relation
    # items: one per (test record, year, template); exemplars come only from held-out records
    assert len(result.items) == 3 * sum(len(r.years) for r in test)
    held_names = {r.subject for r in held}
    for item in result.items:
        sets = item.metadata["shot_sets"]
        assert len(sets) == 5
        for shots in sets:
            assert len(shots) == 2                              # pool of two: every set uses both
            for shot in shots:
                assert any(name in shot["question"] for name in held_names)
                assert item.metadata["subject"] not in shot["question"]
        year = item.slices["year"]
        if item.slices["template"] == "mcqa":
            assert len(item.choices) == 4 and item.choices[item.answer_index] in item.answers
            wrong = [c for i, c in enumerate(item.choices) if i != item.answer_index]
            assert not any(fuzzy_equal(w, g) for w in wrong for g in item.answers), (item.id, year)
    # the same subject's other-year object is the first, hardest distractor
    q0 = next(i for i in result.items if i.slices["template"] == "mcqa" and i.slices["year"] == 2012
              and i.metadata["subject"] == "Player 0") if recs["Q0"].split == "test" else None
    if q0 is not None:
        assert "Benfica" in q0.choices


def test_benchmark_questions_in_graph_link_facts_and_slice_in_cypher(store):
    _general(store)
    result = build_benchmark(store, ChronoConfig(domain="general", name="g", seed=1, templates=("generation",)))
    rows = store.user_query(
        "MATCH (b:Benchmark {id:'chrono:g'})<-[:IN_BENCHMARK]-(q:Question)-[:TESTS]->(f:Fact) "
        "RETURN count(DISTINCT q) AS items, collect(DISTINCT f.relation) AS rels")
    assert rows[0]["items"] == len(result.items) and rows[0]["rels"] == ["P54"]
    # an item of 2016 for a dynamic player tests the new club's fact, not the old one's
    item = next(i for i in result.items if i.slices["year"] == 2016 and i.slices["change"] == "dynamic")
    linked = store.user_query("MATCH (:Question {id:$id})-[:TESTS]->(f:Fact)-[:OBJECT]->(o) RETURN o.name AS o",
                              {"id": item.id})
    assert [r["o"] for r in linked] == item.answers
    sliced = store.read("chrono/items_by_relation_year", benchmark="chrono:g")
    assert sum(r["items"] for r in sliced) == len(result.items)
    assert {r["relation"] for r in sliced} == {"P54"}
    assert load_items(store, "g") == sorted(result.items, key=lambda i: i.id)
    # regenerating with another seed replaces, never duplicates
    again = build_benchmark(store, ChronoConfig(domain="general", name="g", seed=2, templates=("generation",)))
    n = store.user_query("MATCH (q:Question {benchmark:'chrono:g'}) RETURN count(q) AS n")[0]["n"]
    assert n == len(again.items)
    records = store.user_query("MATCH (r:ChronoRecord {benchmark:'chrono:g'}) RETURN count(r) AS n")[0]["n"]
    assert records == len(again.records)
    # every item is PART_OF its record, and the record points at the facts it was built from
    orphans = store.user_query("MATCH (q:Question {benchmark:'chrono:g'}) WHERE NOT (q)-[:PART_OF]->(:ChronoRecord) "
                               "RETURN count(q) AS n")[0]["n"]
    assert orphans == 0


def test_same_seed_same_benchmark_bytes(store):
    _general(store)
    a = build_benchmark(store, ChronoConfig(domain="general", seed=7))
    b = build_benchmark(store, ChronoConfig(domain="general", seed=7))
    dump = lambda res: "\n".join(i.model_dump_json() for i in res.items)   # noqa: E731
    assert dump(a) == dump(b)


def test_legal_fill_in_the_blank_from_paragraph_versions(store):
    _legal(store)
    result = build_benchmark(store, ChronoConfig(domain="legal", seed=0, fewshot_pool=1, balance=False))
    recs = {r.subject_id: r for r in result.records}
    assert "cfr:14/107/107.51/c" not in recs                  # not present in every year
    a = recs["cfr:14/107/107.51/a"]
    assert a.kind == "legal" and a.change == "dynamic"
    assert a.question == "(a) The groundspeed may not exceed ____."
    assert a.objects == {2019: ["100 miles per hour"], 2020: ["100 miles per hour"], 2021: ["87 knots"],
                         2022: ["87 knots"]}
    b = recs["cfr:14/107/107.51/b"]
    assert b.change == "static" and b.objects[2019] == ["400 feet"] and "____" in b.question
    assert result.stats["legal_from"] == 2019 and result.stats["legal_to"] == 2022
    gen = [i for i in result.items if i.metadata["record_id"] == a.id and i.slices["template"] == "generation"] \
        if a.split == "test" else []
    for item in gen:
        assert item.question.startswith(f"In {item.slices['year']}, (a) The groundspeed")


def test_biomedical_release_years_and_invariant_pseudo_years(store):
    _umls(store)
    _commonsense(store)
    bio = build_benchmark(store, ChronoConfig(domain="biomedical", seed=0, balance=False, fewshot_pool=1))
    drug = next(r for r in bio.records if r.subject_id == "umls:C900000")
    assert drug.objects[2023] == ["Concept 5", "Concept 6"]      # gap year filled from 2022
    assert drug.objects[2021] == ["Concept 5"] and drug.change == "dynamic"
    cs = build_benchmark(store, ChronoConfig(domain="commonsense", seed=0, fewshot_pool=1, min_years=1))
    assert all(r.change == "invariant" and r.years == [2020, 2021, 2022, 2023, 2024] for r in cs.records)
    apple = next(r for r in cs.records if r.subject == "apple" and r.relation == "IsA")
    assert apple.objects[2022] == ["fruit"]


def test_chroknowbench_export_import_round_trip_is_identical(store, tmp_path):
    _general(store)
    _legal(store)
    _commonsense(store)
    for domain, kw in (("general", {}), ("legal", {"fewshot_pool": 1, "balance": False}),
                       ("commonsense", {"fewshot_pool": 1})):
        result = build_benchmark(store, ChronoConfig(domain=domain, seed=5, **kw))
        out = tmp_path / domain
        files = export_chroknowbench(result.records, out)
        names = {p.name for p in files}
        assert any(n.startswith("Fewshot_") for n in names)
        back = import_chroknowbench([out])
        assert back == sorted(result.records, key=lambda r: r.id)
        items = build_items(back, benchmark=result.benchmark_id, seed=5)
        assert items == result.items
    # the released shape: variant lines carry objects_YYYY / release_date_YYYY / distractor
    line = json.loads((tmp_path / "general" / "TimeVariant_General_Dynamic.jsonl").read_text().splitlines()[0])
    years = [k for k in line if k.startswith("objects_")]
    assert years and all(isinstance(v, list) and isinstance(v[0], list) for k, v in line.items() if k in years)
    assert all(f"release_date_{k[-4:]}" in line for k in years) and len(line["distractor"]) >= 3
    legal = json.loads(next((tmp_path / "legal").glob("TimeVariant_Legal_*.jsonl")).read_text().splitlines()[0])
    assert "____" in legal["question"] and any(k.startswith("answers_") for k in legal)
    inv = json.loads((tmp_path / "commonsense" / "TimeInvariant_CommonSense.jsonl").read_text().splitlines()[0])
    assert {"subject", "relation", "objects", "distractor"} <= set(inv)


def test_import_of_a_released_style_file_without_our_keys(tmp_path):
    path = tmp_path / "TimeVariant_Biomedical_Dynamic.jsonl"
    line = {"subject": "aspirin", "relation": "may_treat", "objects_2020": ["pain"], "objects_2021": ["pain", "fever"],
            "release_date_2020": "2020AA", "release_date_2021": "2021AA", "distractor": ["gout", "acne", "rash"]}
    path.write_text(json.dumps(line) + "\n\n")
    (rec,) = import_chroknowbench([path])
    assert rec.domain == "biomedical" and rec.change == "dynamic" and rec.objects[2021] == ["pain", "fever"]
    assert rec.distractors[2020] == ["gout", "acne", "rash"]
    bad = tmp_path / "TimeInvariant_Math.jsonl"
    bad.write_text('{"subject": "x", "relation": "y", "objects": []}\n{oops\n')
    with pytest.raises(Exception) as err:
        import_chroknowbench([bad])
    assert "TimeInvariant_Math.jsonl:1:" in str(err.value)          # the file and the line, file:line


def test_cli_generate_and_export(store, graph_env, tmp_path):
    from knowforge.cli.generate_cmd import export_group, generate_group

    _general(store)
    runner = CliRunner()
    res = runner.invoke(generate_group, ["chrono", "--domain", "general", "--name", "cli", "--seed", "4",
                                         "--silent"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert res.output.strip().splitlines()[-1] == "chrono:cli"
    for fmt in ("chroknowbench", "jsonl", "hf"):
        res = runner.invoke(export_group, ["chrono", "--name", "cli", "--format", fmt, "--out",
                                           str(tmp_path / fmt)], catch_exceptions=False)
        assert res.exit_code == 0, res.output
    assert (tmp_path / "hf" / "data" / "test.parquet").is_file()
    assert len(load_records(store, "cli")) == len(import_chroknowbench([tmp_path / "chroknowbench"]))
    res = runner.invoke(generate_group, ["chrono", "--domain", "general", "--from", "2020", "--to", "2010"])
    assert res.exit_code != 0 and "after" in res.output
    for cmd in (["chrono", "--help"],):
        assert "Example" in runner.invoke(generate_group, cmd).output
        assert "Example" in runner.invoke(export_group, cmd).output


def test_export_jsonl_reads_back_as_items(store, tmp_path):
    from knowforge.models.items_io import read_items

    _general(store)
    result = build_benchmark(store, ChronoConfig(domain="general", seed=0))
    from knowforge.generators.chrono.method import METHOD
    from knowforge.workflow import export

    exported = export(METHOD, store, "general", "jsonl", tmp_path)
    (path,) = exported.files
    assert path.name == "chrono_general.jsonl" and exported.manifest.name == "chrono_general.jsonl.manifest.json"
    assert read_items(path) == sorted(result.items, key=lambda i: i.id)


def test_cli_import_of_an_exported_benchmark(store, graph_env, tmp_path):
    from knowforge.cli.generate_cmd import generate_group

    _general(store)
    built = build_benchmark(store, ChronoConfig(domain="general", seed=2))
    export_chroknowbench(built.records, tmp_path / "ckb")
    res = CliRunner().invoke(generate_group, ["chrono", "--import", str(tmp_path / "ckb"), "--name", "again",
                                              "--seed", "2", "--silent"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    again = load_items(store, "again")
    strip = lambda i: i.model_copy(update={"id": i.id.split(":", 2)[2], "benchmark": ""})   # noqa: E731
    assert [strip(i) for i in again] == [strip(i) for i in sorted(built.items, key=lambda i: i.id)]


def test_llm_distractors_in_the_build_are_verified_and_topped_up(store):
    from knowforge.models.types import GenerationResult

    class Scripted:
        name, model, capabilities = "scripted", "scripted", frozenset({"generate"})

        def generate(self, requests):
            out = []
            for r in requests:
                if r.prompt.endswith("Correct options:"):
                    out.append("(a)")
                else:   # proposes one gold-like option (rejected) and two new ones
                    gold = r.prompt.split("can be answered with '")[1].split("'")[0]
                    out.append(f"{gold}\n2. Wolverhampton Wanderers\n3. Sporting CP")
            return [GenerationResult(texts=(t,), finish_reasons=("stop",)) for t in out]

        def loglikelihood(self, requests):
            return []

    _general(store)
    res = build_benchmark(store, ChronoConfig(domain="general", seed=0, distractors="llm", templates=("mcqa",)),
                          backend=Scripted())
    for r in res.records:
        for y, golds in r.objects.items():
            d = r.distractors[y]
            assert d[:2] == ["Wolverhampton Wanderers", "Sporting CP"] and len(d) == 3
            assert not any(fuzzy_equal(x, g) for x in d for g in golds)


def test_every_chrono_statement_explains(store):
    from knowforge.kg.cypher import list_statements, load_cypher

    names = [n for n in list_statements() if n.startswith("chrono/")]
    assert {"list_pairs", "pair_facts", "upsert_records", "link_record_items", "read_records",
            "prune_questions"} <= {n.split("/", 1)[1] for n in names}
    for name in names:
        assert store.query_type(load_cypher(name), {}) in ("r", "rw", "w"), name

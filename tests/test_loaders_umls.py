"""UMLS RRF loader: direction of MRREL, release years, names, semantic types, bad rows."""

from __future__ import annotations

import pytest

from knowforge.errors import InputError
from knowforge.kg.loaders.umls import load_umls
from knowforge.kg.temporal import object_timeline


def conso(cui, text, *, pref=True, lat="ENG", aui="A1"):
    ts, stt, ispref = ("P", "PF", "Y") if pref else ("S", "VO", "N")
    return "|".join([cui, lat, ts, "L1", stt, "S1", ispref, aui, "", "", "", "MSH", "PT", "D1",
                     text, "0", "N", ""]) + "|"


def rel(cui1, cui2, rela, rel_name="RO"):
    return "|".join([cui1, "A1", "SCUI", rel_name, cui2, "A2", "SCUI", rela, "R1", "", "NDFRT",
                     "NDFRT", "", "N", "N", ""]) + "|"


def sty(cui, name):
    return f"{cui}|T047|B2.2.1.2.1|{name}|AT1||"


def write_release(root, release, *, concepts, relations, types, extra_rel_lines=()):
    meta = root / release / "META"
    meta.mkdir(parents=True)
    (meta / "MRCONSO.RRF").write_text("\n".join(concepts) + "\n", encoding="utf-8")
    (meta / "MRREL.RRF").write_text("\n".join([*relations, *extra_rel_lines]) + "\n", encoding="utf-8")
    (meta / "MRSTY.RRF").write_text("\n".join(types) + "\n", encoding="utf-8")
    return root / release


CONCEPTS = [conso("C9000001", "Examplitis (invented disease)"),
            conso("C9000001", "Examplitis", pref=False, aui="A2"),
            conso("C9000001", "Exemplite", lat="FRE", aui="A3"),
            conso("C9000002", "Fakeomycin (invented drug)"),
            conso("C9000003", "Mockazole (invented drug)")]
TYPES = [sty("C9000001", "Disease or Syndrome"), sty("C9000002", "Pharmacologic Substance")]


def test_releases_give_seen_in_and_direction(store, tmp_path):
    # Row C1|..|C2|may_treat states (C2 may_treat C1): the drug treats the disease.
    write_release(tmp_path, "2021AA", concepts=CONCEPTS, types=TYPES,
                  relations=[rel("C9000001", "C9000002", "may_treat")])
    write_release(tmp_path, "2022AA", concepts=CONCEPTS, types=TYPES,
                  relations=[rel("C9000001", "C9000002", "may_treat"),
                             rel("C9000001", "C9000003", "may_treat"),
                             rel("C9000002", "C9000001", "may_be_treated_by")])
    write_release(tmp_path, "2023AA", concepts=CONCEPTS, types=TYPES,
                  relations=[rel("C9000001", "C9000003", "may_treat"), rel("C9000001", "C9000002", "")])
    report = load_umls(store, [tmp_path])
    assert report.errors == 0 and report.skipped["no_rela"] == 1 and report.skipped["not_english"] == 3

    rows = store.user_query(
        "MATCH (s:Entity)-[:HAS_FACT]->(f:Fact {relation:'may_treat'})-[:OBJECT]->(o) "
        "RETURN s.id AS s, o.id AS o, f.seen_in AS seen, f.first_seen AS first, f.last_seen AS last "
        "ORDER BY s")
    assert rows == [
        {"s": "umls:C9000002", "o": "umls:C9000001", "seen": [2021, 2022], "first": 2021, "last": 2022},
        {"s": "umls:C9000003", "o": "umls:C9000001", "seen": [2022, 2023], "first": 2022, "last": 2023}]
    back = store.user_query("MATCH (f:Fact {relation:'may_be_treated_by'}) RETURN f.subject_id AS s, f.object_id AS o")
    assert back == [{"s": "umls:C9000001", "o": "umls:C9000002"}]

    concept = store.user_query("MATCH (e:Concept {id:'umls:C9000001'}) RETURN e")[0]["e"]
    assert concept["name"] == "Examplitis (invented disease)"
    assert concept["aliases"] == ["Examplitis"] and concept["domain"] == "biomedical"
    assert concept["semantic_types"] == ["Disease or Syndrome"]

    # the object pool of (drug, may_treat) per year is one temporal read
    assert object_timeline(store, "umls:C9000003", "may_treat", 2021, 2023, gap_fill=False) == {
        2021: [], 2022: ["Examplitis (invented disease)"], 2023: ["Examplitis (invented disease)"]}


def test_reload_and_release_order_do_not_matter(store, tmp_path):
    a = write_release(tmp_path, "2021AA", concepts=CONCEPTS, types=TYPES,
                      relations=[rel("C9000001", "C9000002", "may_treat")])
    b = write_release(tmp_path, "2022AA", concepts=CONCEPTS, types=TYPES,
                      relations=[rel("C9000001", "C9000002", "may_treat")])
    load_umls(store, [b])
    load_umls(store, [a])
    seen = store.user_query("MATCH (f:Fact {relation:'may_treat'}) RETURN f.seen_in AS s")
    assert seen == [{"s": [2021, 2022]}]
    before = store.user_query("MATCH (n) RETURN count(n) AS n, sum(size(keys(n))) AS p")
    load_umls(store, [a, b])
    assert store.user_query("MATCH (n) RETURN count(n) AS n, sum(size(keys(n))) AS p") == before


def test_wrong_column_count_reported_with_line(store, tmp_path):
    write_release(tmp_path, "2021AA", concepts=CONCEPTS, types=TYPES,
                  relations=[rel("C9000001", "C9000002", "may_treat")],
                  extra_rel_lines=["C9000001|A1|SCUI|RO|C9000003|may_treat|",
                                   rel("C9000001", "C9000003", "may_treat")])
    report = load_umls(store, [tmp_path / "2021AA"])
    bad = [p for p in report.problems if p.reason == "wrong_column_count"]
    assert len(bad) == 1 and bad[0].line == 2 and bad[0].path.endswith("MRREL.RRF")
    assert "expected 16" in bad[0].message
    # the rows around it are loaded
    assert store.user_query("MATCH (f:Fact {relation:'may_treat'}) RETURN count(f) AS n")[0]["n"] == 2
    with pytest.raises(InputError, match=r"MRREL.RRF:line 2"):
        load_umls(store, [tmp_path / "2021AA"], strict=True)


def test_relation_filter(store, tmp_path):
    write_release(tmp_path, "2021AA", concepts=CONCEPTS, types=TYPES,
                  relations=[rel("C9000001", "C9000002", "may_treat"),
                             rel("C9000002", "C9000001", "may_be_treated_by")])
    report = load_umls(store, [tmp_path], relations={"may_treat"})
    assert report.skipped["relation_not_selected"] == 1
    assert {r["r"] for r in store.user_query("MATCH (f:Fact) RETURN DISTINCT f.relation AS r")} == {"may_treat"}


def test_not_a_release_dir(store, tmp_path):
    with pytest.raises(InputError, match="not a UMLS release directory"):
        load_umls(store, [tmp_path])

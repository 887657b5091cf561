"""Time-invariant and term sources: Math-KG, CSKG (KGTK TSV) and new terms (ours + official)."""

from __future__ import annotations

import json

import pytest

from knowforge.errors import InputError
from knowforge.kg.loaders.cskg import load_cskg
from knowforge.kg.loaders.mathkg import load_mathkg
from knowforge.kg.loaders.newterms import load_newterms

COUNTS = ("MATCH (n) OPTIONAL MATCH (n)-[r]->() "
          "RETURN count(DISTINCT n) AS n, count(r) AS r, sum(size(keys(n))) AS p")


def test_mathkg_tsv_and_csv(store, tmp_path):
    (tmp_path / "triples.tsv").write_text(
        "subject\trelation\tobject\n"
        "Abelian group\tis a\tGroup\n"
        "Group\thas property\tAssociativity\n"
        "broken row without tabs\n"
        "Ring\tis a\tAlgebraic structure\n", encoding="utf-8")
    (tmp_path / "more.csv").write_text("head,relation,tail\nField,is a,Ring\n", encoding="utf-8")
    report = load_mathkg(store, [tmp_path])
    assert report.records_read == 5 and report.facts_written == 4
    bad = report.problems[0]
    assert bad.reason == "wrong_column_count" and bad.line == 4 and bad.path.endswith("triples.tsv")
    rows = store.user_query(
        "MATCH (s:MathConcept {id:'mathkg:abelian_group'})-[:HAS_FACT]->(f)-[:OBJECT]->(o) "
        "RETURN f.relation AS r, f.relation_label AS label, o.name AS o, f.temporal AS temporal, "
        "s.domain AS domain")
    assert rows == [{"r": "is_a", "label": "is a", "o": "Group", "temporal": False, "domain": "math"}]
    before = store.user_query(COUNTS)
    load_mathkg(store, [tmp_path])
    assert store.user_query(COUNTS) == before


CSKG_HEADER = ("id\tnode1\trelation\tnode2\tnode1;label\tnode2;label\trelation;label\t"
               "relation;dimension\tsource\tsentence")


def test_cskg_several_objects_and_bad_row(store, tmp_path):
    rows = [CSKG_HEADER,
            "/c/en/apple-/r/IsA-/c/en/fruit\t/c/en/apple\t/r/IsA\t/c/en/fruit\tapple|apples\tfruit\tis a\t"
            "taxonomic\tCN\t[[apple]] is a [[fruit]]",
            "e2\t/c/en/apple\t/r/UsedFor\t/c/en/eating\tapple\teating\tused for\tutility\tCN\t",
            "e3\t/c/en/apple\t/r/UsedFor\t/c/en/baking_pie\tapple\t\tused for\tutility\tCN\t",
            "e4\t/c/en/apple\t/r/UsedFor",
            "e5\t/c/en/knife\t/r/AtLocation\t/c/en/kitchen\tknife\tkitchen\tat location\tspatial\tCN\t"]
    path = tmp_path / "cskg.tsv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    report = load_cskg(store, [path])
    assert report.facts_written == 4 and report.skipped["wrong_column_count"] == 1
    assert report.problems[0].line == 5
    used_for = store.user_query(
        "MATCH (:Entity {id:'cskg:/c/en/apple'})-[:HAS_FACT]->(f:Fact {relation:'UsedFor'})-[:OBJECT]->(o) "
        "RETURN o.name AS o ORDER BY o")
    assert used_for == [{"o": "baking pie"}, {"o": "eating"}]
    apple = store.user_query("MATCH (e:CommonsenseConcept {id:'cskg:/c/en/apple'}) RETURN e")[0]["e"]
    assert apple["name"] == "apple" and apple["aliases"] == ["apples"] and apple["domain"] == "commonsense"
    before = store.user_query(COUNTS)
    load_cskg(store, [path])
    assert store.user_query(COUNTS) == before
    with pytest.raises(InputError, match=r"cskg.tsv:line 5"):
        load_cskg(store, [path], strict=True)


def test_newterms_ours(store, tmp_path):
    path = tmp_path / "new_terms.jsonl"
    lines = [json.dumps({"term": "rizz", "meaning": "romantic appeal or charm", "type": "new word",
                         "year": 2023, "source": "Cambridge"}),
             "{not json",
             json.dumps({"term": "permacrisis", "meaning": "an extended period of instability",
                         "type": "new word", "year": 2022, "source": "Collins"})]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = load_newterms(store, [path])
    assert report.facts_written == 2 and report.problems[0].line == 2
    rizz = store.user_query("MATCH (t:Term {id:'term:rizz'})-[:HAS_FACT]->(f:Fact {relation:'meaning'}) "
                            "RETURN t.domain AS d, f.value AS v, f.start_year AS y, f.end_year AS e, "
                            "f.dictionary AS src, f.term_type AS type")
    assert rizz == [{"d": "newterm", "v": "romantic appeal or charm", "y": 2023, "e": None,
                     "src": "Cambridge", "type": "new word"}]
    before = store.user_query(COUNTS)
    load_newterms(store, [path])
    assert store.user_query(COUNTS) == before


def test_newterms_official_needs_year(store, shared_formats):
    path = shared_formats / "newterm_2022" / "new_terms.jsonl"
    without = load_newterms(store, [path])
    assert without.facts_written == 0 and without.skipped["no_year"] == without.records_read > 0
    report = load_newterms(store, [path], year=2022)
    assert report.facts_written == report.records_read
    n = store.user_query("MATCH (t:Term)-[:HAS_FACT]->(f:Fact {start_year: 2022}) RETURN count(f) AS n")
    assert n[0]["n"] == report.records_read

"""EOL traits CSV read with the ``csv`` module: quoted fields spanning lines, and problems that
still name the right line after such a row."""

from __future__ import annotations

from knowforge.kg.loaders.taxonomy import load_taxonomy

PAGES = ("page_id,canonical_name,rank,ncbi_tax_id\n"
         "328604,Camelus dromedarius,species,9838\n"
         "46500,Acacia tortilis,species,\n")
HEADER = "eol_pk,page_id,scientific_name,predicate,object_page_id,value_uri,measurement,units,literal,source\n"


def traits_bytes() -> bytes:
    text = (HEADER                                                                  # line 1
            + 'R1,328604,Camelus dromedarius,habitat,,,,,"hot deserts,\n'            # line 2
              'dry steppes and\n'                                                     # line 3
              'semi-arid scrub",EOL\n'                                                # line 4
            + "R2,328604,Camelus dromedarius,body mass,,,heavy,kg,,bad\n"             # line 5
            + "\n"                                                                    # line 6
            + 'R3,328604,Camelus dromedarius,note,,,,,"one\n'                         # line 7
              'two",EOL,extra\n'                                                      # line 8
            + "R4,328604,Camelus dromedarius,eats,46500,,,,,GloBI\n")                 # line 9
    bad_encoding = b"R5,328604,Camelus dromedarius,diet,,,,,herb\xffivore,EOL\n"     # line 10
    tail = "R6,328604,Camelus dromedarius,life span,,,x,years,,AnAge\n"              # line 11
    return text.encode("utf-8") + bad_encoding + tail.encode("utf-8")


def test_traits_quoted_multiline_literal_and_line_numbers(store, tmp_path):
    (tmp_path / "pages.csv").write_text(PAGES, encoding="utf-8")
    (tmp_path / "traits.csv").write_bytes(traits_bytes())
    report = load_taxonomy(store, [tmp_path])
    habitat = store.user_query("MATCH (:Entity {id:'ncbi:9838'})-[:HAS_FACT]->(f:Fact {relation:'habitat'}) "
                               "RETURN f.value AS v, f.datatype AS d")
    assert habitat == [{"v": "hot deserts,\ndry steppes and\nsemi-arid scrub", "d": "string"}]
    eats = store.user_query("MATCH (:Entity {id:'ncbi:9838'})-[:HAS_FACT]->(f:Fact {relation:'eats'})"
                            "-[:OBJECT]->(o) RETURN o.name AS o")
    assert eats == [{"o": "Acacia tortilis"}]
    problems = sorted((p.line, p.reason) for p in report.problems if p.path.endswith("traits.csv"))
    assert problems == [(5, "bad_measurement"), (7, "wrong_column_count"), (10, "bad_encoding"),
                        (11, "bad_measurement")]
    # the row holding the non-UTF-8 line is reported once and not loaded
    assert store.user_query("MATCH (f:Fact {relation:'diet'}) RETURN count(f) AS n") == [{"n": 0}]
    assert report.skipped["bad_encoding"] == 1

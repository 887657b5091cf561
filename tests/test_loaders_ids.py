"""Ids that cannot collide: ``slug`` keeps every character that tells two source keys apart.

Plain keys (ASCII letters and digits between separators) keep the ids they always had; any
other key gets a hash suffix, so ``C++`` and ``C#`` are two entities; case and spacing are not
part of a key. Two keys whose suffixes are nevertheless equal are an error naming both.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.kg.loaders.base import id_key, slug, snake
from knowforge.kg.loaders.mathkg import load_mathkg
from knowforge.kg.loaders.newterms import entity_id, load_newterms

# Two keys with one slug base ("c") whose SHA-1 digests share their first 8 hex digits
# (f7d7f630), found by a search over "c" + up to 8 symbols; they must make one id.
COLLIDING = ("c##+=", "c!#?$~")


def test_plain_keys_keep_their_old_ids():
    assert slug("Abelian group") == "abelian_group"
    assert slug("ultra-processed") == slug("ultra processed") == slug("ultra_processed") == "ultra_processed"
    assert slug("Rizz") == slug(" rizz ") == "rizz"
    assert snake("is eaten by") == "is_eaten_by" and snake("IsA") == snake("is a") == "is_a"
    assert slug("内卷").startswith("x") and len(slug("内卷")) == 13   # no ASCII at all: as before


def test_keys_that_differ_get_different_ids():
    ids = {slug(text) for text in ("C++", "C#", "C", "c--", "Poincaré conjecture", "Poincare conjecture",
                                   "Fermat's Last Theorem", "Fermats Last Theorem")}
    assert len(ids) == 7                                   # "C" and "c--" are one key: c
    assert slug("C++").startswith("c-") and slug("C#").startswith("c-")
    assert slug("Poincaré conjecture").startswith("poincare_conjecture-")
    assert id_key("Poincaré  Conjecture") == "poincaré conjecture"
    assert slug(COLLIDING[0]) == slug(COLLIDING[1])       # the one way two keys meet: a hash suffix


def test_cpp_and_csharp_load_as_two_terms(store, tmp_path):
    path = tmp_path / "terms.jsonl"
    path.write_text("\n".join(json.dumps({"term": t, "meaning": m, "year": 2024}) for t, m in
                              (("C++", "a language with classes"), ("C#", "a language of .NET"),
                               ("c++", "C++ spelled lower-case")))
                    + "\n", encoding="utf-8")
    report = load_newterms(store, [path])
    assert report.problems == [] and report.errors == 0
    rows = store.user_query("MATCH (t:Term)-[:HAS_FACT]->(f:Fact {relation: 'meaning'}) "
                            "RETURN t.id AS id, collect(f.value) AS meanings ORDER BY id")
    got = {r["id"]: sorted(r["meanings"]) for r in rows}
    assert got == {entity_id("C++"): ["C++ spelled lower-case", "a language with classes"],
                   entity_id("C#"): ["a language of .NET"]}
    assert entity_id("C++") != entity_id("C#") != "term:c"


def test_two_keys_that_make_one_id_are_an_error_naming_both(store, graph_env, tmp_path):
    path = tmp_path / "terms.jsonl"
    path.write_text("\n".join(json.dumps({"term": t, "meaning": f"meaning of {t}", "year": 2024})
                              for t in ("alpha", *COLLIDING, "omega")) + "\n", encoding="utf-8")
    report = load_newterms(store, [path])
    assert report.errors == 1
    [problem] = report.problems
    assert (problem.reason, problem.line) == ("id_collision", 3)
    assert COLLIDING[0] in problem.message and COLLIDING[1] in problem.message
    assert f"{path}:2" in problem.message                      # where the first key was
    names = store.user_query("MATCH (t:Term) RETURN t.name AS n ORDER BY n")
    assert [r["n"] for r in names] == sorted([COLLIDING[0], "alpha", "omega"])
    result = CliRunner().invoke(cli, ["load", "newterms", str(path), "--silent"])
    assert result.exit_code == 1 and "id_collision" in result.output and "Traceback" not in result.output


def test_relation_ids_follow_the_same_rule(store, tmp_path):
    path = tmp_path / "triples.tsv"
    path.write_text("subject\trelation\tobject\n"
                    "group\tIsA\talgebraic structure\n"
                    "ring\tis a\talgebraic structure\n"
                    "meter\thas (unit)\tlength\n"
                    "second\thas unit\ttime\n", encoding="utf-8")
    report = load_mathkg(store, [path])
    assert report.errors == 0
    rows = store.user_query("MATCH (f:Fact) RETURN f.relation AS r, count(*) AS n ORDER BY r")
    assert {r["r"]: r["n"] for r in rows} == {"is_a": 2, "has_unit": 1, snake("has (unit)"): 1}

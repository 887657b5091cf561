// Related lemmas of head lemmas $heads through their first $max_senses senses, by kind:
//   synonym  the other lemmas of the head's synsets
//   antonym  antonyms of those lemmas, and indirect antonyms through similar_to (adjectives)
//   partial  lemmas of hypernym, hyponym, instance and similar_to synsets (one aspect of it)
// At most $per_via lemmas per (head, kind, via), the most frequent first; stable order.
UNWIND $heads AS head_id
MATCH (h:Entity {id: head_id})-[:HAS_FACT]->(sf:Fact {relation: 'sense'})-[:OBJECT]->(s:Synset)
WHERE coalesce(sf.sense_number, 1) <= $max_senses
CALL (h, s) {
  MATCH (s)<-[:OBJECT]-(:Fact {relation: 'sense'})<-[:HAS_FACT]-(o:Lemma)
  WHERE o <> h
  RETURN 'synonym' AS kind, 'sense' AS via, o
  UNION
  MATCH (s)<-[:OBJECT]-(:Fact {relation: 'sense'})<-[:HAS_FACT]-(:Lemma)-[:HAS_FACT]->(a:Fact {relation: 'antonym'})-[:OBJECT]->(o:Lemma)
  WHERE a.synset = s.id
  RETURN 'antonym' AS kind, 'antonym' AS via, o
  UNION
  MATCH (s)-[:HAS_FACT]->(:Fact {relation: 'similar_to'})-[:OBJECT]->(t:Synset)<-[:OBJECT]-(:Fact {relation: 'sense'})<-[:HAS_FACT]-(:Lemma)-[:HAS_FACT]->(a:Fact {relation: 'antonym'})-[:OBJECT]->(o:Lemma)
  WHERE a.synset = t.id
  RETURN 'antonym' AS kind, 'indirect_antonym' AS via, o
  UNION
  MATCH (s)-[:HAS_FACT]->(:Fact {relation: 'hypernym'})-[:OBJECT]->(:Synset)<-[:OBJECT]-(:Fact {relation: 'sense'})<-[:HAS_FACT]-(o:Lemma)
  RETURN 'partial' AS kind, 'hypernym' AS via, o
  UNION
  MATCH (s)-[:HAS_FACT]->(:Fact {relation: 'instance_hypernym'})-[:OBJECT]->(:Synset)<-[:OBJECT]-(:Fact {relation: 'sense'})<-[:HAS_FACT]-(o:Lemma)
  RETURN 'partial' AS kind, 'instance_hypernym' AS via, o
  UNION
  MATCH (s)<-[:OBJECT]-(:Fact {relation: 'hypernym'})<-[:HAS_FACT]-(:Synset)<-[:OBJECT]-(:Fact {relation: 'sense'})<-[:HAS_FACT]-(o:Lemma)
  RETURN 'partial' AS kind, 'hyponym' AS via, o
  UNION
  MATCH (s)-[:HAS_FACT]->(:Fact {relation: 'similar_to'})-[:OBJECT]->(:Synset)<-[:OBJECT]-(:Fact {relation: 'sense'})<-[:HAS_FACT]-(o:Lemma)
  RETURN 'partial' AS kind, 'similar_to' AS via, o
}
WITH head_id, kind, via, o, min(coalesce(sf.sense_number, 1)) AS sense
WHERE o.id <> head_id
WITH head_id, kind, via, o, sense
ORDER BY head_id, kind, via, sense, coalesce(o.popularity, 0.0) DESC, o.id
WITH head_id, kind, via, collect({id: o.id, name: o.name, popularity: o.popularity, sense: sense})[..$per_via] AS found
UNWIND found AS lemma
RETURN head_id AS head, kind, via, lemma.id AS lemma_id, lemma.name AS name,
       lemma.popularity AS popularity, lemma.sense AS sense
ORDER BY head, kind, via, sense, coalesce(popularity, 0.0) DESC, lemma_id

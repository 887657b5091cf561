// The new terms the dictionaries added in $year: each (term, meaning) with the lemmas of the
// meaning's head words (in head-word order), in a stable order for sampling.
MATCH (t:Term)-[:HAS_FACT]->(m:Fact {relation: 'meaning'})
WHERE m.start_year = $year
OPTIONAL MATCH (m)-[h:HEAD_WORD]->(l:Lemma)
WITH t, m, h, l
ORDER BY h.position
WITH t, m, [x IN collect(l.id) WHERE x IS NOT NULL] AS heads
RETURN t.id AS term_id, m.id AS fact_id, t.name AS term, m.value AS meaning,
       m.term_type AS term_type, m.category AS category, m.start_year AS year, heads
ORDER BY term_id, fact_id

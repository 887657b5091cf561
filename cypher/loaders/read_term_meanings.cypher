// Every meaning of every new term, for linking meanings to the lemmas of their head words.
MATCH (t:Term)-[:HAS_FACT]->(m:Fact {relation: 'meaning'})
RETURN t.id AS term_id, m.id AS fact_id, m.value AS meaning
ORDER BY m.id

// The demo: new terms of a NewTerm benchmark with their meaning and its head lemmas (WordNet).
// Parameters: $benchmark (e.g. 'newterm:sample2022'), $year (the meanings' start year), $limit
MATCH (t:Term)-[:HAS_FACT]->(m:Fact {relation: 'meaning', start_year: $year})-[:HEAD_WORD]->(l:Lemma)
WHERE (:TermEntry {benchmark: $benchmark})-[:OF_TERM]->(t)
WITH t, m, l
ORDER BY l.name
RETURN t.name AS term, m.value AS meaning, collect(l.name) AS head_lemmas
ORDER BY term
LIMIT $limit

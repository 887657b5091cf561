// kf_birthyear's view "person": the questions about a person ($key) and their golds, a page
// ($skip, $limit)
MATCH (:Entity {id: $key})<-[:BORN_AS]-(p:BirthYearProbe)-[:PROBES]->(q:Question)
RETURN q.id AS question, q.text AS text, p.year AS year
ORDER BY question
SKIP $skip
LIMIT $limit

// kf_birthyear's view "person": the person a question ($question_id) asks about, or the entity
// ($entity_id) itself when questions ask about it. At most $limit rows {key, label}.
MATCH (p:BirthYearProbe)-[:BORN_AS]->(e:Entity)
WHERE ($question_id IS NOT NULL AND EXISTS { (p)-[:PROBES]->(:Question {id: $question_id}) })
   OR ($entity_id IS NOT NULL AND e.id = $entity_id)
RETURN DISTINCT e.id AS key, e.name AS label
ORDER BY key
LIMIT $limit

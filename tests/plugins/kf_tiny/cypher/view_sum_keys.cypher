// kf_tiny's view "sum": the sum a question ($question_id) was made from; an entity
// ($entity_id) opens none. At most $limit rows {key, label}.
MATCH (s:TinySum)-[:ADDS_UP]->(q:Question {id: $question_id})
RETURN s.id AS key, toString(s.a) + ' + ' + toString(s.b) AS label
ORDER BY key
LIMIT $limit

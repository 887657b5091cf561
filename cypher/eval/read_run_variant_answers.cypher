// Every variant answer of a run with its question's properties, in a stable order.
MATCH (:Run {id: $run_id})-[:GAVE_VARIANT]->(a:Answer)-[:ANSWERS]->(q:Question)
RETURN properties(q) AS question, properties(a) AS answer
ORDER BY q.id, a.variant, a.sample_index

// The facts a model was trained on: its training set is this one query.
MATCH (:Model {id: $id})-[:TRAINED_ON]->(f:Fact)
RETURN f.id AS fact_id
ORDER BY fact_id

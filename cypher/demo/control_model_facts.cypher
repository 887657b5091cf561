// The demo: what the control model was trained on, per source.
// Parameters: $model (a control model's id, as `knowforge train-control` prints it)
MATCH (m:Model)-[:TRAINED_ON]->(f:Fact)
WHERE m.id = $model
RETURN m.id AS model, m.cutoff AS cutoff, f.source AS source, count(f) AS trained_on
ORDER BY model, source

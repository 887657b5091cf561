// (:Model)-[:TRAINED_ON]->(:Fact), one edge per fact the model was trained on.
// $batch.rows: [{fact_id}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (m:Model {id: $model_id})
MATCH (f:Fact {id: row.fact_id})
MERGE (m)-[:TRAINED_ON]->(f)

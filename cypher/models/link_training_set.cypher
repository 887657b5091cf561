// (:Model)-[:TRAINED_ON]->(:Fact), one edge per fact the model was trained on.
// $rows: [{fact_id}]
UNWIND $rows AS row
MATCH (m:Model {id: $model_id})
MATCH (f:Fact {id: row.fact_id})
MERGE (m)-[:TRAINED_ON]->(f)

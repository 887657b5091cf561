// One backward hop (^relation) over the CURRENT graph: the subjects whose current fact of
// `relation` points at `object_id`. $batch.rows: [{key, object_id, relation}]
// In one map, as Store.write sends a batch: one plan whatever its size.
UNWIND $batch.rows AS row
MATCH (f:Fact {object_id: row.object_id, relation: row.relation})
WHERE f.end_year IS NULL AND NOT EXISTS { (f)<-[:RETRACTS]-(:Event) }
MATCH (s:Entity {id: f.subject_id})
RETURN row.key AS key, f.id AS fact_id, row.object_id AS subject_id, s.id AS object_id,
       s.name AS object_name, coalesce(s.aliases, []) AS aliases, false AS unknown,
       f.layer AS layer
ORDER BY key, object_id, fact_id

// One forward hop over the CURRENT graph for many (subject, relation) pairs.
// Current = open-ended (no end_year) and not retracted by an applied :Event; edit-layer facts
// asserted by events count. Unknown edit facts come back with unknown = true, no object.
// $batch.rows: [{key, subject_id, relation}]
// In one map, as Store.write sends a batch: one plan whatever its size.
UNWIND $batch.rows AS row
MATCH (f:Fact {subject_id: row.subject_id, relation: row.relation})
WHERE f.end_year IS NULL AND NOT EXISTS { (f)<-[:RETRACTS]-(:Event) }
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN row.key AS key, f.id AS fact_id, f.subject_id AS subject_id, o.id AS object_id,
       coalesce(o.name, f.value) AS object_name, coalesce(o.aliases, []) AS aliases,
       coalesce(f.unknown, false) AS unknown, f.layer AS layer
ORDER BY key, object_id, fact_id

// Ripple probes: the open-ended objects of some (subject, relation) pairs as ONE event sees
// them, before and after it (the world `knowforge ripple` walks): before = source facts;
// after = those the event does not retract, plus the facts it asserts. Aliases of an object
// entity come along (accepted answers). $batch.rows: [{subject_id, relation}]; $event_id.
// In one map, as Store.write sends a batch: one plan whatever its size.
MATCH (ev:Event {id: $event_id})
UNWIND $batch.rows AS row
MATCH (f:Fact {subject_id: row.subject_id, relation: row.relation})
WHERE f.end_year IS NULL
  AND (coalesce(f.layer, 'source') <> 'edit' OR EXISTS { (ev)-[:ASSERTS]->(f) })
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
WITH f, o, coalesce(f.layer, 'source') <> 'edit' AS before,
     (coalesce(f.layer, 'source') <> 'edit' AND NOT EXISTS { (ev)-[:RETRACTS]->(f) })
     OR EXISTS { (ev)-[:ASSERTS]->(f) } AS after
RETURN f.subject_id AS subject_id, f.relation AS relation, f.id AS fact_id, o.id AS object_id,
       CASE WHEN coalesce(f.unknown, false) THEN 'unknown' ELSE coalesce(o.name, toString(f.value)) END AS object,
       coalesce(o.aliases, []) AS aliases, coalesce(f.unknown, false) AS unknown, before, after
ORDER BY subject_id, relation, fact_id

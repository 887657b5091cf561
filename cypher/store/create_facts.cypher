// Facts known to be new (existing_facts found none of these ids; merge_stubs ran first and
// committed). CREATE instead of MERGE: no locking lookups, no eager passes. A fact that
// another writer created meanwhile fails the unique constraint and the batch falls back to
// upsert_facts.
// $batch.rows: [{subject_id, object_id?, props:{id, subject_id, object_id?, seen_in?, first_seen?,
//          last_seen?, ...}}] with props exactly as upsert_facts leaves a new fact.
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (s:Entity {id: row.subject_id})
CREATE (f:Fact)
SET f = row.props
CREATE (s)-[:HAS_FACT]->(f)
WITH f, row WHERE row.object_id IS NOT NULL
MATCH (o:Entity {id: row.object_id})
CREATE (f)-[:OBJECT]->(o)

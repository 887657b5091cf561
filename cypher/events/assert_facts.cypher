// New edit-layer facts asserted by an event: (subject)-[:HAS_FACT]->(:Fact {layer:'edit'})
// with an OBJECT edge, a literal value, or unknown = true (an explicit unknown answer).
// $batch.rows: [{id, event_id, subject_id, object_id?, props:{...}}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (e:Event {id: row.event_id})
MATCH (s:Entity {id: row.subject_id})
MERGE (f:Fact {id: row.id})
SET f += row.props, f.subject_id = row.subject_id, f.layer = 'edit'
MERGE (s)-[:HAS_FACT]->(f)
MERGE (e)-[:ASSERTS]->(f)
WITH f, row
CALL (f, row) {
  WITH f, row WHERE row.object_id IS NOT NULL
  MATCH (o:Entity {id: row.object_id})
  SET f.object_id = row.object_id
  MERGE (f)-[:OBJECT]->(o)
}

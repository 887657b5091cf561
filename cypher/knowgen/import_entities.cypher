// The artificial entities of an imported ALCUNA release, with their properties as facts of
// the generated layer (values as released: ALCUNA names its objects, it has no ids).
// The parent is linked when the graph holds it (eol:<EOL page id>). MERGE throughout: a
// re-run after a crash writes no duplicates.
// $batch.rows: [{id, parent_entity_id, props, facts:[{id, props}]}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (b:Batch {id: $batch_id})
MERGE (e:Entity {id: row.id})
SET e:Artificial, e += row.props
MERGE (e)-[:IN_BATCH]->(b)
WITH e, row
CALL (e, row) {
  MATCH (p:Entity {id: row.parent_entity_id})
  MERGE (e)-[:DERIVED_FROM {op: 'parent', batch: $batch_id}]->(p)
}
CALL (e, row) {
  UNWIND row.facts AS fr
  MERGE (f:Fact {id: fr.id})
  SET f += fr.props
  MERGE (e)-[:HAS_FACT]->(f)
}

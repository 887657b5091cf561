// One batched apply of planned artificial entities. $batch.rows: [{id, labels, props,
// parent_entity_id, facts:[{id, op, object_id?, props, sources:[{fact_id, role}]}],
// dropout:[source fact id]}]. Labels are validated against the allow-list in Python.
// Provenance: (ẽ)-[:DERIVED_FROM {op:'parent'}]->(e_p); (generated fact)-[:DERIVED_FROM
// {op, role}]->(source fact); (ẽ)-[:DERIVED_FROM {op:'dropout'}]->(dropped source fact).
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (b:Batch {id: $batch_id})
MATCH (p:Entity {id: row.parent_entity_id})
CREATE (e:Entity:Artificial {id: row.id})
SET e += row.props
SET e:$(row.labels)
CREATE (e)-[:IN_BATCH]->(b)
CREATE (e)-[:DERIVED_FROM {op: 'parent', batch: $batch_id}]->(p)
WITH e, row
CALL (e, row) {
  UNWIND row.facts AS fr
  CREATE (f:Fact {id: fr.id})
  SET f += fr.props
  CREATE (e)-[:HAS_FACT]->(f)
  WITH f, fr
  CALL (f, fr) {
    WITH f, fr WHERE fr.object_id IS NOT NULL
    MATCH (o:Entity {id: fr.object_id})
    CREATE (f)-[:OBJECT]->(o)
  }
  WITH f, fr
  CALL (f, fr) {
    UNWIND fr.sources AS src
    MATCH (sf:Fact {id: src.fact_id})
    CREATE (f)-[:DERIVED_FROM {op: fr.op, role: src.role, batch: $batch_id}]->(sf)
  }
}
CALL (e, row) {
  UNWIND row.dropout AS did
  MATCH (sf:Fact {id: did})
  CREATE (e)-[:DERIVED_FROM {op: 'dropout', batch: $batch_id}]->(sf)
}

// Facts of LINK's inferred layer: rule conclusions (one per instantiation, with the statement
// texts, distributions and LINT records), assumed premises (what a statement's premise says
// about PersonX / ObjectX) and premises a model proposed (with their critic score).
// $batch.rows: [{id, object_id, props:{layer:'inferred', op:'conclusion'|'assumed'|'proposed',
// benchmark, batch, rule, relation, text, ...}}]. MERGE on the id: a premise shared by several
// statements is one fact. Source facts and entities are only pointed at, never changed.
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (f:Fact {id: row.id})
SET f += row.props
WITH f, row WHERE row.object_id IS NOT NULL
MATCH (o:Entity {id: row.object_id})
MERGE (f)-[:OBJECT]->(o)

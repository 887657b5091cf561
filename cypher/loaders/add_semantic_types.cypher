// UMLS semantic types (MRSTY) of concepts; accumulates across releases and reloads.
// $batch.rows: [{id, types:[STY]}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (e:Entity {id: row.id})
  ON CREATE SET e.name = row.id, e.stub = true
SET e.semantic_types = COLLECT { UNWIND coalesce(e.semantic_types, []) + row.types AS t
                                 WITH DISTINCT t ORDER BY t RETURN t }

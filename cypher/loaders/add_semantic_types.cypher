// UMLS semantic types (MRSTY) of concepts; accumulates across releases and reloads.
// $rows: [{id, types:[STY]}]
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
  ON CREATE SET e.name = row.id, e.stub = true
SET e.semantic_types = COLLECT { UNWIND coalesce(e.semantic_types, []) + row.types AS t
                                 WITH DISTINCT t ORDER BY t RETURN t }

// Entities that facts about to be created point at: found, or created as stubs that a later
// entity load completes. $batch.rows: [{id, name}] in the order the facts reference them, so the
// stub gets the name of its first reference (as upsert_facts gives it).
// The rows travel in one map: Neo4j's plan cache is keyed on a list parameter's size bucket,
// so batches of every size made a plan each (issue 33).
UNWIND $batch.rows AS row
MERGE (e:Entity {id: row.id})
  ON CREATE SET e.name = row.name, e.stub = true

// Entities that facts about to be created point at: found, or created as stubs that a later
// entity load completes. $batch.rows: [{id, name}] in the order the facts reference them, so the
// stub gets the name of its first reference (as upsert_facts gives it).
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (e:Entity {id: row.id})
  ON CREATE SET e.name = row.name, e.stub = true

// Entities an imported ELKEN release names (question subjects, answer entities, by their
// Wikidata ids): found, or created as stubs (source 'elken-release') that a later entity load
// completes. Imported events assert their edit facts on them, as generated events do.
// $batch.rows: [{id, name}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (e:Entity {id: row.id})
  ON CREATE SET e.name = row.name, e.stub = true, e.source = 'elken-release'

// NCBI nodes.dmp: rank and parent of a taxon, so siblings are one lookup on parent_id.
// $batch.rows: [{id, tax_id, rank, parent_id, division}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (e:Entity {id: row.id})
  ON CREATE SET e.name = row.id, e.stub = true
SET e:Taxon, e.rank = row.rank, e.parent_id = row.parent_id, e.tax_id = row.tax_id,
    e.division = row.division, e.domain = 'biology'

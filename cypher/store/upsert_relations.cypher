// Relation vocabulary: ids (P39, may_treat, eats) with readable labels and phrasings.
// $batch.rows: [{id, props:{label, source, inverse?, description?}}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (r:Relation {id: row.id})
SET r += row.props

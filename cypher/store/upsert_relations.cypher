// Relation vocabulary: ids (P39, may_treat, eats) with readable labels and phrasings.
// $rows: [{id, props:{label, source, inverse?, description?}}]
UNWIND $rows AS row
MERGE (r:Relation {id: row.id})
SET r += row.props

// Readable labels of relation ids (the :Relation vocabulary every loader writes), for what a
// person reads: ripple output, reports, GraphML. Ids without a labelled :Relation are absent.
// $ids: [relation id]
UNWIND $ids AS id
MATCH (r:Relation {id: id})
WHERE r.label IS NOT NULL
RETURN r.id AS id, r.label AS label
ORDER BY id

// The entities among $ids already in the graph, with their meaning facts (none: one row with
// a null fact_id): what an import finds there before it loads a release's terms.
UNWIND $ids AS id
MATCH (e:Entity {id: id})
OPTIONAL MATCH (e)-[:HAS_FACT]->(f:Fact {relation: 'meaning'})
RETURN e.id AS id, f.id AS fact_id, f.value AS value, f.point_in_time AS point_in_time
ORDER BY id, fact_id

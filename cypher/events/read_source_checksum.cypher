// Every source-layer fact with its properties and object, for a checksum proving that
// layering events never modifies source knowledge.
MATCH (s:Entity)-[:HAS_FACT]->(f:Fact)
WHERE coalesce(f.layer, 'source') <> 'edit'
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN s.id AS subject_id, f.id AS fact_id, properties(f) AS props, o.id AS object_id
ORDER BY fact_id

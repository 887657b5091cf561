// Two-hop Knowledge Association candidates: for each ẽ, the relation paths ẽ -r1-> x -r2-> y
// that start at one of ẽ's generated relation facts and continue through an existing (source)
// entity's fact. Only (r1, r2) keys and counts come back (aggregated while streaming, so the
// memory is per key, not per path); Python picks which to ask. Ordered by stable keys.
UNWIND $ids AS eid
MATCH (e:Entity {id: eid})-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation'})
      -[:OBJECT]->(x:Entity)-[:HAS_FACT]->(f2:Fact {kind: 'relation'})-[:OBJECT]->(y:Entity)
WHERE f1.relation <> $parent_rel AND f2.relation <> $parent_rel
  AND coalesce(f2.layer, 'source') = 'source'
  AND NOT x:Artificial AND NOT y:Artificial AND y.id <> x.id
RETURN eid AS entity_id, f1.relation AS r1, f2.relation AS r2, count(*) AS paths
ORDER BY entity_id, r1, r2

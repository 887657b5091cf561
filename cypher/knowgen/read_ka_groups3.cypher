// Three-hop Knowledge Association candidates: relation paths ẽ -r1-> x -r2-> y -r3-> z
// (distinct x, y, z) from ẽ's generated relation facts through source facts. Keys and counts
// only (see read_ka_groups2). Ordered by stable keys.
UNWIND $ids AS eid
MATCH (e:Entity {id: eid})-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation'})
      -[:OBJECT]->(x:Entity)-[:HAS_FACT]->(f2:Fact {kind: 'relation'})-[:OBJECT]->(y:Entity)
      -[:HAS_FACT]->(f3:Fact {kind: 'relation'})-[:OBJECT]->(z:Entity)
WHERE f1.relation <> $parent_rel AND f2.relation <> $parent_rel AND f3.relation <> $parent_rel
  AND coalesce(f2.layer, 'source') = 'source' AND coalesce(f3.layer, 'source') = 'source'
  AND NOT x:Artificial AND NOT y:Artificial AND NOT z:Artificial
  AND y.id <> x.id AND z.id <> x.id AND z.id <> y.id
RETURN eid AS entity_id, f1.relation AS r1, f2.relation AS r2, f3.relation AS r3, count(*) AS paths
ORDER BY entity_id, r1, r2, r3

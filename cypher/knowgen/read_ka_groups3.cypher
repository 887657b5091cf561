// Three-hop Knowledge Association candidates: relation paths ẽ -r1-> x -r2-> y -r3-> z
// (distinct x, y, z) from ẽ's generated relation facts through source facts. Keys and counts
// only (see read_ka_groups2). Ordered by stable keys.
// Every condition past x is about x, y and z alone, and a chunk's thousands of first hops end
// in a few dozen source entities x: the tails x -r2-> y -r3-> z are counted once per x and the
// counts summed over the first hops (the same counts as one count(*) over the whole paths).
// $batch.ids: the chunk's artificial entity ids, in one map as Store.write sends a batch
// (one plan whatever its size).
UNWIND $batch.ids AS eid
MATCH (:Entity {id: eid})-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation'})-[:OBJECT]->(x:Entity)
WHERE f1.relation <> $parent_rel AND NOT x:Artificial
WITH x, collect({eid: eid, r1: f1.relation}) AS starts
CALL (x) {
  MATCH (x)-[:HAS_FACT]->(f2:Fact {kind: 'relation'})-[:OBJECT]->(y:Entity)
        -[:HAS_FACT]->(f3:Fact {kind: 'relation'})-[:OBJECT]->(z:Entity)
  WHERE f2.relation <> $parent_rel AND f3.relation <> $parent_rel
    AND coalesce(f2.layer, 'source') = 'source' AND coalesce(f3.layer, 'source') = 'source'
    AND NOT y:Artificial AND NOT z:Artificial
    AND y.id <> x.id AND z.id <> x.id AND z.id <> y.id
  RETURN f2.relation AS r2, f3.relation AS r3, count(*) AS tails
}
UNWIND starts AS s
RETURN s.eid AS entity_id, s.r1 AS r1, r2, r3, sum(tails) AS paths
ORDER BY entity_id, r1, r2, r3

// Two-hop Knowledge Association candidates: for each ẽ, the relation paths ẽ -r1-> x -r2-> y
// that start at one of ẽ's generated relation facts and continue through an existing (source)
// entity's fact. Only (r1, r2) keys and counts come back (aggregated while streaming, so the
// memory is per key, not per path); Python picks which to ask. Ordered by stable keys.
// The second hops are counted once per x and summed over the first hops that end in x (see
// read_ka_groups3).
// $batch.ids: the chunk's artificial entity ids, in one map as Store.write sends a batch
// (one plan whatever its size).
UNWIND $batch.ids AS eid
MATCH (:Entity {id: eid})-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation'})-[:OBJECT]->(x:Entity)
WHERE f1.relation <> $parent_rel AND NOT x:Artificial
WITH x, collect({eid: eid, r1: f1.relation}) AS starts
CALL (x) {
  MATCH (x)-[:HAS_FACT]->(f2:Fact {kind: 'relation'})-[:OBJECT]->(y:Entity)
  WHERE f2.relation <> $parent_rel AND coalesce(f2.layer, 'source') = 'source'
    AND NOT y:Artificial AND y.id <> x.id
  RETURN f2.relation AS r2, count(*) AS tails
}
UNWIND starts AS s
RETURN s.eid AS entity_id, s.r1 AS r1, r2, sum(tails) AS paths
ORDER BY entity_id, r1, r2

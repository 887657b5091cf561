// For chosen (ẽ, r1, r2, r3) relation paths: every answer z (the complete answer set) and the
// first $max_chains chains ẽ -r1-> x -r2-> y -r3-> z by fact id (the recorded hop triplets).
// $batch.rows: [{entity_id, r1, r2, r3}]. Ordered by stable ids.
// The tails x -r2-> y -r3-> z depend on x, r2 and r3 only: they are read once per (x, r2, r3)
// and joined to the first hops that end in x. The first $max_chains chains by (f1, f2, f3) are
// the first hops in f1 order, each followed by its x's tails in (f2, f3) order, cut at
// $max_chains; the answers are the distinct ends of all of them.
// In one map, as Store.write sends a batch: one plan whatever its size.
UNWIND $batch.rows AS row
MATCH (:Entity {id: row.entity_id})-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation', relation: row.r1})
      -[:OBJECT]->(x:Entity)
WHERE NOT x:Artificial
WITH x, row.r2 AS r2, row.r3 AS r3,
     collect({row: row, f1: f1.id, r1_label: coalesce(f1.relation_label, f1.relation), op1: f1.op,
              x: x.id, x_name: x.name}) AS starts
CALL (x, r2, r3) {
  MATCH (x)-[:HAS_FACT]->(f2:Fact {kind: 'relation', relation: r2})-[:OBJECT]->(y:Entity)
        -[:HAS_FACT]->(f3:Fact {kind: 'relation', relation: r3})-[:OBJECT]->(z:Entity)
  WHERE coalesce(f2.layer, 'source') = 'source' AND coalesce(f3.layer, 'source') = 'source'
    AND NOT y:Artificial AND NOT z:Artificial
    AND y.id <> x.id AND z.id <> x.id AND z.id <> y.id
  WITH f2, y, f3, z ORDER BY f2.id, f3.id
  RETURN collect({f2: f2.id, r2_label: coalesce(f2.relation_label, f2.relation), y: y.id, y_name: y.name,
                  f3: f3.id, r3_label: coalesce(f3.relation_label, f3.relation),
                  z: z.id, z_name: z.name})[..$max_chains] AS tails,
         collect(DISTINCT z) AS ends
}
UNWIND starts AS s
WITH s, tails, ends ORDER BY s.f1
WITH s.row AS row, collect([t IN tails | t {.*, f1: s.f1, r1_label: s.r1_label, op1: s.op1, x: s.x,
                                                      x_name: s.x_name}]) AS chains,
     collect(ends) AS ends
CALL (ends) {
  UNWIND ends AS some
  UNWIND some AS z
  WITH DISTINCT z ORDER BY z.id
  RETURN collect({id: z.id, name: z.name, aliases: coalesce(z.aliases, [])}) AS answers
}
RETURN row.entity_id AS entity_id, row.r1 AS r1, row.r2 AS r2, row.r3 AS r3, answers,
       reduce(acc = [], c IN chains | acc + c)[..$max_chains] AS chains
ORDER BY entity_id, r1, r2, r3

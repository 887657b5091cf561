// For chosen (ẽ, r1, r2) relation paths: every answer y (the complete answer set) and the
// first $max_chains chains ẽ -r1-> x -r2-> y by fact id (the recorded hop triplets).
// $batch.rows: [{entity_id, r1, r2}]. Ordered by stable ids.
// The second hops are read once per (x, r2) and joined to the first hops that end in x (see
// read_ka_chains3).
// In one map, as Store.write sends a batch: one plan whatever its size.
UNWIND $batch.rows AS row
MATCH (:Entity {id: row.entity_id})-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation', relation: row.r1})
      -[:OBJECT]->(x:Entity)
WHERE NOT x:Artificial
WITH x, row.r2 AS r2,
     collect({row: row, f1: f1.id, r1_label: coalesce(f1.relation_label, f1.relation), op1: f1.op,
              x: x.id, x_name: x.name}) AS starts
CALL (x, r2) {
  MATCH (x)-[:HAS_FACT]->(f2:Fact {kind: 'relation', relation: r2})-[:OBJECT]->(y:Entity)
  WHERE coalesce(f2.layer, 'source') = 'source' AND NOT y:Artificial AND y.id <> x.id
  WITH f2, y ORDER BY f2.id
  RETURN collect({f2: f2.id, r2_label: coalesce(f2.relation_label, f2.relation), y: y.id,
                  y_name: y.name})[..$max_chains] AS tails,
         collect(DISTINCT y) AS ends
}
UNWIND starts AS s
WITH s, tails, ends ORDER BY s.f1
WITH s.row AS row, collect([t IN tails | t {.*, f1: s.f1, r1_label: s.r1_label, op1: s.op1, x: s.x,
                                                      x_name: s.x_name}]) AS chains,
     collect(ends) AS ends
CALL (ends) {
  UNWIND ends AS some
  UNWIND some AS y
  WITH DISTINCT y ORDER BY y.id
  RETURN collect({id: y.id, name: y.name, aliases: coalesce(y.aliases, [])}) AS answers
}
RETURN row.entity_id AS entity_id, row.r1 AS r1, row.r2 AS r2, answers,
       reduce(acc = [], c IN chains | acc + c)[..$max_chains] AS chains
ORDER BY entity_id, r1, r2

// For chosen (ẽ, r1, r2, r3) relation paths: every answer z (the complete answer set) and the
// first $max_chains chains ẽ -r1-> x -r2-> y -r3-> z by fact id (the recorded hop triplets).
// $rows: [{entity_id, r1, r2, r3}]. Ordered by stable ids.
UNWIND $rows AS row
MATCH (e:Entity {id: row.entity_id})
CALL (e, row) {
  MATCH (e)-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation', relation: row.r1})
        -[:OBJECT]->(x:Entity)-[:HAS_FACT]->(f2:Fact {kind: 'relation', relation: row.r2})
        -[:OBJECT]->(y:Entity)-[:HAS_FACT]->(f3:Fact {kind: 'relation', relation: row.r3})
        -[:OBJECT]->(z:Entity)
  WHERE coalesce(f2.layer, 'source') = 'source' AND coalesce(f3.layer, 'source') = 'source'
    AND NOT x:Artificial AND NOT y:Artificial AND NOT z:Artificial
    AND y.id <> x.id AND z.id <> x.id AND z.id <> y.id
  WITH DISTINCT z ORDER BY z.id
  RETURN collect({id: z.id, name: z.name, aliases: coalesce(z.aliases, [])}) AS answers
}
CALL (e, row) {
  MATCH (e)-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation', relation: row.r1})
        -[:OBJECT]->(x:Entity)-[:HAS_FACT]->(f2:Fact {kind: 'relation', relation: row.r2})
        -[:OBJECT]->(y:Entity)-[:HAS_FACT]->(f3:Fact {kind: 'relation', relation: row.r3})
        -[:OBJECT]->(z:Entity)
  WHERE coalesce(f2.layer, 'source') = 'source' AND coalesce(f3.layer, 'source') = 'source'
    AND NOT x:Artificial AND NOT y:Artificial AND NOT z:Artificial
    AND y.id <> x.id AND z.id <> x.id AND z.id <> y.id
  WITH f1, x, f2, y, f3, z ORDER BY f1.id, f2.id, f3.id LIMIT $max_chains
  RETURN collect({f1: f1.id, r1_label: coalesce(f1.relation_label, f1.relation), op1: f1.op,
                  x: x.id, x_name: x.name, f2: f2.id,
                  r2_label: coalesce(f2.relation_label, f2.relation), y: y.id, y_name: y.name,
                  f3: f3.id, r3_label: coalesce(f3.relation_label, f3.relation),
                  z: z.id, z_name: z.name}) AS chains
}
RETURN row.entity_id AS entity_id, row.r1 AS r1, row.r2 AS r2, row.r3 AS r3, answers, chains
ORDER BY entity_id, r1, r2, r3

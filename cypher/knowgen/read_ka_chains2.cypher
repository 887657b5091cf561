// For chosen (ẽ, r1, r2) relation paths: every answer y (the complete answer set) and the
// first $max_chains chains ẽ -r1-> x -r2-> y by fact id (the recorded hop triplets).
// $rows: [{entity_id, r1, r2}]. Ordered by stable ids.
UNWIND $rows AS row
MATCH (e:Entity {id: row.entity_id})
CALL (e, row) {
  MATCH (e)-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation', relation: row.r1})
        -[:OBJECT]->(x:Entity)-[:HAS_FACT]->(f2:Fact {kind: 'relation', relation: row.r2})
        -[:OBJECT]->(y:Entity)
  WHERE coalesce(f2.layer, 'source') = 'source' AND NOT x:Artificial AND NOT y:Artificial
    AND y.id <> x.id
  WITH DISTINCT y ORDER BY y.id
  RETURN collect({id: y.id, name: y.name, aliases: coalesce(y.aliases, [])}) AS answers
}
CALL (e, row) {
  MATCH (e)-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation', relation: row.r1})
        -[:OBJECT]->(x:Entity)-[:HAS_FACT]->(f2:Fact {kind: 'relation', relation: row.r2})
        -[:OBJECT]->(y:Entity)
  WHERE coalesce(f2.layer, 'source') = 'source' AND NOT x:Artificial AND NOT y:Artificial
    AND y.id <> x.id
  WITH f1, x, f2, y ORDER BY f1.id, f2.id LIMIT $max_chains
  RETURN collect({f1: f1.id, r1_label: coalesce(f1.relation_label, f1.relation), op1: f1.op,
                  x: x.id, x_name: x.name, f2: f2.id,
                  r2_label: coalesce(f2.relation_label, f2.relation),
                  y: y.id, y_name: y.name}) AS chains
}
RETURN row.entity_id AS entity_id, row.r1 AS r1, row.r2 AS r2, answers, chains
ORDER BY entity_id, r1, r2

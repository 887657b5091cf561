// KnowGen: the Knowledge Association chains of an artificial entity: 2- and 3-hop paths from
// its generated relation facts through existing entities' facts (what KA questions ask about).
// Parameters: $entity (id or name), $limit (e.g. 50).
MATCH (e:Entity:Artificial)
WHERE e.id = $entity OR e.name = $entity
MATCH path = (e)-[:HAS_FACT]->(f1:Fact {layer: 'generated', kind: 'relation'})-[:OBJECT]->(x:Entity)
             -[:HAS_FACT]->(f2:Fact {kind: 'relation'})-[:OBJECT]->(y:Entity)
WHERE f1.relation <> 'P171' AND f2.relation <> 'P171' AND NOT x:Artificial AND NOT y:Artificial
  AND y.id <> x.id
OPTIONAL MATCH (y)-[:HAS_FACT]->(f3:Fact {kind: 'relation'})-[:OBJECT]->(z:Entity)
WHERE f3.relation <> 'P171' AND NOT z:Artificial AND NOT z.id IN [x.id, y.id]
RETURN e.name AS entity, f1.relation_label AS hop1, x.name AS x, f2.relation_label AS hop2,
       y.name AS y, f3.relation_label AS hop3, z.name AS z
ORDER BY hop1, x, hop2, y, hop3, z
LIMIT $limit

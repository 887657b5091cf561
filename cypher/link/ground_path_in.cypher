// The inverse of ground_path_out: for each bound container in $batch.rows ([{id}]), the entities
// that reach it through one to three source facts whose relations are in $relations.
// In one map, as Store.write sends a batch: one plan whatever its size.
UNWIND $batch.rows AS row
MATCH (c:Entity)
      ((:Entity)-[:HAS_FACT]->(f:Fact WHERE f.relation IN $relations AND f.layer = 'source')-[:OBJECT]->(:Entity)){1,3}
      (t:Entity {id: row.id})
WHERE NOT c:Artificial AND c.id <> row.id
RETURN row.id AS bound, c.id AS id, c.name AS name, c.popularity AS sitelinks,
       COUNT { (c)-[:HAS_FACT]->(:Fact {layer: 'source'}) } + COUNT { (:Fact {layer: 'source'})-[:OBJECT]->(c) } AS degree,
       [x IN f | x.id] AS facts
ORDER BY bound, id, facts

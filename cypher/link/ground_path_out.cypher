// Bind the container of each bound entity in $batch.rows ([{id}]): entities reached by one to three
// source facts in a row whose relations are in $relations (P131 ... P17), subject to object.
// Every path is returned with its facts: each one is a premise a statement rests on.
// In one map, as Store.write sends a batch: one plan whatever its size.
UNWIND $batch.rows AS row
MATCH (s:Entity {id: row.id})
      ((:Entity)-[:HAS_FACT]->(f:Fact WHERE f.relation IN $relations AND f.layer = 'source')-[:OBJECT]->(:Entity)){1,3}
      (c:Entity)
WHERE NOT c:Artificial AND c.id <> row.id
RETURN row.id AS bound, c.id AS id, c.name AS name, c.popularity AS sitelinks,
       COUNT { (c)-[:HAS_FACT]->(:Fact {layer: 'source'}) } + COUNT { (:Fact {layer: 'source'})-[:OBJECT]->(c) } AS degree,
       [x IN f | x.id] AS facts
ORDER BY bound, id, facts

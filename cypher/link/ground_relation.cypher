// Bind a variable through one fact: for each bound entity in $batch.rows ([{id}]), the entities
// linked to it by a source fact whose relation is in $edges.out (the bound entity is the
// subject) or in $edges.in (the bound entity is the object). One round trip per beam batch.
// The two lists, either of them often empty, travel in one map: as parameters of their own
// each emptiness made Neo4j plan the statement anew (4 plans for LINK's 9 patterns).
// Popularity: sitelinks where the source has them, and the degree in source facts.
// In one map, as Store.write sends a batch: one plan whatever its size.
UNWIND $batch.rows AS row
CALL (row) {
  MATCH (s:Entity {id: row.id})-[:HAS_FACT]->(f:Fact)-[:OBJECT]->(c:Entity)
  WHERE f.relation IN $edges.out AND f.layer = 'source' AND NOT c:Artificial
  RETURN c, f
  UNION
  MATCH (c:Entity)-[:HAS_FACT]->(f:Fact)-[:OBJECT]->(s:Entity {id: row.id})
  WHERE f.relation IN $edges.in AND f.layer = 'source' AND NOT c:Artificial
  RETURN c, f
}
RETURN row.id AS bound, c.id AS id, c.name AS name, c.popularity AS sitelinks,
       COUNT { (c)-[:HAS_FACT]->(:Fact {layer: 'source'}) } + COUNT { (:Fact {layer: 'source'})-[:OBJECT]->(c) } AS degree,
       [f.id] AS facts
ORDER BY bound, id, facts

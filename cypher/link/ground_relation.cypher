// Bind a variable through one fact: for each bound entity in $rows ([{id}]), the entities
// linked to it by a source fact whose relation is in $out (the bound entity is the subject)
// or in $in (the bound entity is the object). One round trip per beam batch.
// Popularity: sitelinks where the source has them, and the degree in source facts.
UNWIND $rows AS row
CALL (row) {
  MATCH (s:Entity {id: row.id})-[:HAS_FACT]->(f:Fact)-[:OBJECT]->(c:Entity)
  WHERE f.relation IN $out AND f.layer = 'source' AND NOT c:Artificial
  RETURN c, f
  UNION
  MATCH (c:Entity)-[:HAS_FACT]->(f:Fact)-[:OBJECT]->(s:Entity {id: row.id})
  WHERE f.relation IN $in AND f.layer = 'source' AND NOT c:Artificial
  RETURN c, f
}
RETURN row.id AS bound, c.id AS id, c.name AS name, c.popularity AS sitelinks,
       COUNT { (c)-[:HAS_FACT]->(:Fact {layer: 'source'}) } + COUNT { (:Fact {layer: 'source'})-[:OBJECT]->(c) } AS degree,
       [f.id] AS facts
ORDER BY bound, id, facts

// For each relation object e', its class (via $parent_rel) and the other members of that
// class: relation variation replaces e' by one of them. Ordered by stable ids (feeds sampling).
UNWIND $ids AS oid
MATCH (o:Entity {id: oid})-[:HAS_FACT]->(pf:Fact {relation: $parent_rel})-[:OBJECT]->(c:Entity)
WHERE coalesce(pf.layer, 'source') = 'source'
CALL (o, c) {
  MATCH (c)<-[:OBJECT]-(sf:Fact {relation: $parent_rel})<-[:HAS_FACT]-(s:Entity)
  WHERE s.id <> o.id AND NOT s:Artificial AND coalesce(sf.layer, 'source') = 'source'
  WITH DISTINCT s ORDER BY s.id
  RETURN collect({id: s.id, name: s.name, aliases: coalesce(s.aliases, [])}) AS siblings
}
RETURN oid AS object_id, c.id AS class_id, siblings
ORDER BY object_id, class_id

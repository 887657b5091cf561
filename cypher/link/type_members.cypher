// The entities a variable's datatype pattern admits: one of $labels, or an instance of a class
// in $classes (ids) / $class_names (names) through $class_relations; and, when given, with an
// outgoing fact of a relation in $has / an incoming one in $has_incoming. Sorted by id;
// at most $limit (the caller samples from them with its seeded generator).
MATCH (e:Entity)
WHERE NOT e:Artificial AND NOT coalesce(e.stub, false)
  AND ((size($labels) = 0 AND size($classes) = 0 AND size($class_names) = 0)
       OR any(l IN labels(e) WHERE l IN $labels)
       OR EXISTS { (e)-[:HAS_FACT]->(f:Fact)-[:OBJECT]->(k:Entity)
                   WHERE f.relation IN $class_relations AND f.layer = 'source'
                     AND (k.id IN $classes OR k.name IN $class_names) })
  AND (size($has) = 0 OR EXISTS { (e)-[:HAS_FACT]->(f:Fact) WHERE f.relation IN $has AND f.layer = 'source' })
  AND (size($has_incoming) = 0
       OR EXISTS { (:Entity)-[:HAS_FACT]->(f:Fact)-[:OBJECT]->(e) WHERE f.relation IN $has_incoming AND f.layer = 'source' })
RETURN e.id AS id, e.name AS name, e.popularity AS sitelinks,
       COUNT { (e)-[:HAS_FACT]->(:Fact {layer: 'source'}) } + COUNT { (:Fact {layer: 'source'})-[:OBJECT]->(e) } AS degree
ORDER BY id
LIMIT $limit

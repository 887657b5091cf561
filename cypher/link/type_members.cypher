// The entities a variable's datatype pattern admits: one of $pattern.labels, or an instance of a
// class in $pattern.classes (ids) / $pattern.class_names (names) through $pattern.class_relations;
// and, when given, with an outgoing fact of a relation in $pattern.has / an incoming one in
// $pattern.has_incoming. Sorted by id; at most $limit (the caller samples from them with its
// seeded generator). The pattern's six lists travel in one map: Neo4j keys its plan cache on
// each parameter's type and size bucket, and an empty list, a one-element list and a longer one
// each made a new plan (7 plans of this statement for 8 datatype patterns, 0.5-1.6 s of C1
// planning each); one map parameter makes one plan for every pattern.
MATCH (e:Entity)
WHERE NOT e:Artificial AND NOT coalesce(e.stub, false)
  AND ((size($pattern.labels) = 0 AND size($pattern.classes) = 0 AND size($pattern.class_names) = 0)
       OR any(l IN labels(e) WHERE l IN $pattern.labels)
       OR EXISTS { (e)-[:HAS_FACT]->(f:Fact)-[:OBJECT]->(k:Entity)
                   WHERE f.relation IN $pattern.class_relations AND f.layer = 'source'
                     AND (k.id IN $pattern.classes OR k.name IN $pattern.class_names) })
  AND (size($pattern.has) = 0 OR EXISTS { (e)-[:HAS_FACT]->(f:Fact) WHERE f.relation IN $pattern.has AND f.layer = 'source' })
  AND (size($pattern.has_incoming) = 0
       OR EXISTS { (:Entity)-[:HAS_FACT]->(f:Fact)-[:OBJECT]->(e) WHERE f.relation IN $pattern.has_incoming AND f.layer = 'source' })
RETURN e.id AS id, e.name AS name, e.popularity AS sitelinks,
       COUNT { (e)-[:HAS_FACT]->(:Fact {layer: 'source'}) } + COUNT { (:Fact {layer: 'source'})-[:OBJECT]->(e) } AS degree
ORDER BY id
LIMIT $limit

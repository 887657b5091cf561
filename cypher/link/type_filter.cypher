// Which of $ids a datatype pattern admits (same conditions as type_members, and the pattern's
// lists in one map, $pattern, for the same reason: one plan for every pattern), in id order.
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE NOT e:Artificial
  AND ((size($pattern.labels) = 0 AND size($pattern.classes) = 0 AND size($pattern.class_names) = 0)
       OR any(l IN labels(e) WHERE l IN $pattern.labels)
       OR EXISTS { (e)-[:HAS_FACT]->(f:Fact)-[:OBJECT]->(k:Entity)
                   WHERE f.relation IN $pattern.class_relations AND f.layer = 'source'
                     AND (k.id IN $pattern.classes OR k.name IN $pattern.class_names) })
  AND (size($pattern.has) = 0 OR EXISTS { (e)-[:HAS_FACT]->(f:Fact) WHERE f.relation IN $pattern.has AND f.layer = 'source' })
  AND (size($pattern.has_incoming) = 0
       OR EXISTS { (:Entity)-[:HAS_FACT]->(f:Fact)-[:OBJECT]->(e) WHERE f.relation IN $pattern.has_incoming AND f.layer = 'source' })
RETURN e.id AS id
ORDER BY id

// Which of $ids a datatype pattern admits (same conditions as type_members), in id order.
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE NOT e:Artificial
  AND ((size($labels) = 0 AND size($classes) = 0 AND size($class_names) = 0)
       OR any(l IN labels(e) WHERE l IN $labels)
       OR EXISTS { (e)-[:HAS_FACT]->(f:Fact)-[:OBJECT]->(k:Entity)
                   WHERE f.relation IN $class_relations AND f.layer = 'source'
                     AND (k.id IN $classes OR k.name IN $class_names) })
  AND (size($has) = 0 OR EXISTS { (e)-[:HAS_FACT]->(f:Fact) WHERE f.relation IN $has AND f.layer = 'source' })
  AND (size($has_incoming) = 0
       OR EXISTS { (:Entity)-[:HAS_FACT]->(f:Fact)-[:OBJECT]->(e) WHERE f.relation IN $has_incoming AND f.layer = 'source' })
RETURN e.id AS id
ORDER BY id

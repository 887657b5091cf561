// knowforge view, LINK: the statements (inferred conclusions) a question tests ($question_id),
// or those whose graph premises are facts of an entity ($entity_id). At most $limit {key, label}.
CALL () {
  MATCH (:Question {id: $question_id})-[:TESTS]->(c:Fact {op: 'conclusion'})
  WHERE c.layer = 'inferred'
  RETURN c.id AS key, c.text AS label
  UNION
  MATCH (:Entity {id: $entity_id})-[:HAS_FACT]->(:Fact)<-[:DERIVED_FROM]-(c:Fact {op: 'conclusion'})
  WHERE c.layer = 'inferred'
  RETURN c.id AS key, c.text AS label
}
RETURN key, label
ORDER BY key
LIMIT $limit

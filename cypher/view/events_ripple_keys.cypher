// knowforge view, ELKEN: the events a question tests ($question_id), or the events an entity
// fills a slot of ($entity_id). At most $limit rows {key, label}.
CALL () {
  MATCH (:Question {id: $question_id})-[:TESTS]->(ev:Event)
  RETURN ev.id AS key, ev.text AS label
  UNION
  MATCH (:Entity {id: $entity_id})<-[:SLOT]-(ev:Event)
  RETURN ev.id AS key, ev.text AS label
}
RETURN key, label
ORDER BY key
LIMIT $limit

// knowforge view, ChroKnow: the record a question was made from ($question_id), or the records
// about an entity's facts ($entity_id). At most $limit rows {key, label}.
CALL () {
  MATCH (:Question {id: $question_id})-[:PART_OF]->(r:ChronoRecord)
  RETURN r.id AS key, r.subject + ' · ' + r.relation AS label
  UNION
  MATCH (:Entity {id: $entity_id})-[:HAS_FACT]->(:Fact)<-[:TESTS]-(r:ChronoRecord)
  RETURN r.id AS key, r.subject + ' · ' + r.relation + ' (' + r.benchmark + ')' AS label
}
RETURN key, label
ORDER BY key
LIMIT $limit

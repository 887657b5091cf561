// knowforge view, NewTerm: the term entry a question was made for ($question_id), or the
// entries of a term entity in every benchmark ($entity_id). At most $limit rows {key, label}.
CALL () {
  MATCH (:Question {id: $question_id})-[:FOR_ENTRY]->(e:TermEntry)
  RETURN e.id AS key, e.term AS label
  UNION
  MATCH (:Entity {id: $entity_id})<-[:OF_TERM]-(e:TermEntry)
  RETURN e.id AS key, e.term + ' (' + e.benchmark + ')' AS label
}
RETURN key, label
ORDER BY key
LIMIT $limit

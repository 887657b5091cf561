// knowforge view: the entities a question is about and the events it tests (at most $limit each).
MATCH (q:Question {id: $question_id})
CALL (q) {
  OPTIONAL MATCH (q)-[:ABOUT]->(e:Entity)
  WITH e ORDER BY e.id
  RETURN [x IN collect(e) | {id: x.id, name: x.name}][..$limit] AS entities
}
CALL (q) {
  OPTIONAL MATCH (q)-[:TESTS]->(ev:Event)
  WITH ev ORDER BY ev.id
  RETURN [x IN collect(ev) | {id: x.id, text: x.text, type: x.type}][..$limit] AS events
}
RETURN entities, events

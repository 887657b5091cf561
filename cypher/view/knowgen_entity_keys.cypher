// knowforge view, KnowGen: the artificial entities a question is about ($question_id), or for an
// entity page ($entity_id) the entity itself when it is artificial, else the artificial entities
// made from it as their parent. At most $limit rows {key, label}.
CALL () {
  MATCH (:Question {id: $question_id})-[:ABOUT]->(e:Entity:Artificial)
  RETURN e.id AS key, e.name AS label
  UNION
  MATCH (e:Entity:Artificial {id: $entity_id})
  RETURN e.id AS key, e.name AS label
  UNION
  MATCH (:Entity {id: $entity_id})<-[:DERIVED_FROM {op: 'parent'}]-(e:Entity:Artificial)
  RETURN e.id AS key, e.name + ' (made from it)' AS label
}
RETURN key, label
ORDER BY key
LIMIT $limit

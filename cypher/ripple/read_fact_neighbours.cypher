// One BFS step of ripple analysis: open-ended facts touching some entities, as seen by ONE
// event: source facts it does not retract plus the facts it asserts ($step.event_id null: the
// source graph alone). direction: 'out' (entity is the subject) or 'in' (the object).
// $step: {ids: [entity id], event_id}, one map: Neo4j's plan cache is keyed on a parameter's
// type and a list's size bucket, so a null event id against a string, and every frontier size,
// made a plan each (issue 33).
UNWIND $step.ids AS id
CALL (id) {
  MATCH (f:Fact {subject_id: id})
  RETURN f, 'out' AS direction
  UNION
  MATCH (f:Fact {object_id: id})
  RETURN f, 'in' AS direction
}
WITH id, f, direction
WHERE f.end_year IS NULL
  AND ((coalesce(f.layer, 'source') <> 'edit'
        AND NOT EXISTS { MATCH (:Event {id: $step.event_id})-[:RETRACTS]->(f) })
       OR EXISTS { MATCH (:Event {id: $step.event_id})-[:ASSERTS]->(f) })
MATCH (s:Entity {id: f.subject_id})
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
OPTIONAL MATCH (rel:Relation {id: f.relation})
RETURN id AS via, direction, f.id AS fact_id, f.subject_id AS subject_id, s.name AS subject,
       f.relation AS relation, coalesce(f.relation_label, rel.label) AS relation_label, o.id AS object_id,
       coalesce(o.name, f.value) AS object,
       coalesce(f.layer, 'source') AS layer, coalesce(f.unknown, false) AS unknown
ORDER BY via, fact_id

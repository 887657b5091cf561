// Questions of an event benchmark, linked to their event: (:Question)-[:TESTS]->(:Event).
// $rows: [{id, event_id, props:{benchmark, task, scope, relation, item (JSON), ...}}]
UNWIND $rows AS row
MATCH (e:Event {id: row.event_id})
MERGE (q:Question {id: row.id})
SET q += row.props
MERGE (q)-[:TESTS]->(e)

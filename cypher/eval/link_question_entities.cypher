// (:Question)-[:ABOUT]->(:Entity), only for entities that exist in the graph.
UNWIND $rows AS row
MATCH (q:Question {id: row.question_id})
MATCH (e:Entity {id: row.entity_id})
MERGE (q)-[:ABOUT]->(e)

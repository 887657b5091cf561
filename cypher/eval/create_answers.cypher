// (:Run)-[:GAVE]->(:Answer)-[:ANSWERS]->(:Question), one Answer per sample.
MATCH (r:Run {id: $run_id})
UNWIND $rows AS row
MATCH (q:Question {id: row.question_id})
MERGE (a:Answer {id: row.id})
SET a += row.props
MERGE (r)-[:GAVE]->(a)
MERGE (a)-[:ANSWERS]->(q)

// (:Run)-[:GAVE_VARIANT]->(:Answer {variant})-[:ANSWERS]->(:Question): answers to a prompt a
// solver derived from the question in memory (the question without an edit, another setting).
// They sit apart from GAVE, so reports and slices of the run count only its own answers.
MATCH (r:Run {id: $run_id})
// $batch.rows: the rows of eval/create_answers.
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (q:Question {id: row.question_id})
MERGE (a:Answer {id: row.id})
SET a += row.props
MERGE (r)-[:GAVE_VARIANT]->(a)
MERGE (a)-[:ANSWERS]->(q)

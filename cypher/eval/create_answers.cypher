// (:Run)-[:GAVE]->(:Answer)-[:ANSWERS]->(:Question), one Answer per sample.
// row.props: raw, parsed, score, sample_index, error, cached, cache_key, finish_reason, prompt
// (the text sent) and explanation (the scorer's reason for the score).
MATCH (r:Run {id: $run_id})
// $batch.rows: [{id, question_id, props}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (q:Question {id: row.question_id})
MERGE (a:Answer {id: row.id})
SET a += row.props
MERGE (r)-[:GAVE]->(a)
MERGE (a)-[:ANSWERS]->(q)

// Create-only writer of a NEW run's answers (its id was just made, so none of them exists):
// the nodes and links of eval/create_answers with CREATE in place of MERGE, which looks every
// answer and both its links up first (benchmarks/answer_write.py measures the difference).
// $batch.rows: the rows of eval/create_answers. $batch.ids: the id of the batch's first row (Store.write_new
// with first_key_only: a batch is one transaction, so all of its answers exist or none does; a
// batch that is somehow in part there is refused by the answer_id constraint, never doubled).
// If it is already an Answer (a run recorded again), nothing is written and the caller sends
// the same rows to eval/create_answers, so nothing is doubled.
OPTIONAL MATCH (old:Answer)
WHERE old.id IN $batch.ids
WITH count(old) AS existing
WHERE existing = 0
MATCH (r:Run {id: $run_id})
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (q:Question {id: row.question_id})
CREATE (a:Answer {id: row.id})
SET a += row.props
CREATE (r)-[:GAVE]->(a)
CREATE (a)-[:ANSWERS]->(q)

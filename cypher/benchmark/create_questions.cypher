// Create-only writer of the questions of a NEW batch (KnowGen: generate refuses an existing
// batch), the same nodes and links as benchmark/upsert_questions with CREATE in place of MERGE
// and the properties set once: MERGE looks each node and link up first, and that was most of
// the server's time for ~36 questions per entity.
// $batch.rows: the rows of upsert_questions, with distinct ids in fact_ids/entity_ids/event_ids.
// $batch.ids: the rows' ids. If any of them is already a question (a re-run after a crash), nothing
// is written and the caller sends the same rows to benchmark/upsert_questions.
OPTIONAL MATCH (old:Question)
WHERE old.id IN $batch.ids
WITH count(old) AS existing
WHERE existing = 0
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
CREATE (q:Question {id: row.id})
SET q += row.props
WITH q, row
CALL (q, row) {
  MATCH (b:Benchmark {id: row.benchmark})
  CREATE (q)-[:IN_BENCHMARK]->(b)
}
CALL (q, row) {
  UNWIND row.fact_ids AS fact_id
  MATCH (f:Fact {id: fact_id})
  CREATE (q)-[:TESTS]->(f)
}
CALL (q, row) {
  UNWIND row.event_ids AS event_id
  MATCH (e:Event {id: event_id})
  CREATE (q)-[:TESTS]->(e)
}
CALL (q, row) {
  UNWIND row.entity_ids AS entity_id
  MATCH (e:Entity {id: entity_id})
  CREATE (q)-[:ABOUT]->(e)
}

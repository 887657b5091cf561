// The one writer of (:Question) nodes, for every method and for the eval engine.
// $batch.rows: [{id, benchmark, props:{benchmark, task, form, text, context, choices, answers,
//          answer_index, unknown, scorer, schema_version, item_json, metadata_json,
//          slice_<key>..., <method props>...}, fact_ids:[..], entity_ids:[..], event_ids:[..]}]
// $overwrite: a generator rewrites its questions; the eval engine (false) only creates the
// questions of file benchmarks and never rewrites a generated question with, e.g., the
// context an editing solver put in.
// Links go only to nodes that exist: IN_BENCHMARK, TESTS (a fact or an event), ABOUT (an entity).
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (q:Question {id: row.id})
ON CREATE SET q += row.props
WITH q, row
CALL (q, row) {
  WITH q, row WHERE $overwrite
  SET q += row.props
}
CALL (q, row) {
  MATCH (b:Benchmark {id: row.benchmark})
  MERGE (q)-[:IN_BENCHMARK]->(b)
}
CALL (q, row) {
  UNWIND row.fact_ids AS fact_id
  MATCH (f:Fact {id: fact_id})
  MERGE (q)-[:TESTS]->(f)
}
CALL (q, row) {
  UNWIND row.event_ids AS event_id
  MATCH (e:Event {id: event_id})
  MERGE (q)-[:TESTS]->(e)
}
CALL (q, row) {
  UNWIND row.entity_ids AS entity_id
  MATCH (e:Entity {id: entity_id})
  MERGE (q)-[:ABOUT]->(e)
}

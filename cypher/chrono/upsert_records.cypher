// ChroKnowBench records (one per subject and relation: the objects of every year) of one
// benchmark, each pointing at its benchmark and at the facts it was built from.
// $batch.rows: [{id, benchmark, fact_ids:[..], props:{record_json, relation, change, split, domain,
//          subject, years, record_id}}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (r:ChronoRecord {id: row.id})
SET r += row.props, r.benchmark = row.benchmark
WITH r, row
MATCH (b:Benchmark {id: row.benchmark})
MERGE (r)-[:IN_BENCHMARK]->(b)
WITH r, row
CALL (r, row) {
  UNWIND row.fact_ids AS fact_id
  MATCH (f:Fact {id: fact_id})
  MERGE (r)-[:TESTS]->(f)
}

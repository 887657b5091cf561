// A line of a released file that is not a question (new_terms.jsonl, term_generation.jsonl),
// kept exactly (record_json) so that an export writes the file back byte for byte.
// $batch.rows: [{id, benchmark, file, line, record_json, term_id}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (r:ReleaseRecord {id: row.id})
SET r.benchmark = row.benchmark, r.file = row.file, r.line = row.line, r.record_json = row.record_json
WITH r, row
MATCH (b:Benchmark {id: row.benchmark})
MERGE (r)-[:IN_BENCHMARK]->(b)

// Each per-year item (a Question) is PART_OF the record it was made from.
// $batch.rows: [{question_id, record_id}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (q:Question {id: row.question_id})
MATCH (r:ChronoRecord {id: row.record_id})
MERGE (q)-[:PART_OF]->(r)

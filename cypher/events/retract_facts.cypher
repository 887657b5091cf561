// An event retracts facts with an edge; the retracted fact itself is left untouched.
// $batch.rows: [{event_id, fact_id, until}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (e:Event {id: row.event_id})
MATCH (f:Fact {id: row.fact_id})
MERGE (e)-[r:RETRACTS]->(f)
SET r.until = row.until

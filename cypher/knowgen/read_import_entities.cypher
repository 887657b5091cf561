// The artificial entities of an imported ALCUNA batch with their records as released, in the
// order of meta_data.jsonl (for exporting the release back).
MATCH (b:Batch {id: $batch})<-[:IN_BATCH]-(e:Entity:Artificial)
RETURN e.id AS id, e.alcuna_id AS alcuna_id, e.release_json AS release_json
ORDER BY e.release_line, e.id

// Facts already in the graph with the same subject and object: their HAS_FACT and OBJECT
// edges were written with them, so only properties can change; set them. Returns the rows
// it left alone: new facts (new = true) and facts whose subject or object differs, which the
// fact writer sends to create_facts and upsert_facts.
// $batch.rows: [{id, subject_id, object_id?, props}] without release years (those need upsert_facts);
// the writer sends its whole rows, whose other keys this statement does not read.
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
OPTIONAL MATCH (f:Fact {id: row.id})
WITH row, f, (f IS NOT NULL AND f.subject_id = row.subject_id
              AND coalesce(f.object_id, '') = coalesce(row.object_id, '')) AS same
FOREACH (_ IN CASE WHEN same THEN [1] ELSE [] END | SET f += row.props)
WITH row, f, same WHERE NOT same
RETURN row.id AS id, f IS NULL AS new

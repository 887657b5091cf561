// Idempotent fact upsert (relation and attribute facts).
// $batch.rows: [{id, subject_id, subject_name, object_id?, object_name?, props:{...}, seen_in?:[int]}]
// A subject or object not loaded yet becomes a stub entity that a later load completes.
// seen_in (release years) accumulates across loads, so loading release 2021 then 2022
// gives first_seen 2021 / last_seen 2022 and reloading either changes nothing.
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (s:Entity {id: row.subject_id})
  ON CREATE SET s.name = coalesce(row.subject_name, row.subject_id), s.stub = true
MERGE (f:Fact {id: row.id})
SET f += row.props, f.subject_id = row.subject_id
WITH s, f, row
CALL (f, row) {
  WITH f, row WHERE row.seen_in IS NOT NULL
  WITH f, COLLECT { UNWIND coalesce(f.seen_in, []) + row.seen_in AS y
                    WITH DISTINCT y ORDER BY y RETURN y } AS years
  SET f.seen_in = years, f.first_seen = years[0], f.last_seen = years[-1],
      f.start_year = years[0], f.end_year = years[-1]
}
MERGE (s)-[:HAS_FACT]->(f)
WITH f, row WHERE row.object_id IS NOT NULL
MERGE (o:Entity {id: row.object_id})
  ON CREATE SET o.name = coalesce(row.object_name, row.object_id), o.stub = true
SET f.object_id = row.object_id
MERGE (f)-[:OBJECT]->(o)

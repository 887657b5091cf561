// Idempotent entity upsert. $batch.rows: [{id, labels:[allow-listed], props:{name, aliases, ...}}]
// Labels are validated in Python (kg/cypher.py ALLOWED_LABELS) before they reach here.
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (e:Entity {id: row.id})
SET e += row.props, e.stub = false
SET e:$(row.labels)

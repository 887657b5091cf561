// Idempotent entity upsert. $rows: [{id, labels:[allow-listed], props:{name, aliases, ...}}]
// Labels are validated in Python (kg/cypher.py ALLOWED_LABELS) before they reach here.
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
SET e += row.props, e.stub = false
SET e:$(row.labels)

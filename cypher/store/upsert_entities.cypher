// Idempotent entity upsert. $batch.rows: [{id, labels:[allow-listed], props:{name, aliases, ...}}]
// Labels are validated in Python (kg/cypher.py ALLOWED_LABELS) before they reach here.
// The rows travel in one map: Neo4j's plan cache is keyed on a list parameter's size bucket,
// so batches of every size made a plan each (issue 33).
UNWIND $batch.rows AS row
MERGE (e:Entity {id: row.id})
SET e += row.props, e.stub = false
SET e:$(row.labels)

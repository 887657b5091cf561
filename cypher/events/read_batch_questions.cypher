// The questions of one event batch in a stable order (event seq, then question id).
MATCH (q:Question)-[:TESTS]->(e:Event)
WHERE e.batch = $batch
RETURN e.id AS event_id, e.seq AS seq, q.id AS id, q.item_json AS item_json
ORDER BY seq, id
